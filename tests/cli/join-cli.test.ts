// `openclaw-rl join` (a real process) on a worker node where `ray` cannot be started: a clear error naming
// engine.slime.ray, exit 2, never a silent exit 1.
import { describe, expect, it } from "vitest";
import { runCli } from "./cli-process.ts";

describe("openclaw-rl join", () => {
  it("says ray is not on PATH (with the fix) when it is not installed", async () => {
    const result = await runCli(["join", "--head", "10.0.0.1", "--recipe", "configs/multinode-example.yaml"], { env: { PATH: "/nonexistent-bin" } });
    expect(result.exitCode).toBe(2);
    expect(result.stderr).toContain("· joining 10.0.0.1:6379 as node 1: ray start");
    expect(result.stderr).toMatch(/^error: engine\.slime\.ray: ray not found on PATH \(spawn ray ENOENT\) \(hint: install Ray on this node.*set engine\.slime\.ray to its full path\)$/m);
  });

  it("names a missing full path as given", async () => {
    const result = await runCli(["join", "--head", "10.0.0.1", "--recipe", "configs/multinode-example.yaml", "--set", "engine.slime.ray=/nonexistent/bin/ray"]);
    expect(result.exitCode).toBe(2);
    expect(result.stderr).toMatch(/^error: engine\.slime\.ray: \/nonexistent\/bin\/ray not found \(spawn \/nonexistent\/bin\/ray ENOENT\)/m);
  });
});
