// One finish-reason rule for both proxy modes (tokens: the engine's stop / length / abort; passthrough: OpenAI's).
import { describe, expect, it } from "vitest";
import { turnFinishReason } from "../../orchestrator/proxy/turn-lifecycle.ts";

describe("turnFinishReason", () => {
  it("abort when the generation failed or was aborted, length at the limit, tool_calls for a complete answer with calls", () => {
    expect(turnFinishReason("stop", false, false)).toBe("stop");
    expect(turnFinishReason("stop", true, false)).toBe("tool_calls");
    expect(turnFinishReason("tool_calls", false, false)).toBe("tool_calls");
    expect(turnFinishReason("length", true, false)).toBe("length");
    expect(turnFinishReason("abort", true, false)).toBe("abort");
    expect(turnFinishReason("stop", false, true)).toBe("abort");
    expect(turnFinishReason(null, false, false)).toBe("stop");
  });
});
