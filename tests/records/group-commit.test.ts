// GroupCommit: values added during a write go out together in the next one, each caller gets its own result, and a
// failed write fails its group only.
import { describe, expect, it } from "vitest";
import { GroupCommit } from "../../lib/group-commit.ts";

describe("GroupCommit", () => {
  it("writes the first value alone, then what queued meanwhile as one group, each caller resolved with its own result", async () => {
    const groups: number[][] = [];
    let release: () => void = () => undefined;
    const commit = new GroupCommit<number, string>(async (values) => {
      groups.push(values);
      if (groups.length === 1) await new Promise<void>((resolve) => (release = resolve));
      return values.map((value) => `wrote ${value}`);
    });
    const first = commit.add(1);
    const later = [commit.add(2), commit.add(3), commit.add(4)];
    await Promise.resolve();
    expect(groups).toEqual([[1]]); // 2–4 wait for the write in progress
    release();
    expect(await first).toBe("wrote 1");
    expect(await Promise.all(later)).toEqual(["wrote 2", "wrote 3", "wrote 4"]);
    expect(groups).toEqual([[1], [2, 3, 4]]);
  });

  it("rejects every value of a failed write with its error, goes on with the next group, and settles after both", async () => {
    let calls = 0;
    const commit = new GroupCommit<string, number>(async (values) => {
      calls++;
      await new Promise((resolve) => setTimeout(resolve, 5));
      if (calls === 2) throw new Error("disk full");
      return values.map((value) => value.length);
    });
    const first = commit.add("a");
    const failing = [commit.add("bb"), commit.add("ccc")].map((promise) => promise.catch((error: Error) => error.message));
    await first;
    const after = commit.add("dddd");
    await commit.settled();
    expect(await Promise.all(failing)).toEqual(["disk full", "disk full"]);
    expect(await after).toBe(4);
    expect(calls).toBe(3);
  });

  it("with a least interval, starts a write no sooner than that after the previous one began, and at once after a quiet spell", async () => {
    const starts: number[] = [];
    const groups: number[][] = [];
    const commit = new GroupCommit<number, number>(
      async (values) => {
        starts.push(performance.now());
        groups.push(values);
        return values;
      },
      { minIntervalMs: 60 },
    );
    const first = commit.add(1);
    expect(groups).toEqual([[1]]); // nothing before it: at once
    await first;
    const later = [commit.add(2)];
    await new Promise((resolve) => setTimeout(resolve, 10));
    later.push(commit.add(3));
    expect(groups).toEqual([[1]]); // 2 and 3 wait out the interval together
    expect(await Promise.all(later)).toEqual([2, 3]);
    expect(groups).toEqual([[1], [2, 3]]);
    expect(starts[1]! - starts[0]!).toBeGreaterThanOrEqual(59.9); // (starts[0] is taken a few µs after the write began)
    await new Promise((resolve) => setTimeout(resolve, 80));
    const quiet = commit.add(4);
    expect(groups).toEqual([[1], [2, 3], [4]]); // more than the interval since the last write began: at once
    await quiet;
  });
});
