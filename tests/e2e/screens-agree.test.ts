// One real run, three screens: `openclaw-rl start` in rehearsal (stand-in engines and trainer, the built-in tool-call
// environment running a small episode plan) with a scripted user chatting beside it. At several quiet moments, and
// again after a restart in the same records folder, `status` (text), `status --json` and the dashboard's live feed
// show the same figures, the counters are this run's, and the folder's totals since it was created are apart; the
// sample counts add up on every screen (judged = made + without a sample; made + what earlier runs left = ready + in
// training + trained + dropped), and judged and made are what this run's judgement records say.
// Moments are chosen by state (nothing in flight), never by time; every wait is a generous bound.
import { mkdtemp, readFile, rm, writeFile } from "node:fs/promises";
import { tmpdir } from "node:os";
import path from "node:path";
import { execa, type ResultPromise } from "execa";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { statusSnapshotSchema, type StatusSnapshot } from "../../contracts/status.ts";
import type { DashboardSnapshot } from "../../orchestrator/status/dashboard/dashboard-wire.ts";
import { ScriptedUser } from "../../rehearsal/user/scripted-user.ts";
import { freePort, until } from "../support/loopback.ts";
import { fromFeed, fromJson, fromText, sums, type Figures } from "../status/screen-readers.ts";
import { readJsonl } from "../support/jsonl.ts";

const root = path.resolve(import.meta.dirname, "..", "..");
const BIN = path.join(root, "bin", "openclaw-rl.mjs");
const BATCH = 4;
const EPISODES = { tasks: 2, samplesPerTask: 2 };
const WAIT_MS = 300_000;

interface Screens {
  text: string;
  json: StatusSnapshot;
  feed: DashboardSnapshot;
}

let folder: string;
let runDir: string;
let sets: Record<string, string | number>;
let start: ResultPromise | null = null;

beforeAll(async () => {
  folder = await mkdtemp(path.join(tmpdir(), "openclaw-rl-screens-"));
  runDir = path.join(folder, "run");
  const tasks = (await readFile(path.join(root, "environments", "toolcall", "tasks.jsonl"), "utf8")).split("\n").filter(Boolean).slice(0, EPISODES.tasks);
  await writeFile(path.join(folder, "tasks.jsonl"), `${tasks.join("\n")}\n`);
  const [proxy, admin, policy, judge, environment] = [await freePort(), await freePort(), await freePort(), await freePort(), await freePort()];
  sets = {
    method: "binary",
    "records.dir": runDir,
    "proxy.port": proxy,
    "proxy.admin_port": admin,
    "engine.rehearsal.policy_port": policy,
    "engine.rehearsal.judge_port": judge,
    "engine.rehearsal.train_seconds": 0.1,
    "engine.rehearsal.learn": "off",
    "training.batch_size": BATCH,
    // a scripted user's few sessions fill batches without waiting for the share's relaxation (5 min)
    "training.fair_batch.max_session_share": 1,
    "episodes.environment": "toolcall",
    "episodes.environment_port": environment,
    "episodes.tasks": path.join(folder, "tasks.jsonl"),
    "episodes.samples_per_task": EPISODES.samplesPerTask,
  };
});

afterAll(async () => {
  await stopRun();
  await rm(folder, { recursive: true, force: true });
});

async function startRun(): Promise<void> {
  const argv = [BIN, "start", ...Object.entries(sets).flatMap(([key, value]) => ["--set", `${key}=${value}`])];
  start = execa(process.execPath, argv, { cwd: root, reject: false, env: { OPENCLAW_RL_API_KEY: "" }, all: true });
  await until("the proxy to be ready", async () => ((await fetch(`http://127.0.0.1:${sets["proxy.port"]}/readyz`)).ok ? true : null), WAIT_MS);
}

async function stopRun(): Promise<void> {
  if (!start) return;
  start.kill("SIGINT");
  const result = await start;
  start = null;
  if (result.exitCode !== 0) console.log(result.all?.slice(-4000));
}

async function chat(turns: number): Promise<void> {
  const user = new ScriptedUser({ proxyUrl: `http://127.0.0.1:${sets["proxy.port"]}`, policyUrl: `http://127.0.0.1:${sets["engine.rehearsal.policy_port"]}`, model: "qwen3-4b" });
  await user.run(turns);
}

async function admin(): Promise<{ url: string; token: string }> {
  const { url } = JSON.parse(await readFile(path.join(runDir, "admin.json"), "utf8")) as { url: string };
  return { url, token: (await readFile(path.join(runDir, "admin-token"), "utf8")).trim() };
}

async function statusNow(): Promise<StatusSnapshot> {
  const { url, token } = await admin();
  return statusSnapshotSchema.parse(await (await fetch(`${url}/status`, { headers: { authorization: `Bearer ${token}` } })).json());
}

/** The status without what changes with the clock alone. */
function counted(status: StatusSnapshot): string {
  const { uptime_s: _, progress, ...rest } = status;
  return JSON.stringify({ ...rest, progress: { ...progress, eta_ms: null } });
}

/** The dashboard as its page gets it: the first message of its live feed (SSE), a snapshot. */
async function dashboardFeed(): Promise<DashboardSnapshot> {
  const { url, token } = await admin();
  const abort = new AbortController();
  const response = await fetch(`${url}/dashboard/api/stream?token=${encodeURIComponent(token)}`, { signal: abort.signal });
  const reader = response.body!.getReader();
  let text = "";
  try {
    for (;;) {
      const { value, done } = await reader.read();
      if (done) throw new Error(`the dashboard feed ended before its snapshot: ${text.slice(0, 200)}`);
      text += Buffer.from(value).toString("utf8");
      const found = text.match(/event: snapshot\ndata: (.*)\n\n/);
      if (found) return JSON.parse(found[1]!) as DashboardSnapshot;
    }
  } finally {
    abort.abort();
  }
}

/**
 * Nothing left to do: no batch to fill, no turn waiting for the judge, every planned episode done. (The trainer may
 * still hold its last batch: it acknowledges a batch when it asks for the next one.)
 */
function quiet(status: StatusSnapshot): boolean {
  const { samples, judging, episodes, progress } = status;
  const planDone = progress.episodes_planned === null || (progress.episodes_done ?? 0) >= progress.episodes_planned;
  return samples.ready < samples.batch_size && judging.waiting === 0 && episodes.running === 0 && planDone;
}

/** The three screens at one quiet moment: read again until nothing changed while they were read. */
async function screensWhenQuiet(): Promise<Screens> {
  return until(
    "the three screens at a quiet moment",
    async () => {
      const before = await statusNow();
      if (!quiet(before)) return null;
      const cli = (...flags: string[]) => execa(process.execPath, [BIN, "status", "--run", runDir, ...flags], { cwd: folder });
      const json = statusSnapshotSchema.parse(JSON.parse((await cli("--json")).stdout));
      const text = (await cli()).stdout;
      const feed = await dashboardFeed();
      const after = await statusNow();
      return counted(before) === counted(after) && counted(json) === counted(after) ? { text, json, feed } : null;
    },
    WAIT_MS,
  );
}

/** Every figure two screens show is the same on all three, and the sample counts add up and match the records; returns it. */
async function agreed(screens: Screens, moment: string): Promise<Figures> {
  const json = fromJson(screens.json);
  expect(fromText(screens.text), `status text against status --json, ${moment}`).toEqual(json);
  expect(fromFeed(screens.feed), `the dashboard's feed against status --json, ${moment}`).toEqual(json);
  // every batch holds BATCH samples: trained samples and trained batches are counted over the same batches
  expect(json.samplesTrained, moment).toBe(json.batchesTrained * BATCH);
  const { judged, samples } = sums(json);
  expect(judged[0], `judged = made + without a sample, ${moment}`).toBe(judged[1]);
  expect(samples[0], `made + from earlier runs = ready + in training + trained + dropped, ${moment}`).toBe(samples[1]);
  // this run's judgement records (one per judged turn here: no feedback asks to judge one again)
  const records = (await readJsonl(path.join(runDir, "judgements.jsonl"))).filter((record) => record.at >= screens.json.started_at);
  expect([json.judged, json.made], `judged and made against this run's judgements.jsonl, ${moment}`).toEqual([records.length, records.filter((record) => record.sample).length]);
  return json;
}

describe("one run, three screens (status, status --json, the dashboard)", () => {
  it("show the same figures at quiet moments of a chat-and-episodes run, and this run's counters after a restart", { timeout: 1_200_000 }, async () => {
    const planned = EPISODES.tasks * EPISODES.samplesPerTask;
    await startRun();
    const episodesDone = await agreed(await screensWhenQuiet(), "after the episode plan");
    expect(episodesDone.progress).toEqual({ done: planned, planned });
    expect(episodesDone.episodes).toMatchObject({ running: 0, finished: planned });
    expect(episodesDone.folder).toEqual({ samplesTrained: episodesDone.samplesTrained, droppedStale: episodesDone.staleDrops }); // a new folder

    await chat(6);
    const firstChat = await agreed(await screensWhenQuiet(), "after the first chat");
    expect(firstChat.turns.main).toBeGreaterThan(episodesDone.turns.main);
    expect(firstChat.openTurns, "each chat session's last turn waits for its next message").toBeGreaterThan(0);
    expect(firstChat.runId).toBe(episodesDone.runId);

    // piped `status --watch` prints the block once, then only lines that changed
    const watch = execa(process.execPath, [BIN, "status", "--run", runDir, "--watch"], { cwd: folder, reject: false });
    let watchedSoFar = "";
    watch.stdout!.on("data", (chunk: Buffer) => (watchedSoFar += chunk.toString("utf8")));
    await until("status --watch to print its first block", async () => (/^engines$/m.test(watchedSoFar) ? true : null), WAIT_MS);
    await chat(6);
    const secondChat = await agreed(await screensWhenQuiet(), "after the second chat");
    watch.kill("SIGINT");
    const watched = (await watch).stdout;
    expect(watched.match(/^engines$/gm), `the block once:\n${watched}`).toHaveLength(1);
    expect(watched).toMatch(/^\d\d:\d\d:\d\d sessions +\d+ · turns/m);

    // the dashboard without its token: a page that says how to open it
    const page = await fetch(`${(await admin()).url}/dashboard/`);
    expect(page.status).toBe(401);
    expect(page.headers.get("content-type")).toMatch(/^text\/html/);
    expect(await page.text()).toContain(`npx openclaw-rl status --run ${runDir}`);
    await stopRun();
    const restartedAt = Date.now();

    await startRun();
    const restarted = await agreed(await screensWhenQuiet(), "after a restart in the same records folder");
    expect(restarted.runId).not.toBe(secondChat.runId);
    // this run's: its own plan of episodes and its own batches; the folder's totals hold both runs
    expect(restarted.progress).toEqual({ done: planned, planned });
    expect(restarted.episodes.finished).toBe(planned);
    expect(restarted.turns.main).toBeLessThan(secondChat.turns.main);
    // what the folder held when this run began: the first run's trained samples, and the batch its trainer still held
    // if it acknowledged that one as it stopped
    const before = { samplesTrained: restarted.folder!.samplesTrained - restarted.samplesTrained, droppedStale: restarted.folder!.droppedStale - restarted.staleDrops };
    expect([secondChat.samplesTrained, secondChat.samplesTrained + secondChat.inTraining]).toContain(before.samplesTrained);
    // what the first run left (ready, or out to its trainer) is this run's to train or drop, counted apart from made
    // (the first run's open turns were judged as it stopped, after its last screen: their samples were left ready too)
    const madeAtStop = (await readJsonl(path.join(runDir, "judgements.jsonl"))).filter((record) => record.sample && record.at < restartedAt).length - secondChat.made;
    const ackedAtStop = before.samplesTrained - secondChat.samplesTrained;
    expect(restarted.fromEarlierRuns).toBe(secondChat.ready + madeAtStop + secondChat.inTraining - ackedAtStop);
    expect(before.droppedStale).toBe(secondChat.staleDrops);
    await chat(3);
    const restartedChat = await agreed(await screensWhenQuiet(), "after chatting in the restarted run");
    expect(restartedChat.turns.main).toBeGreaterThan(restarted.turns.main);
  });
});
