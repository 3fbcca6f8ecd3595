// One child's log: pino JSON lines in <run>/logs/<name>.log (its own output forwarded line by line, with its
// name and stream; capped in size, rotated to <name>.log.1), a short readable form for the terminal, and the last
// lines kept for exit results (a bounded number of lines, each cut to TAIL_LINE_CHARS, so the tails stay small
// however long the child's lines are).
import { mkdirSync } from "node:fs";
import path from "node:path";
import { pino, type Logger } from "pino";
import { RotatingLogFile } from "./rotating-log-file.ts";

/** The longest line kept in the tails (exit results, the terminal's last lines): enough for a traceback line. */
export const TAIL_LINE_CHARS = 2000;

export type TerminalWriter = (line: string) => void;

export interface ChildLogOptions {
  logsDir: string;
  name: string;
  terminal?: TerminalWriter;
  /** Echo every child line on the terminal (otherwise only lifecycle lines and warnings reach it). */
  echoLines?: boolean;
  tailLines?: number;
  /** Size cap of <name>.log before it is rotated to <name>.log.1 (default CHILD_LOG_MAX_BYTES, 64 MiB). */
  maxBytes?: number;
}

export class ChildLog {
  readonly file: string;
  private readonly logger: Logger;
  private readonly destination: RotatingLogFile;
  private readonly tailLimit: number;
  private stderrLines: string[] = [];
  private outputLines: string[] = [];
  private closed = false;

  constructor(private readonly options: ChildLogOptions) {
    mkdirSync(options.logsDir, { recursive: true });
    this.file = path.join(options.logsDir, `${options.name}.log`);
    const note = () => JSON.stringify({ level: 30, time: new Date().toISOString(), child: options.name, supervisor: true, msg: `log rotated: the lines before this one are in ${options.name}.log.1` }) + "\n";
    this.destination = new RotatingLogFile(this.file, options.maxBytes, note);
    this.logger = pino({ base: { child: options.name }, timestamp: pino.stdTimeFunctions.isoTime }, this.destination);
    this.tailLimit = options.tailLines ?? 40;
  }

  /** A line the child printed. */
  line(stream: "stdout" | "stderr", text: string): void {
    if (!this.closed) this.logger.info({ stream }, text);
    this.outputLines = pushBounded(this.outputLines, text, this.tailLimit);
    if (stream === "stderr") this.stderrLines = pushBounded(this.stderrLines, text, this.tailLimit);
    if (this.options.echoLines) this.options.terminal?.(`${this.options.name} │ ${clip(text)}`);
  }

  /** Something the supervisor did or saw (started, ready, exited, restarting). */
  lifecycle(level: "info" | "warn" | "error", message: string, fields: Record<string, unknown> = {}): void {
    if (!this.closed) this.logger[level]({ supervisor: true, ...fields }, message);
    const mark = level === "info" ? "·" : level === "warn" ? "!" : "✗";
    this.options.terminal?.(`${mark} ${this.options.name}: ${message}`);
  }

  stderrTail(count = 20): string[] {
    return this.stderrLines.slice(-count);
  }

  outputTail(count = 20): string[] {
    return this.outputLines.slice(-count);
  }

  /** Forget the tail of a previous incarnation (after a restart). */
  resetTail(): void {
    this.stderrLines = [];
    this.outputLines = [];
  }

  close(): void {
    if (this.closed) return;
    this.closed = true;
    this.destination.end();
  }
}

/** Keeps at most 2 × limit lines of at most TAIL_LINE_CHARS characters each (plus a short mark). */
function pushBounded(lines: string[], line: string, limit: number): string[] {
  lines.push(clip(line));
  return lines.length > limit * 2 ? lines.slice(-limit) : lines;
}

function clip(line: string): string {
  return line.length > TAIL_LINE_CHARS ? `${line.slice(0, TAIL_LINE_CHARS)} … [${line.length - TAIL_LINE_CHARS} more characters in the log]` : line;
}

/** argv for logs, with the values of flags named like *-key, *-token, *-password or *-secret hidden. */
export function redactArgv(argv: string[]): string[] {
  const secret = /^--(.*[-_])?(key|token|password|secret)$/i;
  return argv.map((item, index) => {
    const previous = argv[index - 1] ?? "";
    if (secret.test(previous) && !item.startsWith("--")) return "***";
    const equals = item.indexOf("=");
    if (equals > 0 && secret.test(item.slice(0, equals))) return `${item.slice(0, equals)}=***`;
    return item;
  });
}
