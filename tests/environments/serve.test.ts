// environments/serve.ts as a supervisor runs it: a child process that prints {"url": …} once it listens, serves the
// lease protocol there, and exits 0 on SIGTERM; bad flags exit 1 naming the flag.
import { createInterface } from "node:readline";
import path from "node:path";
import { execa } from "execa";
import { HANG_GUARD_MS } from "../support/hang-guard.ts";
import { describe, expect, it } from "vitest";
import { EnvironmentClient } from "../../orchestrator/episodes/environment-client.ts";

const ROOT = path.resolve(import.meta.dirname, "../..");
const TSX = path.join(ROOT, "node_modules/.bin/tsx");
const SERVE = path.join(ROOT, "environments/serve.ts");

describe("serve.ts", () => {
  it("prints its URL as one JSON line, serves an episode there, and stops on SIGTERM", async () => {
    const child = execa(TSX, [SERVE, "--kind", "toolcall", "--port", "0", "--slots", "2"], { reject: false, timeout: HANG_GUARD_MS });
    const firstLine = await new Promise<string>((resolve) => createInterface({ input: child.stdout! }).once("line", resolve));
    const announced = JSON.parse(firstLine) as { url: string; kind: string };
    expect(announced).toEqual({ url: expect.stringMatching(/^http:\/\/127\.0\.0\.1:\d+$/), kind: "toolcall" });
    const client = new EnvironmentClient(announced.url);
    const lease = await client.allocate("toolcall-arithmetic:arith-11", "serve-test:0");
    await client.reset(lease, { task_name: "toolcall-arithmetic", task_path: "arith-11" });
    await client.execTool(lease, { name: "submit_answer", arguments: { answer: "5568" } });
    expect(await client.evaluate(lease)).toBe(1);
    expect(await (await fetch(`${announced.url}/status`)).json()).toMatchObject({ ok: true, leases: 1, capacity: 2 });
    child.kill("SIGTERM");
    const result = await child;
    expect(result.exitCode).toBe(0);
    expect(await client.healthy()).toBe(false);
  });

  it("exits 1 naming a bad flag", async () => {
    const result = await execa(TSX, [SERVE, "--kind", "gui"], { reject: false, timeout: HANG_GUARD_MS });
    expect(result.exitCode).toBe(1);
    expect(result.stderr).toMatch(/^--kind: /);
  });
});
