// TransformersTemplate held against transformers' own jinja2 environment (Debian's python3-jinja2, set up as
// tests/support/transformers_chat_template.py describes): its tojson in every form, Python-typed values decoded as
// SGLang decodes tool-call arguments, and the globals. No expected value here is written by hand.
import { Template } from "@huggingface/jinja";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { decodePythonJson } from "../../lib/model/python-json.ts";
import { TransformersTemplate } from "../../lib/model/transformers-template.ts";
import { randomJsonObjectText, randomJsonText } from "../support/json-texts.ts";
import { seededRandom } from "../support/seeded-random.ts";
import { TransformersRenderer, type RenderAnswer, type TemplateRenderRequest } from "../support/transformers-renderer.ts";

const TOJSON = [
  "{{ v | tojson }}",
  "{{ v | tojson(indent=2) }}",
  "{{ v | tojson(true) }}",
  "{{ v | tojson(sort_keys=true, separators=(',', ':')) }}",
  "{{ v | tojson(indent='\\t', ensure_ascii=false) }}",
  "{{ v | tojson(false, 0) }}",
  "{{ v | tojson(none, 4, none, true) }}",
].join("␞");
// booleans first: jinja2 counts them as numbers (Python's bool is an int), the library does not (and prints them
// as "true" where Python prints "True"); no template we render prints a boolean or asks whether it is a number
const TYPES =
  "{% for k, x in v.items() %}{{ k }}:{% if x is boolean %}B{% elif x is integer %}I{% elif x is number %}N{% elif x is string %}S{% elif x is mapping %}M{% elif x is none %}0{% else %}O{% endif %};{% endfor %}{{ v | length }}";

let python: TransformersRenderer;
beforeAll(() => {
  python = new TransformersRenderer();
});
afterAll(() => python.close());

type Decoder = (text: string) => unknown;

function ours(request: TemplateRenderRequest, Kind: typeof Template = TransformersTemplate, decode: Decoder = decodePythonJson): RenderAnswer {
  const context = { ...request.context };
  for (const key of request.decode ?? []) context[key] = decode(context[key] as string);
  try {
    return { text: new Kind(request.template).render(context) };
  } catch (error) {
    return { error: `${(error as Error).name}: ${(error as Error).message}` };
  }
}

/** Counts the requests we render as Python does; a failure matches a failure (each side says it in its own words). */
async function identicalCount(requests: TemplateRenderRequest[], Kind: typeof Template = TransformersTemplate, decode?: Decoder): Promise<{ identical: number; mismatches: unknown[] }> {
  const reference = await python.renderAll(requests);
  const mismatches = requests.flatMap((request, index) => {
    const expected = reference[index]!;
    const actual = ours(request, Kind, decode);
    const same = "error" in expected ? "error" in actual : JSON.stringify(expected) === JSON.stringify(actual);
    return same ? [] : [{ request, python: expected, ours: actual }];
  });
  return { identical: requests.length - mismatches.length, mismatches: mismatches.slice(0, 3) };
}

describe("TransformersTemplate", () => {
  it("prints tojson in every form transformers accepts, for values decoded as SGLang decodes arguments and for plain ones", async () => {
    const random = seededRandom(5);
    const texts = Array.from({ length: 300 }, () => randomJsonText(random));
    const decoded = texts.map((text) => ({ template: TOJSON, context: { v: text }, decode: ["v"] }));
    // what a JavaScript client's request body gives: JSON.parse's values, which reach Python as JSON.stringify writes them
    const plain = texts.flatMap((text) => {
      try {
        return [{ template: TOJSON, context: { v: JSON.parse(text) as unknown } }];
      } catch {
        return [];
      }
    });
    const result = await identicalCount([...decoded, ...plain]);
    expect(result.mismatches).toEqual([]);
    // the library's own Template differs on most of them: the layer is what makes them equal
    const library = await identicalCount(decoded, Template);
    expect(library.identical).toBeLessThan(decoded.length / 2);
  });

  it("keeps Python's types and key order in decoded dicts: 1.0 is no integer, '1' comes where it was written", async () => {
    const random = seededRandom(6);
    const requests = Array.from({ length: 300 }, () => ({ template: TYPES, context: { v: randomJsonObjectText(random) }, decode: ["v"] }));
    const result = await identicalCount(requests);
    expect(result.mismatches).toEqual([]);
    // decoded by JSON.parse instead, integral floats turn into integers and integer-like keys move to the front
    const parsed = await identicalCount(requests, TransformersTemplate, JSON.parse);
    expect(parsed.identical).toBeLessThan(requests.length * 0.8);
  });

  it("fails where transformers' tojson fails: unknown or repeated arguments, undefined values, bad separators", async () => {
    const templates = ["{{ v | tojson(indent=2, bad=1) }}", "{{ v | tojson(true, ensure_ascii=true) }}", "{{ missing | tojson }}", "{{ v | tojson(separators=',') }}", "{{ v | tojson(indent=1.5) }}", "{{ v | tojson(1, 2, 3, 4, 5) }}"];
    const result = await identicalCount(templates.map((template) => ({ template, context: { v: { a: [1] } } })));
    expect(result.mismatches).toEqual([]);
    const reference = await python.renderAll(templates.map((template) => ({ template, context: { v: { a: [1] } } })));
    expect(reference.every((answer) => "error" in answer)).toBe(true);
  });

  it("prints values as Python's str() does: in {{ }}, through the string filter and the ~ operator, for decoded and plain values", async () => {
    const STR = "{{ v }}␞{{ v | string }}␞{{ '<' ~ v ~ '>' }}␞{% for k, x in (v.items() if v is mapping else []) %}{{ k }}={{ x }}|{{ x | string }}|{{ x ~ '' }};{% endfor %}";
    const random = seededRandom(8);
    const texts = [
      ...Array.from({ length: 300 }, () => randomJsonText(random)),
      JSON.stringify({ const: true, type: ["string", "null"], q: "it's", both: `"'`, ctl: "a\u0007b\u00adc\u2028d\ud83d\ude42", nl: "x\ny\t\\" }),
      "[1.0, 1e16, 1e-05, -0.0, 12345678901234567890, null, false]",
    ];
    const result = await identicalCount(texts.map((text) => ({ template: STR, context: { v: text }, decode: ["v"] })));
    expect(result.mismatches).toEqual([]);
    const constants = ["{{ true }}|{{ none }}|{{ 1.0 }}|{{ [1, 'a', none] }}|{{ none ~ 'x' }}|{{ missing }}|{{ {'a': (1, 2)} }}"];
    expect((await identicalCount(constants.map((template) => ({ template, context: {} })))).mismatches).toEqual([]);
    // the library's own Template prints JavaScript's forms (true, [1, "a"], nothing for None) for most of them
    const library = await identicalCount(texts.map((text) => ({ template: STR, context: { v: text }, decode: ["v"] })), Template);
    expect(library.identical).toBeLessThan(texts.length / 2);
  });

  it("offers transformers' globals: range as the sandbox limits it, raise_exception, strftime_now", async () => {
    const templates = [
      "{% for i in range(3) %}{{ i }}{% endfor %}|{{ range(1, 10, 3) | list | tojson }}|{{ range(5, 0, -2) | list | tojson }}|{{ range(0) | list | tojson }}",
      "{{ range(200000) | length }}",
      "{{ range(1, 2, 0) | list }}",
      "{{ raise_exception('no such role') }}",
      "{{ strftime_now('%Y-%m-%d') | length }}|{{ strftime_now('%d %b %Y')[2:3] }}",
      "{% if none is none and True is true and true is boolean %}constants{% endif %}",
    ];
    const result = await identicalCount(templates.map((template) => ({ template, context: {} })));
    expect(result.mismatches).toEqual([]);
    expect(ours({ template: templates[3]!, context: {} })).toEqual({ error: "TemplateError: no such role" });
  });
});
