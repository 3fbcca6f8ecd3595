// Reads a JSONL file a run wrote (turns.jsonl, judgements.jsonl): one object per non-empty line; [] when it is not there yet.
import { readFile } from "node:fs/promises";

export async function readJsonl(file: string): Promise<Record<string, any>[]> {
  const text = await readFile(file, "utf8").catch(() => "");
  return text
    .split("\n")
    .filter((line) => line.trim().length > 0)
    .map((line) => JSON.parse(line) as Record<string, any>);
}
