// The proxy's bind rule (lib/bind-rule.ts) before start: a non-loopback proxy.host needs the API key in the
// environment. Ignores how keys are checked once the proxy serves.
import type { Recipe } from "../../contracts/recipe.ts";
import { bindProblem, isLoopback } from "../../lib/bind-rule.ts";
import { failedWith, passed, type CheckResult } from "./check-result.ts";

export function checkBind(recipe: Recipe, environment: Record<string, string | undefined>): CheckResult {
  const { host, api_key_env: keyEnv } = recipe.proxy;
  const problem = bindProblem(host, environment[keyEnv] || undefined, keyEnv);
  if (problem) return failedWith("proxy", problem, `set ${keyEnv}`);
  return passed("proxy", isLoopback(host) ? `proxy.host ${host} is loopback (no key needed)` : `proxy.host ${host} with $${keyEnv} set`);
}
