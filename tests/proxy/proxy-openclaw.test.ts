import { readFile, stat } from "node:fs/promises";
import path from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { hashLogprob } from "../../rehearsal/model/responder.ts";
import { assemble, startHarness, streamChat, type Harness } from "./harness.ts";
import { openclawFixture } from "./fixtures.ts";

// The stand-in answers like the recorded OpenClaw sessions did: text for s1, a tool call for s2.
function script(prompt: string): string {
  if (prompt.includes("You are a context summarization assistant")) return "<think>\nsummarize\n</think>\n\nSummary: the user said hello.";
  if (prompt.includes("List the files here") && !prompt.includes("<tool_response>")) return '<think>\nI should list the files.\n</think>\n\n<tool_call>\n{"name": "ls", "arguments": {"path": "."}}\n</tool_call>';
  if (prompt.includes("<tool_response>")) return "Here are the files: AGENTS.md, SOUL.md.";
  return "<think>\nA greeting.\n</think>\n\nHello from the stand-in 1";
}

describe("stock OpenClaw through the proxy", () => {
  let harness: Harness;
  beforeAll(async () => {
    harness = await startHarness({ script, apiKey: "KEY", promptWorkers: 1 }); // prompts built in a worker thread
  });
  afterAll(async () => harness.close());

  it("captures turn 1 token-exactly and closes it with the user's reply of turn 2 (affinity headers)", async () => {
    const first = openclawFixture("main-turn-1");
    const answer = await streamChat(harness.url, first.body, first.headers);
    expect(answer.status).toBe(200);
    const streamed = assemble(answer.events);
    expect(streamed).toMatchObject({ content: "Hello from the stand-in 1", reasoning: "A greeting.", finish: "stop" });
    expect(streamed.usage).toMatchObject({ completion_tokens: expect.any(Number), prompt_tokens: expect.any(Number) });
    expect(answer.events.at(-1)?.data).toBe("[DONE]");
    const firstChunk = answer.events[0]!.data as { choices: { delta: Record<string, unknown> }[] };
    expect(firstChunk.choices[0]!.delta).toEqual({ role: "assistant", content: "" });
    expect(harness.closed).toHaveLength(0);

    const second = openclawFixture("main-turn-2");
    const again = await streamChat(harness.url, second.body, second.headers);
    expect(assemble(again.events).content).toBe("Hello from the stand-in 1");
    expect(harness.closed).toHaveLength(1);
    const turn = harness.closed[0]!;
    expect(turn).toMatchObject({ sessionId: "s1", turn: 0, closedBy: "next-request", finishReason: "stop", approximate: false });
    expect(turn.decidedBy).toMatchObject({ session: "header:session_id", turnType: "agent-conversation" });
    expect(turn.nextState).toMatchObject({ role: "user", text: "[Sun 2026-11-22 07:04 UTC] Thanks, 👍" });

    // token-exact: the prompt is the rendered template, the response is what the engine sent, with its log-probs
    const { tokenizer, template } = harness;
    expect(Array.from(turn.promptIds)).toEqual(await tokenizer.encode(template.render(first.body.messages, { tools: first.body.tools ?? null, addGenerationPrompt: true })));
    const expected = [...(await tokenizer.encode(script(""))), tokenizer.tokenId("<|im_end|>")!];
    expect(turn.responseIds).toEqual(expected);
    expect(turn.responseLogProbs).toEqual(expected.map((id, index) => hashLogprob(index === 0 ? turn.promptIds.at(-1)! : expected[index - 1]!, id)));
    expect(turn.weightVersions).toEqual([{ version: "default", start: 0, end: expected.length }]);
    expect(harness.versions).toEqual(["default"]);

    // the record is on disk, private
    await new Promise((resolve) => setTimeout(resolve, 50));
    const file = path.join(harness.recordsDir, "turns.jsonl");
    expect((await stat(file)).mode & 0o777).toBe(0o600);
    const lines = (await readFile(file, "utf8")).trim().split("\n").map((line) => JSON.parse(line) as Record<string, unknown>);
    expect(lines).toHaveLength(1);
    expect(lines[0]).toMatchObject({ session_id: "s1", turn: 0, finish_reason: "stop", approximate: false, prompt_length: turn.promptIds.length, response_ids: expected, next_state: { role: "user" } });
    expect(lines[0]!.decided_by).toMatchObject({ session: "header:session_id" });
  });

  it("captures a streamed tool call and closes it with the tool result (rewritten id, content null replay)", async () => {
    const first = openclawFixture("tool-turn-1");
    const answer = await streamChat(harness.url, first.body, first.headers);
    const streamed = assemble(answer.events);
    expect(streamed.finish).toBe("tool_calls");
    expect(streamed.toolCalls).toHaveLength(1);
    expect(streamed.toolCalls[0]).toMatchObject({ name: "ls" });
    expect(streamed.toolCalls[0]!.id).toMatch(/^call_[0-9a-f]{24}$/);
    expect(JSON.parse(streamed.toolCalls[0]!.arguments)).toEqual({ path: "." });
    expect(streamed.reasoning).toBe("I should list the files.");
    expect(streamed.content).toBe("");

    const second = openclawFixture("tool-turn-2");
    await streamChat(harness.url, second.body, second.headers);
    const turn = await harness.closedTurn((entry) => entry.sessionId === "s2");
    expect(turn).toMatchObject({ turn: 0, finishReason: "tool_calls", closedBy: "next-request" });
    expect(turn.nextState?.role).toBe("tool");
    expect(turn.nextState?.messages[0]).toMatchObject({ role: "tool", tool_call_id: "call2" });
    // at once: as the tool result's request arrives, before the turn it starts goes to the engine (learning latency's
    // closed stage is the tool's run time, not the next answer's)
    const next = harness.events.find((event) => event.type === "turn-start" && event.sessionId === "s2" && event.turn === 1)!;
    expect(turn.closedAt).toBeLessThanOrEqual(next.at);
  });

  it("without any header, the Runtime marker links the turns; compaction is a side turn that closes nothing", async () => {
    const closedBefore = harness.closed.length;
    const first = openclawFixture("main-turn-1");
    const renamed = JSON.parse(JSON.stringify(first.body).replaceAll("sessionId=s1", "sessionId=s9")) as typeof first.body;
    await streamChat(harness.url, renamed, { authorization: "Bearer KEY" });
    const compaction = {
      model: "qwen3-4b",
      stream: true,
      max_completion_tokens: 2048,
      messages: [
        { role: "system", content: "You are a context summarization assistant. Summarize the conversation." },
        { role: "user", content: "<conversation>\nuser: Hello there\nRuntime: agent=main | sessionId=s9\n</conversation>" },
      ],
    };
    const side = await streamChat(harness.url, compaction, { authorization: "Bearer KEY", session_id: "s9" });
    expect(assemble(side.events).content).toBe("Summary: the user said hello.");
    expect(harness.closed.length).toBe(closedBefore);
    const sideStart = harness.events.find((event) => event.type === "turn-start" && event.turnType === "side");
    expect(sideStart).toMatchObject({ sessionId: "s9" });

    const second = JSON.parse(JSON.stringify(openclawFixture("main-turn-2").body).replaceAll("sessionId=s1", "sessionId=s9")) as typeof first.body;
    await streamChat(harness.url, second, { authorization: "Bearer KEY" });
    const turn = harness.closed.at(-1)!;
    expect(turn).toMatchObject({ sessionId: "s9", turn: 0, decidedBy: { session: "openclaw-runtime-marker", turnType: "agent-conversation" } });
    expect(turn.nextState?.text).toContain("Thanks, 👍");
    expect(harness.proxy.stats().turns).toEqual({ main: 6, side: 1 });
  });
});
