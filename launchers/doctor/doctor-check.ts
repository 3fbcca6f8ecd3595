// The result of one doctor check: what was checked, how it went, and what to do about a failure.
// Ignores how checks run and how results are printed.

export type CheckStatus = "ok" | "warn" | "fail" | "skip";

export interface CheckResult {
  /** Short topic: gpus, python, ray, slime, model-args, tokenizer, port, disk. */
  topic: string;
  status: CheckStatus;
  detail: string;
  /** What the user should do; present on warn and fail. */
  fix?: string;
}

export function passed(topic: string, detail: string): CheckResult {
  return { topic, status: "ok", detail };
}

export function failed(topic: string, detail: string, fix: string): CheckResult {
  return { topic, status: "fail", detail, fix };
}

export function warned(topic: string, detail: string, fix: string): CheckResult {
  return { topic, status: "warn", detail, fix };
}

export function skipped(topic: string, detail: string): CheckResult {
  return { topic, status: "skip", detail };
}
