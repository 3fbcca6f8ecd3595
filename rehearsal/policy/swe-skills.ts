// What the stand-in policy knows of fixing code, for the SWE environment's tiny repositories: which file a failing
// test tests (test_X.py tests X.py), and the usual suspects of a one-line bug in it — a comparison one off (`<` for
// `<=`, `-gt` for `-ge`), a ` + 1` or ` - 1` too many, a range that stops one short — as candidate edits in the
// file's order. Fixed knowledge, as a model's is: the first suspect is often wrong; what the stand-in learns is to run
// the tests before it submits (agent-approach.ts). Text only.

export interface CandidateFix {
  path: string;
  /** One whole line of the file, as it is (occurs once in it). */
  oldText: string;
  newText: string;
}

type Rule = [pattern: RegExp, replacement: string];

const PYTHON_RULES: Rule[] = [
  [/<=/g, "<"],
  [/(?<![<>=!-])<(?![<=])/g, "<="],
  [/>=/g, ">"],
  [/(?<![<>=!-])>(?![>=])/g, ">="],
  [/ \+ 1\b/g, ""],
  [/ - 1\b/g, ""],
  [/range\(([^(),]+), ([^(),]+)\)/g, "range($1, $2 + 1)"],
];

const SHELL_RULES: Rule[] = [
  [/ -lt /g, " -le "],
  [/ -le /g, " -lt "],
  [/ -gt /g, " -ge "],
  [/ -ge /g, " -gt "],
];

/** The file a repository's tests test: for `test_X.ext` among the files, X.ext; null when there is none such. */
export function moduleUnderTest(files: readonly string[]): string | null {
  for (const file of files) {
    const tested = /^test_(.+)$/.exec(file)?.[1];
    if (tested && files.includes(tested)) return tested;
  }
  return null;
}

/** The file list the SWE environment's first message gives (`Files: a.py, test_a.py`). */
export function listedFiles(message: string): string[] {
  const line = /^Files: (.+)$/m.exec(message)?.[1];
  return line ? line.split(", ").map((file) => file.trim()).filter((file) => file.length > 0) : [];
}

/**
 * The suspects of `content` (the file at `path`), in the file's order: each rule at each place it matches on a code
 * line (not a comment or docstring line; a line the file holds twice is left out: an edit could not name it).
 */
export function candidateFixes(path: string, content: string): CandidateFix[] {
  const rules = path.endsWith(".sh") ? SHELL_RULES : path.endsWith(".py") ? PYTHON_RULES : [];
  const lines = content.split("\n");
  const fixes: CandidateFix[] = [];
  for (const line of lines) {
    const code = line.trim();
    if (code === "" || code.startsWith("#") || code.startsWith('"""') || lines.filter((other) => other === line).length > 1) continue;
    const found: Array<{ at: number; newText: string }> = [];
    for (const [pattern, replacement] of rules) {
      for (const match of line.matchAll(pattern)) {
        const at = match.index;
        found.push({ at, newText: line.slice(0, at) + match[0].replace(new RegExp(pattern.source), replacement) + line.slice(at + match[0].length) });
      }
    }
    for (const { newText } of found.sort((a, b) => a.at - b.at)) fixes.push({ path, oldText: line, newText });
  }
  return fixes;
}
