// JsonPrefix: what it streams of tool-call arguments is always a prefix of Python's json.dumps(json.loads(text),
// ensure_ascii=False), grows only, and is all of it once the object closes; seeded random texts (spacing, escapes,
// number spellings Python reads its own way) cut at every length, and the cases where it must wait.
import { describe, expect, it } from "vitest";
import { decodePythonJson, dumpPythonJson } from "../../../lib/model/python-json.ts";
import { JsonPrefix } from "../../../lib/model/parsers/tool-formats/json-prefix.ts";
import { randomJsonObjectText } from "../../support/json-texts.ts";
import { seededRandom } from "../../support/seeded-random.ts";

const dumped = (text: string): string => dumpPythonJson(decodePythonJson(text));

/** The prefixes for each length of `text`, fed in one reader (as a stream grows) and each from a fresh one. */
function prefixes(text: string): string[] {
  const reader = new JsonPrefix();
  return Array.from({ length: text.length + 1 }, (_, length) => {
    const grown = reader.extend(text.slice(0, length));
    expect(new JsonPrefix().extend(text.slice(0, length)), `fresh at ${length}`).toBe(grown);
    return grown;
  });
}

describe("JsonPrefix", () => {
  it("streams only what the final re-serialisation starts with, growing, and all of it at the close (600 seeded texts)", () => {
    const random = seededRandom(7);
    let repeated = 0;
    for (let round = 0; round < 600; round++) {
      const text = randomJsonObjectText(random, 3) + random.pick(["", "\n", "\n```", "<｜tool▁call▁end｜>"]);
      const json = text.replace(/(\n```|<｜tool▁call▁end｜>)$/, "");
      let final: string;
      try {
        final = dumped(json);
      } catch {
        continue; // (a number orjson refuses: nothing to compare with)
      }
      const all = prefixes(text);
      const last = all.at(-1)!;
      for (let length = 1; length < all.length; length++) expect(all[length]!.startsWith(all[length - 1]!), `${JSON.stringify(text)} at ${length}`).toBe(true);
      if (last !== final) {
        repeated++; // a repeated key: Python moves its last value to the first position; the prefix stopped there
        expect(final.startsWith(last) || /"([^"]*)"\s*:[\s\S]*"\1"\s*:/.test(json), JSON.stringify(text)).toBe(true);
        continue;
      }
      for (const [length, prefix] of all.entries()) expect(final.startsWith(prefix), `${JSON.stringify(text)} at ${length}: ${prefix}`).toBe(true);
    }
    expect(repeated).toBeLessThan(200);
  });

  it("waits for a number's delimiter, a whole literal, a whole escape and both halves of a surrogate pair", () => {
    const at = (text: string) => new JsonPrefix().extend(text);
    expect(at('{"a": 1')).toBe('{"a": ');
    expect(at('{"a": 1e')).toBe('{"a": ');
    expect(at('{"a": 1e5,')).toBe('{"a": 100000.0');
    expect(at('{"a": tr')).toBe('{"a": ');
    expect(at('{"a": true')).toBe('{"a": true');
    expect(at('{"a": "caf\\u00')).toBe('{"a": "caf');
    expect(at('{"a": "caf\\u00e9')).toBe('{"a": "café');
    expect(at('{"a": "\\ud83d')).toBe('{"a": "');
    expect(at('{"a": "\\ud83d\\ude4')).toBe('{"a": "');
    expect(at('{"a": "\\ud83d\\ude42 x')).toBe('{"a": "🙂 x');
    expect(at('{"a": "\ud83d')).toBe('{"a": "');
    expect(at('{"a": "tab\\t and \\/ \\"q\\"')).toBe('{"a": "tab\\t and / \\"q\\"');
    expect(at('{"a": "x", ')).toBe('{"a": "x"'); // (the separator goes out with the next key)
    expect(at('{"a": "x", "b')).toBe('{"a": "x"');
    expect(at('{"a": "x", "b"')).toBe('{"a": "x", "b": ');
    expect(at('{"a": [1 ,2')).toBe('{"a": [1, ');
    expect(at('{ }  trailing')).toBe("{}");
  });

  it("stops at a repeated key and at text that cannot be valid JSON", () => {
    const at = (text: string) => new JsonPrefix().extend(text);
    expect(at('{"a": 1, "a": 2}')).toBe('{"a": 1');
    expect(at('{"a": {"b": 1, "b": 2}, "c": 3}')).toBe('{"a": {"b": 1');
    expect(at('{"a": "x\ny"}')).toBe('{"a": "x');
    expect(at('{"a": \'x\'}')).toBe('{"a": ');
    expect(at('{"a": 01}')).toBe('{"a": ');
    expect(at('{"a": "\\ude42"}')).toBe('{"a": "');
    expect(at('["a"]')).toBe("");
  });

  it("knows where the object ends in the text and where the outer members' values lie", () => {
    const reader = new JsonPrefix();
    reader.extend('{"name": "get_weather", "parameters": {"city": "Par');
    expect(reader.end).toBe(-1);
    const [name, parameters] = reader.members;
    expect(reader.prefix.slice(name!.from, name!.to)).toBe('"get_weather"');
    expect(parameters).toMatchObject({ key: "parameters", to: -1 });
    expect(reader.prefix.slice(parameters!.from)).toBe('{"city": "Par');
    const text = '{"name": "get_weather", "parameters": {"city": "Paris"}}; {"name"';
    reader.extend(text);
    expect(reader.end).toBe(text.indexOf(";"));
    expect(reader.prefix.slice(parameters!.from, reader.members[1]!.to)).toBe('{"city": "Paris"}');
  });
});
