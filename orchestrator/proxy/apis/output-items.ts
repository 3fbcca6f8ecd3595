// The turn's parsed deltas grouped into the output items the Responses and Messages APIs stream: a run of reasoning,
// a run of text, one tool call each; told to a listener as each opens, grows and closes. Ignores wire formats.
import type { OutputDelta } from "../../../lib/model/parsers/output-delta.ts";

export type OutputItem =
  | { kind: "reasoning"; text: string }
  | { kind: "text"; text: string }
  | { kind: "tool-call"; callIndex: number; id: string; name: string; arguments: string };

export interface OutputItemsListener {
  opened(item: OutputItem, position: number): void;
  appended(item: OutputItem, position: number, text: string): void;
  closed(item: OutputItem, position: number): void;
}

export class OutputItems {
  readonly items: OutputItem[] = [];
  private open: OutputItem | null = null;

  constructor(private readonly listener: OutputItemsListener | null) {}

  push(deltas: readonly OutputDelta[]): void {
    for (const delta of deltas) {
      if (delta.kind === "tool-call-start") {
        this.openItem({ kind: "tool-call", callIndex: delta.index, id: delta.id, name: delta.name, arguments: "" });
        continue;
      }
      if (delta.text.length === 0) continue;
      if (delta.kind === "tool-call-arguments") {
        const item = this.open?.kind === "tool-call" && this.open.callIndex === delta.index ? this.open : null;
        // (the parser streams one call's arguments before the next call starts: a late piece has no open item)
        if (item) this.append(item, delta.text);
        continue;
      }
      const kind = delta.kind === "reasoning" ? "reasoning" : "text";
      const item = this.open?.kind === kind ? this.open : this.openItem({ kind, text: "" });
      this.append(item, delta.text);
    }
  }

  /** Closes the item still open (the turn is over). */
  close(): void {
    if (this.open) this.listener?.closed(this.open, this.items.length - 1);
    this.open = null;
  }

  private openItem(item: OutputItem): OutputItem {
    this.close();
    this.items.push(item);
    this.open = item;
    this.listener?.opened(item, this.items.length - 1);
    return item;
  }

  private append(item: OutputItem, text: string): void {
    if (item.kind === "tool-call") item.arguments += text;
    else item.text += text;
    this.listener?.appended(item, this.items.length - 1, text);
  }
}
