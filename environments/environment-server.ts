// What the orchestrator (or serve.ts) calls to run a built-in environment: startEnvironmentServer({kind, host, port,
// slots, leaseTtlS, …}) opens the environment of that kind on its task file and serves it with the lease server.
import { z } from "zod";
import type { Environment } from "./environment.ts";
import { leaseServerOptionsSchema, startLeaseServer, type RunningLeaseServer } from "./lease-server.ts";
import { sandboxLimitsSchema, type SandboxLimitsInput } from "./sandbox-limits.ts";
import { TerminalEnvironment } from "./terminal/terminal-environment.ts";
import { SweEnvironment } from "./swe/swe-environment.ts";
import { ToolcallEnvironment } from "./toolcall/toolcall-environment.ts";

export const environmentKinds = ["toolcall", "terminal", "swe"] as const;

export const environmentServerOptionsSchema = leaseServerOptionsSchema.extend({
  kind: z.enum(environmentKinds).describe("Which built-in environment: math problems with python (toolcall), shell tasks (terminal) or tiny repositories with a failing test (swe)."),
  tasks: z.string().min(1).optional().describe("A JSONL task file of that kind; the shipped one when left out."),
  sandbox: sandboxLimitsSchema.partial().default({}).describe("Limits of the sandbox every tool command runs in."),
  patches: z.string().min(1).optional().describe("swe only: a JSONL file each evaluated episode's final patch is appended to."),
});

export type EnvironmentServerOptions = z.input<typeof environmentServerOptionsSchema>;

export interface RunningEnvironmentServer extends RunningLeaseServer {
  kind: (typeof environmentKinds)[number];
}

export async function startEnvironmentServer(input: EnvironmentServerOptions): Promise<RunningEnvironmentServer> {
  const { kind, tasks, sandbox, patches, ...server } = environmentServerOptionsSchema.parse(input);
  const environment = await openEnvironment(kind, tasks, sandbox, patches);
  return { kind, ...(await startLeaseServer(environment, server)) };
}

function openEnvironment(kind: RunningEnvironmentServer["kind"], tasks: string | undefined, limits: SandboxLimitsInput, patches: string | undefined): Promise<Environment<unknown>> {
  const opened = kind === "toolcall" ? ToolcallEnvironment.open(tasks, limits) : kind === "terminal" ? TerminalEnvironment.open(tasks, limits) : SweEnvironment.open(tasks, limits, patches);
  return opened as Promise<Environment<unknown>>;
}
