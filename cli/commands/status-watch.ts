// `openclaw-rl status --watch`: follows the run's event stream and shows its status as it changes. On a terminal the
// screen is redrawn; piped (stdout not a TTY), only the status lines that changed are printed, each once, with the
// time; with --json, each event as one JSON line.
import { WebSocket } from "ws";
import { OpenclawRlError } from "../../contracts/errors.ts";
import type { StatusSnapshot } from "../../contracts/status.ts";
import type { AdminTarget } from "../admin-target.ts";
import { changedLines, formatStatus } from "./status-format.ts";

export interface WatchOptions {
  json: boolean;
  /** The run's status now (GET /status); null when it did not answer. */
  read: () => Promise<StatusSnapshot | null>;
  output?: NodeJS.WriteStream;
}

/** Status lines for a reader that is not a terminal: the first block whole, then only the lines that changed. */
export class PipedStatusPrinter {
  private previous: ReadonlySet<string> = new Set();

  constructor(private readonly runDir: string | null = null) {}

  /** The text to print for this status ("" when no line changed). */
  next(status: StatusSnapshot, columns = 100, now = new Date()): string {
    const lines = formatStatus(status, columns, "absolute", this.runDir).trimEnd().split("\n");
    const changed = changedLines(this.previous, lines);
    const first = this.previous.size === 0;
    this.previous = new Set(lines);
    if (changed.length === 0) return "";
    if (first) return `${lines.join("\n")}\n`;
    const time = now.toTimeString().slice(0, 8);
    return changed.map((line) => `${time} ${line.trim()}\n`).join("");
  }
}

export async function watchStatus(target: AdminTarget, options: WatchOptions): Promise<void> {
  const output = options.output ?? process.stdout;
  const piped = new PipedStatusPrinter(target.runDir);
  let render: NodeJS.Timeout | null = null;
  const redraw = () => {
    render ??= setTimeout(async () => {
      render = null;
      const status = await options.read();
      if (!status || options.json) return;
      if (output.isTTY) output.write(`\x1b[2J\x1b[H${formatStatus(status, output.columns ?? 80, "relative", target.runDir)}`);
      else output.write(piped.next(status));
    }, 300);
  };
  const socket = new WebSocket(`${target.url.replace(/^http/, "ws")}/events`, { headers: { authorization: `Bearer ${target.token}` }, handshakeTimeout: 5000 });
  await new Promise<void>((resolve, reject) => {
    socket.on("open", redraw);
    socket.on("message", (data) => {
      const message = JSON.parse(String(data)) as { event?: unknown };
      if (!message.event) return;
      if (options.json) output.write(`${JSON.stringify(message.event)}\n`);
      redraw();
    });
    socket.on("close", (code, reason) => {
      const ended = streamClosed(code, String(reason));
      if (ended) return reject(ended);
      if (reason.length > 0) process.stderr.write(`${String(reason)}\n`); // "openclaw-rl is stopping"
      resolve();
    });
    socket.on("error", (cause) => reject(new OpenclawRlError("ENGINE_UNAVAILABLE", `cannot watch ${target.url}/events: ${cause.message}`, { cause, retryable: true })));
    process.once("SIGINT", () => socket.close());
    // `status --watch | head`: the reader went away; stop quietly
    output.on("error", (error: NodeJS.ErrnoException) => (error.code === "EPIPE" ? socket.terminate() : reject(error)));
  });
  if (render) clearTimeout(render);
}

/**
 * Why the server closed `status --watch`'s stream (too slow, too many clients), as an error to print; null for an end
 * that is no error: Ctrl-C (1005), the orchestrator stopping (1001, its reason printed), a dropped connection (1006).
 */
export function streamClosed(code: number, reason: string): OpenclawRlError | null {
  if (code === 1000 || code === 1001 || code === 1005 || code === 1006) return null;
  return new OpenclawRlError("ENGINE_UNAVAILABLE", `the event stream was closed (${code}): ${reason || "no reason given"}`, {
    hint: "run `npx openclaw-rl status --watch` again",
    retryable: true,
  });
}
