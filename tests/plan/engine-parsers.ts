// The real slime parsers as test fixtures: option strings per parser (fork with Megatron, fork with FSDP, upstream)
// and the choice lists of the options our plans pass. Only reads fixtures; which plan meets which parser is the test's.
import { readFileSync } from "node:fs";
import path from "node:path";
import { REPO_ROOT } from "../golden/golden-plan.ts";

export type ParserName = "fork" | "fork-fsdp" | "upstream";

function fixture<T>(name: string): T {
  return JSON.parse(readFileSync(path.join(REPO_ROOT, "tests", "fixtures", name), "utf8")) as T;
}

const flags = fixture<{ _source: string; fork: string[]; upstream: string[] }>("engine-flags.json");
const fsdp = fixture<{ _source: string; options: string[] }>("engine-fsdp-flags.json");
const choices = fixture<Record<ParserName, Record<string, { choices: string[]; at: string }>>>("engine-option-choices.json");
export const SGLANG_PARSERS = fixture<Record<"fork" | "upstream", { deprecatedToolCallParsers: Record<string, string>; toolCallParsers: string[] }>>("sglang-parsers.json");

export const OPTIONS: Record<ParserName, ReadonlySet<string>> = {
  fork: new Set(flags.fork),
  "fork-fsdp": new Set(fsdp.options),
  upstream: new Set(flags.upstream),
};

/** Every way `argv` (train_async.py's arguments) would not get through the parser: unknown options, bad choices. */
export function parserProblems(parser: ParserName, argv: string[]): string[] {
  const problems: string[] = [];
  for (let index = 0; index < argv.length; index++) {
    const token = argv[index]!;
    if (!token.startsWith("--")) {
      problems.push(`${token} at position ${index} follows a value, not an option`);
      continue;
    }
    if (!OPTIONS[parser].has(token)) problems.push(`${token}: not an option of the ${parser} parser`);
    const next = argv[index + 1];
    const hasValue = next !== undefined && !next.startsWith("--");
    const choice = choices[parser][token];
    if (choice && (!hasValue || !choice.choices.includes(next))) {
      problems.push(`${token} ${hasValue ? next : "(no value)"}: not one of ${choice.choices.join(", ")} (${choice.at})`);
    }
    if (hasValue) index++;
  }
  return problems;
}
