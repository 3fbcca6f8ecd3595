// `openclaw-rl start` refusing before it starts or writes anything (a real process: start's action exits the
// process): one line per problem naming the recipe key or flag, exit 2, no stack trace, no run folder.
import { existsSync, mkdtempSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import path from "node:path";
import { describe, expect, it } from "vitest";
import { OpenclawRlError } from "../../contracts/errors.ts";
import { recipeSchema } from "../../contracts/recipe.ts";
import { createRunFolder } from "../../cli/commands/run-folder.ts";
import { freePort } from "../support/loopback.ts";
import { runCli } from "./cli-process.ts";

const scratch = mkdtempSync(path.join(tmpdir(), "start-refusals-"));

/** --set arguments that move every port the rehearsal recipe binds to free ones. */
async function freePorts(): Promise<string[]> {
  const keys = ["proxy.port", "proxy.admin_port", "engine.rehearsal.policy_port", "engine.rehearsal.judge_port"];
  const ports = await Promise.all(keys.map(() => freePort()));
  return keys.flatMap((key, index) => ["--set", `${key}=${ports[index]}`]);
}

function errorLines(stderr: string): string[] {
  return stderr.split("\n").filter((line) => line.trim() !== "");
}

describe("openclaw-rl start refuses before writing anything", () => {
  it("records.dir that cannot be created: one line naming records.dir and the OS reason, exit 2", async () => {
    const file = path.join(scratch, "a-file");
    writeFileSync(file, "");
    const result = await runCli(["start", ...(await freePorts()), "--set", `records.dir=${file}/sub`]);
    expect(result.exitCode).toBe(2);
    expect(errorLines(result.stderr)).toEqual([`error: records.dir: cannot create ${file}/sub: ${file} is a file, not a folder (ENOTDIR) (hint: point records.dir at a folder you can create and write (--set records.dir=<folder>))`]);
    expect(result.stdout).toBe("");
  });

  it("--ready-timeout that is not a positive number of seconds: one line naming the flag, exit 2, nothing written", async () => {
    const runDir = path.join(scratch, "ready-timeout-run");
    const ports = await freePorts();
    for (const value of ["abc", "0", "-5", "Infinity", ""]) {
      const result = await runCli(["start", ...ports, "--set", `records.dir=${runDir}`, "--ready-timeout", value]);
      expect(result.exitCode, value).toBe(2);
      expect(errorLines(result.stderr), value).toEqual([`error: --ready-timeout: expected a positive number of seconds (at most 2147483), got "${value}" (hint: e.g. --ready-timeout 900 (the default is 600))`]);
    }
    expect(existsSync(runDir)).toBe(false);
  });

  it("proxy.host 0.0.0.0 without an API key: refused before the run folder is written", async () => {
    const runDir = path.join(scratch, "bind-run");
    const result = await runCli(["start", ...(await freePorts()), "--set", "proxy.host=0.0.0.0", "--set", `records.dir=${runDir}`], { env: { OPENCLAW_RL_API_KEY: "" } });
    expect(result.exitCode).toBe(2);
    expect(errorLines(result.stderr)).toEqual(['error: proxy.host: refusing to serve the proxy on 0.0.0.0 without an API key (hint: set the OPENCLAW_RL_API_KEY environment variable (clients send it as "Authorization: Bearer <key>"), or bind 127.0.0.1)']);
    expect(existsSync(runDir)).toBe(false);
  });

  it("the run folder itself: an OS refusal is a typed error naming records.dir (no stack trace)", () => {
    const file = path.join(scratch, "another-file");
    writeFileSync(file, "");
    const recipe = recipeSchema.parse({});
    let thrown: unknown;
    try {
      createRunFolder(path.join(file, "sub"), recipe);
    } catch (error) {
      thrown = error;
    }
    expect(thrown).toBeInstanceOf(OpenclawRlError);
    expect((thrown as OpenclawRlError).toLine()).toMatch(new RegExp(`^records\\.dir: cannot create the run folder ${file}/sub: not a directory \\(ENOTDIR\\) \\(hint: `));
    expect(existsSync(path.join(file, "sub"))).toBe(false);
  });
});
