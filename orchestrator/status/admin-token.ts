// The admin API's bearer token: random per run, stored 0600 in <run>/admin-token for `openclaw-rl status`.
import { randomBytes } from "node:crypto";
import { chmodSync, readFileSync, writeFileSync } from "node:fs";
import path from "node:path";
import { OpenclawRlError } from "../../contracts/errors.ts";
import { cliCommand } from "../../lib/cli-command.ts";

export const ADMIN_TOKEN_FILE = "admin-token";
/** Where the running orchestrator says its admin URL is (no secret in it). */
export const ADMIN_ENDPOINT_FILE = "admin.json";

export function createAdminToken(runDir: string): string {
  const token = randomBytes(24).toString("base64url");
  const file = path.join(runDir, ADMIN_TOKEN_FILE);
  writeFileSync(file, token + "\n", { mode: 0o600 });
  chmodSync(file, 0o600); // an older file keeps its mode on overwrite
  return token;
}

export function readAdminToken(runDir: string): string {
  const file = path.join(runDir, ADMIN_TOKEN_FILE);
  try {
    return readFileSync(file, "utf8").trim();
  } catch (cause) {
    throw new OpenclawRlError("RECIPE_NOT_FOUND", `no admin token at ${file}: is \`${cliCommand("start")}\` running with this run folder?`, {
      path: file,
      cause,
      hint: "pass --run <records.dir of the running start>, or --url with --token",
    });
  }
}
