// The stable prefix of a JSON object's re-serialisation, read from the text a model has written so far: the text
// that json.dumps(json.loads(TEXT), ensure_ascii=False) starts with however TEXT goes on, as long as it goes on to
// valid JSON. SGLang sends tool-call arguments in that form; streaming this prefix sends them piece by piece without
// ever sending something the final arguments do not start with. Ignores what follows the object.
//
// Keys and atoms go out whole (a number once a delimiter follows it: `1` may still become `12` or `1.5`), string
// values character by character (an escape once complete, a surrogate pair once both halves are there), `, ` between
// object members only with the next key. A repeated key stops the prefix where it starts (Python keeps the first
// position and the last value, so what follows may differ), and so does text that cannot be valid JSON.
import { decodePythonJson, dumpPythonJson, escapePythonJsonText } from "../../python-json.ts";
import { jsonEscapeAt } from "./json-escape.ts";

type Frame =
  | { kind: "object"; state: "first-key" | "key" | "colon" | "value" | "after-value"; keys: Set<string> }
  | { kind: "array"; state: "first-value" | "value" | "after-value" };

/** A member of the outer object: its key and where its value lies in the prefix (`to` -1 while it is incomplete). */
export interface PrefixMember {
  key: string;
  from: number;
  to: number;
}

const LITERALS: Record<string, string> = { t: "true", f: "false", n: "null" };
const NUMBER_RUN = /[-+0-9.eE]*/y;

export class JsonPrefix {
  private text = "";
  private at = 0;
  private output = "";
  private stack: Frame[] = [];
  /** Set once the object closed, or once the text can no longer give more certain output. */
  private done = false;
  /** The offset in the text just after the outer object, once it closed. */
  private closedAt = -1;
  /** Inside a string: a key (kept until its quote closes) or a value (streamed). */
  private string: { key: boolean; text: string } | null = null;
  private outerMembers: PrefixMember[] = [];

  /**
   * The stable prefix for `text`, which extends the text of the previous call (read from where that one stopped; the
   * text is not compared again, which would cost its length on every piece; shorter text starts over).
   */
  extend(text: string): string {
    if (text.length < this.text.length) this.reset();
    this.text = text;
    this.scan();
    return this.output;
  }

  /** The offset in the text just after the object's closing brace, or -1 while it is open (or will never close validly). */
  get end(): number {
    return this.closedAt;
  }

  /** The text can no longer give more certain output short of closing: it went invalid or repeated a key. */
  get stopped(): boolean {
    return this.done && this.closedAt < 0;
  }

  /** The outer object's members so far, in order. */
  get members(): readonly PrefixMember[] {
    return this.outerMembers;
  }

  /**
   * The text has shown itself to be an object: a first key is complete, or the object closed. Before that it may still
   * be no JSON at all (`{not json`), so formats whose markup allows any body wait for this before starting a call.
   */
  get shown(): boolean {
    return this.output.length > 1;
  }

  get prefix(): string {
    return this.output;
  }

  private reset(): void {
    Object.assign(this, { text: "", at: 0, output: "", stack: [], done: false, closedAt: -1, string: null, outerMembers: [] });
  }

  private stop(): void {
    this.done = true;
  }

  private scan(): void {
    const text = this.text;
    while (!this.done && this.at < text.length) {
      if (this.string !== null) {
        if (!this.stringStep()) return;
        continue;
      }
      const char = text[this.at]!;
      if (char === " " || char === "\t" || char === "\n" || char === "\r") {
        this.at++;
        continue;
      }
      const frame = this.stack.at(-1);
      if (frame === undefined) {
        if (char !== "{") return this.stop(); // (tool arguments are an object)
        this.open("object");
      } else if (frame.kind === "object") {
        if (frame.state === "first-key" && char === "}") this.close();
        else if (frame.state === "first-key" || frame.state === "key") {
          if (char !== '"') return this.stop();
          this.at++;
          this.string = { key: true, text: "" };
        } else if (frame.state === "colon") {
          if (char !== ":") return this.stop();
          this.at++;
          frame.state = "value";
        } else if (frame.state === "value") {
          if (!this.valueStep(frame)) return;
        } else if (char === ",") {
          this.at++;
          frame.state = "key"; // (its ", " goes out with the next key)
        } else if (char === "}") this.close();
        else return this.stop();
      } else if (frame.state === "after-value") {
        if (char === "]") this.close();
        else if (char === ",") {
          this.at++;
          this.output += ", ";
          frame.state = "value";
        } else return this.stop();
      } else if (frame.state === "first-value" && char === "]") this.close();
      else if (!this.valueStep(frame)) return;
    }
  }

  /** A value starting at `at`: false when it must wait for more text (or the text went wrong). */
  private valueStep(frame: Frame): boolean {
    const text = this.text;
    const char = text[this.at]!;
    if (char === "{" || char === "[") {
      frame.state = "after-value";
      this.open(char === "{" ? "object" : "array");
      return true;
    }
    if (char === '"') {
      frame.state = "after-value";
      this.at++;
      this.output += '"';
      this.string = { key: false, text: "" };
      return true;
    }
    const word = LITERALS[char];
    if (word !== undefined) {
      if (text.startsWith(word, this.at)) return this.atom(frame, word, word);
      if (!word.startsWith(text.slice(this.at))) this.stop();
      return false;
    }
    if (char === "-" || (char >= "0" && char <= "9")) {
      NUMBER_RUN.lastIndex = this.at;
      const run = NUMBER_RUN.exec(text)![0];
      if (this.at + run.length >= text.length) return false; // (more digits may come)
      try {
        return this.atom(frame, run, dumpPythonJson(decodePythonJson(run)));
      } catch {
        this.stop(); // (not a number orjson reads: the arguments will not parse)
        return false;
      }
    }
    this.stop();
    return false;
  }

  private atom(frame: Frame, source: string, written: string): boolean {
    frame.state = "after-value";
    this.at += source.length;
    this.output += written;
    this.valueEnded();
    return true;
  }

  private open(kind: "object" | "array"): void {
    this.at++;
    this.output += kind === "object" ? "{" : "[";
    this.stack.push(kind === "object" ? { kind, state: "first-key", keys: new Set() } : { kind, state: "first-value" });
  }

  private close(): void {
    const frame = this.stack.pop()!;
    this.at++;
    this.output += frame.kind === "object" ? "}" : "]";
    if (this.stack.length === 0) {
      this.closedAt = this.at;
      this.done = true;
    } else this.valueEnded();
  }

  /** A value just ended: a member of the outer object knows its extent. */
  private valueEnded(): void {
    if (this.stack.length === 1) this.outerMembers.at(-1)!.to = this.output.length;
  }

  /** Reads string characters from `at`: true once the string closed, false when it waits (or the text went wrong). */
  private stringStep(): boolean {
    const string = this.string!;
    const text = this.text;
    let piece = "";
    let start = this.at;
    const flush = (): void => {
      piece += text.slice(start, this.at);
      if (string.key) string.text += piece;
      else this.output += escapePythonJsonText(piece);
      piece = "";
    };
    while (this.at < text.length) {
      const code = text.charCodeAt(this.at);
      if (code === 0x22) {
        flush();
        this.at++;
        this.string = null;
        if (string.key) this.keyEnded(string.text);
        else {
          this.output += '"';
          this.valueEnded();
        }
        return true;
      }
      if (code < 0x20 || (code >= 0xdc00 && code <= 0xdfff)) break; // (orjson refuses control characters and lone low surrogates)
      if (code >= 0xd800 && code <= 0xdbff) {
        if (this.at + 1 >= text.length) return (flush(), false); // (the low half may come next)
        const low = text.charCodeAt(this.at + 1);
        if (!(low >= 0xdc00 && low <= 0xdfff)) break;
        this.at += 2;
        continue;
      }
      if (code !== 0x5c) {
        this.at++;
        continue;
      }
      piece += text.slice(start, this.at);
      start = this.at;
      const escaped = jsonEscapeAt(text, this.at);
      if (escaped === "wait") return (flush(), false);
      if (escaped === null) break;
      piece += escaped.text;
      this.at += escaped.length;
      start = this.at;
    }
    if (this.at >= text.length) return (flush(), false);
    flush();
    this.stop();
    return false;
  }

  private keyEnded(key: string): void {
    const frame = this.stack.at(-1) as Extract<Frame, { kind: "object" }>;
    if (frame.keys.has(key)) return this.stop();
    frame.keys.add(key);
    this.output += (frame.state === "key" ? ", " : "") + dumpPythonJson(key) + ": ";
    frame.state = "colon";
    if (this.stack.length === 1) this.outerMembers.push({ key, from: this.output.length, to: -1 });
  }
}
