// One rehearsal run of the paper's method comparison: `openclaw-rl start --method M` on free loopback ports (the
// stand-in policy seeded), a homework persona talking to it session after session until the sessions-until count is
// settled, then the start stopped. Also the table the runs make. Used by the sessions-until bench and its test.
import { mkdtemp, rm } from "node:fs/promises";
import { tmpdir } from "node:os";
import path from "node:path";
import { execa } from "execa";
import type { Method } from "../../contracts/recipe.ts";
import { formatSessionsUntil, sessionsUntilOverSeeds, sessionsUntilPreference, sessionsUntilSettled, type SessionsUntil } from "../../orchestrator/evaluation/sessions-until.ts";
import { HOMEWORK_PERSONAS, type PersonaId } from "../../rehearsal/user/homework-personas.ts";
import { PersonaUser, type PersonaSession } from "../../rehearsal/user/persona-user.ts";
import { rehearsalSets } from "../e2e/support/rehearsal-sets.ts";
import { until } from "./loopback.ts";

const root = path.resolve(import.meta.dirname, "..", "..");

export interface SessionsUntilSettings {
  /** Stop a run after this many sessions (the measure's cap, 72, unless a quick run asks for fewer). */
  cap: number;
  batchSize: number;
  trainSeconds: number;
  /** Replies the persona judges per session (the first, then rewrites while unsatisfied). */
  repliesPerSession: number;
}

export const QUICK_SETTINGS: SessionsUntilSettings = { cap: 72, batchSize: 2, trainSeconds: 0.1, repliesPerSession: 2 };

export type RunOutcome =
  | { method: Method; persona: PersonaId; seed: number; result: SessionsUntil; sessions: PersonaSession[]; seconds: number }
  | { method: Method; persona: PersonaId; seed: number; refused: string };

export interface RehearsalStart {
  proxyUrl: string;
  policyUrl: string;
  runDir: string;
}

/**
 * Runs `use` against a fresh `openclaw-rl start --method M` in rehearsal (its policy seeded), once it is ready and the
 * trainer has synced its weights; stops the start after. A start that exits first (a method refused) gives its reason.
 */
export async function withRehearsalStart<T>(method: Method, seed: number, settings: SessionsUntilSettings, use: (start: RehearsalStart) => Promise<T>): Promise<{ value: T } | { refused: string }> {
  const folder = await mkdtemp(path.join(tmpdir(), `sessions-until-${method}-`));
  const runDir = path.join(folder, "run");
  const { sets: ports, proxyPort, policyPort } = await rehearsalSets(runDir);
  const sets = { ...ports, "engine.rehearsal.train_seconds": settings.trainSeconds, "engine.rehearsal.seed": seed, "training.batch_size": settings.batchSize };
  const argv = ["bin/openclaw-rl.mjs", "start", "--method", method, ...Object.entries(sets).flatMap(([key, value]) => ["--set", `${key}=${value}`])];
  const start = execa(process.execPath, argv, { cwd: root, reject: false, env: { OPENCLAW_RL_API_KEY: "" }, all: true, forceKillAfterDelay: 10_000 });
  let exited = false;
  void start.then(() => (exited = true));
  const proxyUrl = `http://127.0.0.1:${proxyPort}`;
  const policyUrl = `http://127.0.0.1:${policyPort}`;
  try {
    const ready = await until(
      "the start to be ready and the trainer's first weight sync",
      async () => {
        if (exited) return "exited";
        if (!(await fetch(`${proxyUrl}/readyz`)).ok) return null;
        const state = (await (await fetch(`${policyUrl}/standin/state`, { signal: AbortSignal.timeout(5000) })).json()) as { weight_version?: string };
        return state.weight_version !== "default" ? "ready" : null;
      },
      180_000,
    );
    if (ready === "exited") return { refused: refusalOf((await start).all ?? "") };
    return { value: await use({ proxyUrl, policyUrl, runDir }) };
  } finally {
    start.kill("SIGTERM");
    await start;
    await rm(folder, { recursive: true, force: true });
  }
}

/** Runs one (method, persona, seed): the persona plays sessions until the count is settled. */
export async function sessionsUntilRun(method: Method, persona: PersonaId, seed: number, settings: SessionsUntilSettings): Promise<RunOutcome> {
  const began = Date.now();
  const outcome = await withRehearsalStart(method, seed, settings, async ({ proxyUrl, policyUrl }) => {
    const user = new PersonaUser({ proxyUrl, policyUrl, model: "qwen3-4b", persona: HOMEWORK_PERSONAS[persona], repliesPerSession: settings.repliesPerSession });
    const sessions: PersonaSession[] = [];
    const verdicts = () => sessions.map((session) => session.firstReplySatisfied);
    while (!sessionsUntilSettled(verdicts(), { cap: settings.cap })) sessions.push(await user.session());
    return { result: sessionsUntilPreference(verdicts(), { cap: settings.cap }), sessions };
  });
  if ("refused" in outcome) return { method, persona, seed, refused: outcome.refused };
  return { method, persona, seed, ...outcome.value, seconds: (Date.now() - began) / 1000 };
}

/** The first error line a refused start printed (its code and message), or its last line. */
function refusalOf(output: string): string {
  const lines = output.split("\n").map((line) => line.trim()).filter(Boolean);
  return lines.find((line) => /error|refus|not supported|unsupported/i.test(line))?.slice(0, 320) ?? lines.at(-1)?.slice(0, 320) ?? "the start exited";
}

/** One row per (method, persona): sessions until the preference shows, mean ± spread over its seeds; a refusal says why. */
export function sessionsUntilTable(outcomes: readonly RunOutcome[], cap: number): string {
  const lines = ["| method | persona | sessions until (mean ± sd) | per seed | range |", "| --- | --- | --- | --- | --- |"];
  const groups = new Map<string, RunOutcome[]>();
  for (const outcome of outcomes) groups.set(`${outcome.method}\t${outcome.persona}`, [...(groups.get(`${outcome.method}\t${outcome.persona}`) ?? []), outcome]);
  for (const [key, group] of groups) {
    const [method, persona] = key.split("\t");
    const refused = group.find((outcome) => "refused" in outcome);
    if (refused && "refused" in refused) {
      lines.push(`| ${method} | ${persona} | refused | – | ${refused.refused.replaceAll("|", "/")} |`);
      continue;
    }
    const results = group.flatMap((outcome) => ("result" in outcome ? [outcome.result] : []));
    const summary = sessionsUntilOverSeeds(results);
    const perSeed = group.map((outcome) => ("result" in outcome ? `${outcome.seed}: ${outcome.result.reached ? outcome.result.sessions : `${cap}+`}` : "")).join(", ");
    lines.push(`| ${method} | ${persona} | ${formatSessionsUntil(summary)} | ${perSeed} | ${summary.min}–${summary.max} |`);
  }
  return lines.join("\n");
}
