// ResourceStack (lib/resource-stack.ts): closes newest first, one at a time; a close that fails is reported by name
// and the others still run; closing twice closes once; nothing can be pushed once closing has begun.
import { describe, expect, it } from "vitest";
import { ResourceStack, type CloseFailure } from "../../lib/resource-stack.ts";

const tick = () => new Promise((resolve) => setTimeout(resolve, 5));

describe("ResourceStack", () => {
  it("closes in the reverse of the push order, each close finished before the next starts", async () => {
    const stack = new ResourceStack();
    const log: string[] = [];
    for (const name of ["status API", "bridge", "store", "judge", "proxy"]) {
      stack.push(name, async () => {
        log.push(`${name} begins`);
        await tick();
        log.push(`${name} ends`);
      });
    }
    expect(stack.names()).toEqual(["status API", "bridge", "store", "judge", "proxy"]);
    expect(await stack.closeAll()).toEqual([]);
    expect(log).toEqual([
      "proxy begins", "proxy ends",
      "judge begins", "judge ends",
      "store begins", "store ends",
      "bridge begins", "bridge ends",
      "status API begins", "status API ends",
    ]);
  });

  it("a close that throws or rejects does not stop the others; each failure is reported by name, as it happens and at the end", async () => {
    const reported: CloseFailure[] = [];
    const log: string[] = [];
    const stack = new ResourceStack({ onCloseError: (failure) => reported.push(failure) && log.push(`reported ${failure.name}`) });
    stack.push("first", () => void log.push("first"));
    stack.push("rejects", async () => {
      log.push("rejects");
      throw new Error("disk full");
    });
    stack.push("throws", () => {
      log.push("throws");
      throw new Error("socket gone");
    });
    stack.push("last", () => void log.push("last"));
    const failures = await stack.closeAll();
    expect(log).toEqual(["last", "throws", "reported throws", "rejects", "reported rejects", "first"]);
    expect(failures.map(({ name, error }) => [name, (error as Error).message])).toEqual([
      ["throws", "socket gone"],
      ["rejects", "disk full"],
    ]);
    expect(reported).toEqual(failures);
  });

  it("a reporter that throws does not stop the closes still to run", async () => {
    const closed: string[] = [];
    const stack = new ResourceStack({
      onCloseError: () => {
        throw new Error("reporter broken");
      },
    });
    stack.push("older", () => void closed.push("older"));
    stack.push("failing", () => Promise.reject(new Error("no")));
    expect((await stack.closeAll()).map((failure) => failure.name)).toEqual(["failing"]);
    expect(closed).toEqual(["older"]);
  });

  it("is idempotent: a second closeAll (even while the first runs) closes nothing again and gets the same failures", async () => {
    const counts = { slow: 0, failing: 0 };
    const stack = new ResourceStack();
    stack.push("failing", () => {
      counts.failing += 1;
      throw new Error("once");
    });
    stack.push("slow", async () => {
      counts.slow += 1;
      await tick();
    });
    const first = stack.closeAll();
    const second = stack.closeAll();
    expect(second).toBe(first);
    await first;
    const third = await stack.closeAll();
    expect(counts).toEqual({ slow: 1, failing: 1 });
    expect(third.map((failure) => failure.name)).toEqual(["failing"]);
  });

  it("refuses a push once closing has begun (that close would never run), naming it", async () => {
    const stack = new ResourceStack();
    stack.push("proxy", () => undefined);
    const closing = stack.closeAll();
    expect(() => stack.push("late", () => undefined)).toThrow('cannot push "late": the stack is already closing');
    await closing;
  });

  it("an empty stack closes at once with no failures", async () => {
    expect(await new ResourceStack().closeAll()).toEqual([]);
  });
});
