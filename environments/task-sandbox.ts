// A task's sandbox, prepared for one episode (its setup script run, its files written): when the preparation fails,
// the sandbox is closed again and the task refused by name. What preparing means is each environment's.
import type { z } from "zod";
import { OpenclawRlError } from "../contracts/errors.ts";
import { Sandbox } from "./sandbox.ts";
import type { SandboxLimitsInput } from "./sandbox-limits.ts";
import { describeRun, type SandboxRun } from "./sandbox-run.ts";
import type { taskKeySchema } from "./task-catalogue.ts";

export interface Preparation {
  /** Runs in the fresh sandbox; a run that exits non-zero refuses the task. */
  run(sandbox: Sandbox): Promise<SandboxRun>;
  /** What it does, for the refusal: "the setup" → "the setup of <task> failed: …". */
  what: string;
  hint: string;
}

export async function openTaskSandbox(task: z.infer<typeof taskKeySchema>, limits: SandboxLimitsInput, preparation: Preparation): Promise<Sandbox> {
  const sandbox = await Sandbox.open(limits);
  const prepared = await preparation.run(sandbox);
  if (prepared.exitCode === 0) return sandbox;
  await sandbox.close();
  const key = `${task.task_name}:${task.task_path}`;
  throw new OpenclawRlError("BAD_REQUEST", `${preparation.what} of ${key} failed: ${describeRun(prepared).slice(-500)}`, { path: key, hint: preparation.hint });
}
