// The orphan watchdog: a tiny plain-Node process (no tsx, starts in ~50 ms) that outlives a SIGKILLed
// orchestrator. It reads JSON lines on stdin: {"add":pgid}, {"remove":pgid}, {"onOrphan":{"argv":[file,...args],"env":{...}}},
// {"done":true}. When stdin closes without "done" (the orchestrator died), it runs the onOrphan commands
// (e.g. `ray stop`), SIGTERMs every recorded process group, waits, then SIGKILLs what is left. It only
// ever signals groups the orchestrator registered (children it started), never anything found by name.
import { spawnSync } from "node:child_process";
import { createInterface } from "node:readline";

const graceMs = Number(process.argv[2] ?? 3000);
const groups = new Set();
const onOrphan = [];
let done = false;

for (const signal of ["SIGINT", "SIGHUP", "SIGTERM"]) process.on(signal, () => {}); // only stdin decides

function groupAlive(pgid) {
  try {
    process.kill(-pgid, 0);
    return true;
  } catch {
    return false;
  }
}

function signalAll(signal) {
  for (const pgid of groups) {
    try {
      process.kill(-pgid, signal);
    } catch {}
  }
}

const lines = createInterface({ input: process.stdin });
lines.on("line", (line) => {
  let message;
  try {
    message = JSON.parse(line);
  } catch {
    return;
  }
  if (Number.isInteger(message.add)) groups.add(message.add);
  if (Number.isInteger(message.remove)) groups.delete(message.remove);
  if (message.onOrphan && Array.isArray(message.onOrphan.argv)) onOrphan.push(message.onOrphan);
  if (message.done === true) done = true;
});

lines.on("close", async () => {
  if (done) process.exit(0);
  process.stderr.write(`orphan-watchdog: orchestrator gone; stopping ${groups.size} process group(s)\n`);
  for (const { argv, env } of onOrphan) spawnSync(argv[0], argv.slice(1), { stdio: "ignore", timeout: 20_000, env: env ?? process.env });
  signalAll("SIGTERM");
  const deadline = Date.now() + graceMs;
  while (Date.now() < deadline && [...groups].some(groupAlive)) await new Promise((resolve) => setTimeout(resolve, 50));
  signalAll("SIGKILL");
  process.exit(0);
});
