// Runs stock OpenClaw's gateway (installed by tests/e2e/prepare.sh) pointed at our proxy, and talks to it as
// a chat client would: one conversation per `x-openclaw-session-key`. Knows nothing of openclaw-rl's internals.
import { execa, type ResultPromise } from "execa";
import { createOpenclawHome, OPENCLAW_BIN, type OpenclawHome } from "./openclaw-client.ts";

export interface GatewayOptions {
  proxyUrl: string; // http://127.0.0.1:PORT/v1
  apiKey: string;
  model: string;
  utilityModel: string;
  port: number;
  token: string;
}

export interface Gateway {
  home: OpenclawHome;
  process: ResultPromise;
  chat(sessionKey: string, message: string, timeoutMs?: number): Promise<{ status: number; text: string | null; body: string }>;
  stop(): Promise<string>;
}

/** The provider entry openclaw-rl's `openclaw-config` prints, plus the gateway's own settings. */
export function gatewayConfig(options: GatewayOptions): unknown {
  const model = (id: string, maxTokens: number) => ({
    id,
    name: id,
    reasoning: true,
    input: ["text"],
    cost: { input: 0, output: 0, cacheRead: 0, cacheWrite: 0 },
    contextWindow: 32768,
    maxTokens,
    compat: { sendSessionAffinityHeaders: true },
  });
  return {
    update: { checkOnStart: false },
    gateway: { mode: "local", auth: { mode: "token", token: options.token }, http: { endpoints: { chatCompletions: { enabled: true } } } },
    models: {
      mode: "replace",
      catalogRefresh: { enabled: false },
      providers: { rl: { baseUrl: options.proxyUrl, apiKey: options.apiKey, api: "openai-completions", models: [model(options.model, 8192), model(options.utilityModel, 1024)] } },
    },
    agents: { defaults: { model: { primary: `rl/${options.model}` }, utilityModel: `rl/${options.utilityModel}` } },
  };
}

export async function startGateway(options: GatewayOptions, readyTimeoutMs = 90_000): Promise<Gateway> {
  const home = createOpenclawHome(gatewayConfig(options));
  const child = execa(OPENCLAW_BIN, ["gateway", "run", "--port", String(options.port)], {
    env: home.env,
    extendEnv: false,
    reject: false,
    all: true,
    cwd: home.home,
    forceKillAfterDelay: 5000,
  });
  const base = `http://127.0.0.1:${options.port}`;
  const headers = { authorization: `Bearer ${options.token}`, "content-type": "application/json" };
  const deadline = Date.now() + readyTimeoutMs;
  for (;;) {
    const ok = await fetch(`${base}/v1/models`, { headers, signal: AbortSignal.timeout(2000) })
      .then((response) => response.ok)
      .catch(() => false);
    if (ok) break;
    if (child.exitCode !== null && child.exitCode !== undefined) throw new Error(`openclaw gateway exited ${child.exitCode}`);
    if (Date.now() > deadline) throw new Error("openclaw gateway did not become ready");
    await new Promise((resolve) => setTimeout(resolve, 500));
  }
  return {
    home,
    process: child,
    async chat(sessionKey, message, timeoutMs = 120_000) {
      const response = await fetch(`${base}/v1/chat/completions`, {
        method: "POST",
        headers: { ...headers, "x-openclaw-session-key": sessionKey },
        body: JSON.stringify({ model: "openclaw", messages: [{ role: "user", content: message }] }),
        signal: AbortSignal.timeout(timeoutMs),
      });
      const body = await response.text();
      let text: string | null = null;
      try {
        text = (JSON.parse(body) as { choices?: { message?: { content?: string } }[] }).choices?.[0]?.message?.content ?? null;
      } catch {
        text = null;
      }
      return { status: response.status, text, body };
    },
    async stop() {
      child.kill("SIGTERM");
      const result = await child;
      return String(result.all ?? "").slice(-3000);
    },
  };
}
