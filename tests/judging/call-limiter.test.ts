// CallLimiter: at most `limit` calls at once, in order, also when a call arrives just as a slot is handed over.
import { describe, expect, it } from "vitest";
import { CallLimiter } from "../../orchestrator/judging/call-limiter.ts";

describe("CallLimiter", () => {
  it("never runs more than its limit, whatever the microtask a new call arrives in while a waiter is being woken", async () => {
    for (let hops = 0; hops < 10; hops++) {
      const limiter = new CallLimiter(1);
      let inFlight = 0;
      let peak = 0;
      const order: string[] = [];
      const call = (name: string, hold: Promise<void>) =>
        limiter.run(async () => {
          inFlight++;
          peak = Math.max(peak, inFlight);
          order.push(name);
          await hold;
          inFlight--;
        });
      let releaseA!: () => void;
      const a = call("a", new Promise<void>((resolve) => (releaseA = resolve)));
      const b = call("b", Promise.resolve());
      await Promise.resolve();
      releaseA();
      for (let hop = 0; hop < hops; hop++) await Promise.resolve();
      const c = call("c", Promise.resolve());
      await Promise.all([a, b, c]);
      expect(peak, `a call ${hops} microtasks after the release`).toBe(1);
      expect(order).toEqual(["a", "b", "c"]);
      expect(limiter.inFlight).toBe(0);
      expect(limiter.queued).toBe(0);
    }
  });

  it("runs up to its limit at once and frees the slot of a call that throws", async () => {
    const limiter = new CallLimiter(2);
    const gates: (() => void)[] = [];
    const started: number[] = [];
    const calls = [0, 1, 2].map((index) => limiter.run(() => new Promise<void>((resolve) => { started.push(index); gates.push(resolve); })));
    await new Promise((resolve) => setTimeout(resolve, 0));
    expect(started).toEqual([0, 1]);
    expect(limiter.queued).toBe(1);
    gates[0]!();
    await calls[0];
    await new Promise((resolve) => setTimeout(resolve, 0));
    expect(started).toEqual([0, 1, 2]);
    gates[1]!();
    gates[2]!();
    await Promise.all(calls);
    await expect(limiter.run(async () => { throw new Error("boom"); })).rejects.toThrow("boom");
    expect(limiter.inFlight).toBe(0);
  });
});
