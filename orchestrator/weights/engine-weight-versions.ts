// Reads the weight version the policy engines serve: behind a router, the engines its GET /workers lists, each asked
// at its own GET /model_info; a base URL with no /workers route (404) is an engine itself. Ignores the router's own
// info routes: they ask only its first worker (tests/fixtures/sglang/weight-version-routes.json).
import { z } from "zod";
import { SglangClient } from "../../lib/sglang/sglang-client.ts";
import { parseWeightVersion } from "./weight-version-tracker.ts";

/** GET /workers of sgl-model-gateway (its body: tests/fixtures/sglang/weight-version-routes.json): only the urls are read. */
const workerListSchema = z.object({ workers: z.array(z.object({ url: z.string().min(1) }).passthrough()) }).passthrough();

export interface EngineVersions {
  /** The oldest version any answering engine serves (every engine has at least it); null when none answered. */
  version: string | null;
  engines: Array<{ url: string; version: string | null }>;
}

export interface EngineVersionOptions {
  timeoutMs?: number;
  apiKey?: string;
}

/** The engines behind `baseUrl`: its workers when it is a router, else [baseUrl]; null when it does not answer. */
export async function engineUrls(baseUrl: string, options: EngineVersionOptions = {}): Promise<string[] | null> {
  const base = baseUrl.replace(/\/+$/, "");
  try {
    const response = await fetch(`${base}/workers`, {
      signal: AbortSignal.timeout(options.timeoutMs ?? 5000),
      headers: options.apiKey ? { authorization: `Bearer ${options.apiKey}` } : {},
    });
    const text = await response.text();
    if (response.status === 404) return [base]; // an SGLang engine has no /workers: the URL is the engine
    if (!response.ok) return null;
    const parsed = workerListSchema.safeParse(JSON.parse(text));
    return parsed.success ? parsed.data.workers.map((worker) => worker.url.replace(/\/+$/, "")) : null;
  } catch {
    return null;
  }
}

/** Each engine's version (GET /model_info) and the oldest of them. */
export async function readEngineVersions(baseUrl: string, options: EngineVersionOptions = {}): Promise<EngineVersions> {
  const urls = await engineUrls(baseUrl, options);
  if (urls === null) return { version: null, engines: [] };
  const engines = await Promise.all(
    urls.map(async (url) => ({ url, version: await new SglangClient({ baseUrl: url, apiKey: options.apiKey }).weightVersion(options.timeoutMs) })),
  );
  return { version: oldestServed(engines.map((engine) => engine.version)), engines };
}

/** The lowest slime version among those given (non-slime versions and nulls are skipped). */
function oldestServed(versions: ReadonlyArray<string | null>): string | null {
  let oldest: { text: string; value: number } | null = null;
  for (const text of versions) {
    const value = text === null ? null : parseWeightVersion(text);
    if (text !== null && value !== null && (oldest === null || value < oldest.value)) oldest = { text, value };
  }
  return oldest?.text ?? null;
}
