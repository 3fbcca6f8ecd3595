// The two-generation cache behind the segment, digest and template caches: bounded, keeps what is used.
import { describe, expect, it } from "vitest";
import { LruCache } from "../../lib/lru-cache.ts";

describe("LruCache", () => {
  it("stays bounded, keeps recently used entries and drops stale ones", () => {
    const cache = new LruCache<string, number>(10);
    cache.set("hot", 0);
    for (let index = 0; index < 1000; index++) {
      cache.set(`k${index}`, index);
      expect(cache.get("hot")).toBe(0); // used all along: never dropped
      expect(cache.size).toBeLessThanOrEqual(11);
    }
    expect(cache.get("k999")).toBe(999);
    expect(cache.get("k0")).toBeUndefined();
    expect(cache.has("k0")).toBe(false);
    cache.set("k999", 5);
    expect(cache.get("k999")).toBe(5);
  });

  it("holds nothing at capacity 0", () => {
    const cache = new LruCache<string, number>(0);
    cache.set("a", 1);
    expect(cache.get("a")).toBeUndefined();
    expect(cache.size).toBe(0);
  });
});
