// The main turns the proxy's thread keeps until feedback needs them: a closed turn's notice is dropped, feedback
// takes every notice oldest first, and beyond the limit the oldest is handed on at once (never lost).
import { describe, expect, it } from "vitest";
import { OpenTurns, turnEndedNotice } from "../../orchestrator/judging/open-turns.ts";

const ended = (sessionId: string, turn: number, aborted = false) => ({ sessionId, turn, aborted });

describe("OpenTurns", () => {
  it("drops a closed turn's notice and hands on the rest, oldest first, once", () => {
    const open = new OpenTurns(10);
    expect(open.noteEnded(ended("a", 0))).toBeNull();
    expect(open.noteEnded(ended("b", 0))).toBeNull();
    expect(open.noteEnded(ended("a", 1, true))).toBeNull();
    open.closed("a", 0);
    expect(open.take()).toEqual([ended("b", 0), ended("a", 1, true)]);
    expect(open.take()).toEqual([]);
  });

  it("beyond the limit hands on the oldest notice at once", () => {
    const open = new OpenTurns(2);
    open.noteEnded(ended("a", 0));
    open.noteEnded(ended("b", 0));
    expect(open.noteEnded(ended("c", 0))).toEqual(ended("a", 0));
    expect(open.take()).toEqual([ended("b", 0), ended("c", 0)]);
  });

  it("reads a main turn-end event (complete or aborted); side turns and other events give none", () => {
    const base = { at: 1, sessionId: "s", turn: 3, promptTokens: 1, responseTokens: 1, ttftMs: 1, totalMs: 1, weightVersions: ["0"], continuedAfterAbort: 0 };
    expect(turnEndedNotice({ ...base, type: "turn-end", turnType: "main", finishReason: "abort" })).toEqual(ended("s", 3, true));
    expect(turnEndedNotice({ ...base, type: "turn-end", turnType: "main", finishReason: "stop" })).toEqual(ended("s", 3));
    expect(turnEndedNotice({ ...base, type: "turn-end", turnType: "side", finishReason: "stop" })).toBeNull();
    expect(turnEndedNotice({ at: 1, type: "weights-version-reset", fromVersion: "3", reason: "slime restarted" })).toBeNull();
  });
});
