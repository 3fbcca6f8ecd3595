// orchestrator/run.ts in-process: stop() order (proxy refuses → bridge closed → engines → status API closes last),
// a failed start (admin port taken) that releases what it had opened, and a restart of slime (a new rollout-function
// session on the bridge) that resets the weight version (read from the engines behind slime's router).
import { mkdtempSync } from "node:fs";
import { createServer, type Server } from "node:net";
import { tmpdir } from "node:os";
import path from "node:path";
import { describe, expect, it } from "vitest";
import { recipeSchema } from "../../contracts/recipe.ts";
import type { RunEvent } from "../../contracts/events.ts";
import { startOrchestrator } from "../../orchestrator/run.ts";
import { startEngine, startRouter } from "./router-standin.ts";

const recipe = (runDir: string) =>
  recipeSchema.parse({
    method: "binary",
    model: { path: "builtin:qwen3", tokenizer_path: "builtin:qwen3" },
    judge: { launch: "external", url: "http://127.0.0.1:9" },
    engine: { kind: "external", policy_url: "http://127.0.0.1:9" },
    records: { dir: runDir },
  });

const ready = () => ({ ready: true, reason: "test", retryAfterS: 0 });

describe("orchestrator composition", () => {
  it("stops in order and keeps the status API up while the engines stop", async () => {
    const runDir = mkdtempSync(path.join(tmpdir(), "openclaw-rl-run-"));
    const orchestrator = await startOrchestrator({ recipe: recipe(runDir), runDir, apiKey: undefined, engines: { policy: "http://127.0.0.1:9", judge: "http://127.0.0.1:9" }, readiness: ready, ports: { proxy: 0, admin: 0 } });
    const auth = { authorization: `Bearer ${orchestrator.adminToken}` };
    expect((await fetch(`${orchestrator.urls.admin}/status`, { headers: auth })).status).toBe(200);
    const seen: Record<string, unknown> = {};
    await orchestrator.stop({
      engines: async () => {
        seen.proxy = await fetch(`${orchestrator.urls.proxy.replace(/\/v1$/, "")}/healthz`).then((response) => response.status, () => "closed");
        seen.bridge = await fetch(`${orchestrator.urls.bridge}/v1/hello`, { method: "POST" }).then((response) => response.status, () => "closed");
        seen.admin = await fetch(`${orchestrator.urls.admin}/status`, { headers: auth }).then((response) => response.status, () => "closed");
      },
    });
    expect(seen).toEqual({ proxy: "closed", bridge: "closed", admin: 200 });
    await expect(fetch(`${orchestrator.urls.admin}/status`, { headers: auth })).rejects.toThrow();
  });

  it("a policy tokenizer that cannot be read fails the start naming the file, and a judge tokenizer likewise", async () => {
    const runDir = mkdtempSync(path.join(tmpdir(), "openclaw-rl-run-"));
    const engines = { policy: "http://127.0.0.1:9", judge: "http://127.0.0.1:9" };
    const badPolicy = { ...recipe(runDir), model: { ...recipe(runDir).model, tokenizer_path: "/nonexistent/policy" } };
    await expect(startOrchestrator({ recipe: badPolicy, runDir, apiKey: undefined, engines, readiness: ready, ports: { proxy: 0, admin: 0 } })).rejects.toMatchObject({
      code: "TEMPLATE_ERROR",
      path: "/nonexistent/policy/tokenizer.json",
    });
    const badJudge = { ...recipe(runDir), judge: { ...recipe(runDir).judge, tokenizer_path: "/nonexistent/judge" } };
    await expect(startOrchestrator({ recipe: badJudge, runDir, apiKey: undefined, engines, readiness: ready, ports: { proxy: 0, admin: 0 } })).rejects.toMatchObject({
      code: "TEMPLATE_ERROR",
      path: "/nonexistent/judge/tokenizer.json",
      message: expect.stringContaining("the judging thread did not start"),
    });
  });

  it("a hello from a new rollout-function session (slime restarted) resets the weight version to 0; then it follows the new engines", async () => {
    const runDir = mkdtempSync(path.join(tmpdir(), "openclaw-rl-run-"));
    // slime's router (its route table: no weight-version route) in front of an engine; the version comes from the engine
    const engineVersion = { current: "40" };
    const engine = await startEngine("4ad990ba", engineVersion);
    const router = await startRouter([engine.url]);
    const policy = router.url;
    const orchestrator = await startOrchestrator({ recipe: recipe(runDir), runDir, apiKey: undefined, engines: { policy, judge: "http://127.0.0.1:9" }, readiness: ready, ports: { proxy: 0, admin: 0 } });
    const resets: Array<Extract<RunEvent, { type: "weights-version-reset" }>> = [];
    orchestrator.bus.subscribe((event) => void (event.type === "weights-version-reset" && resets.push(event)));
    const version = () => orchestrator.status.snapshot().weight_version;
    const until = async (check: () => boolean) => {
      for (let waited = 0; !check() && waited < 6000; waited += 50) await new Promise((resolve) => setTimeout(resolve, 50));
    };
    const hello = (session: string, pid: number) =>
      fetch(`${orchestrator.urls.bridge}/v1/hello`, {
        method: "POST",
        headers: { authorization: `Bearer ${orchestrator.bridgeToken}` },
        body: JSON.stringify({ version: 1, type: "hello", session, pid, routers: { policy: null, judge: null } }),
      }).then((response) => response.status);
    try {
      await until(() => version() === "40");
      expect(version()).toBe("40");
      expect(await hello("first-slime", 11)).toBe(200);
      expect(await hello("first-slime", 11)).toBe(200);
      expect(resets).toEqual([]);
      engineVersion.current = "1"; // the restarted slime's engines, after its first weight sync
      expect(await hello("second-slime", 12)).toBe(200);
      expect(resets).toMatchObject([{ fromVersion: "40", reason: expect.stringContaining("slime restarted") }]);
      expect(version()).toBe("0");
      await until(() => version() === "1");
      expect(version()).toBe("1");
    } finally {
      await orchestrator.stop();
      await router.close();
      await engine.close();
    }
  });

  it("follows the router a hello announces at once (the recipe names no policy URL): the weight version comes from the engines behind it", async () => {
    const runDir = mkdtempSync(path.join(tmpdir(), "openclaw-rl-run-"));
    const engine = await startEngine("4ad990ba", { current: "7" });
    const router = await startRouter([engine.url]);
    const orchestrator = await startOrchestrator({ recipe: recipe(runDir), runDir, apiKey: undefined, engines: { policy: null, judge: "http://127.0.0.1:9" }, readiness: ready, ports: { proxy: 0, admin: 0 } });
    try {
      expect(orchestrator.status.snapshot().weight_version).toBeNull(); // no policy engine known yet
      const answer = await fetch(`${orchestrator.urls.bridge}/v1/hello`, {
        method: "POST",
        headers: { authorization: `Bearer ${orchestrator.bridgeToken}` },
        body: JSON.stringify({ version: 1, type: "hello", session: "slime", pid: 21, routers: { policy: router.url, judge: null } }),
      });
      expect(answer.status).toBe(200);
      // (nothing asks orchestrator.bridgeHello() here: the hello itself re-points the policy client)
      await expect.poll(() => orchestrator.status.snapshot().weight_version, { timeout: 6000, interval: 50 }).toBe("7");
      expect(orchestrator.bridgeHello()).toEqual({ routers: { policy: router.url, judge: null }, pid: 21, at: expect.any(Number) });
    } finally {
      await orchestrator.stop();
      await router.close();
      await engine.close();
    }
  });

  it("an engines stop that fails is said on the bus, and the status API still closes after it", async () => {
    const runDir = mkdtempSync(path.join(tmpdir(), "openclaw-rl-run-"));
    const orchestrator = await startOrchestrator({ recipe: recipe(runDir), runDir, apiKey: undefined, engines: { policy: "http://127.0.0.1:9", judge: "http://127.0.0.1:9" }, readiness: ready, ports: { proxy: 0, admin: 0 } });
    const errors: Array<Extract<RunEvent, { type: "error" }>> = [];
    orchestrator.bus.subscribe((event) => void (event.type === "error" && errors.push(event)));
    await orchestrator.stop({ engines: () => Promise.reject(new Error("ray job stop timed out")) });
    expect(errors).toContainEqual(expect.objectContaining({ source: "supervisor", message: "stop: ray job stop timed out" }));
    await expect(fetch(`${orchestrator.urls.admin}/status`)).rejects.toThrow();
  });

  it("a port taken after the checks fails the start and frees the proxy port again", async () => {
    const runDir = mkdtempSync(path.join(tmpdir(), "openclaw-rl-run-"));
    const blocker: Server = await new Promise((resolve) => {
      const server = createServer().listen(0, "127.0.0.1", () => resolve(server));
    });
    const adminPort = (blocker.address() as { port: number }).port;
    const proxyPort: number = await new Promise((resolve) => {
      const probe = createServer().listen(0, "127.0.0.1", () => {
        const port = (probe.address() as { port: number }).port;
        probe.close(() => resolve(port));
      });
    });
    const start = startOrchestrator({ recipe: recipe(runDir), runDir, apiKey: undefined, engines: { policy: "http://127.0.0.1:9", judge: "http://127.0.0.1:9" }, readiness: ready, ports: { proxy: proxyPort, admin: adminPort } });
    await expect(start).rejects.toMatchObject({ code: "PORT_IN_USE", path: "proxy.admin_port" });
    const free = await new Promise<boolean>((resolve) => {
      const again = createServer().once("error", () => resolve(false)).listen(proxyPort, "127.0.0.1", () => again.close(() => resolve(true)));
    });
    expect(free).toBe(true);
    blocker.close();
  });
});
