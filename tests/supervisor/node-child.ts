// Test helper: a supervised child that is a small Node script (process.execPath -e SCRIPT), with a definition
// the test can adjust (probe, restart policy, hang limit), and a SupervisedChild that records its states.
import { mkdtempSync } from "node:fs";
import { tmpdir } from "node:os";
import path from "node:path";
import type { ChildDefinition } from "../../launchers/supervisor/child-definition.ts";
import { NEVER_RESTART } from "../../launchers/supervisor/restart-policy.ts";
import { SupervisedChild, type ChildContext } from "../../launchers/supervisor/supervised-child.ts";

export function nodeChildDefinition(name: string, script: string, overrides: Partial<ChildDefinition> = {}): ChildDefinition {
  return {
    name,
    spec: { name, role: "standin-server", argv: [process.execPath, "-e", script], env: {}, cwd: tmpdir(), node: 0 },
    lifetime: "service",
    probe: async () => ({ ready: true, detail: "alive" }),
    readyTimeoutMs: 10_000,
    recheckMs: 50,
    hungAfterMs: Number.POSITIVE_INFINITY,
    restart: NEVER_RESTART,
    gatesTraffic: true,
    after: [],
    ...overrides,
  };
}

export function supervise(definition: ChildDefinition, states: string[] = [], context: Partial<ChildContext> = {}): { child: SupervisedChild; logsDir: string; states: string[] } {
  const logsDir = mkdtempSync(path.join(tmpdir(), "openclaw-rl-child-"));
  const child = new SupervisedChild(definition, {
    logsDir,
    baseEnvironment: { PATH: process.env.PATH },
    stopGraceMs: 500,
    onState: (_name, state, detail) => states.push(`${state}: ${detail}`),
    ...context,
  });
  return { child, logsDir, states };
}
