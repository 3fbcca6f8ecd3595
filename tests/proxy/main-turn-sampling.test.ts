// Main turns are sampled from the distribution slime trains (the rollout temperature, no filter, no penalty), whatever
// the client sends; side turns use the client's values; with sampling.client_settings: honor a main turn drawn with
// the client's values is recorded off-policy and never trained. What the engine was asked is read at the engine.
import { describe, expect, it } from "vitest";
import type { ChatRequest } from "../../contracts/chat.ts";
import { recipeSchema } from "../../contracts/recipe.ts";
import { mapSampling } from "../../orchestrator/generation/sampling-params.ts";
import { clientLabel } from "../../orchestrator/proxy/client-label.ts";
import { gateTurn } from "../../orchestrator/samples/sample-gate.ts";
import { testRecipe } from "./fixtures.ts";
import { postChat, qwen3, startHarness, waitFor } from "./harness.ts";
import { closedAfterEach, oneChunk, scriptedEngine } from "./scripted-engine.ts";

const CLIENT = { temperature: 1, top_p: 0.95, top_k: 40, min_p: 0.05, presence_penalty: 0.5, frequency_penalty: 0.2, repetition_penalty: 1.1, min_tokens: 2 };
const request = (fields: Record<string, unknown>) => ({ messages: [{ role: "user", content: "x" }], ...fields }) as ChatRequest;

describe("the sampling a turn is drawn with", () => {
  it("main turns: the rollout temperature, no filter, no penalty; what the client asked otherwise is kept", () => {
    const mapped = mapSampling(request(CLIENT), testRecipe(), 10, "main");
    expect(mapped.params).toMatchObject({ temperature: 0.6, top_p: 1, top_k: -1 });
    for (const key of ["min_p", "presence_penalty", "frequency_penalty", "repetition_penalty", "min_new_tokens"]) expect(mapped.params).not.toHaveProperty(key);
    expect(mapped.sampling).toEqual({ temperature: 0.6, top_p: 1, top_k: -1, onPolicy: true, clientAsked: CLIENT });
  });

  it("main turns: a client value that is the trainer's own is no departure", () => {
    const mapped = mapSampling(request({ temperature: 0.6, top_p: 1, top_k: -1, presence_penalty: 0, repetition_penalty: 1 }), testRecipe(), 10, "main");
    expect(mapped.sampling.clientAsked).toEqual({});
  });

  it("side turns: the client's values over the recipe's", () => {
    const mapped = mapSampling(request(CLIENT), testRecipe(), 10, "side");
    expect(mapped.params).toMatchObject({ temperature: 1, top_p: 0.95, top_k: 40, min_p: 0.05, presence_penalty: 0.5, frequency_penalty: 0.2, repetition_penalty: 1.1, min_new_tokens: 2 });
    expect(mapped.params).not.toHaveProperty("min_tokens");
    expect(mapSampling(request({}), testRecipe(), 10, "side").params).toMatchObject({ temperature: 0.6, top_p: 1, top_k: -1 });
  });

  it("honor: main turns use the client's values and are off-policy unless they come to the trainer's distribution", () => {
    const recipe = testRecipe({ sampling: { client_settings: "honor" } });
    const honoured = mapSampling(request({ temperature: 1, presence_penalty: 0.5 }), recipe, 10, "main");
    expect(honoured.params).toMatchObject({ temperature: 1, top_p: 1, top_k: -1, presence_penalty: 0.5 });
    expect(honoured.sampling).toMatchObject({ temperature: 1, presence_penalty: 0.5, onPolicy: false, clientAsked: {} });
    expect(mapSampling(request({ temperature: 0.6 }), recipe, 10, "main").sampling.onPolicy).toBe(true);
    expect(mapSampling(request({}), recipe, 10, "main").sampling.onPolicy).toBe(true);
  });

  it("an off-policy turn never passes the sample gate, even with the gate off; an on-policy one goes on to the gate's checks", () => {
    const recipe = testRecipe({ training: { sample_gate: { enabled: false } } });
    const turn = (onPolicy: boolean) => ({
      finishReason: "stop" as const,
      responseIds: [1, 2, 3],
      response: { role: "assistant" as const, content: "a fine answer" },
      sampling: { temperature: 1, top_p: 1, top_k: -1, onPolicy, clientAsked: {} },
    });
    const verdict = gateTurn(turn(false), recipe.training.sample_gate);
    expect(verdict).toMatchObject({ pass: false, category: "off-policy" });
    expect(verdict.pass === false && verdict.reason).toMatch(/temperature 1.*sampling\.client_settings: honor/);
    expect(gateTurn(turn(true), recipe.training.sample_gate)).toEqual({ pass: true });
  });

  it("a recipe with a top-p or top-k filter for main turns is refused by name", () => {
    const topP = recipeSchema.safeParse({ engine: { kind: "rehearsal" }, sampling: { top_p: 0.9 } });
    expect(topP.success).toBe(false);
    expect(topP.error!.issues.map((issue) => [issue.path.join("."), issue.message])).toEqual([["sampling.top_p", expect.stringMatching(/no top-p filter.*set sampling\.top_p: 1/)]]);
    const topK = recipeSchema.safeParse({ engine: { kind: "rehearsal" }, sampling: { top_k: 20 } });
    expect(topK.error!.issues.map((issue) => issue.path.join("."))).toEqual(["sampling.top_k"]);
  });

  it("names clients by their User-Agent's product", () => {
    expect(clientLabel("codex_cli_rs/0.46.0 (Debian 12; x86_64) xterm")).toBe("codex_cli_rs");
    expect(clientLabel("claude-cli/2.0.14 (external, cli)")).toBe("claude-cli");
    expect(clientLabel("OpenAI/JS 6.1.0")).toBe("OpenAI/JS");
    expect(clientLabel("QwenCode/0.0.14 (linux; x64)")).toBe("QwenCode");
    expect(clientLabel(undefined)).toBe("unknown");
  });
});

describe("through the proxy, at the engine", () => {
  const slots = closedAfterEach();

  async function start(recipe: Record<string, unknown> = {}) {
    const { tokenizer } = await qwen3();
    const fake = scriptedEngine([oneChunk([...(await tokenizer.encode("Fine.")), tokenizer.tokenId("<|im_end|>")!], "v1", "stop")]);
    slots.engine = fake.server;
    const harness = await startHarness({ script: () => "unused", policyUrl: await fake.start(), recipe });
    slots.harness = harness;
    return { fake, harness };
  }

  it("a main turn asks the engine for the trainer's sampling and records the client's asked values; a side turn gets the client's", async () => {
    const { fake, harness } = await start();
    const main = await postChat(harness.url, { ...CLIENT, messages: [{ role: "user", content: "hello" }] }, { "x-session-id": "s1", "user-agent": "claude-cli/2.0.14 (external, cli)" });
    expect(main.status).toBe(200);
    const side = await postChat(harness.url, { ...CLIENT, messages: [{ role: "user", content: "title?" }] }, { "x-session-id": "s1", "x-turn-type": "side" });
    expect(side.status).toBe(200);
    const [mainCall, sideCall] = fake.calls;
    expect(mainCall!.sampling_params).toMatchObject({ temperature: 0.6, top_p: 1, top_k: -1 });
    for (const key of ["min_p", "presence_penalty", "frequency_penalty", "repetition_penalty", "min_new_tokens"]) expect(mainCall!.sampling_params).not.toHaveProperty(key);
    expect(sideCall!.sampling_params).toMatchObject({ temperature: 1, top_p: 0.95, top_k: 40, presence_penalty: 0.5, min_new_tokens: 2 });
    const ends = harness.events.filter((event) => event.type === "turn-end");
    expect(ends.map((event) => event.type === "turn-end" && [event.turnType, event.client, event.samplingAsked ?? null])).toEqual([
      ["main", "claude-cli", CLIENT],
      ["side", "node", null], // fetch's own User-Agent
    ]);
    await postChat(harness.url, { messages: [{ role: "user", content: "hello" }, { role: "assistant", content: "Fine." }, { role: "user", content: "more" }] }, { "x-session-id": "s1" });
    await waitFor(() => harness.closed.length >= 1);
    expect(harness.closed[0]!.sampling).toEqual({ temperature: 0.6, top_p: 1, top_k: -1, onPolicy: true, clientAsked: CLIENT });
  });

  it("honor: the engine is asked for the client's values and the turn is marked off-policy", async () => {
    const { fake, harness } = await start({ sampling: { client_settings: "honor" } });
    await postChat(harness.url, { temperature: 1.2, messages: [{ role: "user", content: "hello" }] }, { "x-session-id": "s2" });
    expect(fake.calls[0]!.sampling_params).toMatchObject({ temperature: 1.2, top_p: 1, top_k: -1 });
    expect(harness.events.find((event) => event.type === "turn-end")).toMatchObject({ offPolicy: true });
  });
});
