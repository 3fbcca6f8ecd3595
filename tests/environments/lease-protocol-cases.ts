// The cases of tests/fixtures/terminal-rl/lease-protocol-answers.json (the reference's router + pool answers at 0d034dd5,
// file:line each) sent to one lease server: each case's `given` made, its request sent with the side's placeholders put
// in, and the answer's differences from the fixture (or from its `ours`, on our side) listed by case.
import { readFileSync } from "node:fs";
import path from "node:path";
import { expect } from "vitest";

export interface AnswerCase {
  name: string;
  given: "nothing" | "allocated" | "reset" | "closed" | "full";
  route: string;
  method?: "GET" | "POST";
  request?: unknown;
  status: number;
  body: unknown;
  ours?: { body: unknown; why: string };
  source: string[];
}

export const fixture = JSON.parse(readFileSync(path.join(import.meta.dirname, "../fixtures/terminal-rl/lease-protocol-answers.json"), "utf8")) as { commit: string; cases: AnswerCase[] };

/** What a side's environment is given for the fixture's request placeholders. */
export interface Side {
  url: string;
  ours: boolean;
  taskMeta: Record<string, unknown>;
  tool: string;
  toolArguments: Record<string, unknown>;
  raisingArguments: Record<string, unknown>;
}

interface Given {
  lease: string;
  requestId: string;
  held: string[];
}

let requests = 0;

async function send(url: string, route: string, method: string, body: unknown): Promise<{ status: number; json: Record<string, unknown> }> {
  const response = await fetch(`${url}${route}`, method === "GET" ? {} : { method, headers: { "content-type": "application/json" }, body: typeof body === "string" ? body : JSON.stringify(body ?? {}) });
  return { status: response.status, json: (await response.json()) as Record<string, unknown> };
}

/** The fixture's {placeholders} put in: a whole-string placeholder becomes its value, others are replaced in text. */
function fill(value: unknown, side: Side, given: Given): unknown {
  const whole: Record<string, unknown> = { "{task_meta}": side.taskMeta, "{tool_arguments}": side.toolArguments, "{raising_arguments}": side.raisingArguments };
  if (typeof value === "string") {
    if (value in whole) return whole[value];
    return value.replaceAll("{lease}", given.lease).replaceAll("{pool_lease}", given.lease.slice(given.lease.indexOf(":") + 1)).replaceAll("{request_id}", given.requestId).replaceAll("{tool}", side.tool);
  }
  if (Array.isArray(value)) return value.map((item) => fill(item, side, given));
  if (value !== null && typeof value === "object") return Object.fromEntries(Object.entries(value).map(([key, item]) => [key, fill(item, side, given)]));
  return value;
}

const jsonType = (value: unknown): string => (value === null ? "null" : Array.isArray(value) ? "array" : typeof value);

/** Where `actual` differs from the fixture's `expected` ($type, $match and $oneOf read as matchers), one line each. */
function differences(expected: unknown, actual: unknown, at = "body"): string[] {
  if (expected !== null && typeof expected === "object" && !Array.isArray(expected)) {
    const matcher = expected as Record<string, unknown>;
    if ("$type" in matcher) return jsonType(actual) === matcher.$type ? [] : [`${at}: ${JSON.stringify(actual)} is not a ${String(matcher.$type)}`];
    if ("$match" in matcher) return typeof actual === "string" && new RegExp(String(matcher.$match)).test(actual) ? [] : [`${at}: ${JSON.stringify(actual)} does not match ${String(matcher.$match)}`];
    if ("$oneOf" in matcher) return (matcher.$oneOf as unknown[]).includes(actual) ? [] : [`${at}: ${JSON.stringify(actual)} is none of ${JSON.stringify(matcher.$oneOf)}`];
    if (jsonType(actual) !== "object") return [`${at}: ${JSON.stringify(actual)} is not an object`];
    const fields = actual as Record<string, unknown>;
    const keys = new Set([...Object.keys(matcher), ...Object.keys(fields)]);
    return [...keys].flatMap((key) => (key in matcher ? (key in fields ? differences(matcher[key], fields[key], `${at}.${key}`) : [`${at}.${key}: missing`]) : [`${at}.${key}: not expected (${JSON.stringify(fields[key])})`]));
  }
  return JSON.stringify(expected) === JSON.stringify(actual) ? [] : [`${at}: ${JSON.stringify(actual)}, expected ${JSON.stringify(expected)}`];
}

/** Makes the case's `given` on the side's server; for "full", the 429 that ends the filling is the case's answer. */
async function prepare(side: Side, answerCase: AnswerCase): Promise<{ given: Given; answer?: { status: number; json: Record<string, unknown> } }> {
  const given: Given = { lease: "", requestId: `given-${++requests}`, held: [] };
  if (answerCase.given === "nothing") return { given };
  if (answerCase.given === "full") {
    for (let attempt = 0; attempt < 20; attempt++) {
      given.requestId = `full-${++requests}`;
      const answer = await send(side.url, "/allocate", "POST", { task_key: "k:full", request_id: given.requestId });
      if (answer.status !== 200) return { given, answer };
      given.held.push(String(answer.json.lease_id));
    }
    throw new Error("the server never answered that it was full");
  }
  const allocated = await send(side.url, "/allocate", "POST", { task_key: "k:given", request_id: given.requestId });
  given.lease = String(allocated.json.lease_id);
  given.held.push(given.lease);
  if (answerCase.given === "reset") expect((await send(side.url, "/reset", "POST", { lease_id: given.lease, task_meta: side.taskMeta })).json).toEqual(expect.objectContaining({ ok: true }));
  if (answerCase.given === "closed") expect((await send(side.url, "/close", "POST", { lease_id: given.lease })).json).toEqual({ ok: true, found: true });
  return { given };
}

/** Runs every case on one side; the differences, by case name (empty where the side answers as the fixture says). */
export async function runCases(side: Side): Promise<Record<string, string[]>> {
  const found: Record<string, string[]> = {};
  for (const answerCase of fixture.cases) {
    const { given, answer: prepared } = await prepare(side, answerCase);
    const answer = prepared ?? (await send(side.url, answerCase.route, answerCase.method ?? "POST", fill(answerCase.request, side, given)));
    const expected = fill(side.ours && answerCase.ours ? answerCase.ours.body : answerCase.body, side, given);
    found[answerCase.name] = [...(answer.status === answerCase.status ? [] : [`status ${answer.status}, expected ${answerCase.status}`]), ...differences(expected, answer.json)];
    const made = typeof answer.json.lease_id === "string" && answerCase.route === "/allocate" ? [answer.json.lease_id] : [];
    for (const lease of [...given.held, ...made]) await send(side.url, "/close", "POST", { lease_id: lease });
  }
  return found;
}

export const noDifferences = () => Object.fromEntries(fixture.cases.map((answerCase) => [answerCase.name, []]));

