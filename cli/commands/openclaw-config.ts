// `openclaw-rl openclaw-config [--host H] [--write FILE] [--with-key]`: the OpenClaw provider entry that points
// stock OpenClaw at this proxy; printed, or merged into an openclaw.json (read as JSON5, as OpenClaw reads it) without
// losing its other content, the old file kept beside it and each changed key printed.
import path from "node:path";
import type { Command } from "commander";
import { OpenclawRlError } from "../../contracts/errors.ts";
import type { Recipe } from "../../contracts/recipe.ts";
import { recipeFromOptions, withRecipeOptions, type CommonOptions } from "../common-options.ts";
import { flattenJson, formatRewrite } from "../config-changes.ts";
import { parseJsonConfig, rewriteConfigFile, type ConfigRewrite } from "../config-file.ts";

export const PROVIDER_ID = "rl";
/** Names OpenClaw's `${VAR}` substitution in config values matches. */
const OPENCLAW_ENV_NAME = /^[A-Z_][A-Z0-9_]*$/;

interface OpenclawConfigOptions extends CommonOptions {
  host?: string;
  write?: string;
  withKey?: boolean;
}

type JsonObject = Record<string, unknown>;

export function registerOpenclawConfigCommand(program: Command): void {
  withRecipeOptions(program.command("openclaw-config"))
    .description("Print (or merge into openclaw.json) the OpenClaw provider entry for this proxy")
    .option("--host <host>", "address OpenClaw uses to reach the proxy (default: proxy.host, loopback for 0.0.0.0)")
    .option("--write <file>", "merge the entry into this openclaw.json (created 0600 if missing)")
    .option("--with-key", "put the real key from $<proxy.api_key_env> in the output instead of a ${VAR} placeholder")
    .action(async (options: OpenclawConfigOptions) => {
      const { recipe } = recipeFromOptions(options);
      const apiKey = resolveApiKey(recipe, options.withKey === true, process.env);
      if (!options.withKey && !OPENCLAW_ENV_NAME.test(recipe.proxy.api_key_env)) {
        process.stderr.write(`warning: OpenClaw substitutes only upper-case \${VAR} names; ${recipe.proxy.api_key_env} will stay unresolved (rename it or use --with-key)\n`);
      }
      const entry = openclawEntry(recipe, { host: options.host, apiKey });
      if (!options.write) {
        process.stdout.write(`${JSON.stringify(entry, null, 2)}\n`);
        return;
      }
      const file = path.resolve(options.write);
      const rewrite = await mergeIntoFile(file, entry);
      process.stdout.write(formatRewrite(rewrite, (text) => flattenJson(parseJsonConfig(file, text, "", "json5")), plainJsonNote(rewrite.before)));
    });
}

/** `${VAR}` unless the user asks for the key itself; asking for an unset key is an error, not an empty key. */
export function resolveApiKey(recipe: Recipe, withKey: boolean, environment: Record<string, string | undefined>): string {
  const variable = recipe.proxy.api_key_env;
  if (!withKey) return `\${${variable}}`;
  const value = environment[variable];
  if (!value) {
    throw new OpenclawRlError("BAD_REQUEST", `--with-key: $${variable} is not set`, { path: "proxy.api_key_env", hint: `export ${variable}=... or leave out --with-key to write a \${${variable}} placeholder` });
  }
  return value;
}

export function providerBaseUrl(recipe: Recipe, host: string | undefined): string {
  const bind = recipe.proxy.host;
  const chosen = host ?? (bind === "0.0.0.0" || bind === "::" ? "127.0.0.1" : bind);
  const formatted = chosen.includes(":") && !chosen.startsWith("[") ? `[${chosen}]` : chosen;
  return `http://${formatted}:${recipe.proxy.port}/v1`;
}

export function openclawEntry(recipe: Recipe, options: { host?: string; apiKey: string }): JsonObject {
  const model = recipe.model;
  return {
    models: {
      mode: "replace",
      catalogRefresh: { enabled: false },
      providers: {
        [PROVIDER_ID]: {
          baseUrl: providerBaseUrl(recipe, options.host),
          apiKey: options.apiKey,
          api: "openai-completions",
          models: [
            {
              id: model.served_name,
              name: model.served_name,
              reasoning: model.reasoning_parser !== "none",
              input: ["text"],
              cost: { input: 0, output: 0, cacheRead: 0, cacheWrite: 0 },
              contextWindow: model.context_length,
              maxTokens: model.max_response_tokens,
              compat: { sendSessionAffinityHeaders: true },
            },
          ],
        },
      },
    },
    agents: { defaults: { model: { primary: `${PROVIDER_ID}/${model.served_name}` } } },
  };
}

/** Our keys win; every other key of the existing file (other providers, channels, gateway...) stays. */
export function mergeOpenclawConfig(existing: JsonObject, entry: JsonObject): JsonObject {
  const entryModels = entry.models as JsonObject;
  const models = asObject(existing.models);
  const agents = asObject(existing.agents);
  const defaults = asObject(agents.defaults);
  const entryDefaults = asObject(asObject(entry.agents).defaults);
  return {
    ...existing,
    models: {
      ...models,
      mode: entryModels.mode,
      catalogRefresh: { ...asObject(models.catalogRefresh), ...asObject(entryModels.catalogRefresh) },
      providers: { ...asObject(models.providers), ...asObject(entryModels.providers) },
    },
    agents: { ...agents, defaults: { ...defaults, model: { ...asObject(defaults.model), ...asObject(entryDefaults.model) } } },
  };
}

/** OpenClaw reads openclaw.json as JSON5; it is written back as plain JSON (itself JSON5), the old file kept beside it. */
async function mergeIntoFile(file: string, entry: JsonObject): Promise<ConfigRewrite> {
  const hint = "fix the file where it says (OpenClaw reads it as JSON5), or print the entry without --write and merge it by hand";
  return rewriteConfigFile(file, (text) => `${JSON.stringify(mergeOpenclawConfig(parseJsonConfig(file, text, hint, "json5"), entry), null, 2)}\n`);
}

/** Said when the old file was JSON5 beyond JSON (comments, trailing commas…): the new one is plain JSON. */
function plainJsonNote(before: string | null): string | undefined {
  if (before === null || before.trim() === "") return undefined;
  try {
    JSON.parse(before);
    return undefined;
  } catch {
    return "it is written as plain JSON now: its comments and JSON5 formatting are in the backup only";
  }
}

function asObject(value: unknown): JsonObject {
  return typeof value === "object" && value !== null && !Array.isArray(value) ? (value as JsonObject) : {};
}
