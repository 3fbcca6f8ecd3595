// `npm run bench`: runs every tests/bench/*-bench.ts in its own process, one after another, and forwards
// their output (each prints a markdown table). Owns discovery and ordering only.
import { readdirSync } from "node:fs";
import path from "node:path";
import { fileURLToPath } from "node:url";
import { execa } from "execa";

const folder = path.dirname(fileURLToPath(import.meta.url));
// words choose benches by name; `--name=value` flags go to every chosen bench (each reads its own)
const only = process.argv.slice(2).filter((argument) => !argument.startsWith("--"));
const flags = process.argv.slice(2).filter((argument) => argument.startsWith("--"));
const files = readdirSync(folder)
  .filter((name) => name.endsWith("-bench.ts"))
  .filter((name) => only.length === 0 || only.some((word) => name.includes(word)))
  .sort();

let failed = 0;
for (const name of files) {
  console.log(`\n## ${name}\n`);
  const result = await execa(process.execPath, ["--import", "tsx", path.join(folder, name), ...flags], { stdio: "inherit", reject: false, timeout: 15 * 60_000 });
  if (result.exitCode !== 0) {
    failed++;
    console.error(`${name} failed: ${result.exitCode ?? result.signal}${result.timedOut ? " (timed out)" : ""}`);
  }
}
process.exitCode = failed > 0 ? 1 : 0;
