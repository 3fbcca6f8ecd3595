// Every command the README and start's banner print runs as printed after the README's set-up (`npx openclaw-rl …`,
// no global install): the README's rehearsal starts come up on free ports (the test appends --set for ports and a
// scratch records folder to README commands, written for the defaults) with no warning above the banner; the rest
// run against the second one and exit as expected, none "not found" or "unknown option". Only GPU starts are left out.
// Here, not in `npm test`: two starts and a dozen CLI processes take over a minute on a 2-core machine.
import { mkdtempSync, readFileSync } from "node:fs";
import { tmpdir } from "node:os";
import path from "node:path";
import { execa } from "execa";
import { afterAll, describe, expect, it } from "vitest";
import { cliCommand } from "../../lib/cli-command.ts";
import { REPO_ROOT } from "../cli/cli-process.ts";
import { freePort } from "../support/loopback.ts";
import { bannerCommands, NOT_UNDERSTOOD, PasteShell, readmeCommands, subcommandOf } from "./support/printed-commands.ts";

const README = readFileSync(path.join(REPO_ROOT, "README.md"), "utf8");
const shell = new PasteShell(REPO_ROOT);
const running: Array<ReturnType<PasteShell["spawn"]>> = [];
afterAll(async () => {
  for (const child of running) {
    child.kill("SIGINT");
    await child;
  }
});

/** What a README command needs so it runs beside other starts: free ports and a records folder of its own. */
async function overrides(recordsDir: string): Promise<string> {
  const sets = {
    "proxy.port": await freePort(),
    "proxy.admin_port": await freePort(),
    "engine.rehearsal.policy_port": await freePort(),
    "engine.rehearsal.judge_port": await freePort(),
    "episodes.environment_port": await freePort(),
    "records.dir": recordsDir,
  };
  return Object.entries(sets).map(([key, value]) => `--set ${key}=${value}`).join(" ");
}

/** Starts a pasted `start` line and waits for its banner (the closing rule after "Stop"). */
async function startUntilBanner(line: string): Promise<{ child: ReturnType<PasteShell["spawn"]>; banner: string; stderr: () => string }> {
  const child = shell.spawn(line);
  running.push(child);
  let stdout = "";
  let stderr = "";
  child.stderr!.on("data", (chunk: Buffer) => (stderr += chunk.toString()));
  const banner = await new Promise<string>((resolve, reject) => {
    child.stdout!.on("data", (chunk: Buffer) => {
      stdout += chunk.toString();
      if (/Stop .*\n─+\n/.test(stdout)) resolve(stdout);
    });
    void child.then((result) => reject(new Error(`start ended (${result.exitCode}) before its banner:\n${stdout}\n${stderr.slice(-3000)}`)));
  });
  return { child, banner, stderr: () => stderr };
}

async function stop(child: ReturnType<PasteShell["spawn"]>): Promise<number | undefined> {
  child.kill("SIGINT");
  const result = await child;
  running.splice(running.indexOf(child), 1);
  return result.exitCode;
}

/** How each subcommand is expected to end when pasted here (doctor fails the slime recipe's checks on this machine). */
const EXPECTED_EXIT: Record<string, number[]> = { plan: [0], doctor: [0, 1], status: [0], "openclaw-config": [0], "agent-config": [0], "recipe-reference": [0], demo: [0], eval: [0] };

describe("every printed command works when pasted", () => {
  const commands = readmeCommands(README);

  it("the README's commands are all ones this test runs or leaves out by name", () => {
    expect(commands.length).toBeGreaterThan(8);
    for (const command of commands) {
      const subcommand = subcommandOf(command);
      expect(subcommand === "start" || subcommand in EXPECTED_EXIT, `no expectation for: ${command}`).toBe(true);
    }
  });

  it("npx finds the package's own bin in its folder, and through --prefix from anywhere else (the real npx, offline)", async () => {
    const inside = await execa("npx", ["--no-install", "openclaw-rl", "--help"], { cwd: REPO_ROOT, reject: false, all: true, stdin: "ignore" });
    expect(inside.exitCode, String(inside.all)).toBe(0);
    const elsewhere = mkdtempSync(path.join(tmpdir(), "elsewhere-"));
    const printed = cliCommand("--help", elsewhere);
    expect(printed).toBe(`npx --prefix ${REPO_ROOT} openclaw-rl --help`);
    const outside = await execa("bash", ["-c", printed.replace(/^npx /, "npx --no-install ")], { cwd: elsewhere, reject: false, all: true, stdin: "ignore" });
    expect(outside.exitCode, String(outside.all)).toBe(0);
  });

  it(
    "the README's starts come up with a banner and no warning; the banner's and the README's other commands run against one",
    async () => {
      const starts = commands.filter((command) => subcommandOf(command) === "start" && !command.includes("--recipe"));
      expect(starts).toEqual(["npx openclaw-rl start", "npx openclaw-rl start --set method=binary --set episodes.environment=toolcall"]);
      const recordsDir = mkdtempSync(path.join(tmpdir(), "pasted-run-"));
      const runSets = await overrides(recordsDir); // the run the other commands meet: the README's plain start
      let last: Awaited<ReturnType<typeof startUntilBanner>> | null = null;
      for (const command of [...starts].reverse()) {
        if (last) expect(await stop(last.child)).toBe(0);
        const sets = command === starts[0] ? runSets : await overrides(mkdtempSync(path.join(tmpdir(), "pasted-env-run-")));
        last = await startUntilBanner(`${command} ${sets}`);
        expect(last.stderr(), command).not.toMatch(/Warning/);
      }
      const banner = last!.banner;
      const printed = bannerCommands(banner);
      expect(printed.map(subcommandOf)).toEqual(["openclaw-config", "status", "demo", "eval"]);
      for (const command of printed) {
        const result = await shell.run(subcommandOf(command) === "demo" ? `${command} --turns 2` : command);
        expect(result.output, command).not.toMatch(NOT_UNDERSTOOD);
        expect(result.exitCode, `${command}\n${result.output}`).toBe(0);
      }
      const written = JSON.parse(readFileSync(path.join(shell.home, ".openclaw", "openclaw.json"), "utf8"));
      expect(written.models.providers.rl.baseUrl).toBe(/OpenClaw endpoint\s+(\S+)/.exec(banner)![1]);

      // the README's other commands, on the running start's ports and records folder (demo: 2 turns, not 60)
      for (const command of commands.filter((line) => subcommandOf(line) !== "start")) {
        const subcommand = subcommandOf(command);
        const extra = subcommand === "recipe-reference" ? "" : subcommand === "demo" ? `${runSets} --turns 2` : runSets;
        const result = await shell.run(`${command} ${extra}`);
        expect(result.output, command).not.toMatch(NOT_UNDERSTOOD);
        expect(EXPECTED_EXIT[subcommand], `${command} exited ${result.exitCode}\n${result.output.slice(-2000)}`).toContain(result.exitCode);
        if (subcommand === "doctor") expect(result.output).toMatch(/result: /);
      }
      expect(await stop(last!.child)).toBe(0);
    },
    600_000,
  );
});
