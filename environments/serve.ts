// Runs one built-in environment server as a child process a supervisor can start: `tsx environments/serve.ts --kind
// toolcall --port 0` prints {"url": …} as one JSON line once it listens, and serves until SIGTERM or SIGINT.
import { parseArgs } from "node:util";
import { isOpenclawRlError } from "../contracts/errors.ts";
import { environmentServerOptionsSchema, startEnvironmentServer } from "./environment-server.ts";

const USAGE = "usage: serve.ts --kind toolcall|terminal|swe [--host 127.0.0.1] [--port 0] [--slots 16] [--lease-ttl-s 600] [--sweep-s 60] [--tasks FILE] [--patches FILE]";

async function main(): Promise<void> {
  const { values } = parseArgs({
    options: {
      kind: { type: "string" },
      host: { type: "string" },
      port: { type: "string" },
      slots: { type: "string" },
      "lease-ttl-s": { type: "string" },
      "sweep-s": { type: "string" },
      tasks: { type: "string" },
      patches: { type: "string" },
    },
    strict: true,
  });
  const number = (text: string | undefined) => (text === undefined ? undefined : Number(text));
  const parsed = environmentServerOptionsSchema.safeParse({
    kind: values.kind,
    host: values.host,
    port: number(values.port),
    slots: number(values.slots),
    leaseTtlS: number(values["lease-ttl-s"]),
    sweepS: number(values["sweep-s"]),
    tasks: values.tasks,
    patches: values.patches,
  });
  if (!parsed.success) {
    const issue = parsed.error.issues[0]!;
    const flag = String(issue.path[0] ?? "").replace(/[A-Z]/g, (letter) => `-${letter.toLowerCase()}`);
    throw new Error(`--${flag}: ${issue.message}\n${USAGE}`);
  }
  const server = await startEnvironmentServer(parsed.data);
  process.stdout.write(`${JSON.stringify({ url: server.url, kind: server.kind })}\n`);
  const stop = () => void server.close().then(() => process.exit(0));
  process.once("SIGTERM", stop);
  process.once("SIGINT", stop);
}

main().catch((error: unknown) => {
  process.stderr.write(`${isOpenclawRlError(error) ? error.toLine() : (error as Error).message}\n`);
  process.exit(1);
});
