// A bounded map that keeps recently used entries (two generations of Maps). Owns eviction only: what is
// cached, and how big an entry is, is the caller's business.

/**
 * A bounded cache that keeps recently used entries: two generations of Maps (hits in the old one move to the new
 * one; a full new generation retires the old). Unlike delete-and-reinsert LRU, a hit never deletes from the young Map, so V8
 * does not rehash large tables on hits. Holds about `capacity` entries.
 */
export class LruCache<K, V> {
  private young = new Map<K, V>();
  private old = new Map<K, V>();
  private readonly half: number;
  constructor(capacity: number) {
    this.half = capacity <= 0 ? 0 : Math.max(1, Math.ceil(capacity / 2));
  }
  get(key: K): V | undefined {
    const value = this.young.get(key);
    if (value !== undefined) return value;
    const retired = this.old.get(key);
    if (retired !== undefined) {
      this.old.delete(key);
      this.set(key, retired);
    }
    return retired;
  }
  set(key: K, value: V): void {
    if (this.half === 0) return;
    if (!this.young.has(key) && this.young.size >= this.half) {
      this.old = this.young;
      this.young = new Map();
    }
    this.young.set(key, value);
    this.old.delete(key);
  }
  has(key: K): boolean {
    return this.young.has(key) || this.old.has(key);
  }
  get size(): number {
    return this.young.size + this.old.size;
  }
}
