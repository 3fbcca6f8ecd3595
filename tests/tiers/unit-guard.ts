// The unit tier's setup file: a child process or listening socket started while a unit file runs fails that file,
// naming the rule (tests/tiers/test-tiers.ts). Ignores worker threads and outgoing connections.
import childProcess, { ChildProcess } from "node:child_process";
import { syncBuiltinESMExports } from "node:module";
import { Server } from "node:net";
import { afterAll } from "vitest";
import { started } from "./unit-guard-log.ts";

function refusal(what: string): Error {
  return new Error(
    `${what} in the unit tier: a test file that starts a process or a server belongs to the loopback tier, and the import ` +
      "rule in tests/tiers/test-tiers.ts did not see it; add the file to EXTRA_LOOPBACK there, saying how it starts one.",
  );
}

function refuse(what: string): never {
  started.push(what);
  throw refusal(what);
}

// every spawn, exec, execFile and fork (and so execa and Playwright) goes through ChildProcess.prototype.spawn, which
// Node's types leave out
(ChildProcess.prototype as unknown as { spawn: (options: { file?: string }) => never }).spawn = (options) =>
  refuse(`child process ${options?.file ?? "?"}`);
for (const name of ["spawnSync", "execSync", "execFileSync"] as const) {
  (childProcess as unknown as Record<string, unknown>)[name] = (file: string): never => refuse(`child process ${file} (${name})`);
}
syncBuiltinESMExports();

// http, https, ws and net servers all listen through net.Server
Server.prototype.listen = function guardedListen(): never {
  return refuse("a listening socket");
};

// a start whose error the code under test swallowed still fails the file
afterAll(() => {
  if (started.length > 0) throw refusal(`started ${started.join(", ")}`);
});
