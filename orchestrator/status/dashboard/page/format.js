// Small helpers for the dashboard page: element building (text only, never HTML from data) and number,
// time and reward formatting. No state.

/** Creates an element with a class and text or children; data is always set as text, never as HTML. */
export function element(tag, className, content) {
  const node = document.createElement(tag);
  if (className) node.className = className;
  if (Array.isArray(content)) node.append(...content.filter((child) => child !== null && child !== undefined));
  else if (content !== undefined && content !== null) node.textContent = String(content);
  return node;
}

export function formatReward(value) {
  if (value === null || value === undefined) return "–";
  return value > 0 ? `+${round(value, 2)}` : String(round(value, 2));
}

export function formatMs(value) {
  if (value === null || value === undefined) return "–";
  return value >= 10_000 ? `${round(value / 1000, 1)} s` : `${Math.round(value)} ms`;
}

/**
 * Milliseconds as status writes them (cli/commands/status-latency.ts seconds()): one decimal under a minute, else
 * minutes. bound "up": an upper bound, rounded up with a ≤ (cli/commands/status-format.ts boundDuration()).
 */
export function formatSeconds(ms, bound = "") {
  if (bound === "up") return ms < 1000 ? `≤${(Math.max(1, Math.ceil(ms / 100)) / 10).toFixed(1)}s` : ms < 90_000 ? `≤${Math.ceil(ms / 1000)}s` : `≤${Math.ceil(ms / 60_000)}m`;
  return ms < 60_000 ? `${(ms / 1000).toFixed(1)}s` : `${(ms / 60_000).toFixed(1)}m`;
}

export function formatTime(ms) {
  return new Date(ms).toLocaleTimeString();
}

export function round(value, digits) {
  const factor = 10 ** digits;
  return Math.round(value * factor) / factor;
}

export function shorten(text, length) {
  if (!text) return "";
  return text.length > length ? `${text.slice(0, length - 1)}…` : text;
}

/** Text of a chat message's content (a string or OpenAI content parts). */
export function contentText(content) {
  if (typeof content === "string") return content;
  if (Array.isArray(content)) return content.map((part) => (typeof part?.text === "string" ? part.text : `[${part?.type ?? "part"}]`)).join("");
  if (content === null || content === undefined) return "";
  return JSON.stringify(content);
}
