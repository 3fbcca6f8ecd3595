// The latest-turns table and the turn detail drawer: a page of rows (newest first, live on the first page,
// older pages fetched by cursor) and, on click, the turn's conversation, judge votes and hint.
import { contentText, element, formatMs, formatReward, shorten } from "./format.js";

const statusLabels = { generating: "generating", "awaiting-next-state": "open", judging: "judging", kept: "kept", skipped: "skipped", side: "side", dropped: "dropped" };

/** What an open turn waits for, and when it is closed without it (proxy.session_idle_timeout_s). */
function openTurnNote(idleTimeoutS) {
  const after = idleTimeoutS === null ? "once the session idles" : `once the session has been idle ${idleTimeoutS >= 120 ? `${Math.round(idleTimeoutS / 60)} min` : `${idleTimeoutS} s`}`;
  return `waiting for the session's next message (what judges it); closed with no next state, unjudged, ${after}`;
}

export class TurnTable {
  constructor(api, pageSize, idleTimeoutS = null) {
    this.api = api;
    this.pageSize = pageSize;
    this.openNote = openTurnNote(idleTimeoutS);
    this.rows = []; // newest first, at most pageSize
    this.total = 0;
    this.before = null; // null: the live (newest) page
    this.next = null;
    this.newSinceView = 0;
    this.body = document.getElementById("turn-rows");
    document.getElementById("older-page").addEventListener("click", () => this.loadPage(this.next));
    document.getElementById("newest-page").addEventListener("click", () => this.loadPage(null));
    document.getElementById("detail-close").addEventListener("click", () => (document.getElementById("detail").hidden = true));
    this.body.addEventListener("click", (event) => {
      const tr = event.target.closest("tr[data-seq]");
      if (tr) this.openDetail(tr.dataset.session, Number(tr.dataset.turn));
    });
  }

  /** A snapshot's first page replaces the table (and returns it to the live page). */
  reset(page) {
    this.before = null;
    this.applyPage(page);
  }

  applyPage(page) {
    this.rows = page.rows;
    this.total = page.total;
    this.before = page.before;
    this.next = page.next;
    this.newSinceView = 0;
    this.render();
  }

  async loadPage(before) {
    const query = before === null ? `limit=${this.pageSize}` : `before=${before}&limit=${this.pageSize}`;
    this.applyPage(await this.api.getJson(`api/turns?${query}`));
  }

  /** Changed or new rows from a delta: upserted on the live page; counted as "newer" on older pages. */
  applyChanges(changedRows, total) {
    this.total = total;
    if (changedRows.length === 0) return this.renderFacts();
    const bySeq = new Map(this.rows.map((row) => [row.seq, row]));
    const newestSeq = this.rows.length ? this.rows[0].seq : 0;
    for (const row of changedRows) {
      if (bySeq.has(row.seq)) bySeq.set(row.seq, row);
      else if (this.before === null) bySeq.set(row.seq, row);
      else if (row.seq > newestSeq) this.newSinceView += 1;
    }
    this.rows = [...bySeq.values()].sort((a, b) => b.seq - a.seq).slice(0, this.pageSize);
    if (this.before === null && this.total > this.rows.length && this.rows.length) this.next = this.rows[this.rows.length - 1].seq;
    this.render();
  }

  renderFacts() {
    document.getElementById("turns-total").textContent = `${this.total} held`;
    document.getElementById("newest-page").disabled = this.before === null;
    document.getElementById("older-page").disabled = this.next === null;
    document.getElementById("new-turns").textContent = this.newSinceView ? `${this.newSinceView} newer turns` : this.before === null ? "live" : "";
  }

  render() {
    const fragment = document.createDocumentFragment();
    for (const row of this.rows) {
      const tr = element("tr", `status-${row.status}`, [
        element("td", "mono", shorten(row.sessionId, 18)),
        element("td", "num", row.turn),
        element("td", "", statusLabels[row.status] ?? row.status),
        element("td", "num", formatReward(row.reward)),
        element("td", "num", formatReward(row.score)),
        element("td", "num", `${formatMs(row.ttftMs)} / ${formatMs(row.totalMs)}`),
        element("td", "why", shorten(row.why ?? (row.status === "awaiting-next-state" ? this.openNote : ""), 120)),
      ]);
      tr.dataset.seq = String(row.seq);
      tr.dataset.session = row.sessionId;
      tr.dataset.turn = String(row.turn);
      tr.title = row.sessionId;
      fragment.append(tr);
    }
    this.body.replaceChildren(fragment);
    this.renderFacts();
  }

  async openDetail(sessionId, turn) {
    const drawer = document.getElementById("detail");
    const body = document.getElementById("detail-body");
    document.getElementById("detail-title").textContent = `${shorten(sessionId, 32)} · turn ${turn}`;
    body.replaceChildren(element("p", "muted", "loading…"));
    drawer.hidden = false;
    try {
      const detail = await this.api.getJson(`api/turn?session=${encodeURIComponent(sessionId)}&turn=${turn}`);
      body.replaceChildren(...renderDetail(detail));
      drawer.dataset.loaded = `${sessionId}:${turn}`;
    } catch (error) {
      body.replaceChildren(element("p", "error", String(error)));
    }
  }
}

function renderDetail(detail) {
  const parts = [];
  const row = detail.row;
  if (row) {
    parts.push(element("dl", "facts", [
      ...fact("status", statusLabels[row.status] ?? row.status), ...fact("why", row.why ?? "–"), ...fact("reward", formatReward(row.reward)),
      ...fact("judge score", formatReward(row.score)), ...fact("hint accepted", row.hintAccepted === null ? "–" : String(row.hintAccepted)),
      ...fact("decided by", row.decidedBy || "–"), ...fact("closed by", row.closedBy ?? "–"), ...fact("finish", row.finishReason ?? "–"),
      ...fact("tokens", `${row.promptTokens ?? "?"} prompt · ${row.responseTokens ?? "?"} response`),
    ]));
    if (row.votes.length) {
      parts.push(element("h3", "", "Judge votes"));
      parts.push(element("ul", "votes", row.votes.map((vote) => element("li", vote.ok ? "" : "error", `${vote.purpose}: ${vote.vote === null ? "no vote" : formatReward(vote.vote)}${vote.error ? ` (${vote.error})` : ""}`))));
    }
  }
  parts.push(...renderJudgement(detail.judgementRecord));
  parts.push(...renderConversation(detail.turnRecord));
  return parts;
}

function fact(name, value) {
  return [element("dt", "", name), element("dd", "", value)];
}

function renderJudgement(lookup) {
  const parts = [element("h3", "", "Judgement record")];
  if (!lookup.found) return [...parts, element("p", "muted", lookup.detail)];
  const record = lookup.record;
  const evaluation = record.evaluation ?? null;
  const hint = record.hint ?? null;
  parts.push(element("dl", "facts", [
    ...fact("method", `${record.method ?? "?"}${record.attempt > 1 ? ` (attempt ${record.attempt})` : ""}`),
    ...fact("evaluation", evaluation ? `${formatReward(evaluation.score)} from ${evaluation.valid} valid / ${evaluation.failed} failed votes` : "–"),
    ...fact("outcome", record.sample ? `sample (${record.sample.kind}, reward ${formatReward(record.sample.reward)}): ${record.sample.why}` : `no sample: ${record.skipped ?? "–"}`),
    ...(record.explicit ? fact("explicit feedback", `${formatReward(record.explicit.score)} via ${record.explicit.source}`) : []),
    ...(record.teacher ? fact("teacher", record.teacher.ok ? "log-probs scored" : `failed: ${record.teacher.reason ?? "?"}`) : []),
  ]));
  const keptHint = typeof hint === "string" ? hint : hint?.kept;
  if (keptHint) parts.push(element("div", "hint", [element("strong", "", "hint: "), element("span", "", keptHint)]));
  else if (hint?.reason) parts.push(element("p", "muted", `no hint kept: ${hint.reason}`));
  const votes = [
    ...(evaluation?.votes ?? []).map((vote) => ({ purpose: "eval", ...vote })),
    ...(hint?.votes ?? []).map((vote) => ({ purpose: "hint", ...vote })),
    ...(Array.isArray(record.votes) ? record.votes : []),
  ];
  for (const vote of votes) {
    const score = vote.score ?? vote.vote ?? null;
    const title = `${vote.purpose ?? "vote"} vote ${vote.index ?? ""}: ${score === null ? "no vote" : formatReward(score)}${vote.error ? ` (${vote.error})` : ""}`;
    parts.push(element("details", "vote", [element("summary", "", title), vote.hint ? element("div", "hint", vote.hint) : null, element("pre", "", contentText(vote.raw ?? ""))]));
  }
  parts.push(rawDetails(record));
  return parts;
}

function renderConversation(lookup) {
  const parts = [element("h3", "", "Conversation")];
  if (!lookup.found) return [...parts, element("p", "muted", lookup.detail)];
  const record = lookup.record;
  const messages = Array.isArray(record.messages) ? record.messages : [];
  for (const message of messages) parts.push(messageBlock(message.role ?? "?", messageText(message)));
  if (record.response) parts.push(messageBlock("assistant (this turn)", messageText(record.response)));
  const next = record.nextState ?? record.next_state;
  if (next) parts.push(messageBlock(`next state (${next.role ?? "?"})`, contentText(next.text ?? next.messages)));
  parts.push(rawDetails(record));
  return parts;
}

/** A message's text, then its tool calls as `[tool call] name(arguments)`. */
function messageText(message) {
  const calls = Array.isArray(message.tool_calls) ? message.tool_calls.map((call) => `[tool call] ${call.function?.name ?? "?"}(${call.function?.arguments ?? ""})`) : [];
  return [contentText(message.content), ...calls].filter((text) => text).join("\n");
}

function messageBlock(role, text) {
  return element("div", `message role-${String(role).split(" ")[0]}`, [element("div", "role", role), element("pre", "", shorten(text, 20_000))]);
}

function rawDetails(record) {
  return element("details", "raw", [element("summary", "", "raw record"), element("pre", "", JSON.stringify(record, null, 2))]);
}
