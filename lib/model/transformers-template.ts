// A chat template rendered by @huggingface/jinja as transformers' jinja2 environment renders it: Python's strip,
// lstrip, rstrip and trim, transformers' tojson (json.dumps), raise_exception, strftime_now and Python-typed values
// (lib/model/python-json.ts). Only Templates of this class change; everything else jinja does is the library's.
//
// transformers' _compile_jinja_template builds that environment (where, at which release: the header of
// tests/support/transformers_chat_template.py, which the parity tests render with). The library dispatches a string's
// methods in Interpreter.evaluateMemberExpression (StringValue's builtins) and filters in Interpreter.applyFilter, so a
// subclass of the Interpreter overrides those two, for the strip family and the trim and tojson filters only;
// Template.render is replaced to run that Interpreter.
import { Environment, Interpreter, Template } from "@huggingface/jinja";
import { dumpPythonJson, PythonFloat, pythonFloat, type DumpOptions, type PythonJson } from "./python-json.ts";
import { strftimePython } from "./python-strftime.ts";
import { pythonStr, type TemplateValue } from "./python-str.ts";
import { stripArgument, stripPython, type StripSide } from "./python-strip.ts";

/** The error transformers' raise_exception raises (jinja2.exceptions.TemplateError). */
export class TemplateError extends Error {
  override name = "TemplateError";
}

interface RuntimeValue {
  type: string;
  value: unknown;
  __bool__(): { value: boolean };
}
type Node = { type: string; [field: string]: unknown };
type RuntimeClass = new (value?: unknown) => RuntimeValue;
type ApplyFilter = (this: Internals, operand: RuntimeValue, filter: Node, environment: Environment) => RuntimeValue;
type EvaluateMember = (this: Internals, expression: Node, environment: Environment) => RuntimeValue;
interface Internals {
  evaluate(node: Node, environment: Environment): RuntimeValue;
  evaluateArguments(args: unknown[], environment: Environment): [RuntimeValue[], Map<string, RuntimeValue>];
}

/** The library's runtime value classes (not exported), taken from values it builds, so instanceof checks inside it hold. */
function runtimeClasses() {
  const probe = new Environment();
  probe.set("sample", { string: "", integer: 1, float: 0.5, boolean: true, none: null, missing: undefined, list: [], function: () => null });
  const sample = probe.lookupVariable("sample") as unknown as RuntimeValue & { value: Map<string, RuntimeValue> };
  const classOf = (key: string, type: string): RuntimeClass => {
    const value = key === "" ? sample : sample.value.get(key);
    if (value?.type !== type) throw new Error(`@huggingface/jinja changed: ${type} is not where lib/model/transformers-template.ts expects it`);
    return value.constructor as RuntimeClass;
  };
  return {
    ObjectValue: classOf("", "ObjectValue"),
    StringValue: classOf("string", "StringValue"),
    IntegerValue: classOf("integer", "IntegerValue"),
    FloatValue: classOf("float", "FloatValue"),
    BooleanValue: classOf("boolean", "BooleanValue"),
    NullValue: classOf("none", "NullValue"),
    UndefinedValue: classOf("missing", "UndefinedValue"),
    ArrayValue: classOf("list", "ArrayValue"),
    FunctionValue: classOf("function", "FunctionValue") as new (call: (args: RuntimeValue[]) => RuntimeValue) => RuntimeValue,
  };
}

const RUNTIME = runtimeClasses();
const base = Interpreter.prototype as unknown as { applyFilter?: ApplyFilter; evaluateMemberExpression?: EvaluateMember };
if (typeof base.applyFilter !== "function" || typeof base.evaluateMemberExpression !== "function") {
  throw new Error("@huggingface/jinja changed: Interpreter.applyFilter or evaluateMemberExpression is not where lib/model/transformers-template.ts expects it");
}
const baseApplyFilter = base.applyFilter;
const baseEvaluateMember = base.evaluateMemberExpression;

/** An int beyond 2^53, printed with all its digits (Python ints are exact). */
class ExactInteger extends RUNTIME.IntegerValue {
  constructor(readonly digits: bigint) {
    super(Number(digits));
  }
  override toString(): string {
    return this.digits.toString();
  }
}

/** A JavaScript or Python-typed value as the library's runtime value (what Environment.set does, plus bigint, PythonFloat, Map). */
function toRuntime(value: unknown): RuntimeValue {
  if (value === null) return new RUNTIME.NullValue(null);
  if (value === undefined) return new RUNTIME.UndefinedValue();
  if (typeof value === "string") return new RUNTIME.StringValue(value);
  if (typeof value === "boolean") return new RUNTIME.BooleanValue(value);
  if (typeof value === "number") return Number.isInteger(value) ? new RUNTIME.IntegerValue(value) : new RUNTIME.FloatValue(value);
  if (typeof value === "bigint") return new ExactInteger(value);
  if (value instanceof PythonFloat) return new RUNTIME.FloatValue(value.value);
  if (Array.isArray(value)) return new RUNTIME.ArrayValue(value.map(toRuntime));
  if (typeof value === "function") return new RUNTIME.FunctionValue((args) => toRuntime((value as (...values: unknown[]) => unknown)(...args.map((argument) => argument.value)) ?? null));
  const entries = value instanceof Map ? [...value.entries()] : Object.entries(value as object);
  // a key whose value is undefined is a key Python never had
  return new RUNTIME.ObjectValue(new Map(entries.filter(([, entry]) => entry !== undefined).map(([key, entry]) => [key, toRuntime(entry)])));
}

/** A runtime value as json.dumps sees it; what Python cannot serialize is its TypeError. */
function toPython(value: RuntimeValue): PythonJson {
  switch (value.type) {
    case "NullValue": return null;
    case "BooleanValue":
    case "StringValue": return value.value as boolean | string;
    case "IntegerValue": return value instanceof ExactInteger ? value.digits : (value.value as number);
    case "FloatValue": return pythonFloat(value.value as number);
    case "ArrayValue":
    case "TupleValue": return (value.value as RuntimeValue[]).map(toPython);
    case "ObjectValue":
    case "KeywordArgumentsValue": return new Map([...(value.value as Map<string, RuntimeValue>)].map(([key, entry]) => [key, toPython(entry)]));
    default: throw new TypeError(`Object of type ${value.type.replace(/Value$/, "")} is not JSON serializable`);
  }
}

const TOJSON_PARAMETERS = ["ensure_ascii", "indent", "separators", "sort_keys"] as const;

/** transformers' tojson(x, ensure_ascii=False, indent=None, separators=None, sort_keys=False) = json.dumps(x, ...). */
function transformersToJson(operand: RuntimeValue, args: RuntimeValue[], keywords: Map<string, RuntimeValue>): string {
  if (args.length > TOJSON_PARAMETERS.length) throw new TypeError(`tojson() takes from 1 to 5 positional arguments but ${args.length + 1} were given`);
  const given = new Map<string, RuntimeValue>(args.map((argument, index) => [TOJSON_PARAMETERS[index]!, argument]));
  for (const [key, argument] of keywords) {
    if (!(TOJSON_PARAMETERS as readonly string[]).includes(key)) throw new TypeError(`tojson() got an unexpected keyword argument '${key}'`);
    if (given.has(key)) throw new TypeError(`tojson() got multiple values for argument '${key}'`);
    given.set(key, argument);
  }
  const options: DumpOptions = {};
  options.ensureAscii = given.get("ensure_ascii")?.__bool__().value ?? false;
  options.sortKeys = given.get("sort_keys")?.__bool__().value ?? false;
  const indent = given.get("indent");
  if (indent !== undefined && indent.type !== "NullValue") {
    if (indent.type === "IntegerValue" || indent.type === "StringValue") options.indent = indent.value as number | string;
    else if (indent.type === "BooleanValue") options.indent = indent.value ? 1 : 0;
    else throw new TypeError(`can't multiply sequence by non-int of type '${indent.type.replace(/Value$/, "").toLowerCase()}'`);
  }
  const separators = given.get("separators");
  if (separators !== undefined && separators.type !== "NullValue") {
    const pair = separators.type === "ArrayValue" || separators.type === "TupleValue" ? (separators.value as RuntimeValue[]) : [];
    if (pair.length !== 2 || pair.some((part) => part.type !== "StringValue")) throw new TypeError("separators must be a pair of strings: (item_separator, key_separator)");
    options.separators = [pair[0]!.value as string, pair[1]!.value as string];
  }
  return dumpPythonJson(toPython(operand), options);
}

const STRIP_SIDES = new Map<string, StripSide>([["strip", "both"], ["lstrip", "start"], ["rstrip", "end"]]);
/** A node standing for an object already evaluated, so a member lookup that is not ours goes on without evaluating it twice. */
const EVALUATED = "TransformersTemplate.EvaluatedValue";

/** The library's Interpreter as this file uses it (its declaration files do not resolve under NodeNext). */
interface InterpreterShape {
  evaluate(node: Node | undefined, environment: Environment): RuntimeValue;
  run(program: unknown): RuntimeValue;
}
const LibraryInterpreter = Interpreter as unknown as new (environment: Environment) => InterpreterShape;

/** Statements (not expressions) of a template body: what they evaluate to is never printed as a value. */
const STATEMENTS = new Set(["Set", "If", "For", "Macro", "CallStatement", "FilterStatement", "Break", "Continue", "Comment"]);

class TransformersInterpreter extends LibraryInterpreter {
  override evaluate(node: Node | undefined, environment: Environment): RuntimeValue {
    if (node?.type === EVALUATED) return node.value as RuntimeValue;
    // `a ~ b`: str(a) + str(b), None and Undefined included (the library refuses null and prints JavaScript's forms)
    if (node?.type === "BinaryExpression" && (node.operator as Node).value === "~") {
      const left = this.evaluate(node.left as Node, environment);
      const right = this.evaluate(node.right as Node, environment);
      return new RUNTIME.StringValue(pythonStr(asTemplateValue(left)) + pythonStr(asTemplateValue(right)));
    }
    return super.evaluate(node, environment);
  }

  /** A body's output as jinja2 writes it: str() of each expression's value (None too), statements' text as it is. */
  evaluateBlock(statements: Node[], environment: Environment): RuntimeValue {
    let result = "";
    for (const statement of statements) {
      const value = this.evaluate(statement, environment);
      if (STATEMENTS.has(statement.type)) {
        if (value.type === "StringValue") result += value.value as string;
      } else result += pythonStr(asTemplateValue(value));
    }
    return new RUNTIME.StringValue(result);
  }
}

function asTemplateValue(value: RuntimeValue): TemplateValue {
  return value instanceof ExactInteger ? { type: value.type, value: value.value, digits: value.digits } : value;
}

const overrides: { evaluateMemberExpression: EvaluateMember; applyFilter: ApplyFilter } = {
  // `text.strip(chars)`: Python's str methods where the library would trim JavaScript's whitespace
  evaluateMemberExpression(expression, environment) {
    const property = expression.property as Node;
    const side = !expression.computed && property.type === "Identifier" ? STRIP_SIDES.get(property.value as string) : undefined;
    if (side === undefined) return baseEvaluateMember.call(this, expression, environment);
    const object = this.evaluate(expression.object as Node, environment);
    if (object.type !== "StringValue") return baseEvaluateMember.call(this, { ...expression, object: { type: EVALUATED, value: object } }, environment);
    const method = property.value as string;
    return new RUNTIME.FunctionValue((args) => new RUNTIME.StringValue(stripPython(object.value as string, stripArgument(method, args), side)));
  },

  applyFilter(operand, filter, environment) {
    const callee = filter.type === "CallExpression" ? (filter.callee as Node) : filter;
    const name = callee.type === "Identifier" ? (callee.value as string) : undefined;
    const [args, keywords] = filter.type === "CallExpression" && (name === "tojson" || name === "trim") ? this.evaluateArguments(filter.args as unknown[], environment) : [[], new Map<string, RuntimeValue>()];
    if (name === "tojson") return new RUNTIME.StringValue(transformersToJson(operand, args, keywords));
    if (name === "string" && filter.type === "Identifier") return new RUNTIME.StringValue(pythonStr(asTemplateValue(operand)));
    if (name === "trim" && operand.type === "StringValue") {
      // jinja2's do_trim(value, chars=None) is value.strip(chars); chars may come by name
      const unexpected = [...keywords.keys()].find((key) => key !== "chars");
      if (unexpected !== undefined) throw new TypeError(`do_trim() got an unexpected keyword argument '${unexpected}'`);
      if (keywords.has("chars") && args.length > 0) throw new TypeError("do_trim() got multiple values for argument 'chars'");
      return new RUNTIME.StringValue(stripPython(operand.value as string, stripArgument("strip", keywords.has("chars") ? [keywords.get("chars")!] : args), "both"));
    }
    return baseApplyFilter.call(this, operand, filter, environment);
  },
};
Object.assign(TransformersInterpreter.prototype, overrides);

/** jinja2's safe_range under the sandbox (at most 100000 items), over ints. */
function sandboxRange(args: RuntimeValue[]): RuntimeValue {
  const numbers = args.map((argument) => {
    if (argument.type !== "IntegerValue" && argument.type !== "BooleanValue") throw new TypeError(`'${argument.type.replace(/Value$/, "").toLowerCase()}' object cannot be interpreted as an integer`);
    return Number(argument.value);
  });
  if (numbers.length < 1 || numbers.length > 3) throw new TypeError(`range expected at most 3 arguments, got ${numbers.length}`);
  const [start, stop, step] = numbers.length === 1 ? [0, numbers[0]!, 1] : [numbers[0]!, numbers[1]!, numbers[2] ?? 1];
  if (step === 0) throw new RangeError("range() arg 3 must not be zero");
  const length = Math.max(0, Math.ceil((stop - start) / step));
  if (length > 100_000) throw new RangeError("Range too big. The sandbox blocks ranges larger than MAX_RANGE (100000).");
  return new RUNTIME.ArrayValue(Array.from({ length }, (_, index) => new RUNTIME.IntegerValue(start + index * step)));
}

/** The globals of transformers' environment: jinja2's constants and range, raise_exception and strftime_now. */
function setGlobals(environment: Environment): void {
  for (const [name, value] of [["true", true], ["false", false], ["none", null], ["True", true], ["False", false], ["None", null]] as const) environment.set(name, value);
  const set = (name: string, call: (args: RuntimeValue[]) => RuntimeValue) => environment.setVariable(name, new RUNTIME.FunctionValue(call) as never);
  set("range", sandboxRange);
  set("raise_exception", (args) => {
    throw new TemplateError(String(args[0]?.value ?? ""));
  });
  set("strftime_now", (args) => new RUNTIME.StringValue(strftimePython(new Date(), String(args[0]?.value ?? ""))));
}

export class TransformersTemplate extends Template {
  /** Renders with transformers' environment; values may be Python-typed (bigint, PythonFloat, Map) as well as plain. */
  override render(items?: Record<string, unknown>): string {
    const environment = new Environment();
    setGlobals(environment);
    for (const [name, value] of Object.entries(items ?? {})) environment.setVariable(name, toRuntime(value) as never);
    return new TransformersInterpreter(environment).run(this.parsed).value as string;
  }
}
