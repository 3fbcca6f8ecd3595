// Where the CLI finds the running start's admin API (cli/admin-target.ts): status and resume-training take flags and
// $OPENCLAW_RL_ADMIN_TOKEN over the run folder; eval reads the run folder only, admin.json before admin-token; askAdmin's
// answers and refusals.
import { mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { createServer } from "node:http";
import { tmpdir } from "node:os";
import path from "node:path";
import { afterEach, beforeEach, describe, expect, it } from "vitest";
import { z } from "zod";
import { askAdmin, resolveTarget, runFolderTarget } from "../../cli/admin-target.ts";
import { ADMIN_ENDPOINT_FILE, ADMIN_TOKEN_FILE } from "../../orchestrator/status/admin-token.ts";
import { freePort } from "../support/loopback.ts";
import { runCliInProcess } from "./cli-process.ts";

describe("the running start's admin target", () => {
  let runDir: string;
  const savedToken = process.env.OPENCLAW_RL_ADMIN_TOKEN;
  const recordEndpoint = (url: string) => writeFileSync(path.join(runDir, ADMIN_ENDPOINT_FILE), JSON.stringify({ url, pid: 1 }) + "\n");
  const recordToken = (token: string) => writeFileSync(path.join(runDir, ADMIN_TOKEN_FILE), `${token}\n`);

  beforeEach(() => {
    runDir = mkdtempSync(path.join(tmpdir(), "admin-target-"));
    delete process.env.OPENCLAW_RL_ADMIN_TOKEN;
  });
  afterEach(() => {
    rmSync(runDir, { recursive: true, force: true });
    if (savedToken === undefined) delete process.env.OPENCLAW_RL_ADMIN_TOKEN;
    else process.env.OPENCLAW_RL_ADMIN_TOKEN = savedToken;
  });

  it("the run folder's record: admin.json first (with the caller's hint), then admin-token; an unreadable admin.json is none", () => {
    expect(() => runFolderTarget(runDir, "the caller's hint")).toThrow(expect.objectContaining({ code: "RECIPE_NOT_FOUND", message: `no running openclaw-rl recorded in ${runDir} (admin.json missing)`, hint: "the caller's hint" }));
    writeFileSync(path.join(runDir, ADMIN_ENDPOINT_FILE), "{");
    expect(() => runFolderTarget(runDir, "hint")).toThrow(/admin\.json missing/);
    recordEndpoint("http://127.0.0.1:1");
    expect(() => runFolderTarget(runDir, "hint")).toThrow(expect.objectContaining({ code: "RECIPE_NOT_FOUND", message: expect.stringContaining(`no admin token at ${path.join(runDir, ADMIN_TOKEN_FILE)}`) }));
    recordToken("folder-token");
    process.env.OPENCLAW_RL_ADMIN_TOKEN = "environment-token";
    expect(runFolderTarget(runDir, "hint")).toEqual({ url: "http://127.0.0.1:1", token: "folder-token", runDir });
  });

  it("status's order: flags and $OPENCLAW_RL_ADMIN_TOKEN over the folder, the token asked for before admin.json", () => {
    expect(() => resolveTarget({ set: [], run: runDir })).toThrow(/no admin token at/);
    recordToken("folder-token");
    expect(() => resolveTarget({ set: [], run: runDir })).toThrow(/admin\.json missing/);
    recordEndpoint("http://127.0.0.1:1");
    expect(resolveTarget({ set: [], run: runDir })).toEqual({ url: "http://127.0.0.1:1", token: "folder-token", runDir });
    expect(resolveTarget({ set: [], run: runDir, url: "http://127.0.0.1:2/" })).toEqual({ url: "http://127.0.0.1:2", token: "folder-token", runDir });
    process.env.OPENCLAW_RL_ADMIN_TOKEN = "environment-token";
    expect(resolveTarget({ set: [], run: runDir })).toMatchObject({ token: "environment-token" });
    expect(resolveTarget({ set: [], url: "http://127.0.0.1:2" })).toEqual({ url: "http://127.0.0.1:2", token: "environment-token", runDir: null });
    expect(resolveTarget({ set: [], run: runDir, token: "flag-token" })).toMatchObject({ token: "flag-token" });
  });

  it("askAdmin: the route with the bearer token, its answer parsed; a refused token and an unexpected answer refused by name", async () => {
    const seen: Array<{ method?: string; url?: string; authorization?: string }> = [];
    const server = createServer((request, response) => {
      seen.push({ method: request.method, url: request.url, authorization: request.headers.authorization });
      if (request.headers.authorization !== "Bearer right") return void response.writeHead(401).end("{}");
      response.writeHead(request.url === "/good" ? 200 : 404, { "content-type": "application/json" }).end(JSON.stringify({ answer: 42 }));
    });
    await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
    const url = `http://127.0.0.1:${(server.address() as { port: number }).port}`;
    try {
      const answer = z.object({ answer: z.number() });
      expect(await askAdmin({ url, token: "right", runDir: null }, "/good", answer, { method: "POST" })).toEqual({ answer: 42 });
      expect(seen[0]).toEqual({ method: "POST", url: "/good", authorization: "Bearer right" });
      await expect(askAdmin({ url, token: "wrong", runDir: null }, "/good", answer)).rejects.toMatchObject({ code: "UNAUTHORIZED", message: `the admin token was refused by ${url}` });
      await expect(askAdmin({ url, token: "right", runDir: null }, "/good", z.object({ answer: z.string() }))).rejects.toMatchObject({ code: "ENGINE_ERROR", message: `unexpected answer from ${url}/good (200)` });
      await expect(askAdmin({ url, token: "right", runDir: null }, "/old", answer, { hint: "too old" })).rejects.toMatchObject({ code: "ENGINE_ERROR", message: `unexpected answer from ${url}/old (404)`, hint: "too old" });
    } finally {
      await new Promise((resolve) => server.close(resolve));
    }
  });

  it("eval's live version needs the recorded start's token and answer; a checkpoint's plan needs neither", async () => {
    recordEndpoint(`http://127.0.0.1:${await freePort()}`);
    const noToken = await runCliInProcess(["eval", "--run", runDir, "--set", `records.dir=${runDir}`]);
    expect(noToken.exitCode).toBe(2);
    expect(noToken.stderr).toContain(`no admin token at ${path.join(runDir, ADMIN_TOKEN_FILE)}`);
    recordToken("folder-token");
    const silent = await runCliInProcess(["eval", "--run", runDir, "--set", `records.dir=${runDir}`]);
    expect(silent.exitCode).toBe(2);
    expect(silent.stderr).toContain("no openclaw-rl answers at http://127.0.0.1:");
    rmSync(path.join(runDir, ADMIN_TOKEN_FILE));
    const plan = await runCliInProcess(["eval", "--run", runDir, "--set", `records.dir=${runDir}`, "--checkpoint", "base", "--plan"]);
    expect(plan.stderr).toBe("");
    expect(plan.exitCode).toBe(0);
    expect(plan.stdout).toContain("version     v0\n");
  });
});
