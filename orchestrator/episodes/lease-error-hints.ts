// What a lease server's failed answer means to the user, read from the reference's own words (its terminal router and
// pool; tests/fixtures/terminal-rl/lease-protocol-answers.json): the hint a typed ENVIRONMENT_ERROR carries. Knows nothing of HTTP or of retries.
import { OpenclawRlError } from "../../contracts/errors.ts";

const HINTS: [RegExp, string][] = [
  [/Unknown run_lease_id: /, "the lease is gone: closed, reaped after the server's idle TTL (heartbeats keep a lease alive), or never given by this server; an episode allocates a new one"],
  [/env is not initialized; call reset first/, "the lease has no episode: /exec_tool and /evaluate need a /reset that succeeded first"],
  [/Invalid lease_id format: /, 'send lease_id exactly as /allocate gave it ("<worker index>:<lease>")'],
  [/(lease_id|task_key|tool_call\.name) is required|task_meta dict is required|tool_call dict is required|tool_call\.arguments must be a dict/, "the request lacks a field of the lease protocol or has it in the wrong form (docs/episodes.md)"],
];

/** The hint for the server's words in `message`, or undefined when they are not the protocol's. */
export function leaseErrorHint(message: string): string | undefined {
  return HINTS.find(([words]) => words.test(message))?.[1];
}

/** `error` with the hint its message calls for, when it is an OpenclawRlError without one; anything else as it is. */
export function withLeaseHint(error: unknown): unknown {
  if (!(error instanceof OpenclawRlError) || error.hint !== undefined) return error;
  const hint = leaseErrorHint(error.message);
  return hint === undefined ? error : new OpenclawRlError(error.code, error.message, { path: error.path, cause: error.cause, retryable: error.retryable, hint });
}
