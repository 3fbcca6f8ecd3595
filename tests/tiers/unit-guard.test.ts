// The unit tier's guard refuses a listening socket and a child process. It starts them through names the static rule
// does not read (a method looked up by name, a module name built at run time), so this file stays in the unit tier.
import { Server } from "node:net";
import { describe, expect, it } from "vitest";
import { started } from "./unit-guard-log.ts";

describe("the unit guard", () => {
  it("fails a unit file that listens on a socket", () => {
    const server = new Server();
    const listen = "listen" as const;
    expect(() => server[listen](0, "127.0.0.1")).toThrow(/a listening socket in the unit tier/);
    expect(started).toEqual(["a listening socket"]);
    started.length = 0;
  });

  it("fails a unit file that starts a child process", async () => {
    const { spawn } = (await import(["node", "child_process"].join(":"))) as typeof import("node:child_process");
    expect(() => spawn("true")).toThrow(/child process true in the unit tier/);
    expect(started).toEqual(["child process true"]);
    started.length = 0;
  });
});
