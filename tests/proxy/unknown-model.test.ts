// A model name the proxy does not serve gets OpenAI's own 404 model_not_found (chat completions, Responses) and
// Anthropic's not_found_error (Messages), as the official clients raise them; model.aliases and the utility models
// are served; /v1/models lists every name served. Nothing reaches the engine for a refused name.
import Anthropic from "@anthropic-ai/sdk";
import OpenAI from "openai";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { startHarness, type Harness } from "./harness.ts";

describe("unknown model names", () => {
  let harness: Harness;
  let openai: OpenAI;
  let anthropic: Anthropic;
  beforeAll(async () => {
    harness = await startHarness({ script: () => "fine", recipe: { model: { aliases: ["gpt-4o"] }, proxy: { utility_models: ["qwen3-mini"] } } });
    openai = new OpenAI({ baseURL: `${harness.url}/v1`, apiKey: "unused", maxRetries: 0 });
    anthropic = new Anthropic({ baseURL: harness.url, apiKey: "unused", maxRetries: 0 });
  });
  afterAll(async () => harness.close());

  it("chat completions and Responses: 404 model_not_found in OpenAI's shape, raised as NotFoundError", async () => {
    const raw = await fetch(`${harness.url}/v1/chat/completions`, { method: "POST", headers: { "content-type": "application/json" }, body: JSON.stringify({ model: "gpt-17-ultra", messages: [{ role: "user", content: "hi" }] }) });
    expect(raw.status).toBe(404);
    expect(await raw.json()).toEqual({
      error: { message: "The model `gpt-17-ultra` does not exist or you do not have access to it. This proxy serves `qwen3-4b`, `gpt-4o`, `qwen3-mini` (GET /v1/models); to accept `gpt-17-ultra` as well, add it to model.aliases in the recipe.", type: "invalid_request_error", param: null, code: "model_not_found" },
    });
    const chat = openai.chat.completions.create({ model: "gpt-17-ultra", messages: [{ role: "user", content: "hi" }] });
    await expect(chat).rejects.toBeInstanceOf(OpenAI.NotFoundError);
    await expect(chat).rejects.toMatchObject({ status: 404, code: "model_not_found", type: "invalid_request_error" });
    const streamed = openai.chat.completions.create({ model: "gpt-17-ultra", messages: [{ role: "user", content: "hi" }], stream: true });
    await expect(streamed).rejects.toMatchObject({ status: 404, code: "model_not_found" });
    const responses = openai.responses.create({ model: "gpt-17-ultra", input: "hi" });
    await expect(responses).rejects.toBeInstanceOf(OpenAI.NotFoundError);
    await expect(responses).rejects.toMatchObject({ code: "model_not_found" });
    expect(harness.standin.state.counters.requests).toBe(0);
    expect(harness.proxy.stats().turns).toEqual({ main: 0, side: 0 });
  });

  it("Messages: Anthropic's not_found_error, raised as the SDK's NotFoundError", async () => {
    const raw = await fetch(`${harness.url}/v1/messages`, { method: "POST", headers: { "content-type": "application/json" }, body: JSON.stringify({ model: "claude-17", max_tokens: 16, messages: [{ role: "user", content: "hi" }] }) });
    expect(raw.status).toBe(404);
    expect(await raw.json()).toEqual({ type: "error", error: { type: "not_found_error", message: expect.stringMatching(/^The model `claude-17` does not exist or you do not have access to it\. This proxy serves .*model\.aliases/) } });
    const message = anthropic.messages.create({ model: "claude-17", max_tokens: 16, messages: [{ role: "user", content: "hi" }] });
    await expect(message).rejects.toBeInstanceOf(Anthropic.NotFoundError);
    expect(harness.standin.state.counters.requests).toBe(0);
  });

  it("serves the served name, its aliases and the utility models, echoing the name asked for; /v1/models lists them", async () => {
    for (const model of ["qwen3-4b", "gpt-4o", "qwen3-mini"]) {
      const answer = await openai.chat.completions.create({ model, messages: [{ role: "user", content: `hi ${model}` }] });
      expect(answer.model).toBe(model);
      expect(answer.choices[0]!.message.content).toBe("fine");
    }
    const messages = await anthropic.messages.create({ model: "gpt-4o", max_tokens: 16, messages: [{ role: "user", content: "hello" }] });
    expect(messages.content).toEqual([{ type: "text", text: "fine" }]);
    const listed = await openai.models.list();
    expect(listed.data.map((model) => model.id)).toEqual(["qwen3-4b", "gpt-4o", "qwen3-mini"]);
  });
});
