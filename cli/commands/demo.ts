// `openclaw-rl demo [--turns N]`: a scripted user talks to the running rehearsal through the proxy, rejects the
// AI-flavoured reply style and accepts the others; prints the reward curve per training batch (weight version), then
// when the samples made after the last batch train (demo-closing.ts).
// With --persona, a homework persona plays instead (demo-persona.ts).
import type { Command } from "commander";
import { OpenclawRlError } from "../../contracts/errors.ts";
import { formatCurvePoint, rejectedShare, rewardCurve, type CurvePoint } from "../../rehearsal/user/reward-curve.ts";
import { parsePersonaId } from "../../rehearsal/user/homework-personas.ts";
import { ScriptedUser, type TurnRecord } from "../../rehearsal/user/scripted-user.ts";
import path from "node:path";
import { cliCommand, shellWord } from "../../lib/cli-command.ts";
import { runFolderTarget } from "../admin-target.ts";
import { closingLine } from "./demo-closing.ts";
import { playPersona } from "./demo-persona.ts";
import { fetchStatus } from "./status.ts";
import { recipeFromOptions, withRecipeOptions, type CommonOptions } from "../common-options.ts";

interface DemoOptions extends CommonOptions {
  turns: string;
  persona?: string;
  proxyUrl?: string;
  stream: boolean;
}

export function registerDemoCommand(program: Command): void {
  withRecipeOptions(program.command("demo"))
    .description("Drive a scripted user through the running rehearsal (start it first) and print the reward curve per batch")
    .option("--turns <n>", "judged turns to play", "60")
    .option("--proxy-url <url>", "proxy base URL (default: http://127.0.0.1:<proxy.port>)")
    .option("--no-stream", "ask for whole answers instead of streams")
    .option("--persona <name>", "play the reference's student, ta or teacher persona session after session instead, and print the sessions until its preference shows in the first reply (docs/evaluation.md)")
    .action(async (options: DemoOptions) => {
      const { recipe } = recipeFromOptions(options);
      const turns = Number(options.turns);
      if (!Number.isInteger(turns) || turns < 1) throw new OpenclawRlError("BAD_REQUEST", `--turns must be a positive integer, got ${options.turns}`);
      if (options.persona !== undefined) parsePersonaId(options.persona); // a bad name is refused before anything is reached
      if (recipe.engine.kind !== "rehearsal") {
        throw new OpenclawRlError("ENGINE_UNSUPPORTED", `demo plays against the rehearsal stand-ins, but engine.kind is ${recipe.engine.kind}`, { path: "engine.kind", hint: "use configs/rehearsal.yaml (the default recipe)" });
      }
      const proxyUrl = (options.proxyUrl ?? `http://127.0.0.1:${recipe.proxy.port}`).replace(/\/+$/, "");
      const policyUrl = `http://127.0.0.1:${recipe.engine.rehearsal.policy_port}`;
      const hint = "run `npx openclaw-rl start` first; for a start run with --set or --method, pass --recipe <its records.dir>/recipe.resolved.yaml (its banner prints this demo command)";
      await expectReachable(`${proxyUrl}/v1/models`, "the proxy", hint);
      await expectReachable(`${policyUrl}/health`, "the stand-in policy", hint);
      const apiKey = process.env[recipe.proxy.api_key_env];
      if (options.persona !== undefined) return void (await playPersona(options.persona, { proxyUrl, policyUrl, model: recipe.model.served_name, apiKey, stream: options.stream }, recipe.method));
      process.stdout.write(`demo: method ${recipe.method} (the running start must use the same), ${turns} judged turns through ${proxyUrl}; the model is a stand-in\n`);
      const user = new ScriptedUser({ proxyUrl, policyUrl, model: recipe.model.served_name, apiKey, stream: options.stream });
      let current: string | null = null;
      const seen: TurnRecord[] = [];
      const probabilities = new Map<string, Promise<number | null>>(); // the policy that wrote each version's turns
      let printing = Promise.resolve();
      const records = await user.run(turns, (record) => {
        const version = record.weightVersion ?? "?";
        if (!probabilities.has(version)) probabilities.set(version, policyProbability(policyUrl));
        if (current !== null && version !== current) {
          const done = current;
          printing = printing.then(() => printPoint(seen, done, probabilities.get(done)!));
        }
        current = version;
        seen.push(record);
      });
      if (current !== null) {
        const done: string = current;
        printing = printing.then(() => printPoint(seen, done, probabilities.get(done)!));
      }
      await printing;
      const third = Math.max(1, Math.floor(records.length / 3));
      const first = rejectedShare(records.slice(0, third));
      const last = rejectedShare(records.slice(-third));
      process.stdout.write(`\nrejected-style share: first third ${percent(first)}, last third ${percent(last)} (policy P now ${(await policyProbability(policyUrl))?.toFixed(3) ?? "?"})\n`);
      const runDir = path.resolve(recipe.records.dir);
      const status = await fetchStatus(runFolderTarget(runDir, "")).catch(() => null); // (a closing word only: none without it)
      if (status) process.stdout.write(`${closingLine(status, recipe.training.max_wait_s, cliCommand(`status --run ${shellWord(runDir)}`))}\n`);
    });
}

async function printPoint(records: readonly TurnRecord[], version: string, probability: Promise<number | null>): Promise<void> {
  const point = rewardCurve(records).find((entry: CurvePoint) => entry.version === version);
  if (point) process.stdout.write(`${formatCurvePoint(point, await probability)}\n`);
}

async function policyProbability(policyUrl: string): Promise<number | null> {
  try {
    const state = (await (await fetch(`${policyUrl}/standin/state`, { signal: AbortSignal.timeout(5000) })).json()) as { responder?: { probabilities?: Record<string, number> } };
    return state.responder?.probabilities?.ai ?? null;
  } catch {
    return null;
  }
}

async function expectReachable(url: string, what: string, hint: string): Promise<void> {
  try {
    const response = await fetch(url, { signal: AbortSignal.timeout(5000) });
    await response.arrayBuffer();
  } catch (cause) {
    throw new OpenclawRlError("ENGINE_UNAVAILABLE", `cannot reach ${what} at ${url}`, { cause, hint });
  }
}

function percent(value: number | null): string {
  return value === null ? "–" : `${(100 * value).toFixed(0)}%`;
}
