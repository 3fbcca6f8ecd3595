// Typed errors shared by every layer: a stable code, the context (a YAML path, a URL, a child's name),
// an optional cause and a hint that tells the user what to do. Printing them is the CLI's job, not ours.

export type ErrorCode =
  | "RECIPE_INVALID"
  | "RECIPE_NOT_FOUND"
  | "RECIPE_YAML"
  | "GPU_OVERSUBSCRIBED"
  | "TP_MISMATCH"
  | "NODE_MISALIGNED"
  | "PLACEMENT_INVALID"
  | "BATCH_MISALIGNED"
  | "ENGINE_UNSUPPORTED"
  | "PORT_IN_USE"
  | "RAY_RUNNING"
  | "CHILD_FAILED"
  | "ENGINE_ERROR"
  | "ENGINE_UNAVAILABLE"
  | "BAD_REQUEST"
  | "CLIENT_GONE"
  | "UNAUTHORIZED"
  | "TEMPLATE_ERROR"
  | "STORE_CORRUPT"
  | "SAMPLE_DUPLICATE"
  | "BRIDGE_PROTOCOL"
  | "JUDGE_FAILED"
  | "ENVIRONMENT_ERROR"
  | "TIMEOUT"
  | "PATH_UNWRITABLE"
  | "CHECKPOINT_MISSING"
  | "CONVERTER_MISSING"
  | "EVALUATION_REFUSED"
  | "EVALUATION_MISSING"
  | "INTERNAL";

export interface OpenclawRlErrorOptions {
  /** Where the problem is: a dotted YAML path (`cluster.prm_gpus`), a URL, a child's name. */
  path?: string;
  hint?: string;
  cause?: unknown;
  /** True when trying the same thing again later can succeed (an engine restarting, a timeout). */
  retryable?: boolean;
}

export class OpenclawRlError extends Error {
  readonly code: ErrorCode;
  readonly path: string | undefined;
  readonly hint: string | undefined;
  readonly retryable: boolean;

  constructor(code: ErrorCode, message: string, options: OpenclawRlErrorOptions = {}) {
    super(message, options.cause === undefined ? undefined : { cause: options.cause });
    this.name = "OpenclawRlError";
    this.code = code;
    this.path = options.path;
    this.hint = options.hint;
    this.retryable = options.retryable ?? false;
  }

  /** One line for a terminal: `cluster.prm_gpus: 3 GPUs asked, 2 left (hint: ...)`. */
  toLine(): string {
    const where = this.path ? `${this.path}: ` : "";
    const hint = this.hint ? ` (hint: ${this.hint})` : "";
    return `${where}${this.message}${hint}`;
  }
}

/** Several problems found at once (a recipe with three bad keys reports all three). */
export class OpenclawRlErrorList extends Error {
  readonly errors: OpenclawRlError[];

  constructor(errors: OpenclawRlError[]) {
    super(errors.map((error) => error.toLine()).join("\n"));
    this.name = "OpenclawRlErrorList";
    this.errors = errors;
  }
}

export function isOpenclawRlError(value: unknown): value is OpenclawRlError {
  return value instanceof OpenclawRlError;
}

/** The OS's reason of a failed file operation, for a one-line message: `not a directory (ENOTDIR)`. */
export function osReason(error: unknown): string {
  const message = error instanceof Error ? error.message : String(error);
  const match = /^([A-Z][A-Z0-9_]*): ([^,]+)/.exec(message);
  return match ? `${match[2]} (${match[1]})` : message;
}
