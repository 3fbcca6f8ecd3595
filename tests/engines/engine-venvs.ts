// Where tests/engines/prepare.sh puts the real engines' virtual environments (pinned, under .cache/, ignored by git),
// per slime flavour: the SGLang release PyPI has nearest the one the flavour's image pins, with the transformers that
// release pins. Ignores installing (prepare.sh) and what each test does with them.
import { existsSync } from "node:fs";
import path from "node:path";

const ROOT = path.join(import.meta.dirname, "..", "..");

export interface SglangVenv {
  /** The slime flavour whose SGLang it stands for. */
  flavor: "fork" | "upstream";
  sglang: string;
  /** Why this release, in a line (the pinned engine and how near PyPI comes). */
  stands: string;
  python: string;
  /** transformers' version in the venv (the one that SGLang release pins). */
  transformers: string;
  /** SGLang's own tokenizer loader is importable (it needs torch, installed only where the parsers need it too). */
  sglangTokenizerLoader: boolean;
}

export const SGLANG_VENVS: readonly SglangVenv[] = [
  {
    flavor: "fork",
    sglang: "0.5.7",
    stands: "the fork's image pins nightly dce8b060 (2026-01-07); 0.5.7 (2026-01-01) is the last release before it",
    python: venvPython("venv-sglang-0.5.7"),
    transformers: "4.57.1",
    sglangTokenizerLoader: false,
  },
  {
    flavor: "upstream",
    sglang: "0.5.15.post1",
    stands: "upstream slime 624b824a pins v0.5.15.post1 itself (the audit's sources are 4ad990ba, 2026-08-06, a little newer)",
    python: venvPython("venv-sglang-0.5.15.post1"),
    transformers: "5.12.1",
    sglangTokenizerLoader: true,
  },
];

export const RAY_PYTHON = venvPython("venv-ray");

export function venvPython(name: string): string {
  return path.join(ROOT, ".cache", name, "bin", "python");
}

/** The interpreter, or an error that says how to make it (a missing venv fails the test: it is never skipped). */
export function requireVenv(python: string): string {
  if (!existsSync(python)) throw new Error(`${python} is missing: run \`bash tests/engines/prepare.sh\` (npm run test:engines does)`);
  return python;
}
