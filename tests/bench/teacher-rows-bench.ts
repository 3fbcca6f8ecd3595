// The trainer teacher's top-K rows per hint candidate (method: hybrid runs one pass per candidate): peak memory and
// time of native/openclaw_rl/trainer_teacher.sharded_topk taken 256 rows at a time against one full-vocabulary pass
// over every response row, on the CPU at vocabulary 151,936 (fewer rows than a GPU run; the GPU script is
// tools/gpu-teacher-rows-bench.py). Each measurement runs in its own Python process (tests/bench/teacher_rows_bench.py).
import path from "node:path";
import { fileURLToPath } from "node:url";
import { execa } from "execa";
import { z } from "zod";

const script = path.join(path.dirname(fileURLToPath(import.meta.url)), "teacher_rows_bench.py");
const Measurement = z.object({ rows: z.number(), chunk_rows: z.number(), ms: z.number(), peak_mib: z.number() });
const CHUNK = 256;

async function measure(rows: number, chunkRows: number): Promise<z.infer<typeof Measurement>> {
  const result = await execa("/usr/bin/python3", [script, String(rows), String(chunkRows)], { timeout: 10 * 60_000 });
  return Measurement.parse(JSON.parse(result.stdout.trim().split("\n").at(-1) ?? ""));
}

console.log(`Per candidate, top-20 rows at vocabulary 151,936 (bf16 logits / 0.6), one CPU thread; peak = growth of the process's resident set.\n`);
console.log("| response rows | full pass: peak MiB | full pass: ms | chunked (256 rows): peak MiB | chunked: ms | peak ratio chunked/full | time ratio chunked/full |");
console.log("| ---: | ---: | ---: | ---: | ---: | ---: | ---: |");
for (const rows of [512, 2048]) {
  const full = await measure(rows, rows);
  const chunked = await measure(rows, CHUNK);
  console.log(`| ${rows} | ${full.peak_mib} | ${full.ms} | ${chunked.peak_mib} | ${chunked.ms} | ${(chunked.peak_mib / full.peak_mib).toFixed(2)} | ${(chunked.ms / full.ms).toFixed(2)} |`);
}
