// The result of one pre-start check, as doctor prints it and start refuses on it: what was checked, how it went, the
// fix, and (on a failure) the recipe key and error code start's refusal carries. Ignores how checks run.
import { OpenclawRlError, type ErrorCode } from "../../contracts/errors.ts";

export type CheckStatus = "pass" | "warn" | "fail";

export interface CheckResult {
  /** Short topic: proxy, run, plan, ray, gpus, python, slime, sglang, stream, tokenizer, model-family, port, records, disk… */
  id: string;
  status: CheckStatus;
  /** What was found, one sentence. */
  what: string;
  /** What the user should do; present on warn and fail. */
  fix?: string;
  /** The recipe key to change, where one is to blame. */
  path?: string;
  /** The code of start's refusal (on fail). */
  code?: ErrorCode;
}

export function passed(id: string, what: string): CheckResult {
  return { id, status: "pass", what };
}

export function warned(id: string, what: string, fix: string, path?: string): CheckResult {
  return { id, status: "warn", what, fix, ...(path ? { path } : {}) };
}

export function failed(id: string, what: string, fix: string, refusal: { code?: ErrorCode; path?: string } = {}): CheckResult {
  return { id, status: "fail", what, fix, ...(refusal.path ? { path: refusal.path } : {}), code: refusal.code ?? "ENGINE_UNSUPPORTED" };
}

/** A typed problem (the bind rule's, say) as a failed check, its message, key, code and hint kept. */
export function failedWith(id: string, problem: OpenclawRlError, fix: string): CheckResult {
  return failed(id, problem.message, problem.hint ?? fix, { code: problem.code, ...(problem.path ? { path: problem.path } : {}) });
}

/** start's refusal for a failed check: `path: what (hint: fix)` on the terminal. */
export function toRefusal(result: CheckResult): OpenclawRlError {
  return new OpenclawRlError(result.code ?? "ENGINE_UNSUPPORTED", result.what, { ...(result.path ? { path: result.path } : {}), ...(result.fix ? { hint: result.fix } : {}) });
}

/** A warning start says and goes on: `what (fix)`. */
export function warningLine(result: CheckResult): string {
  return result.fix ? `${result.what} (${result.fix})` : result.what;
}

/** doctor's line: the key to change first on a warning or failure, unless the sentence already names it. */
export function reportLine(result: CheckResult): string {
  if (result.status === "pass" || !result.path || result.what.includes(result.path)) return result.what;
  return `${result.path}: ${result.what}`;
}
