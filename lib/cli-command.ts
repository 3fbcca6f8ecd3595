// How a person runs this CLI after the README's set-up (`npm ci`, no global install), for every printed hint and
// command that names it: `npx openclaw-rl …` inside the package folder, `npx --prefix <folder> openclaw-rl …` elsewhere.
import path from "node:path";
import { fileURLToPath } from "node:url";

/** The command as the README's set-up provides it (npx finds the package's own bin from its folder or below). */
export const CLI = "npx openclaw-rl";

const PACKAGE_ROOT = path.resolve(path.dirname(fileURLToPath(import.meta.url)), "..");

/** `npx openclaw-rl <args>` that works when pasted in `cwd`: outside the package folder npx is pointed at it. */
export function cliCommand(args: string, cwd = process.cwd(), packageRoot = PACKAGE_ROOT): string {
  const relative = path.relative(packageRoot, cwd);
  const inside = relative === "" || (!relative.startsWith("..") && !path.isAbsolute(relative));
  return inside ? `${CLI} ${args}` : `npx --prefix ${shellWord(packageRoot)} openclaw-rl ${args}`;
}

/** A path as one shell word: as is when plain, else single-quoted. */
export function shellWord(text: string): string {
  return /^[\w@%+=:,./-]+$/.test(text) ? text : `'${text.replace(/'/g, `'\\''`)}'`;
}

/** A path as printed for pasting in `cwd`: relative when inside it, else absolute. */
export function pastablePath(file: string, cwd = process.cwd()): string {
  const absolute = path.resolve(cwd, file);
  const relative = path.relative(cwd, absolute);
  return shellWord(relative && !relative.startsWith("..") && !path.isAbsolute(relative) ? relative : absolute);
}
