// Where the running start's admin API is, as the CLI finds it: its URL (--url, or the run folder's admin.json) and its
// bearer token (--token, $OPENCLAW_RL_ADMIN_TOKEN, or the run folder's admin-token), those flags, and asking it one route. What is
// asked of it is each command's.
import { readFileSync } from "node:fs";
import type { Command } from "commander";
import path from "node:path";
import { z } from "zod";
import { OpenclawRlError } from "../contracts/errors.ts";
import { cliCommand } from "../lib/cli-command.ts";
import { ADMIN_ENDPOINT_FILE, readAdminToken } from "../orchestrator/status/admin-token.ts";
import { recipeFromOptions, type CommonOptions } from "./common-options.ts";

export interface AdminTarget {
  url: string;
  token: string;
  /** The run folder it was found in (null: --url given with a token). */
  runDir: string | null;
}

export interface AdminTargetOptions extends CommonOptions {
  run?: string;
  url?: string;
  token?: string;
}

/** The flags that find the running start's admin API (resolveTarget reads them). */
export function withAdminTargetOptions(command: Command): Command {
  return command
    .option("--run <dir>", "run folder of the running start (default: records.dir of the recipe)")
    .option("--url <url>", "admin URL (default: read from <run>/admin.json)")
    .option("--token <token>", "admin token (default: <run>/admin-token or $OPENCLAW_RL_ADMIN_TOKEN)");
}

/** The running start's admin URL and token: --url/--token, $OPENCLAW_RL_ADMIN_TOKEN, or the run folder's admin.json and admin-token. */
export function resolveTarget(options: AdminTargetOptions): AdminTarget {
  const environmentToken = process.env.OPENCLAW_RL_ADMIN_TOKEN;
  if (options.url && (options.token || environmentToken)) return { url: options.url.replace(/\/+$/, ""), token: (options.token ?? environmentToken)!, runDir: null };
  const runDir = path.resolve(options.run ?? recipeFromOptions(options).recipe.records.dir);
  const token = options.token ?? environmentToken ?? readAdminToken(runDir);
  if (options.url) return { url: options.url.replace(/\/+$/, ""), token, runDir };
  return { url: recordedAdminUrl(runDir, `start one with \`${cliCommand("start")}\`, or pass --run <records.dir> / --url`), token, runDir };
}

/**
 * The run folder's own record only: admin.json (refused with `hint` when none), then admin-token; no flag or
 * environment variable stands in for either (`eval`, which evaluates the start that writes into this folder).
 */
export function runFolderTarget(runDir: string, hint: string): AdminTarget {
  const url = recordedAdminUrl(runDir, hint);
  return { url, token: readAdminToken(runDir), runDir };
}

/** The admin URL the running start recorded in its run folder; an unreadable admin.json counts as none. */
function recordedAdminUrl(runDir: string, hint: string): string {
  const endpoint = z.object({ url: z.string().url() }).safeParse(readJsonFile(path.join(runDir, ADMIN_ENDPOINT_FILE)));
  if (!endpoint.success) throw new OpenclawRlError("RECIPE_NOT_FOUND", `no running openclaw-rl recorded in ${runDir} (${ADMIN_ENDPOINT_FILE} missing)`, { path: runDir, hint });
  return endpoint.data.url;
}

/**
 * Asks the running start's admin API one route with its token, the answer parsed by `answer`: refused with a typed
 * error when nothing answers, the token is refused, or the answer is not what `answer` says (`hint` then says why).
 */
export async function askAdmin<T>(target: AdminTarget, route: string, answer: z.ZodType<T>, request: { method?: "GET" | "POST"; hint?: string } = {}): Promise<T> {
  const url = `${target.url}${route}`;
  const response = await fetch(url, { method: request.method ?? "GET", headers: { authorization: `Bearer ${target.token}` }, signal: AbortSignal.timeout(5000) }).catch((cause: unknown) => {
    throw new OpenclawRlError("ENGINE_UNAVAILABLE", `no openclaw-rl answers at ${target.url}`, { path: target.url, cause, hint: `is \`${cliCommand("start")}\` still running?`, retryable: true });
  });
  if (response.status === 401) throw new OpenclawRlError("UNAUTHORIZED", `the admin token was refused by ${target.url}`, { hint: "the token changes with every start: use --run <records.dir>" });
  const parsed = answer.safeParse(await response.json().catch(() => null));
  if (!response.ok || !parsed.success) throw new OpenclawRlError("ENGINE_ERROR", `unexpected answer from ${url} (${response.status})`, { path: target.url, hint: request.hint });
  return parsed.data;
}

function readJsonFile(file: string): unknown {
  try {
    return JSON.parse(readFileSync(file, "utf8"));
  } catch {
    return null;
  }
}
