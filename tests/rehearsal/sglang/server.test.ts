// Pins the stand-in SGLang server's wire shapes: prefill alignment (leading null, N−L entries), cumulative
// streaming, abort-mode pause with partial output and waiting requests, continue, weight version, chat SSE.
import { readFileSync } from "node:fs";
import path from "node:path";
import { STREAM_FORMS, type StreamForm } from "../../../contracts/sglang.ts";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { SglangClient } from "../../../lib/sglang/sglang-client.ts";
import { ChatTemplate } from "../../../lib/model/chat-template.ts";
import { loadTokenizerFiles } from "../../../lib/model/model-files.ts";
import { ModelTokenizer } from "../../../lib/model/model-tokenizer.ts";
import type { Responder } from "../../../rehearsal/model/responder.ts";
import { StandinSglangServer } from "../../../rehearsal/sglang/server.ts";

const IM_END = 151645;
let server: StandinSglangServer;
let client: SglangClient;
let tokenizer: ModelTokenizer;
let promptIds: number[];
const loaded: string[] = [];

const responder: Responder = {
  reply: ({ promptText }) =>
    promptText.includes("weather")
      ? { text: '<think>\nThe user wants weather.\n</think>\n\n<tool_call>\n{"name": "get_weather", "arguments": {"city": "Paris"}}\n</tool_call>' }
      : { text: "<think>\nshort\n</think>\n\nHello there, this is a reply of several tokens." },
  score: ({ inputIds }) => inputIds.map((_, position) => -position / 10),
  loadWeights: (path) => {
    loaded.push(path);
  },
};

beforeAll(async () => {
  const files = await loadTokenizerFiles("builtin:qwen3");
  tokenizer = new ModelTokenizer(files);
  promptIds = await tokenizer.encode("<|im_start|>user\nhello<|im_end|>\n<|im_start|>assistant\n");
  server = new StandinSglangServer({ tokenizer, responder, chatTemplate: new ChatTemplate(files), servedModelName: "qwen3-4b" });
  const { url } = await server.start();
  client = new SglangClient({ baseUrl: url, timeoutMs: 10_000 });
});
afterAll(() => server.close());

async function until(condition: () => boolean, timeoutMs = 5000): Promise<void> {
  const deadline = Date.now() + timeoutMs;
  while (!condition()) {
    if (Date.now() > deadline) throw new Error("condition not met in time");
    await new Promise((resolve) => setTimeout(resolve, 5));
  }
}

const prompt = () => [...promptIds];

describe("POST /generate", () => {
  it("answers a whole request with output ids ending in <|im_end|>, aligned log-probs and version 'default'", async () => {
    const result = await client.generate({ input_ids: prompt(), sampling_params: { max_new_tokens: 200 }, return_logprob: true });
    const meta = result.meta_info;
    expect(result.output_ids?.at(-1)).toBe(IM_END);
    expect(meta.finish_reason).toEqual({ type: "stop", matched: IM_END });
    expect(result.text).toBe("<think>\nshort\n</think>\n\nHello there, this is a reply of several tokens.");
    expect(meta.weight_version).toBe("default");
    expect(meta.output_token_logprobs?.map((entry) => entry[1])).toEqual(result.output_ids);
    expect(meta.output_token_logprobs?.every((entry) => typeof entry[0] === "number" && entry[2] === null)).toBe(true);
    expect(meta.completion_tokens).toBe(result.output_ids?.length);
    expect(meta.prompt_tokens).toBe(prompt().length);
    expect(meta.input_token_logprobs).toEqual([]);
  });

  it("scores a prefill (max_new_tokens 0): N−L entries, leading null, top-K rows sorted with the token inside", async () => {
    const ids = prompt();
    const start = 3;
    const result = await client.generate({ input_ids: ids, sampling_params: { max_new_tokens: 0 }, return_logprob: true, logprob_start_len: start, top_logprobs_num: 4 });
    const meta = result.meta_info;
    expect(result.text).toBe("");
    expect(result.output_ids).toEqual([]);
    expect(meta.finish_reason).toEqual({ type: "length", length: 0 });
    expect(meta.input_token_logprobs).toHaveLength(ids.length - start);
    expect(meta.input_token_logprobs?.[0]).toEqual([null, ids[start], null]);
    expect(meta.input_token_logprobs?.[1]).toEqual([-(start + 1) / 10, ids[start + 1], null]);
    expect(meta.input_top_logprobs?.[0]).toBeNull();
    for (const [index, row] of (meta.input_top_logprobs ?? []).slice(1).entries()) {
      expect(row).toHaveLength(4);
      const values = row!.map((entry) => entry[0] as number);
      expect([...values].sort((a, b) => b - a)).toEqual(values);
      expect(new Set(row!.map((entry) => entry[1])).size).toBe(4);
      expect(row!.map((entry) => entry[1])).toContain(ids[start + 1 + index]); // these tokens are likely enough
    }
    expect(meta.output_token_logprobs).toEqual([]);
  });

  it("finishes with length at max_new_tokens and trims a stop string", async () => {
    const short = await client.generate({ input_ids: prompt(), sampling_params: { max_new_tokens: 3 } });
    expect(short.output_ids).toHaveLength(3);
    expect(short.meta_info.finish_reason).toEqual({ type: "length", length: 3 });
    const stopped = await client.generate({ text: "hello", sampling_params: { stop: ["there"] } });
    expect(stopped.meta_info.finish_reason).toEqual({ type: "stop", matched: "there" });
    expect(stopped.text).toBe("<think>\nshort\n</think>\n\nHello ");
  });

  it("streams cumulative text, output ids and log-probs, one chunk per token, finish only on the last", async () => {
    const chunks = [];
    for await (const chunk of client.generateStream({ input_ids: prompt(), sampling_params: {}, return_logprob: true })) chunks.push(chunk);
    const last = chunks.at(-1)!;
    expect(chunks.length).toBe(last.output_ids!.length);
    chunks.forEach((chunk, index) => {
      expect(chunk.output_ids).toEqual(last.output_ids!.slice(0, index + 1));
      expect(chunk.meta_info.output_token_logprobs).toHaveLength(index + 1);
      expect(chunk.meta_info.finish_reason ?? null).toEqual(index === chunks.length - 1 ? { type: "stop", matched: IM_END } : null);
      expect(last.text!.startsWith(chunk.text!)).toBe(true);
    });
    const raw = await fetch(`${server.url}/generate`, { method: "POST", body: JSON.stringify({ text: "hi", sampling_params: { max_new_tokens: 2 }, stream: true }) });
    const body = await raw.text();
    expect(raw.headers.get("content-type")).toContain("text/event-stream");
    expect(body.endsWith("data: [DONE]\n\n")).toBe(true);
    expect(body.split("\n\n").filter((part) => part.startsWith("data: {"))).toHaveLength(2);
  });

  it("rejects bad requests with 400 and an SGLang error body", async () => {
    const none = await fetch(`${server.url}/generate`, { method: "POST", body: JSON.stringify({ sampling_params: {} }) });
    expect(none.status).toBe(400);
    expect(((await none.json()) as { error: { message: string } }).error.message).toMatch(/text or input_ids/);
    const beyond = await fetch(`${server.url}/generate`, { method: "POST", body: JSON.stringify({ input_ids: [1, 2], return_logprob: true, logprob_start_len: 5, sampling_params: {} }) });
    expect(beyond.status).toBe(400);
  });
});

describe("pause, continue and weight versions", () => {
  it("aborts running requests with their partial output, holds new ones until continue, then reports the new version", async () => {
    server.setTokenDelay(25);
    try {
      const seen: number[] = [];
      let final: Awaited<ReturnType<SglangClient["generate"]>> | undefined;
      const streaming = (async () => {
        for await (const chunk of client.generateStream({ input_ids: prompt(), sampling_params: {}, return_logprob: true })) {
          seen.push(chunk.output_ids!.length);
          final = chunk;
          if (seen.length === 2) await until(() => server.state.inFlight.size === 2); // the whole request is running too
          if (seen.length === 2) await fetch(`${server.url}/pause_generation`, { method: "POST", body: JSON.stringify({ mode: "abort" }) });
        }
      })();
      const whole = client.generate({ input_ids: prompt(), sampling_params: {} });
      await streaming;
      expect(final!.meta_info.finish_reason).toEqual({ type: "abort", message: "Aborted", status_code: null, err_type: null });
      expect(final!.output_ids!.length).toBeGreaterThanOrEqual(2);
      expect(final!.output_ids!.length).toBeLessThan(10);
      expect(final!.meta_info.output_token_logprobs).toHaveLength(final!.output_ids!.length);
      const aborted = await whole; // was running too: aborted with whatever it had
      expect(aborted.meta_info.finish_reason?.type).toBe("abort");

      let waitingDone = false;
      const waiting = client.generate({ input_ids: prompt(), sampling_params: { max_new_tokens: 2 } }).then((result) => ((waitingDone = true), result));
      await new Promise((resolve) => setTimeout(resolve, 150));
      expect(waitingDone).toBe(false);
      const bump = await fetch(`${server.url}/update_weight_version`, { method: "POST", body: JSON.stringify({ new_version: "1" }) });
      expect(((await bump.json()) as { success: boolean }).success).toBe(true);
      expect(await client.weightVersion()).toBe("1");
      await fetch(`${server.url}/continue_generation`, { method: "POST", body: "{}" });
      const resumed = await waiting;
      expect(resumed.meta_info.finish_reason).toEqual({ type: "length", length: 2 });
      expect(resumed.meta_info.weight_version).toBe("1");
    } finally {
      server.setTokenDelay(0);
    }
  });

  it("abort_request ends one request by rid; an in_place pause holds running requests without aborting them", async () => {
    server.setTokenDelay(20);
    try {
      const target = client.generate({ input_ids: prompt(), sampling_params: {}, rid: "victim" });
      const other = client.generate({ input_ids: prompt(), sampling_params: { max_new_tokens: 4 } });
      await until(() => server.state.inFlight.size === 2);
      await fetch(`${server.url}/abort_request`, { method: "POST", body: JSON.stringify({ rid: "victim" }) });
      expect((await target).meta_info.finish_reason?.type).toBe("abort");
      expect((await other).meta_info.finish_reason).toEqual({ type: "length", length: 4 });

      const held = client.generate({ input_ids: prompt(), sampling_params: { max_new_tokens: 6 } });
      await until(() => server.state.inFlight.size === 1);
      await fetch(`${server.url}/pause_generation`, { method: "POST", body: JSON.stringify({ mode: "in_place" }) });
      await new Promise((resolve) => setTimeout(resolve, 200));
      const generation = [...server.state.inFlight][0]!;
      const countWhilePaused = generation.outputIds.length;
      expect(countWhilePaused).toBeLessThan(6);
      await new Promise((resolve) => setTimeout(resolve, 100));
      expect(generation.outputIds.length).toBe(countWhilePaused);
      await fetch(`${server.url}/continue_generation`, { method: "POST", body: "{}" });
      expect((await held).meta_info.finish_reason).toEqual({ type: "length", length: 6 });
    } finally {
      server.setTokenDelay(0);
    }
  });

  it("loads weights from disk through the responder and sets the given version", async () => {
    const response = await fetch(`${server.url}/update_weights_from_disk`, { method: "POST", body: JSON.stringify({ model_path: "/tmp/policy.json", weight_version: 2 }) });
    expect(await response.json()).toMatchObject({ success: true });
    expect(loaded).toContain("/tmp/policy.json");
    expect(await client.weightVersion()).toBe("2");
    expect(await client.health("/health_generate")).toBe(true);
  });
});

describe("POST /v1/chat/completions", () => {
  const tools = [{ type: "function", function: { name: "get_weather", parameters: { type: "object", properties: { city: { type: "string" } } } } }];

  it("answers with reasoning, a parsed tool call and log-probs", async () => {
    const response = await fetch(`${server.url}/v1/chat/completions`, {
      method: "POST",
      body: JSON.stringify({ messages: [{ role: "user", content: "weather in Paris?" }], tools, logprobs: true, top_logprobs: 2 }),
    });
    const body = (await response.json()) as { choices: Array<{ message: Record<string, unknown>; finish_reason: string; matched_stop: number; logprobs: { content: Array<{ top_logprobs: unknown[] }> } }>; usage: { completion_tokens: number } };
    const choice = body.choices[0]!;
    expect(choice.message.reasoning_content).toBe("The user wants weather."); // (the fork's SGLang trims its edges)
    expect(choice.message.tool_calls).toEqual([{ id: expect.stringMatching(/^call_/), index: 0, type: "function", function: { name: "get_weather", arguments: '{"city": "Paris"}' } }]); // (json.dumps's spacing, as SGLang's)
    expect(choice.finish_reason).toBe("tool_calls");
    expect(choice.matched_stop).toBe(IM_END);
    expect(choice.logprobs.content).toHaveLength(body.usage.completion_tokens);
    expect(choice.logprobs.content[0]!.top_logprobs).toHaveLength(2);
  });

  it("streams a role chunk, reasoning and content deltas, a finish chunk and [DONE]", async () => {
    const response = await fetch(`${server.url}/v1/chat/completions`, {
      method: "POST",
      body: JSON.stringify({ messages: [{ role: "user", content: "hi" }], stream: true, logprobs: true, stream_options: { include_usage: true } }),
    });
    const events = (await response.text()).split("\n\n").filter((part) => part.startsWith("data: "));
    expect(events.at(-1)).toBe("data: [DONE]");
    const chunks = events.slice(0, -1).map((event) => JSON.parse(event.slice(6)) as { choices: Array<{ delta: Record<string, unknown>; finish_reason: string | null; matched_stop: unknown; logprobs: { content: unknown[] } | null }>; usage?: { completion_tokens: number } });
    expect(chunks[0]!.choices[0]!.delta).toEqual({ reasoning_content: null, role: "assistant", content: "" });
    const deltas = chunks.slice(1, -2).map((chunk) => chunk.choices[0]!.delta);
    expect(deltas.map((delta) => delta.reasoning_content ?? "").join("")).toBe("short");
    expect(deltas.map((delta) => delta.content ?? "").join("")).toBe("Hello there, this is a reply of several tokens.");
    const finish = chunks.at(-2)!.choices[0]!;
    expect(finish).toMatchObject({ finish_reason: "stop", matched_stop: IM_END });
    const streamedLogprobs = chunks.flatMap((chunk) => chunk.choices[0]?.logprobs?.content ?? []);
    expect(streamedLogprobs.length).toBe(chunks.at(-1)!.usage!.completion_tokens - 1); // the EOS step has no text
  });

  it("leaves out a matched stop string, streamed or whole, though it came over several tokens", async () => {
    const body = { messages: [{ role: "user", content: "hi" }], stop: ["of several"] };
    const whole = await fetch(`${server.url}/v1/chat/completions`, { method: "POST", body: JSON.stringify(body) });
    const choice = ((await whole.json()) as { choices: Array<{ message: { content: string }; matched_stop: unknown }> }).choices[0]!;
    expect(choice).toMatchObject({ message: { content: "Hello there, this is a reply" }, matched_stop: "of several" });
    const streamed = await fetch(`${server.url}/v1/chat/completions`, { method: "POST", body: JSON.stringify({ ...body, stream: true }) });
    const events = (await streamed.text()).split("\n\n").filter((part) => part.startsWith("data: {"));
    const deltas = events.map((event) => (JSON.parse(event.slice(6)) as { choices: Array<{ delta: { content?: string | null } }> }).choices[0]?.delta.content ?? "");
    expect(deltas.join("")).toBe("Hello there, this is a reply"); // (edges trimmed, as the fork trims them)
  });
});

describe("the stand-in streams in each of SGLang's forms (tests/fixtures/sglang/stream-forms.json)", () => {
  const facts = JSON.parse(readFileSync(path.join(import.meta.dirname, "../../fixtures/sglang/stream-forms.json"), "utf8")) as {
    forms: Record<StreamForm, { output_ids: string; text: string; output_token_logprobs: string; output_token_logprobs_length: boolean }>;
  };
  const REPLY = "one two three four five";

  async function streamed(streamForm: StreamForm) {
    const tokenizer = new ModelTokenizer(await loadTokenizerFiles("builtin:qwen3"));
    const server = new StandinSglangServer({ tokenizer, streamForm, responder: { reply: () => ({ text: REPLY }) } });
    await server.start();
    try {
      const client = new SglangClient({ baseUrl: server.url });
      const chunks = [];
      for await (const chunk of client.generateStream({ input_ids: await tokenizer.encode("<|im_start|>user\nhi<|im_end|>\n<|im_start|>assistant\n"), sampling_params: { max_new_tokens: 50 }, return_logprob: true })) chunks.push(chunk);
      return { chunks, answer: [...(await tokenizer.encode(REPLY)), tokenizer.tokenId("<|im_end|>")] };
    } finally {
      await server.close();
    }
  }

  for (const form of STREAM_FORMS) {
    it(`${form}: each field whole or a delta as the fixture says; completion_tokens cumulative`, async () => {
      const fact = facts.forms[form];
      const { chunks, answer } = await streamed(form);
      expect(chunks.length).toBeGreaterThan(3);
      expect(chunks.map((chunk) => chunk.meta_info.completion_tokens)).toEqual(chunks.map((_, index) => index + 1));
      const whole = (index: number) => answer.slice(0, index + 1);
      chunks.forEach((chunk, index) => {
        expect(chunk.output_ids).toEqual(fact.output_ids === "whole" ? whole(index) : [answer[index]]);
        expect(chunk.meta_info.output_token_logprobs!.map((entry) => entry[1])).toEqual(fact.output_token_logprobs === "whole" ? whole(index) : [answer[index]]);
        expect("output_token_logprobs_length" in chunk.meta_info).toBe(fact.output_token_logprobs_length);
      });
      const texts = chunks.map((chunk) => chunk.text ?? "");
      if (fact.text === "whole") expect(texts.at(-1)).toBe(REPLY);
      else expect(texts.join("")).toBe(REPLY);
    });
  }
});
