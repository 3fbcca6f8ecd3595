// How soon it learns, as `npm run bench` reports it: `openclaw-rl start` in rehearsal (stand-in engines and trainer,
// the real proxy, judge, store, bridge and rollout function) and one scripted user at a person's pace, time-scaled,
// once per recipe (the default, then each knob: a smaller batch, training.max_wait_s, a tool-heavy user), side by
// side: median and p90 of each stage from status's learning_latency, and the closed stage split by what closed the
// turn (a tool result or the user's reply, from turns.jsonl). Owns the runs; the table: learning-latency-table.ts.
import { mkdtemp, readFile, rm } from "node:fs/promises";
import { tmpdir } from "node:os";
import path from "node:path";
import { execa } from "execa";
import { statusSnapshotSchema, type StatusSnapshot } from "../../contracts/status.ts";
import { spread, type Spread } from "../../orchestrator/status/learning-latency.ts";
import { ScriptedUser } from "../../rehearsal/user/scripted-user.ts";
import { freePort, until } from "../support/loopback.ts";
import { seededRandom } from "../support/seeded-random.ts";
import { latencyTable, type MeasuredColumn } from "./learning-latency-table.ts";

const root = path.resolve(import.meta.dirname, "..", "..");
const argument = (name: string, fallback: number) => Number(process.argv.find((value) => value.startsWith(`--${name}=`))?.split("=")[1] ?? fallback);
/** A person writes every 20–60 s; the bench runs that `scale` times faster so a run takes a minute or two. */
const scale = argument("time-scale", 120);
const turns = argument("turns", 56);

/** training.max_wait_s in seconds of the scaled run: about 4 min at a person's pace. */
const maxWaitS = Number((240 / scale).toFixed(2));

interface Column {
  label: string;
  sets: Record<string, string | number>;
  /** Every n-th session opens with a tool call, whose result the user sends back at once (0: none). */
  toolSessionEvery: number;
}

const COLUMNS: Column[] = [
  { label: "default (batch 16, as the reference)", sets: { "training.batch_size": 16 }, toolSessionEvery: 5 },
  { label: "training.batch_size 4", sets: { "training.batch_size": 4 }, toolSessionEvery: 5 },
  { label: `training.max_wait_s ${maxWaitS} (batch 16)`, sets: { "training.batch_size": 16, "training.max_wait_s": maxWaitS }, toolSessionEvery: 5 },
  { label: "every session opens with a tool call (batch 16)", sets: { "training.batch_size": 16 }, toolSessionEvery: 1 },
];

/** The closed stage by what closed the turn: its next request's start − its answer's end, from turns.jsonl. */
type Measured = Omit<MeasuredColumn, "label">;

/** Each turn closed by its session's next request waits from its answer's end to that request's start (turn + 1). */
async function closingWaits(turnsFile: string): Promise<Measured["closedBy"]> {
  type Line = { session_id: string; turn: number; closed_by: string; next_state: { role: string } | null; started_at: number; ended_at: number };
  const lines = (await readFile(turnsFile, "utf8")).trim().split("\n").map((line) => JSON.parse(line) as Line);
  const startOf = new Map(lines.map((line) => [`${line.session_id}:${line.turn}`, line.started_at]));
  const waits: Record<"tool" | "user", number[]> = { tool: [], user: [] };
  for (const line of lines) {
    const next = startOf.get(`${line.session_id}:${line.turn + 1}`);
    const role = line.next_state?.role;
    if (line.closed_by === "next-request" && next !== undefined && (role === "tool" || role === "user")) waits[role].push(next - line.ended_at);
  }
  return { tool: spread(waits.tool), user: spread(waits.user) };
}

async function measure({ sets, toolSessionEvery }: Column): Promise<Measured> {
  const folder = await mkdtemp(path.join(tmpdir(), "latency-bench-"));
  const [proxyPort, adminPort, policyPort, judgePort] = [await freePort(), await freePort(), await freePort(), await freePort()];
  const all = {
    "records.dir": path.join(folder, "run"),
    "proxy.port": proxyPort,
    "proxy.admin_port": adminPort,
    "engine.rehearsal.policy_port": policyPort,
    "engine.rehearsal.judge_port": judgePort,
    "engine.rehearsal.seed": 3,
    ...sets,
  };
  const argv = ["bin/openclaw-rl.mjs", "start", "--method", "binary", ...Object.entries(all).flatMap(([key, value]) => ["--set", `${key}=${value}`])];
  const start = execa(process.execPath, argv, { cwd: root, reject: false, env: { OPENCLAW_RL_API_KEY: "" }, all: true });
  const status = async () => {
    const token = (await readFile(path.join(folder, "run", "admin-token"), "utf8")).trim();
    const response = await fetch(`http://127.0.0.1:${adminPort}/status`, { headers: { authorization: `Bearer ${token}` } });
    return statusSnapshotSchema.parse(await response.json());
  };
  try {
    await until("the proxy to be ready", async () => ((await fetch(`http://127.0.0.1:${proxyPort}/readyz`).catch(() => null))?.ok ? true : null), 180_000);
    const random = seededRandom(7);
    const user = new ScriptedUser({ proxyUrl: `http://127.0.0.1:${proxyPort}`, model: "qwen3-4b", toolSessionEvery, thinkMs: () => ((20 + 40 * random.next()) * 1000) / scale });
    const began = Date.now();
    await user.run(turns);
    console.error(`[bench] ${JSON.stringify(sets)}, tool session every ${toolSessionEvery}: ${turns} turns in ${((Date.now() - began) / 1000).toFixed(0)} s`);
    const batch = Number(sets["training.batch_size"]);
    // until all that can be is served: no full batch ready (or what is ready held back by the per-session share), at
    // most the last batch in training (in train_async order its weights are pushed once another batch has come:
    // docs/judging.md), nothing trained waiting for an update
    const settled = ({ samples, learning_latency: latency }: StatusSnapshot) => (samples.ready < batch || samples.held_back !== null) && samples.in_training <= batch && latency.awaiting_serve === 0;
    await until("the trained batches to be served", async () => (settled(await status()) ? true : null), 60_000).catch(async (error: Error) => {
      const { samples, learning_latency: latency } = await status();
      console.error(`[bench] ${error.message}: ${JSON.stringify({ samples, served: latency.samples, awaiting: latency.awaiting_serve })}`);
    });
    return { latency: (await status()).learning_latency, closedBy: await closingWaits(path.join(folder, "run", "turns.jsonl")) };
  } finally {
    start.kill("SIGTERM");
    await start;
    await rm(folder, { recursive: true, force: true });
  }
}

const results: MeasuredColumn[] = [];
for (const column of COLUMNS) results.push({ label: column.label, ...(await measure(column)) });

console.log(`one scripted user, binary, ${turns} turns; a message every 20–60 s, run ${scale}× faster (${(20 / scale).toFixed(2)}–${(60 / scale).toFixed(2)} s); engines and trainer are the rehearsal stand-ins (train_seconds 1, unscaled); max_wait_s ${maxWaitS} s is ${(maxWaitS * scale / 60).toFixed(0)} min at a person's pace`);
console.log(`the stages cover only the samples served by the end: a batch that never fills (at batch 16, what is left after the last full one) is not in them, so a column's row "samples served" says how many of the ${turns} turns it covers\n`);
for (const line of latencyTable(results, turns)) console.log(line);
