// Seeded random tool-call outputs of each family's markup, well formed (arguments without repeated keys), as models
// write them: spacing, escapes, number spellings, values of every schema type, calls to tools not offered, text
// around the calls. For the streaming tests; the tools are parser-formats.md's.
import type { Tool } from "../../contracts/chat.ts";
import { randomJsonObjectText } from "./json-texts.ts";
import type { SeededRandom } from "./seeded-random.ts";

export const TOOLS: Tool[] = [
  { type: "function", function: { name: "get_weather", parameters: { type: "object", properties: { city: { type: "string" }, days: { type: "integer" }, unit: { type: "string", enum: ["c", "f"] } } } } },
  { type: "function", function: { name: "search", parameters: { type: "object", properties: { query: { type: "string" }, limit: { type: "number" }, exact: { type: "boolean" }, filters: { type: "object" }, tags: { type: "array" } } } } },
  { type: "function", function: { name: "get_time", parameters: { type: "object", properties: {} } } },
];
const NAMES = ["get_weather", "search", "get_time"];

/** JSON arguments as a model writes them (spacing, escapes, number spellings), without repeated keys. */
export function jsonArguments(random: SeededRandom): string {
  for (;;) {
    const text = randomJsonObjectText(random, 2);
    if (!/"([^"]*)"\s*:[\s\S]*"\1"\s*:/.test(text) && !/1e400/.test(text)) return text;
  }
}

const offeredName = (random: SeededRandom) => random.pick(NAMES);
const anyName = (random: SeededRandom) => (random.chance(0.15) ? "nope" : random.pick(NAMES));
const before = (random: SeededRandom) => random.pick(["", "Let me check.", "Sure, 北京 first.\n\n"]);
const many = <T>(random: SeededRandom, make: () => T): T[] => Array.from({ length: 1 + random.below(3) }, make);

export const DS_CALL_V3 = (name: string, args: string) => `<｜tool▁call▁begin｜>function<｜tool▁sep｜>${name}\n\`\`\`json\n${args}\n\`\`\`<｜tool▁call▁end｜>`;
export const DS_CALL_V31 = (name: string, args: string) => `<｜tool▁call▁begin｜>${name}<｜tool▁sep｜>${args}<｜tool▁call▁end｜>`;

export function deepseekOutput(random: SeededRandom, call: (name: string, args: string) => string): string {
  const calls = many(random, () => call(anyName(random), jsonArguments(random)));
  return `${before(random)}<｜tool▁calls▁begin｜>${calls.join(random.pick(["", "\n"]))}<｜tool▁calls▁end｜>${random.pick(["", "Done."])}`;
}

export function llamaOutput(random: SeededRandom): string {
  const calls = many(random, () => {
    const name = `"name"${random.pick([": ", ":"])}${JSON.stringify(anyName(random))}`;
    const args = `"${random.pick(["parameters", "arguments"])}": ${jsonArguments(random)}`;
    return `{${random.chance(0.8) ? `${name}, ${args}` : `${args}, ${name}`}}`;
  });
  const text = calls.join(random.pick(["; ", ";"]));
  return random.chance(0.3) ? text : `${before(random)}<|python_tag|>${text}${random.pick(["", " and more"])}`;
}

/** Parameter values as models write them for each schema type (and keys the schema does not have). */
const XML_VALUES: Record<string, string[]> = {
  city: ["Tokyo", "北京", "New York", "\nParis\n", "null", "a < b", '"quoted"', "  spaced  "],
  days: ["5", " 7 ", "3.0", "1_000", "x"],
  unit: ["c", "f"],
  query: ["123", "true", "multi\nline\ttext", "é🙂", "{not: json}", "null"],
  limit: ["10", "2.50", "1e3", "-0.5", "ten"],
  exact: ["True", "false", "yes", "0"],
  filters: ['{"lang": "en"}', "{'a': 1}", "not json", "{}"],
  tags: ['["a", "b"]', "['a', 'b']", "[]"],
  extra: ["42", "x", "[1, 2]"],
};

function xmlParameters(random: SeededRandom, name: string): [string, string][] {
  const keys = Object.keys(XML_VALUES).filter(() => random.chance(0.4));
  return keys.slice(0, name === "get_time" ? random.below(2) : 4).map((key) => [key, random.pick(XML_VALUES[key]!)]);
}

export function coderOutput(random: SeededRandom): string {
  const functions = () =>
    many(random, () => {
      const name = random.chance(0.1) ? "nope" : offeredName(random);
      return `<function=${name}>\n${xmlParameters(random, name).map(([key, value]) => `<parameter=${key}>\n${value}\n</parameter>\n`).join("")}</function>`;
    }).join("\n");
  const units = many(random, () => `<tool_call>\n${functions()}\n</tool_call>`);
  return `${before(random)}${random.pick(["", "\n"])}${units.join("\n")}${random.pick(["", "\nThanks"])}`;
}

export function glmOutput(random: SeededRandom): string {
  const units = many(random, () => {
    const name = anyName(random);
    const pairs = xmlParameters(random, name).map(([key, value]) => `<arg_key>${key}</arg_key>${random.pick(["\n", "", "\\n"])}<arg_value>${value}</arg_value>`);
    return `<tool_call>${name}${random.pick(["\n", "\\n"])}${pairs.join("\n")}${pairs.length > 0 ? "\n" : ""}</tool_call>`;
  });
  return `${before(random)}\n${units.join("\n")}`;
}

export function harmonyOutput(random: SeededRandom): string {
  const messages = many(random, () => {
    const body = random.chance(0.1) ? "" : jsonArguments(random);
    const call = `<|start|>assistant<|channel|>commentary to=functions.${anyName(random)} <|constrain|>json<|message|>${body}<|call|>`;
    return random.chance(0.3) ? `<|start|>assistant<|channel|>commentary<|message|>Checking now.<|end|>${call}` : call;
  });
  return `<|channel|>analysis<|message|>Need to look.<|end|>${messages.join("")}`;
}

