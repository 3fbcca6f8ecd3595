// SGLang's own parser unit tests (tests/fixtures/sglang-parser-tests/, each case citing file:line@commit) run through
// the proxy's answer parsers: the whole output at once, in the test's own chunks, and one character at a time, under
// each slime flavour. A case passes every way, or fails exactly the ways its known difference for that flavour names
// (upstream parses as SGLang 4ad990ba, the tests' own commit; fork as dce8b060, which differs where the reason says).
import { readdirSync, readFileSync, writeFileSync } from "node:fs";
import path from "node:path";
import { afterAll, describe, expect, it } from "vitest";
import type { Tool } from "../../../contracts/chat.ts";
import { createAnswerParser } from "../../../lib/model/parsers/answer-parser.ts";
import type { OutputDelta } from "../../../lib/model/parsers/output-delta.ts";

const folder = path.join(import.meta.dirname, "../../fixtures/sglang-parser-tests");

interface Check {
  path: string;
  at?: "pushed";
  equals?: unknown;
  contains?: string;
  notContains?: string;
  startsWith?: string;
  notEndsWith?: string;
  trimmedStartsWith?: string;
}

interface Case {
  id: string;
  source: string;
  parsers: { toolCall: string | null; reasoning: string | null; forceReasoning: boolean };
  tools?: string;
  text?: string;
  chunks?: string[];
  expect: Check[];
}

interface FamilyFile {
  family: string;
  commit: string;
  /** The flavours whose SGLang the cases are facts of (absent: both; dce8b060's own tests hold the fork's). */
  flavors?: Flavor[];
  tools: Record<string, { source: string; tools: Tool[] }>;
  cases: Case[];
}

interface KnownDifference {
  id: string;
  /** The ways that fail (whole, chunks, chars). */
  ways: Way[];
  reason: string;
}

type Way = "whole" | "chunks" | "chars";

const families = readdirSync(folder)
  .filter((name) => name.endsWith(".json") && !["known-differences.json", "not-applicable.json"].includes(name))
  .map((name) => JSON.parse(readFileSync(path.join(folder, name), "utf8")) as FamilyFile);
const knownFile = JSON.parse(readFileSync(path.join(folder, "known-differences.json"), "utf8")) as Record<Flavor, KnownDifference[]>;
const flavors = ["upstream", "fork"] as const;
type Flavor = (typeof flavors)[number];
const known = Object.fromEntries(flavors.map((flavor) => [flavor, new Map(knownFile[flavor].map((difference) => [difference.id, difference]))])) as Record<Flavor, Map<string, KnownDifference>>;

/** What a run gave: the text of each kind and the calls, as the deltas built them. */
function summarize(deltas: readonly OutputDelta[]): Record<string, unknown> {
  const calls: { name: string; argumentsText: string; arguments?: unknown }[] = [];
  let content = "";
  let reasoning = "";
  for (const delta of deltas) {
    if (delta.kind === "content") content += delta.text;
    else if (delta.kind === "reasoning") reasoning += delta.text;
    else if (delta.kind === "tool-call-start") calls[delta.index] = { name: delta.name, argumentsText: "" };
    else calls[delta.index]!.argumentsText += delta.text;
  }
  for (const call of calls) {
    try {
      call.arguments = JSON.parse(call.argumentsText);
    } catch {
      // not JSON (yet): a check on arguments fails
    }
  }
  return { content, reasoning, calls };
}

function run(family: FamilyFile, testCase: Case, pieces: readonly string[], flavor: Flavor): { pushed: Record<string, unknown>; finished: Record<string, unknown> } {
  const tools = testCase.tools ? family.tools[testCase.tools]!.tools : [];
  const { parser } = createAnswerParser({
    parsers: { toolCallParser: testCase.parsers.toolCall, reasoningParser: testCase.parsers.reasoning },
    tools,
    startsInReasoning: testCase.parsers.forceReasoning,
    flavor,
  });
  const deltas: OutputDelta[] = [];
  for (const piece of pieces) deltas.push(...parser.push(piece));
  const pushed = summarize(deltas);
  deltas.push(...parser.finish());
  return { pushed, finished: summarize(deltas) };
}

function valueAt(result: Record<string, unknown>, dotted: string): unknown {
  let value: unknown = result;
  for (const key of dotted.split(".")) value = value === null || value === undefined ? undefined : (value as Record<string, unknown>)[key];
  return value;
}

/** The checks a result fails, in words (none: it passes). */
function failures(result: { pushed: Record<string, unknown>; finished: Record<string, unknown> }, checks: readonly Check[]): string[] {
  const failed: string[] = [];
  for (const check of checks) {
    const value = valueAt(check.at === "pushed" ? result.pushed : result.finished, check.path);
    const text = typeof value === "string" ? value : null;
    const ok =
      "equals" in check
        ? JSON.stringify(value) === JSON.stringify(check.equals)
        : check.contains !== undefined
          ? text !== null && text.includes(check.contains)
          : check.notContains !== undefined
            ? text !== null && !text.includes(check.notContains)
            : check.startsWith !== undefined
              ? text !== null && text.startsWith(check.startsWith)
              : check.notEndsWith !== undefined
                ? text !== null && !text.endsWith(check.notEndsWith)
                : text !== null && text.trim().startsWith(check.trimmedStartsWith!);
    if (!ok) failed.push(`${check.at ?? "finished"} ${check.path}: ${JSON.stringify(value)} against ${JSON.stringify(check)}`);
  }
  return failed;
}

/** Each way a case is run, with the pieces it is fed in. */
function ways(testCase: Case): [Way, string[]][] {
  const text = testCase.text ?? testCase.chunks!.join("");
  return [["whole", [text]], ...(testCase.chunks ? [["chunks", testCase.chunks] as [Way, string[]]] : []), ["chars", [...text]]];
}

/** Every case's outcome, written to $SGLANG_PARSER_REPORT when it is set (the per-family counts docs/proxy.md gives). */
const outcomes: { flavor: Flavor; family: string; id: string; failing: Way[]; why: string[] }[] = [];

describe("SGLang's parser tests", () => {
  afterAll(() => {
    if (process.env.SGLANG_PARSER_REPORT) writeFileSync(process.env.SGLANG_PARSER_REPORT, JSON.stringify(outcomes, null, 1));
  });

  for (const flavor of flavors) {
    for (const family of families.filter((file) => file.flavors?.includes(flavor) ?? true)) {
      describe(`${flavor}: ${family.family}@${family.commit}`, () => {
        for (const testCase of family.cases) {
          it(`${testCase.id} (${testCase.source})`, () => {
            const failing: Way[] = [];
            const why: string[] = [];
            for (const [way, pieces] of ways(testCase)) {
              const failed = failures(run(family, testCase, pieces, flavor), testCase.expect);
              if (failed.length > 0) {
                failing.push(way);
                why.push(`${way}: ${failed.join("; ")}`);
              }
            }
            outcomes.push({ flavor, family: family.family, id: testCase.id, failing, why });
            const difference = known[flavor].get(testCase.id);
            expect({ failing, why: failing.length > 0 && !difference ? why : [] }).toEqual({ failing: difference?.ways ?? [], why: [] });
          });
        }
      });
    }
  }

  it("names only cases that exist in its known differences, each with a reason", () => {
    const ids = new Set(families.flatMap((family) => family.cases.map((testCase) => testCase.id)));
    for (const flavor of flavors) {
      for (const [id, difference] of known[flavor]) {
        expect(ids.has(id), id).toBe(true);
        expect(difference.reason.length).toBeGreaterThan(20);
      }
    }
  });
});
