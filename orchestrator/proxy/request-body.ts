// Reads a request body with a size limit (413 past it) and parses the chat request with zod (400 naming the
// problem). Ignores sessions and generation.
import type { IncomingMessage } from "node:http";
import type { z } from "zod";
import { chatRequestSchema, type ChatRequest } from "../../contracts/chat.ts";
import { OpenclawRlError } from "../../contracts/errors.ts";
import { openAiError, type OpenAiError } from "./openai-errors.ts";

/**
 * The whole body, or a 413 past maxBytes. Event-driven (an async iterator costs a promise per network chunk), and
 * copied once into a buffer of the declared size when there is a Content-Length.
 */
export function readBody(request: IncomingMessage, maxBytes: number): Promise<Buffer | OpenAiError> {
  const declared = Number(request.headers["content-length"]);
  const tooLarge = (): OpenAiError => openAiError(413, `request body larger than proxy.max_body_bytes (${maxBytes} bytes)`, { code: "body_too_large" });
  if (Number.isFinite(declared) && declared > maxBytes) {
    request.resume();
    return Promise.resolve(tooLarge());
  }
  return new Promise((resolve, reject) => {
    const sized = Number.isInteger(declared) && declared > 0 ? Buffer.allocUnsafe(declared) : null;
    const chunks: Buffer[] = [];
    let size = 0;
    const onData = (chunk: Buffer): void => {
      if (size + chunk.length > maxBytes) {
        request.off("data", onData).off("end", onEnd);
        request.resume();
        return resolve(tooLarge());
      }
      if (sized && size + chunk.length <= sized.length) chunk.copy(sized, size);
      else chunks.push(chunk);
      size += chunk.length;
    };
    const onEnd = (): void => {
      if (sized && size === sized.length && chunks.length === 0) return resolve(sized);
      // a body shorter or longer than declared (Node's parser normally refuses those): join what came
      resolve(Buffer.concat([...(sized ? [sized.subarray(0, Math.min(size, sized.length))] : []), ...chunks]));
    };
    const onClose = (): void => {
      if (!request.complete) reject(new OpenclawRlError("BAD_REQUEST", "the client closed the connection before the body was complete"));
    };
    request.on("data", onData).once("end", onEnd).once("error", reject).once("close", onClose);
  });
}

export function parseJson(body: Buffer): unknown | OpenAiError {
  try {
    return JSON.parse(body.toString("utf8")) as unknown;
  } catch (error) {
    return openAiError(400, `request body is not valid JSON: ${(error as Error).message}`, { code: "invalid_json" });
  }
}

/** A request body parsed with its schema, or a 400 naming the field that does not fit (any of the proxy's APIs). */
export function parseBody<Schema extends z.ZodType>(schema: Schema, value: unknown): z.infer<Schema> | OpenAiError {
  const parsed = schema.safeParse(value);
  if (parsed.success) return parsed.data;
  const { path, message } = mostSpecific(parsed.error.issues[0]!);
  const param = path.map(String).join(".");
  return openAiError(400, `${param || "body"}: ${message}`, { param: param || null, code: "invalid_request" });
}

export function parseChatRequest(value: unknown): ChatRequest | OpenAiError {
  const body = parseBody(chatRequestSchema, value);
  if (isOpenAiError(body)) return body;
  const invalid = (param: string, message: string, code = "invalid_request"): OpenAiError => openAiError(400, `${param}: ${message}`, { param, code });
  if (body.n !== undefined && body.n !== null && body.n !== 1) return invalid("n", `only n = 1 is supported (got ${body.n})`, "unsupported_n");
  if ((body.top_logprobs ?? 0) > 0 && body.logprobs !== true) return invalid("top_logprobs", "set logprobs to true to use top_logprobs");
  const choice = body.tool_choice;
  const toolNames = (body.tools ?? []).map((tool) => tool.function.name);
  if ((choice === "required" || typeof choice === "object") && choice !== null && toolNames.length === 0) {
    return invalid("tool_choice", `${typeof choice === "object" ? "a named function" : '"required"'} needs tools, and the request has none`);
  }
  if (typeof choice === "object" && choice !== null && !toolNames.includes(choice.function.name)) {
    return invalid("tool_choice.function.name", `no tool named ${JSON.stringify(choice.function.name)} in tools (${toolNames.map((name) => JSON.stringify(name)).join(", ")})`);
  }
  if (body.response_format?.type === "json_schema" && !body.response_format.json_schema) {
    return invalid("response_format.json_schema", 'type "json_schema" needs a json_schema object with a name');
  }
  const maxTokens = body.max_completion_tokens ?? body.max_tokens;
  if (body.min_tokens && maxTokens && body.min_tokens > maxTokens) return invalid("min_tokens", `${body.min_tokens} is more than the ${maxTokens} tokens asked for at most`);
  return body;
}

/**
 * The issue to report: for a value that matches none of a union's shapes, the deepest issue of the shape it came
 * closest to (`messages.0.content.1.text: expected string`) rather than zod's bare "Invalid input"; when no shape
 * got past the value's own type, the types the union takes.
 */
function mostSpecific(issue: z.core.$ZodIssue): { path: PropertyKey[]; message: string } {
  if (issue.code !== "invalid_union" || issue.errors.length === 0 || issue.message !== "Invalid input") return { path: issue.path, message: issue.message };
  const branches = issue.errors.map((branch) => branch[0]).filter((branchIssue): branchIssue is z.core.$ZodIssue => branchIssue !== undefined);
  const deepest = branches.reduce<z.core.$ZodIssue | null>((best, candidate) => (candidate.path.length > (best?.path.length ?? 0) ? candidate : best), null);
  if (deepest) {
    const inner = mostSpecific(deepest);
    return { path: [...issue.path, ...inner.path], message: inner.message };
  }
  const expected = [...new Set(branches.map((branch) => (branch.code === "invalid_type" ? branch.expected : null)).filter((type) => type !== null))];
  return { path: issue.path, message: expected.length === branches.length ? `expected ${expected.join(" or ")}` : issue.message };
}

export function isOpenAiError(value: unknown): value is OpenAiError {
  return typeof value === "object" && value !== null && "status" in value && "type" in value && "message" in value && !Buffer.isBuffer(value);
}
