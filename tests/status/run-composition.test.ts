// orchestrator/run.ts in-process: stop() order (proxy refuses → bridge closed → engines → status API closes last)
// and a failed start (admin port taken) that releases what it had opened.
import { mkdtempSync } from "node:fs";
import { createServer, type Server } from "node:net";
import { tmpdir } from "node:os";
import path from "node:path";
import { describe, expect, it } from "vitest";
import { recipeSchema } from "../../contracts/recipe.ts";
import { startOrchestrator } from "../../orchestrator/run.ts";

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

  it("a port taken after preflight fails the start and frees the proxy port again", async () => {
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
