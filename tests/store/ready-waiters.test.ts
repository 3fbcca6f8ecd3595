// ReadyWaiters: a waiter is released when its condition holds (checked at once, on a wake, at its own next check
// time), on its timeout, or on abort; the others stay. Fake timers: no test here waits on the clock.
import { afterEach, beforeEach, describe, expect, it, vi } from "vitest";
import { ReadyWaiters } from "../../orchestrator/store/ready-waiters.ts";

beforeEach(() => {
  vi.useFakeTimers();
});
afterEach(() => {
  vi.useRealTimers();
});

/** Whether the promise has settled after the microtasks queued so far. */
async function settled(promise: Promise<unknown>): Promise<boolean> {
  let done = false;
  void promise.then(() => (done = true));
  await vi.advanceTimersByTimeAsync(0);
  return done;
}

describe("ReadyWaiters", () => {
  it("releases at once when the condition already holds", async () => {
    const waiters = new ReadyWaiters();
    expect(await settled(waiters.wait(() => true, () => null, 60_000))).toBe(true);
  });

  it("checks again on each wake, and only the waiter whose condition holds goes", async () => {
    const waiters = new ReadyWaiters();
    let ready = 0;
    const needsOne = waiters.wait(() => ready >= 1, () => null, 60_000);
    const needsTwo = waiters.wait(() => ready >= 2, () => null, 60_000);
    ready = 1;
    expect(await settled(needsOne)).toBe(false); // not woken yet
    waiters.wakeAll();
    expect([await settled(needsOne), await settled(needsTwo)]).toEqual([true, false]);
    ready = 2;
    waiters.wakeAll();
    expect(await settled(needsTwo)).toBe(true);
  });

  it("checks again at the time it names, without a wake", async () => {
    const waiters = new ReadyWaiters();
    const dueAt = Date.now() + 5_000;
    const waiting = waiters.wait(() => Date.now() >= dueAt, () => dueAt, 60_000);
    await vi.advanceTimersByTimeAsync(4_999);
    expect(await settled(waiting)).toBe(false);
    await vi.advanceTimersByTimeAsync(1);
    expect(await settled(waiting)).toBe(true);
  });

  it("gives up on its timeout, or on abort", async () => {
    const waiters = new ReadyWaiters();
    const timed = waiters.wait(() => false, () => null, 1_000);
    const stop = new AbortController();
    const aborted = waiters.wait(() => false, () => null, 60_000, stop.signal);
    await vi.advanceTimersByTimeAsync(999);
    expect(await settled(timed)).toBe(false);
    await vi.advanceTimersByTimeAsync(1);
    expect([await settled(timed), await settled(aborted)]).toEqual([true, false]);
    stop.abort();
    expect(await settled(aborted)).toBe(true);
    expect(vi.getTimerCount()).toBe(0); // nothing left behind
  });
});
