// The bodies the lease protocol's routes take (contracts/environment.ts holds the answers), checked with zod where
// they enter; a bad body's error names the field.
import { z } from "zod";

const leaseId = z.string().min(1).describe("The lease /allocate gave.");

export const allocateRequestSchema = z.object({
  task_key: z.string().min(1).describe("task_name:task_path of the task the lease is for."),
  request_id: z.string().min(1).describe("Makes the call idempotent: the same id within its TTL gets the same lease."),
});

export const resetRequestSchema = z.object({
  lease_id: leaseId,
  task_meta: z.record(z.string(), z.unknown()).describe("The task's task_meta, as its task file line has it."),
  run_ctx: z.record(z.string(), z.unknown()).default({}),
  task_timeouts: z.record(z.string(), z.unknown()).optional(),
});

export const execToolRequestSchema = z.object({
  lease_id: leaseId,
  tool_call: z.object({
    name: z.string().min(1),
    /** Checked by the tool itself: bad arguments are an observation, not a bad request. */
    arguments: z.unknown().optional(),
  }),
});

export const leaseRequestSchema = z.object({ lease_id: leaseId });

/** The first problem of a failed parse, as `field: message`. */
export function describeIssue(error: z.ZodError): string {
  const issue = error.issues[0]!;
  return `${issue.path.length > 0 ? issue.path.join(".") : "body"}: ${issue.message}`;
}
