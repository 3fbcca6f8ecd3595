// Python's strip family (lib/model/python-strip.ts) in TransformersTemplate, held against Python itself: Debian's
// /usr/bin/python3 and python3-jinja2 answer the same calls, so no expected value here is written by hand.
import { execa } from "execa";
import { Template } from "@huggingface/jinja";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { stripPython } from "../../lib/model/python-strip.ts";
import { TransformersTemplate } from "../../lib/model/transformers-template.ts";
import { seededRandom } from "../support/seeded-random.ts";
import { PYTHON, TransformersRenderer, type RenderAnswer } from "../support/transformers-renderer.ts";

const SEPARATOR = "␞";
const METHODS = `{{ s.strip(c) }}${SEPARATOR}{{ s.lstrip(c) }}${SEPARATOR}{{ s.rstrip(c) }}${SEPARATOR}{{ s.strip() }}${SEPARATOR}{{ s.lstrip() }}${SEPARATOR}{{ s.rstrip() }}${SEPARATOR}{{ s | trim }}${SEPARATOR}{{ s | trim(c) }}${SEPARATOR}{{ s.strip(none) }}`;
// whitespace Python and JavaScript disagree on (\x1c-\x1f and \x85 are Python's only, \ufeff is JavaScript's only),
// surrogate pairs that share a high half, combining marks, CJK
const PIECES = ["\n", "\n\n", " ", "\t", "\r\n", "\x0b", "\x1c", "\x1f", "\x85", "\xa0", "\u2028", "\u3000", "\ufeff", "a", "b", "ab", "x y", "🙂", "🙃", "e\u0301", "日本", "<think>", "\\n"];
const CHARACTERS: Array<string | null> = [null, "", "\n", " \n", "\n ", "ab", "ba", "🙂", "\ufeff", "\x85\n", "<>", "\\", "e\u0301", " \t\n\r\x0b\x0c"];

function randomText(random: ReturnType<typeof seededRandom>): string {
  let text = "";
  for (let count = random.below(7); count > 0; count--) text += random.pick(PIECES);
  return text;
}

function jinjaAnswer(template: string, context: Record<string, unknown>, Kind: typeof Template = TransformersTemplate): RenderAnswer {
  try {
    return { text: new Kind(template).render(context) };
  } catch (error) {
    return { error: `${(error as Error).name}: ${(error as Error).message}` };
  }
}

let python: TransformersRenderer;
beforeAll(() => {
  python = new TransformersRenderer();
});
afterAll(() => python.close());

describe("@huggingface/jinja without the layer", () => {
  it("strips all whitespace whatever the argument (drop lib/model/python-strip.ts once this fails)", async () => {
    const context = { s: "\n  answer  \n", c: "\n" };
    const [reference] = await python.renderAll([{ template: "{{ s.strip(c) }}", context }]);
    expect(reference).toEqual({ text: "  answer  " });
    expect(jinjaAnswer("{{ s.strip(c) }}", context, Template)).toEqual({ text: "answer" });
  });

  it("stays so after a TransformersTemplate rendered in the same process: the fix changes no other Template", () => {
    expect(jinjaAnswer("{{ s.strip('\\n') }}|{{ s | trim('\\n') }}", { s: "\n x \n" })).toEqual({ text: " x | x " });
    expect(jinjaAnswer("{{ s.strip('\\n') }}|{{ s | trim }}", { s: "\n x \n" }, Template)).toEqual({ text: "x|x" });
  });
});

describe("TransformersTemplate's strip family", () => {
  it("strips exactly Python's whitespace with no argument, for every code point", async () => {
    const { stdout } = await execa(PYTHON, ["-c", "import json; print(json.dumps([c for c in range(0x110000) if chr(c).isspace()]))"]);
    const whitespace = new Set(JSON.parse(stdout) as number[]);
    expect(whitespace.size).toBeGreaterThan(20);
    const disagree: number[] = [];
    for (let point = 0; point < 0x110000; point++) {
      if (point >= 0xd800 && point <= 0xdfff) continue;
      const character = String.fromCodePoint(point);
      if ((stripPython(`${character}x${character}`, null, "both") === "x") !== whitespace.has(point)) disagree.push(point);
    }
    expect(disagree).toEqual([]);
  });

  it("renders strip, lstrip, rstrip and trim, with and without an argument, as Python's jinja2 does", async () => {
    const random = seededRandom(19);
    const contexts = Array.from({ length: 600 }, () => ({ s: randomText(random), c: random.pick(CHARACTERS) }));
    const reference = await python.renderAll(contexts.map((context) => ({ template: METHODS, context })));
    let argumentMattered = 0; // strip(c) and strip() differ: where the library alone was wrong
    for (const [index, context] of contexts.entries()) {
      const answer = jinjaAnswer(METHODS, context);
      expect(answer, JSON.stringify(context)).toEqual(reference[index]);
      const [withArgument, , , without] = "text" in answer ? answer.text.split(SEPARATOR) : [];
      if (withArgument !== without) argumentMattered++;
    }
    expect(argumentMattered).toBeGreaterThan(100);
  });

  it("fails where Python fails: a non-string argument, two arguments, a keyword", async () => {
    const templates = ["{{ s.strip(1) }}", "{{ s.lstrip('a', 'b') }}", "{{ s.rstrip(chars='a') }}", "{{ s.strip(missing) }}", "{{ s | trim(1) }}", "{{ s | trim(chars='a') }}", "{{ s | trim(bad='a') }}"];
    const reference = await python.renderAll(templates.map((template) => ({ template, context: { s: "aba" } })));
    expect(templates.map((template) => jinjaAnswer(template, { s: "aba" }))).toEqual(reference);
    expect(reference.filter((answer) => "error" in answer)).toHaveLength(templates.length - 1); // trim(chars='a') is fine
  });
});
