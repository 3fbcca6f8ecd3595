// The one SSE reader: the same events whatever the chunking (every split point, \r\n split in two, multi-line data,
// comments, other fields, an unterminated last event), as the SSE spec reads them.
import { describe, expect, it } from "vitest";
import { SseReader, sseEvents, type SseEvent } from "../../lib/http/sse-events.ts";

const STREAM = [
  ": keep-alive",
  "",
  'data: {"text":"héllo 世界 🌍"}',
  "",
  "event: message\r\nid: 7\r\ndata: first\r\ndata:second\r\n\r\n",
  "data",
  "",
  "retry: 100",
  "",
  "dataset: not data",
  "data:  two spaces",
  "",
  "data: [DONE]",
  "",
  "data: tail",
].join("\n");

const EXPECTED: SseEvent[] = [
  { raw: ": keep-alive", data: null },
  { raw: 'data: {"text":"héllo 世界 🌍"}', data: '{"text":"héllo 世界 🌍"}' },
  { raw: "event: message\nid: 7\ndata: first\ndata:second", data: "first\nsecond" },
  { raw: "data", data: "" },
  { raw: "retry: 100", data: null },
  { raw: "dataset: not data\ndata:  two spaces", data: " two spaces" },
  { raw: "data: [DONE]", data: "[DONE]" },
  { raw: "data: tail", data: "tail" },
];

function read(chunks: string[]): SseEvent[] {
  const reader = new SseReader();
  const events = chunks.flatMap((chunk) => reader.push(chunk));
  const last = reader.end();
  return last ? [...events, last] : events;
}

describe("SseReader", () => {
  it("reads the whole stream as the spec does", () => {
    expect(read([STREAM])).toEqual(EXPECTED);
  });

  it("gives the same events split at every point, and at every pair of points", () => {
    const characters = [...STREAM]; // (code points: a split never halves a character once decoded)
    for (let cut = 0; cut <= characters.length; cut++) {
      expect(read([characters.slice(0, cut).join(""), characters.slice(cut).join("")]), `cut at ${cut}`).toEqual(EXPECTED);
    }
    for (let first = 0; first <= characters.length; first += 3) {
      for (let second = first; second <= characters.length; second += 5) {
        const parts = [characters.slice(0, first), characters.slice(first, second), characters.slice(second)].map((part) => part.join(""));
        expect(read(parts), `cuts at ${first}, ${second}`).toEqual(EXPECTED);
      }
    }
    expect(read(characters)).toEqual(EXPECTED); // one character at a time
  });

  it("a \\r\\n split between chunks is one line end, a lone \\r is one too", () => {
    expect(read(["data: a\r", "\n\r", "\ndata: b\r\r"])).toEqual([
      { raw: "data: a", data: "a" },
      { raw: "data: b", data: "b" },
    ]);
  });

  it("sseEvents reads an async stream of text, the unterminated last event included", async () => {
    async function* chunks() {
      yield "data: 1\n\nda";
      yield "ta: 2\n\ndata: 3";
    }
    const events = [];
    for await (const event of sseEvents(chunks())) events.push(event.data);
    expect(events).toEqual(["1", "2", "3"]);
  });
});
