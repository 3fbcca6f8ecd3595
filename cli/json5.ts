// A JSON5 reader (https://spec.json5.org), as OpenClaw reads its openclaw.json: comments, trailing commas, unquoted
// keys, single-quoted and multi-line strings, hex, Infinity / NaN, leading or trailing decimal points, a plus sign.
// Reads only (what we write back is plain JSON, itself JSON5); errors say the line and column.

export class Json5Error extends Error {
  constructor(message: string, readonly line: number, readonly column: number) {
    super(`${message} at line ${line}, column ${column}`);
    this.name = "Json5Error";
  }
}

const IDENTIFIER_START = /[$_\p{L}\p{Nl}]/u;
const IDENTIFIER_PART = /[$_\u200C\u200D\p{L}\p{Nl}\p{Mn}\p{Mc}\p{Nd}\p{Pc}]/u;
const WHITESPACE = /[\t\n\v\f\r \u00A0\u2028\u2029\uFEFF\p{Zs}]/u;
const SINGLE_ESCAPES: Record<string, string> = { b: "\b", f: "\f", n: "\n", r: "\r", t: "\t", v: "\v", "0": "\0" };

export function parseJson5(text: string): unknown {
  const reader = new Reader(text);
  reader.skipBlank();
  const value = reader.value();
  reader.skipBlank();
  if (!reader.done()) reader.fail(`unexpected ${JSON.stringify(reader.peek())} after the value`);
  return value;
}

class Reader {
  private position = 0;

  constructor(private readonly text: string) {}

  done(): boolean {
    return this.position >= this.text.length;
  }

  peek(offset = 0): string {
    return this.text[this.position + offset] ?? "";
  }

  fail(message: string): never {
    const before = this.text.slice(0, this.position).split("\n");
    throw new Json5Error(message, before.length, before.at(-1)!.length + 1);
  }

  /** Whitespace and comments. */
  skipBlank(): void {
    for (;;) {
      const character = this.peek();
      if (character !== "" && WHITESPACE.test(character)) this.position++;
      else if (character === "/" && this.peek(1) === "/") {
        while (!this.done() && !"\n\r\u2028\u2029".includes(this.peek())) this.position++;
      } else if (character === "/" && this.peek(1) === "*") {
        const end = this.text.indexOf("*/", this.position + 2);
        if (end === -1) this.fail("unterminated /* comment");
        this.position = end + 2;
      } else return;
    }
  }

  value(): unknown {
    const character = this.peek();
    if (character === "{") return this.object();
    if (character === "[") return this.array();
    if (character === '"' || character === "'") return this.string();
    if (/[-+.\dIN]/.test(character) && character !== "") return this.number();
    for (const [word, value] of [["true", true], ["false", false], ["null", null]] as const) {
      if (this.text.startsWith(word, this.position) && !IDENTIFIER_PART.test(this.peek(word.length))) {
        this.position += word.length;
        return value;
      }
    }
    return this.fail(this.done() ? "unexpected end of input" : `unexpected ${JSON.stringify(character)}`);
  }

  private object(): Record<string, unknown> {
    const result: Record<string, unknown> = {};
    this.sequence("}", () => {
      const key = this.peek() === '"' || this.peek() === "'" ? this.string() : this.identifier();
      this.skipBlank();
      if (this.peek() !== ":") this.fail(`expected ":" after the key ${JSON.stringify(key)}`);
      this.position++;
      this.skipBlank();
      // (defined, not assigned: a "__proto__" key is a plain key, as in JSON.parse)
      Object.defineProperty(result, key, { value: this.value(), enumerable: true, writable: true, configurable: true });
    });
    return result;
  }

  private array(): unknown[] {
    const result: unknown[] = [];
    this.sequence("]", () => result.push(this.value()));
    return result;
  }

  /** The items between an opening bracket (at the position) and `close`, comma-separated, a trailing comma allowed. */
  private sequence(close: "}" | "]", item: () => void): void {
    this.position++;
    for (;;) {
      this.skipBlank();
      if (this.peek() === close) break;
      item();
      this.skipBlank();
      if (this.peek() === ",") {
        this.position++;
        continue;
      }
      if (this.peek() !== close) this.fail(`expected "," or "${close}"`);
      break;
    }
    this.position++;
  }

  private identifier(): string {
    let name = "";
    for (;;) {
      let character = this.peek();
      let width = 1;
      if (character === "\\" && this.peek(1) === "u") {
        const hex = this.text.slice(this.position + 2, this.position + 6);
        if (!/^[0-9a-fA-F]{4}$/.test(hex)) this.fail("expected 4 hex digits after \\u");
        character = String.fromCharCode(parseInt(hex, 16));
        width = 6;
      }
      if (character === "" || !(name === "" ? IDENTIFIER_START : IDENTIFIER_PART).test(character)) break;
      name += character;
      this.position += width;
    }
    if (name === "") this.fail(`expected a key, got ${JSON.stringify(this.peek())}`);
    return name;
  }

  private string(): string {
    const quote = this.peek();
    this.position++;
    let result = "";
    for (;;) {
      const character = this.peek();
      if (character === "") this.fail("unterminated string");
      this.position++;
      if (character === quote) return result;
      if (character === "\n" || character === "\r") this.fail("a line break inside a string must be escaped with \\");
      if (character !== "\\") {
        result += character;
        continue;
      }
      const escaped = this.peek();
      this.position++;
      if (escaped === "\r") {
        if (this.peek() === "\n") this.position++;
      } else if (escaped === "\n" || escaped === "\u2028" || escaped === "\u2029") {
        // a line continuation: nothing
      } else if (escaped === "x") result += this.hexCode(2);
      else if (escaped === "u") result += this.hexCode(4);
      else if (escaped === "0" && /\d/.test(this.peek())) this.fail("octal escapes are not allowed");
      else if (/[1-9]/.test(escaped)) this.fail("digit escapes are not allowed");
      else result += SINGLE_ESCAPES[escaped] ?? escaped;
    }
  }

  private hexCode(digits: number): string {
    const hex = this.text.slice(this.position, this.position + digits);
    if (!new RegExp(`^[0-9a-fA-F]{${digits}}$`).test(hex)) this.fail(`expected ${digits} hex digits`);
    this.position += digits;
    return String.fromCharCode(parseInt(hex, 16));
  }

  private number(): number {
    let sign = 1;
    if (this.peek() === "+" || this.peek() === "-") {
      if (this.peek() === "-") sign = -1;
      this.position++;
    }
    for (const [word, value] of [["Infinity", Infinity], ["NaN", NaN]] as const) {
      if (this.text.startsWith(word, this.position)) {
        this.position += word.length;
        return sign * value;
      }
    }
    const hex = /^0[xX][0-9a-fA-F]+/.exec(this.text.slice(this.position));
    if (hex) {
      this.position += hex[0].length;
      return sign * parseInt(hex[0].slice(2), 16);
    }
    const decimal = /^(?:(?:0|[1-9]\d*)(?:\.\d*)?|\.\d+)(?:[eE][-+]?\d+)?/.exec(this.text.slice(this.position));
    if (!decimal) this.fail("expected a number");
    this.position += decimal[0].length;
    return sign * Number(decimal[0]);
  }
}
