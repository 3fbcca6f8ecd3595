// Sorts the non-e2e test files into the unit and loopback tiers by one static rule over their imports; the unit tier's
// runtime guard (unit-guard.ts) catches what the rule misses. Ignores e2e (its own config) and what a test does at run time.
import { readFileSync, readdirSync } from "node:fs";
import { dirname, join, relative, resolve } from "node:path";

/** A runtime import of a module that starts child processes: execa, child_process, Playwright (Chromium). */
const PROCESS_MODULES = /^\s*import\s+(?!type\b)[^;]*?\bfrom\s+"(?:execa|node:child_process|child_process|playwright-core)"|(?<!typeof\s)\bimport\(\s*"(?:execa|node:child_process|child_process|playwright-core)"\s*\)/m;
/** A socket server started in the file itself: a listen call, or node:net's or node:http's server factory. */
const SERVER_CALLS = /\.listen\(|\bcreateServer\(/;
/** Test files that start something through a path the import scan cannot follow (a computed import), with why. */
export const EXTRA_LOOPBACK: Record<string, string> = {};

/** Relative imports that run code (type-only imports are skipped: they never load the module). */
const RELATIVE_IMPORT = /^\s*(?:import|export)\s+(?!type\b)(?:[^"';]*?\sfrom\s+)?"(\.{1,2}\/[^"]+)"|import\(\s*"(\.{1,2}\/[^"]+)"\s*\)/gm;

export interface Tiers {
  unit: string[];
  loopback: string[];
  /** For each loopback file, the first file on its import path that spawns or listens (the reason, for the report). */
  reasons: Map<string, string>;
}

/** Whether a file's own text spawns a process or starts a server. */
export function startsItself(text: string): boolean {
  return PROCESS_MODULES.test(text) || SERVER_CALLS.test(text);
}

/** The files a file imports by relative path (runtime imports only), resolved to absolute .ts paths. */
function imports(file: string, text: string): string[] {
  const found: string[] = [];
  for (const match of text.matchAll(RELATIVE_IMPORT)) {
    const spec = match[1] ?? match[2];
    if (spec === undefined || !/\.(?:ts|mts|js|mjs)$/.test(spec)) continue;
    found.push(resolve(dirname(file), spec));
  }
  return found;
}

/** The first file reachable from `file` by runtime imports that starts a process or server, or undefined. */
function starter(file: string, memo: Map<string, string | null>, visiting: Set<string>): string | undefined {
  const known = memo.get(file);
  if (known !== undefined) return known ?? undefined;
  if (visiting.has(file)) return undefined;
  visiting.add(file);
  let text: string;
  try {
    text = readFileSync(file, "utf8");
  } catch {
    memo.set(file, null);
    return undefined;
  }
  let found: string | undefined = startsItself(text) ? file : undefined;
  for (const next of found === undefined ? imports(file, text) : []) {
    found = starter(next, memo, visiting);
    if (found !== undefined) break;
  }
  visiting.delete(file);
  memo.set(file, found ?? null);
  return found;
}

/** Every `*.test.ts` under `testsDir`, relative to `root`; e2e and engines (the real engines' venvs, `npm run test:engines`) have configs of their own. */
export function testFiles(root: string, testsDir = "tests"): string[] {
  const out: string[] = [];
  const walk = (dir: string): void => {
    for (const entry of readdirSync(join(root, dir), { withFileTypes: true })) {
      const path = join(dir, entry.name);
      if (entry.isDirectory()) {
        if (path !== join(testsDir, "e2e") && path !== join(testsDir, "engines")) walk(path);
      } else if (entry.name.endsWith(".test.ts")) out.push(path);
    }
  };
  walk(testsDir);
  return out.sort();
}

/** The rule: a test file is loopback when it, or a file it reaches by runtime relative imports, spawns or listens. */
export function classify(root: string): Tiers {
  const memo = new Map<string, string | null>();
  const tiers: Tiers = { unit: [], loopback: [], reasons: new Map() };
  for (const file of testFiles(root)) {
    const reason = EXTRA_LOOPBACK[file] ?? starter(join(root, file), memo, new Set());
    if (reason === undefined) tiers.unit.push(file);
    else {
      tiers.loopback.push(file);
      tiers.reasons.set(file, reason.startsWith(root) ? relative(root, reason) : reason);
    }
  }
  return tiers;
}
