// Every path of this repository named in prose, a comment, a string or a .describe() (docs/*.md, README.md and the
// source files) exists: a rename that leaves a citation behind fails here. Links in markdown: doc-links.test.ts.
import { existsSync, readdirSync, readFileSync } from "node:fs";
import path from "node:path";
import { describe, expect, it } from "vitest";

const root = path.join(import.meta.dirname, "../..");
const TOP = ["bin", "cli", "configs", "contracts", "docs", "environments", "launchers", "lib", "native", "orchestrator", "rehearsal", "tests", "tools"];
const TEXT = /\.(ts|md|py|yaml|yml|sh|js|html)$/;
const SKIP = new Set(["node_modules", ".git", "__pycache__", ".openclaw-rl", "runs", ".cache", ".scratch", ".device", ".whl"]);
/** Paths inside slime's checkout (its tools/ folder), which the conversion commands run there, not here. */
const ELSEWHERE = new Set(["tools/convert_torch_dist_to_hf.py", "tools/convert_fsdp_to_hf.py"]);
const CITED = new RegExp(String.raw`(?<![\w/.@-])((?:${TOP.join("|")})/[\w./-]*\w\.(?:ts|md|py|yaml|yml|json|sh|js|html))(?![\w/])`, "g");

function filesUnder(folder: string): string[] {
  return readdirSync(path.join(root, folder), { withFileTypes: true }).flatMap((entry) => {
    if (SKIP.has(entry.name)) return [];
    const relative = path.posix.join(folder, entry.name);
    return entry.isDirectory() ? filesUnder(relative) : TEXT.test(entry.name) ? [relative] : [];
  });
}

/** The repo paths a text names (`docs/x.md`, tests/a/b.test.ts …), as written. */
function citedPaths(text: string): string[] {
  return [...text.matchAll(CITED)].map((match) => match[1]!);
}

/** A cited path resolves from the repository root, from a folder above the citing file, or from native/ (the Python
 *  package's root, where its code and docs/native.md name tests/…). */
function resolves(cited: string, citingFile: string): boolean {
  if (existsSync(path.join(root, "native", cited))) return true;
  for (let folder = path.posix.dirname(citingFile); ; folder = path.posix.dirname(folder)) {
    if (existsSync(path.join(root, folder, cited))) return true;
    if (folder === "." || folder === "/") return false;
  }
}

const files = ["README.md", ...TOP.filter((folder) => existsSync(path.join(root, folder))).flatMap(filesUnder)];

describe("cited paths", () => {
  it("finds citations the way prose and code write them", () => {
    expect(citedPaths("see docs/status.md, (`tests/rehearsal/a.test.ts`) and \"cli/x.ts\"; not slime/tools/y.py, lib/x")).toEqual(["docs/status.md", "tests/rehearsal/a.test.ts", "cli/x.ts"]);
    expect(resolves("tests/fake_trainer_actor.py", "docs/native.md")).toBe(true);
    expect(resolves("tests/checks.txt", "tests/terminal-rl/dataset/hello-file/run-tests.sh")).toBe(true);
    expect(resolves("docs/status.md", "contracts/status.ts")).toBe(false);
    expect(files).toEqual(expect.arrayContaining(["docs/judging.md", "contracts/status.ts", "tests/docs/cited-paths.test.ts"]));
  });

  it("every repo path cited in docs and source exists", () => {
    const broken: string[] = [];
    for (const file of files) {
      if (file === "tests/docs/cited-paths.test.ts") continue; // (its own examples name missing paths on purpose)
      for (const cited of citedPaths(readFileSync(path.join(root, file), "utf8"))) {
        if (!ELSEWHERE.has(cited) && !resolves(cited, file)) broken.push(`${file}: ${cited}`);
      }
    }
    expect(broken).toEqual([]);
  });
});
