// Judging's cost on the proxy, as `npm run bench` reports it: the proxy bench at concurrency 64 (time to first
// token) with a second proxy that judges every closed turn (binary votes, stand-in judge in its own process), once
// with judging on its own thread as `openclaw-rl start` runs it and once with the pipeline on the proxy's event loop.
// Each run measures the judging proxy side by side with a plain one; this file only runs the two and labels them.
import path from "node:path";
import { fileURLToPath } from "node:url";
import { execa } from "execa";

const bench = path.join(path.dirname(fileURLToPath(import.meta.url)), "proxy-bench.ts");
let failed = 0;
for (const on of ["thread", "loop"]) {
  console.log(`\n### binary judging on ${on === "thread" ? "its own thread (as openclaw-rl start runs it)" : "the proxy's event loop (before)"}\n`);
  const result = await execa(process.execPath, ["--import", "tsx", bench, "--only=64:stream", "--judging=binary", `--judging-on=${on}`], { stdio: "inherit", reject: false, timeout: 10 * 60_000 });
  if (result.exitCode !== 0) failed++;
}
process.exitCode = failed > 0 ? 1 : 0;
