// What the proxy accepts of an OpenAI chat request beyond its basic shape: sampling values in the engine's ranges,
// tool_choice and response_format as OpenAI defines them, what tokens mode cannot do refused by name (content parts
// other than text, a forced tool call, JSON output), each a 400 before any state changes; HTTP methods per route.
import { describe, expect, it } from "vitest";
import { mapSampling } from "../../orchestrator/generation/sampling-params.ts";
import { parseChatRequest } from "../../orchestrator/proxy/request-body.ts";
import type { ChatRequest } from "../../contracts/chat.ts";
import { testRecipe } from "./fixtures.ts";
import { postChat, startHarness } from "./harness.ts";

const user = (content: unknown) => ({ role: "user", content });
const tools = [{ type: "function", function: { name: "read", description: "Read a file", parameters: { type: "object", properties: { path: { type: "string" } } } } }];

describe("request rules", () => {
  it("answers 400 naming the field for values the engine would refuse, and for malformed tool_choice / response_format", async () => {
    const harness = await startHarness({ script: () => "fine" });
    try {
      const cases: [Record<string, unknown>, string, RegExp][] = [
        [{ top_k: 0 }, "top_k", /-1 \(no limit\) or at least 1/],
        [{ top_k: -5 }, "top_k", /-1 \(no limit\) or at least 1/],
        [{ presence_penalty: 3 }, "presence_penalty", /<=2/],
        [{ frequency_penalty: -2.5 }, "frequency_penalty", />=-2/],
        [{ min_p: 1.5 }, "min_p", /<=1/],
        [{ repetition_penalty: 0 }, "repetition_penalty", />0/],
        [{ min_tokens: 50, max_tokens: 10 }, "min_tokens", /more than the 10 tokens/],
        [{ tool_choice: "banana" }, "tool_choice", /"none", "auto", "required"/],
        [{ tool_choice: "required" }, "tool_choice", /needs tools/],
        [{ tool_choice: { type: "function", function: { name: "nope" } }, tools }, "tool_choice.function.name", /no tool named "nope" in tools \("read"\)/],
        [{ response_format: { type: "bogus" } }, "response_format.type", /"text"\|"json_object"\|"json_schema"/],
        [{ response_format: { type: "json_schema" } }, "response_format.json_schema", /needs a json_schema object/],
        [{ messages: [user(42)] }, "messages.0.content", /expected string or array/],
        [{ messages: [user([{ type: "text", text: 5 }])] }, "messages.0.content.0.text", /text as a string/],
        [{ messages: [user([{ text: "no type" }])] }, "messages.0.content.0.type", /expected string/],
        [{ chat_template_kwargs: "enable_thinking" }, "chat_template_kwargs", /expected an object of template variables/],
        [{ chat_template_kwargs: [true] }, "chat_template_kwargs", /expected an object of template variables/],
      ];
      await postChat(harness.url, { messages: [user("first")] }, { "x-session-id": "rules" });
      const before = { stats: harness.proxy.stats(), requests: harness.standin.state.counters.requests, events: harness.events.length };
      for (const [fields, param, message] of cases) {
        const body = { messages: [user("first"), { role: "assistant", content: "fine" }, user("second")], ...fields };
        const answer = await postChat(harness.url, body, { "x-session-id": "rules" });
        const error = answer.body.error as Record<string, unknown>;
        expect(answer.status, JSON.stringify(fields)).toBe(400);
        expect(error.param, JSON.stringify(fields)).toBe(param);
        expect(error.message, JSON.stringify(fields)).toMatch(message);
        expect(Object.keys(error).sort()).toEqual(["code", "message", "param", "type"]);
      }
      // nothing changed: the session's open turn is still open, the engine saw nothing, no event
      expect(harness.proxy.stats()).toEqual(before.stats);
      expect(harness.standin.state.counters.requests).toBe(before.requests);
      expect(harness.events.length).toBe(before.events);
      expect(harness.closed).toEqual([]);
    } finally {
      await harness.close();
    }
  });

  it("refuses by name, in tokens mode, what it cannot do: non-text content parts, JSON output", async () => {
    const harness = await startHarness({ script: () => "fine" });
    try {
      const cases: [Record<string, unknown>, string, string][] = [
        [{ messages: [user([{ type: "text", text: "look:" }, { type: "image_url", image_url: { url: "data:image/png;base64,AAAA" } }])] }, "messages.0.content.1", "unsupported_content"],
        [{ messages: [user([{ type: "input_audio", input_audio: { data: "AAAA", format: "wav" } }])] }, "messages.0.content.0", "unsupported_content"],
        [{ messages: [user("x")], response_format: { type: "json_object" } }, "response_format", "unsupported_response_format"],
        [{ messages: [user("x")], response_format: { type: "json_schema", json_schema: { name: "answer", schema: { type: "object" } } } }, "response_format", "unsupported_response_format"],
      ];
      for (const [body, param, code] of cases) {
        for (const stream of [false, true]) {
          const answer = await postChat(harness.url, { ...body, stream });
          expect(answer.status, `${code} stream=${stream}`).toBe(400);
          expect(answer.body.error).toMatchObject({ param, code, type: "invalid_request_error" });
          expect((answer.body.error as { message: string }).message).toMatch(/proxy\.mode passthrough/);
        }
      }
      expect(harness.proxy.stats()).toEqual({ sessions: 0, turns: { main: 0, side: 0 }, inFlight: 0 });
      expect(harness.standin.state.counters.requests).toBe(0);
      // what it can do goes through: text parts, "auto" / "none", response_format text, stream: null (openai-node's type allows it)
      const fine = await postChat(harness.url, { messages: [user([{ type: "text", text: "hi" }])], tools, tool_choice: "auto", response_format: { type: "text" }, stream: null });
      expect(fine.status, JSON.stringify(fine.body)).toBe(200);
      expect((await postChat(harness.url, { messages: [user("hi")], tools, tool_choice: "none" })).status).toBe(200);
      // a forced call goes to the engine constrained (the stand-in ignores the constraint: its "fine" stays content)
      for (const tool_choice of ["required", { type: "function", function: { name: "read" } }]) {
        const forced = await postChat(harness.url, { messages: [user("hi")], tools, tool_choice });
        expect(forced.status, JSON.stringify(forced.body)).toBe(200);
        expect((forced.body as { choices: { message: { content: string } }[] }).choices[0]!.message.content).toBe("fine");
      }
    } finally {
      await harness.close();
    }
  });

  it("maps a side turn's min_p, repetition_penalty and min_tokens (as SGLang's min_new_tokens, at most max_new_tokens) to sampling params", () => {
    const recipe = testRecipe();
    const request = (fields: Record<string, unknown>) => parseChatRequest({ messages: [user("x")], ...fields }) as ChatRequest;
    const mapped = mapSampling(request({ min_p: 0.05, repetition_penalty: 1.1, min_tokens: 3, max_tokens: 20 }), recipe, 10, "side");
    expect(mapped.params).toMatchObject({ min_p: 0.05, repetition_penalty: 1.1, min_new_tokens: 3 });
    expect(mapped.params).not.toHaveProperty("min_tokens");
    // a context with room for 4 tokens: min_new_tokens never above what SGLang gets as max_new_tokens
    const tight = mapSampling(request({ min_tokens: 8 }), recipe, recipe.model.context_length - 4, "side");
    expect(tight.maxNewTokens).toBe(4);
    expect(tight.params.min_new_tokens).toBe(4);
    expect(mapSampling(request({}), recipe, 10, "side").params).not.toHaveProperty("min_new_tokens");
  });

  it("serves HEAD where it serves GET, and answers 405 with Allow for a method a route does not serve", async () => {
    const harness = await startHarness({ script: () => "fine" });
    try {
      const head = await fetch(`${harness.url}/v1/models`, { method: "HEAD" });
      expect(head.status).toBe(200);
      expect((await fetch(`${harness.url}/healthz`, { method: "HEAD" })).status).toBe(200);
      const cases: [string, string, string][] = [
        ["/v1/chat/completions", "GET", "POST"],
        ["/v1/chat/completions", "OPTIONS", "POST"],
        ["/v1/models", "POST", "GET, HEAD"],
        ["/healthz", "POST", "GET, HEAD"],
        ["/v1/feedback", "GET", "POST"],
      ];
      for (const [route, method, allow] of cases) {
        const answer = await fetch(`${harness.url}${route}`, { method });
        expect(answer.status, `${method} ${route}`).toBe(405);
        expect(answer.headers.get("allow"), `${method} ${route}`).toBe(allow);
        expect(((await answer.json()) as { error: { message: string } }).error.message).toBe(`use ${allow.split(",")[0]} ${route}`);
      }
      expect((await fetch(`${harness.url}/v1/nothing`)).status).toBe(404);
    } finally {
      await harness.close();
    }
  });
});
