// The proxy's bind rule: any non-loopback address needs an API key. One rule for the two places that check it:
// start's checks (launchers/checks/bind-check.ts) and the proxy itself when it binds. Ignores how keys are checked.
import { OpenclawRlError } from "../contracts/errors.ts";

export function isLoopback(host: string): boolean {
  const bare = host.replace(/^\[|\]$/g, "");
  return bare === "localhost" || bare === "::1" || /^127\.\d{1,3}\.\d{1,3}\.\d{1,3}$/.test(bare);
}

/** null when the proxy may serve on `host` with this key (unset or empty = none), else the problem naming proxy.host. */
export function bindProblem(host: string, apiKey: string | undefined, keyEnv: string): OpenclawRlError | null {
  if (isLoopback(host) || apiKey) return null;
  return new OpenclawRlError("UNAUTHORIZED", `refusing to serve the proxy on ${host} without an API key`, {
    path: "proxy.host",
    hint: `set the ${keyEnv} environment variable (clients send it as "Authorization: Bearer <key>"), or bind 127.0.0.1`,
  });
}

export function assertBindAllowed(host: string, apiKey: string | undefined, keyEnv: string): void {
  const problem = bindProblem(host, apiKey, keyEnv);
  if (problem) throw problem;
}
