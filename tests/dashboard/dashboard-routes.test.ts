// The dashboard mounted on the real admin server: token rules, assets served offline from the package,
// the JSON API (snapshot, turn pages, turn details with secrets redacted), bad input, and the live stream.
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { startDashboardHarness, type DashboardHarness } from "./dashboard-harness.ts";
import { createSyntheticRun, emitEngines, emitTurn, type SyntheticRun } from "./synthetic-run.ts";

/** Reads server-sent events from a fetch body until `count` named events arrived. */
async function readEvents(response: Response, count: number): Promise<{ event: string; data: unknown }[]> {
  const reader = response.body!.getReader();
  const decoder = new TextDecoder();
  const events: { event: string; data: unknown }[] = [];
  let buffer = "";
  while (events.length < count) {
    const { value, done } = await reader.read();
    if (done) break;
    buffer += decoder.decode(value, { stream: true });
    let split: number;
    while ((split = buffer.indexOf("\n\n")) !== -1) {
      const block = buffer.slice(0, split);
      buffer = buffer.slice(split + 2);
      const event = /^event: (.*)$/m.exec(block)?.[1];
      const data = /^data: (.*)$/m.exec(block)?.[1];
      if (event && data) events.push({ event, data: JSON.parse(data) });
    }
  }
  await reader.cancel();
  return events;
}

describe("dashboard routes on the admin server", () => {
  let harness: DashboardHarness;
  let run: SyntheticRun;
  const auth = () => ({ headers: { authorization: `Bearer ${harness.token}` } });

  beforeAll(async () => {
    harness = await startDashboardHarness({ method: "combine", batchSize: 4, stream: { tickMs: 20 } });
    run = createSyntheticRun(harness.bus, { method: "combine", batchSize: 4, recordsDir: harness.recordsDir });
    emitEngines(harness.bus);
    for (let turn = 0; turn < 20; turn++) emitTurn(run, `s-${turn % 3}`, turn);
  });

  afterAll(async () => harness?.close());

  it("serves the page with the token (query or header) and refuses it without", async () => {
    const page = await fetch(harness.pageUrl);
    expect(page.status).toBe(200);
    expect(page.headers.get("content-type")).toContain("text/html");
    expect(page.headers.get("referrer-policy")).toBe("no-referrer");
    const html = await page.text();
    expect(html).toContain('src="/dashboard/assets/uplot.js"');
    expect(html).not.toContain(harness.token);
    expect((await fetch(`${harness.baseUrl}/dashboard`)).status).toBe(401);
    expect((await fetch(`${harness.baseUrl}/dashboard?token=wrong-token-0000000000`)).status).toBe(401);
    expect((await fetch(`${harness.baseUrl}/dashboard/api/snapshot`)).status).toBe(401);
    expect((await fetch(`${harness.baseUrl}/dashboard/api/snapshot`, auth())).status).toBe(200);
    // the admin server's own routes keep working beside the mount
    expect((await fetch(`${harness.baseUrl}/status`, auth())).status).toBe(200);
  });

  it("serves uPlot and its own scripts from the package, without the token (code only)", async () => {
    const uplot = await fetch(`${harness.baseUrl}/dashboard/assets/uplot.js`);
    expect(uplot.status).toBe(200);
    expect(await uplot.text()).toContain("uPlot");
    expect((await fetch(`${harness.baseUrl}/dashboard/assets/uplot.css`)).status).toBe(200);
    expect((await fetch(`${harness.baseUrl}/dashboard/assets/dashboard.js`)).headers.get("content-type")).toContain("javascript");
    expect((await fetch(`${harness.baseUrl}/dashboard/assets/../../status`)).status).not.toBe(200);
    expect((await fetch(`${harness.baseUrl}/dashboard/assets/secrets.json`)).status).toBe(404);
  });

  it("answers bad input with a 4xx that names the problem", async () => {
    const badCursor = await fetch(`${harness.baseUrl}/dashboard/api/turns?before=-1`, auth());
    expect(badCursor.status).toBe(400);
    expect(((await badCursor.json()) as { error: string }).error).toMatch(/before must be a positive integer/);
    expect((await fetch(`${harness.baseUrl}/dashboard/api/turns?limit=9999`, auth())).status).toBe(400);
    expect((await fetch(`${harness.baseUrl}/dashboard/api/turn?session=s-0`, auth())).status).toBe(400);
    expect((await fetch(`${harness.baseUrl}/dashboard/api/turn?turn=1`, auth())).status).toBe(400);
    expect((await fetch(`${harness.baseUrl}/dashboard/api/snapshot`, { method: "POST", ...auth() })).status).toBe(405);
    expect((await fetch(`${harness.baseUrl}/dashboard/api/nothing`, auth())).status).toBe(404);
  });

  it("serves a snapshot and cursor pages of turns", async () => {
    const snapshot = (await (await fetch(`${harness.baseUrl}/dashboard/api/snapshot`, auth())).json()) as {
      totals: { turns: number; batches: number }; engines: unknown[]; method: string; turns: { rows: { turn: number; seq: number }[]; next: number | null };
    };
    expect(snapshot.totals.turns).toBe(20);
    expect(snapshot.totals.batches).toBe(run.rolloutId);
    expect(snapshot.engines).toHaveLength(3);
    expect(snapshot.method).toBe("combine");
    expect(snapshot.turns.rows[0]?.turn).toBe(19);
    const older = (await (await fetch(`${harness.baseUrl}/dashboard/api/turns?before=${snapshot.turns.rows[4]!.seq}&limit=5`, auth())).json()) as { rows: { turn: number }[] };
    expect(older.rows.map((row) => row.turn)).toEqual([14, 13, 12, 11, 10]); // rows older than the 5th newest (turn 15)
  });

  it("serves one turn's detail from the records, with its votes and hint, and never an API key", async () => {
    const response = await fetch(`${harness.baseUrl}/dashboard/api/turn?session=s-1&turn=4`, auth());
    expect(response.status).toBe(200);
    const text = await response.text();
    const detail = JSON.parse(text) as {
      row: { votes: unknown[] }; turnRecord: { found: boolean; record: { messages: { content: string }[]; prompt_ids: unknown; response_log_probs: unknown } };
      judgementRecord: { found: boolean; record: { evaluation: { votes: { raw: string }[] }; hint: { votes: unknown[] } } };
    };
    expect(detail.row.votes.length).toBeGreaterThan(0);
    expect(detail.turnRecord.found).toBe(true);
    expect(detail.turnRecord.record.messages[1]?.content).toBe("Please summarise report 4 of s-1. My key is [redacted].");
    expect(detail.turnRecord.record.prompt_ids).toBe("[300 values not shown]");
    expect(detail.turnRecord.record.response_log_probs).toBe("[90 values not shown]");
    expect(detail.judgementRecord.found).toBe(true);
    expect(detail.judgementRecord.record.evaluation.votes[0]?.raw).toMatch(/\\boxed\{-?\d\}/);
    expect(detail.judgementRecord.record.hint.votes).toHaveLength(1);
    expect(text).not.toContain("sk-live");
    const missing = (await (await fetch(`${harness.baseUrl}/dashboard/api/turn?session=nobody&turn=0`, auth())).json()) as { row: unknown; turnRecord: { found: boolean; reason: string } };
    expect(missing).toMatchObject({ row: null, turnRecord: { found: false, reason: "not-recorded" } });
  });

  it("streams a snapshot on connect, then deltas as turns are judged", async () => {
    const response = await fetch(`${harness.baseUrl}/dashboard/api/stream?token=${harness.token}`);
    expect(response.headers.get("content-type")).toContain("text/event-stream");
    const pending = readEvents(response, 2);
    setTimeout(() => emitTurn(run, "s-live", 0, 1), 50);
    const [snapshot, delta] = await pending;
    expect(snapshot?.event).toBe("snapshot");
    expect(delta?.event).toBe("delta");
    const rows = (delta?.data as { turnRows: { sessionId: string; status: string }[] }).turnRows;
    expect(rows).toEqual([expect.objectContaining({ sessionId: "s-live" })]);
    expect(["kept", "skipped"]).toContain(rows[0]?.status);
  });
});

describe("dashboard live stream bounds", () => {
  it("refuses pages beyond maxClients with a 503, and close() ends the open streams", async () => {
    const harness = await startDashboardHarness({ stream: { maxClients: 1, tickMs: 20 } });
    try {
      const streamUrl = `${harness.baseUrl}/dashboard/api/stream?token=${harness.token}`;
      const first = await fetch(streamUrl);
      expect(first.status).toBe(200);
      const second = await fetch(streamUrl);
      expect(second.status).toBe(503);
      expect(second.headers.get("retry-after")).toBe("5");
      expect(((await second.json()) as { error: string }).error).toMatch(/at most 1 dashboard pages/);
      const reader = first.body!.getReader();
      let text = "";
      const drained = (async () => {
        for (;;) {
          const { value, done } = await reader.read();
          if (done) return text;
          text += new TextDecoder().decode(value);
        }
      })();
      await new Promise((resolve) => setTimeout(resolve, 50));
      harness.routes.close();
      expect(await drained).toContain("event: snapshot");
      expect((await fetch(streamUrl)).status).toBe(200); // the slot is free again
    } finally {
      await harness.close();
    }
  });
});
