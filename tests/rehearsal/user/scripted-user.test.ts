// The scripted user against a stand-in policy's own /v1/chat/completions (standing in for the proxy): rejects the
// AI style, accepts others, runs tool calls, records weight versions; the reward curve groups them per version.
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { ChatTemplate } from "../../../lib/model/chat-template.ts";
import { loadTokenizerFiles } from "../../../lib/model/model-files.ts";
import { ModelTokenizer } from "../../../lib/model/model-tokenizer.ts";
import { PolicyResponder } from "../../../rehearsal/policy/responder.ts";
import { formatCurvePoint, rejectedShare, rewardCurve } from "../../../rehearsal/user/reward-curve.ts";
import { REJECTION, ScriptedUser, type TurnRecord } from "../../../rehearsal/user/scripted-user.ts";
import { StandinSglangServer } from "../../../rehearsal/sglang/server.ts";

let server: StandinSglangServer;
const prompts: string[] = [];

beforeAll(async () => {
  const files = await loadTokenizerFiles("builtin:qwen3");
  const tokenizer = new ModelTokenizer(files);
  const policy = await PolicyResponder.create(tokenizer, { seed: 4 });
  server = new StandinSglangServer({
    tokenizer,
    chatTemplate: new ChatTemplate(files),
    responder: {
      reply: (request) => {
        prompts.push(request.promptText);
        return policy.reply(request);
      },
    },
  });
  await server.start();
});
afterAll(() => server.close());

describe("ScriptedUser", () => {
  for (const stream of [true, false]) {
    it(`judges styles, runs tools and records versions (${stream ? "streamed" : "whole"} answers)`, async () => {
      prompts.length = 0;
      const user = new ScriptedUser({ proxyUrl: server.url, policyUrl: server.url, model: "m", toolSessionEvery: 2, stream });
      const seen: TurnRecord[] = [];
      const records = await user.run(12, (record) => seen.push(record));
      expect(records).toHaveLength(12);
      expect(seen).toEqual(records);
      const answers = records.filter((record) => record.kind === "answer");
      expect(records.some((record) => record.kind === "tool")).toBe(true);
      expect(answers.every((record) => record.style !== null)).toBe(true);
      for (const record of records) expect(record.verdict).toBe(record.style === "ai" ? -1 : 1);
      expect(new Set(records.map((record) => record.weightVersion))).toEqual(new Set(["default"]));
      const rejections = prompts.filter((prompt) => prompt.trimEnd().endsWith(`${REJECTION}<|im_end|>\n<|im_start|>assistant`)).length;
      expect(rejections).toBe(answers.filter((record) => record.style === "ai").length);
      expect(prompts.some((prompt) => prompt.includes("<tool_response>\nnotes.txt:"))).toBe(true);
    });
  }
});

describe("rewardCurve", () => {
  const record = (version: string, style: string | null, verdict: 1 | -1): TurnRecord => ({ session: "s", turn: 0, kind: style ? "answer" : "tool", style, verdict, weightVersion: version });

  it("groups turns by weight version with the rejected share and mean reward", () => {
    const records = [record("1", "ai", -1), record("1", "plain", 1), record("1", null, 1), record("2", "bulleted", 1), record("2", "plain", 1)];
    expect(rewardCurve(records)).toEqual([
      { version: "1", turns: 3, answers: 2, rejectedShare: 0.5, meanReward: 1 / 3 },
      { version: "2", turns: 2, answers: 2, rejectedShare: 0, meanReward: 1 },
    ]);
    expect(rejectedShare(records.slice(0, 2))).toBe(0.5);
    expect(formatCurvePoint(rewardCurve(records)[0]!, 0.25)).toMatch(/^weights v1 .* 50% .*reward \+0\.33 .*P\(ai\)=0\.250$/);
  });
});

describe("ScriptedUser and a proxy whose engines are still starting", () => {
  it("waits out 503 + Retry-After, then talks; gives up with the proxy's reason after its bound", async () => {
    const { createServer } = await import("node:http");
    let refusals = 2;
    const front = createServer((request, response) => {
      if (refusals > 0) {
        refusals -= 1;
        response.writeHead(503, { "retry-after": "0", "content-type": "application/json" });
        response.end(JSON.stringify({ error: { message: "the policy engine is not ready: rehearsal-judge is starting" } }));
        return;
      }
      const chunks: Buffer[] = [];
      request.on("data", (chunk: Buffer) => chunks.push(chunk));
      request.on("end", async () => {
        const forwarded = await fetch(`${server.url}/v1/chat/completions`, { method: "POST", headers: { "content-type": "application/json" }, body: Buffer.concat(chunks) });
        response.writeHead(forwarded.status, { "content-type": forwarded.headers.get("content-type") ?? "application/json" });
        response.end(await forwarded.text());
      });
    });
    await new Promise<void>((resolve) => front.listen(0, "127.0.0.1", resolve));
    const url = `http://127.0.0.1:${(front.address() as { port: number }).port}`;
    try {
      const records = await new ScriptedUser({ proxyUrl: url, model: "m", stream: false }).run(1);
      expect(records).toHaveLength(1);
      expect(refusals).toBe(0);
      refusals = 1_000;
      await expect(new ScriptedUser({ proxyUrl: url, model: "m", stream: false, unavailableWaitMs: 300 }).run(1)).rejects.toThrow(/503.*rehearsal-judge is starting/);
    } finally {
      await new Promise((resolve) => front.close(resolve));
    }
  });
});
