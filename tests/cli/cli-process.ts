// Runs bin/openclaw-rl.mjs as a real child process (tsx loader and all) and returns its exit code and output.
import path from "node:path";
import { fileURLToPath } from "node:url";
import { execa } from "execa";
import { HANG_GUARD_MS } from "../support/hang-guard.ts";

export const REPO_ROOT = path.resolve(path.dirname(fileURLToPath(import.meta.url)), "..", "..");
const BIN = path.join(REPO_ROOT, "bin", "openclaw-rl.mjs");

export interface CliResult {
  exitCode: number;
  stdout: string;
  stderr: string;
}


export async function runCli(args: string[], options: { cwd?: string; env?: Record<string, string> } = {}): Promise<CliResult> {
  const result = await execa(process.execPath, [BIN, ...args], { cwd: options.cwd ?? REPO_ROOT, env: options.env, reject: false, timeout: HANG_GUARD_MS, stdin: "ignore" });
  return { exitCode: result.exitCode ?? -1, stdout: result.stdout, stderr: result.stderr };
}

/** The same CLI in this process (main() with stdout/stderr captured): for the many cases that need no real child. */
export async function runCliInProcess(args: string[], env: Record<string, string> = {}): Promise<CliResult> {
  const { main } = await import("../../cli/main.ts");
  const stdout: string[] = [];
  const stderr: string[] = [];
  const writeOut = process.stdout.write.bind(process.stdout);
  const writeErr = process.stderr.write.bind(process.stderr);
  const saved = Object.fromEntries(Object.keys(env).map((key) => [key, process.env[key]]));
  Object.assign(process.env, env);
  process.stdout.write = ((chunk: string) => stdout.push(String(chunk)) > 0) as typeof process.stdout.write;
  process.stderr.write = ((chunk: string) => stderr.push(String(chunk)) > 0) as typeof process.stderr.write;
  try {
    const exitCode = await main(["node", "openclaw-rl", ...args]);
    return { exitCode, stdout: stdout.join(""), stderr: stderr.join("") };
  } finally {
    process.stdout.write = writeOut;
    process.stderr.write = writeErr;
    process.exitCode = undefined;
    for (const [key, value] of Object.entries(saved)) {
      if (value === undefined) delete process.env[key];
      else process.env[key] = value;
    }
  }
}
