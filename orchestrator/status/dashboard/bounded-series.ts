// A fixed-capacity, append-only series that remembers how many items were ever appended, so readers can ask
// for "what came after index N" and get only what is still held. Knows nothing of what the items mean.
import type { SeriesSlice } from "./dashboard-wire.ts";

export class BoundedSeries<T> {
  private items: T[] = [];
  private appended = 0;

  constructor(readonly limit: number) {
    if (!Number.isInteger(limit) || limit < 1) throw new RangeError(`series limit must be a positive integer, got ${limit}`);
  }

  push(item: T): void {
    this.items.push(item);
    this.appended += 1;
    // trim in chunks so a long run does not pay a splice per push
    if (this.items.length > this.limit + Math.ceil(this.limit / 8)) this.items.splice(0, this.items.length - this.limit);
  }

  /** Running count of every item ever appended (the index the next item will get). */
  get total(): number {
    return this.appended;
  }

  /** The newest `limit` items with the running index of the first. */
  slice(): SeriesSlice<T> {
    const items = this.items.length > this.limit ? this.items.slice(-this.limit) : this.items.slice();
    return { start: this.appended - items.length, items };
  }

  /** Items appended at running index >= `from` that are still held. */
  since(from: number): SeriesSlice<T> {
    const held = Math.min(this.items.length, this.limit);
    const firstHeld = this.appended - held;
    const start = Math.max(from, firstHeld);
    const count = this.appended - start;
    return { start, items: count > 0 ? this.items.slice(this.items.length - count) : [] };
  }

  last(): T | undefined {
    return this.items[this.items.length - 1];
  }
}
