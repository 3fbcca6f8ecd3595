// Python's JSON (lib/model/python-json.ts) held against Python itself: Debian's /usr/bin/python3 decodes each text as
// SGLang decodes tool-call arguments (orjson's rules, tests/support/transformers_chat_template.py) and dumps it as
// transformers' tojson does; no expected value here is written by hand.
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { decodePythonJson, dumpPythonJson, type DumpOptions } from "../../lib/model/python-json.ts";
import { NUMBER_SPELLINGS, randomDoubleText, randomJsonText } from "../support/json-texts.ts";
import { seededRandom } from "../support/seeded-random.ts";
import { TransformersRenderer, type JsonRequest, type RenderAnswer } from "../support/transformers-renderer.ts";

let python: TransformersRenderer;
beforeAll(() => {
  python = new TransformersRenderer();
});
afterAll(() => python.close());

function ours(request: JsonRequest): RenderAnswer {
  const dumps = request.dumps ?? {};
  const options: DumpOptions = { ensureAscii: dumps.ensure_ascii, indent: dumps.indent, separators: dumps.separators, sortKeys: dumps.sort_keys };
  try {
    return { text: dumpPythonJson(decodePythonJson(request.json), options) };
  } catch (error) {
    return { error: (error as Error).name };
  }
}

/** Python's answer with the exception's text left out: both sides must fail on the same texts, in their own words. */
function failureKind(answer: RenderAnswer): RenderAnswer {
  return "error" in answer ? { error: "SyntaxError" } : answer;
}

async function compare(requests: JsonRequest[]): Promise<{ identical: number; failed: number }> {
  const reference = await python.renderAll(requests);
  const mismatches = requests.flatMap((request, index) => {
    const expected = failureKind(reference[index]!);
    const actual = ours(request);
    return JSON.stringify(expected) === JSON.stringify(actual) ? [] : [{ request, python: reference[index], ours: actual }];
  });
  expect(mismatches.slice(0, 5)).toEqual([]);
  return { identical: requests.length - mismatches.length, failed: reference.filter((answer) => "error" in answer).length };
}

describe("decodePythonJson + dumpPythonJson", () => {
  it("read and print every number spelling as SGLang's orjson.loads and json.dumps do (1.0 stays 1.0, big ints exact)", async () => {
    const requests = NUMBER_SPELLINGS.flatMap((spelling) => [{ json: spelling }, { json: `[${spelling}]` }, { json: `{"n": ${spelling}}` }]);
    const { identical } = await compare(requests);
    expect(identical).toBe(requests.length);
    // where JSON.parse + JSON.stringify would have printed something else (what the module exists for)
    const reference = await python.renderAll(NUMBER_SPELLINGS.map((json) => ({ json })));
    const javascriptWouldDiffer = NUMBER_SPELLINGS.filter((spelling, index) => JSON.stringify(JSON.parse(spelling)) !== (reference[index] as { text: string }).text);
    expect(javascriptWouldDiffer.length).toBeGreaterThan(10);
  });

  it("print 3000 random doubles as Python's float repr does", async () => {
    const random = seededRandom(7);
    const requests = Array.from({ length: 30 }, () => ({ json: `[${Array.from({ length: 100 }, () => randomDoubleText(random)).join(",")}]` }));
    await compare(requests);
  });

  it("decode and dump 1500 random JSON texts with every tojson option as Python does", async () => {
    const random = seededRandom(11);
    const requests: JsonRequest[] = Array.from({ length: 1500 }, () => ({
      json: randomJsonText(random),
      dumps: {
        ensure_ascii: random.chance(0.3),
        indent: random.pick([null, null, 0, 2, 4, "\t", "--", -1]),
        separators: random.pick([null, null, [",", ":"], [", ", ": "], [" ,", " : "]]),
        sort_keys: random.chance(0.3),
      },
    }));
    await compare(requests);
  });

  it("refuse what orjson refuses, and only that", async () => {
    const texts = [
      "NaN", "Infinity", "-Infinity", "1e400", "-1e400", '"\\ud800"', '"\\udc00"', '"\\ud83d"', '"\\ud83d\\u0041"', '"\ud800"', '"\u0001"', "[1,]",
      "{'a': 1}", "01", "+1", ".5", "1.", "1e", "-", "[1] 2", "", " ", "tru", '{"a" 1}', '{"a":1,}', '"\\x41"', '"\\u12"', "[", '"abc',
      "1e308", "-0", "[]", "{}", ' \n\t{"a" : [ ] }\r\n', '"\\ud83d\\ude42"', '"\ud83d\ude42"',
    ];
    const { identical, failed } = await compare(texts.map((json) => ({ json })));
    expect(identical).toBe(texts.length);
    expect(failed).toBe(texts.length - 7); // the last seven are JSON
  });
});
