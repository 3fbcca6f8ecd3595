// A seeded pseudo-random source for randomized tests (the same seed gives the same cases on every machine), with the
// picks those tests make. Not for anything but tests.

export interface SeededRandom {
  /** In [0, 1). */
  next(): number;
  /** An integer in [0, below). */
  below(below: number): number;
  pick<T>(items: readonly T[]): T;
  chance(probability: number): boolean;
}

export function seededRandom(seed: number): SeededRandom {
  let state = seed >>> 0;
  const next = (): number => {
    state = (state + 0x6d2b79f5) >>> 0;
    let mixed = Math.imul(state ^ (state >>> 15), state | 1);
    mixed ^= mixed + Math.imul(mixed ^ (mixed >>> 7), mixed | 61);
    return ((mixed ^ (mixed >>> 14)) >>> 0) / 2 ** 32;
  };
  const below = (limit: number): number => Math.floor(next() * limit);
  return { next, below, pick: (items) => items[below(items.length)]!, chance: (probability) => next() < probability };
}
