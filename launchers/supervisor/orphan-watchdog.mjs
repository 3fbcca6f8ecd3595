// The orphan watchdog: a tiny plain-Node process (no tsx, starts in ~50 ms) that outlives a SIGKILLed
// orchestrator. It reads JSON lines on stdin: {"add":pgid[,"leaderFirst":true]}, {"remove":pgid}, {"done":true}.
// When stdin closes without "done" (the orchestrator died), it SIGTERMs the leaders of leaderFirst groups alone
// (`ray start --block` stops its own Ray processes) and waits for those groups (bounded), then SIGTERMs every
// recorded process group, waits, then SIGKILLs what is left. It only ever signals groups the orchestrator
// registered (children it started), never anything found by name.
import { createInterface } from "node:readline";

const graceMs = Number(process.argv[2] ?? 3000);
/** How long a leaderFirst group's leader gets to stop its group before the group is signalled. */
const leaderGraceMs = 20_000;
const groups = new Set();
const leaderFirst = new Set();
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
  if (Number.isInteger(message.add) && message.leaderFirst === true) leaderFirst.add(message.add);
  if (Number.isInteger(message.remove)) {
    groups.delete(message.remove);
    leaderFirst.delete(message.remove);
  }
  if (message.done === true) done = true;
});

lines.on("close", async () => {
  if (done) process.exit(0);
  process.stderr.write(`orphan-watchdog: orchestrator gone; stopping ${groups.size} process group(s)\n`);
  const leaders = [...leaderFirst].filter((pgid) => groups.has(pgid));
  for (const pgid of leaders) {
    try {
      process.kill(pgid, "SIGTERM");
    } catch {}
  }
  const leadersDeadline = Date.now() + leaderGraceMs;
  while (Date.now() < leadersDeadline && leaders.some(groupAlive)) await new Promise((resolve) => setTimeout(resolve, 50));
  signalAll("SIGTERM");
  const deadline = Date.now() + graceMs;
  while (Date.now() < deadline && [...groups].some(groupAlive)) await new Promise((resolve) => setTimeout(resolve, 50));
  signalAll("SIGKILL");
  process.exit(0);
});
