// <run>/pids.json: the pids and process groups this orchestrator started, rewritten on every change, so
// the next `start` can report leftovers by pid (it never kills them) and refuse a second live orchestrator.
import { readFileSync, renameSync, writeFileSync } from "node:fs";
import path from "node:path";
import { z } from "zod";
import { isProcessAlive, processCommandLine } from "./process-group.ts";

const entrySchema = z.object({ name: z.string(), pid: z.number().int(), command: z.string(), startedAt: z.number() });
const fileSchema = z.object({ version: z.literal(1), orchestratorPid: z.number().int(), children: z.array(entrySchema) });

export type PidEntry = z.infer<typeof entrySchema>;

export interface Leftover extends PidEntry {
  /** How it looks now (/proc cmdline), for the message. */
  commandLine: string;
}

export class PidRegistry {
  readonly file: string;
  private readonly children = new Map<number, PidEntry>();

  constructor(runDir: string) {
    this.file = path.join(runDir, "pids.json");
  }

  add(entry: PidEntry): void {
    this.children.set(entry.pid, entry);
    this.write();
  }

  remove(pid: number): void {
    if (this.children.delete(pid)) this.write();
  }

  write(): void {
    const body = { version: 1, orchestratorPid: process.pid, children: [...this.children.values()] };
    const temporary = `${this.file}.tmp`;
    writeFileSync(temporary, JSON.stringify(body, null, 2));
    renameSync(temporary, this.file);
  }
}

/** What a previous run left alive: its orchestrator (if still running) and children whose pid still runs the same command. */
export function findLeftovers(runDir: string): { orchestratorPid: number | null; children: Leftover[] } {
  let parsed: z.infer<typeof fileSchema>;
  try {
    parsed = fileSchema.parse(JSON.parse(readFileSync(path.join(runDir, "pids.json"), "utf8")));
  } catch {
    return { orchestratorPid: null, children: [] };
  }
  const orchestratorPid = parsed.orchestratorPid !== process.pid && isProcessAlive(parsed.orchestratorPid) ? parsed.orchestratorPid : null;
  const children: Leftover[] = [];
  for (const entry of parsed.children) {
    if (!isProcessAlive(entry.pid)) continue;
    const commandLine = processCommandLine(entry.pid) ?? "";
    const program = path.basename(entry.command);
    if (commandLine && !commandLine.includes(program)) continue; // the pid was reused by something else
    children.push({ ...entry, commandLine });
  }
  return { orchestratorPid, children };
}
