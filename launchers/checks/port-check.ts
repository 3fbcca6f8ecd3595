// The ports a recipe's own processes listen on (Ray's aside: ray-running-check.ts), one result per port: one port
// given to two roles, or one taken or not allowed, fails naming the recipe key; a port held by the running start of
// this records folder is said to be that run's (its own refusal is running-start-check.ts).
import type { Recipe } from "../../contracts/recipe.ts";
import { checkPort, recipePorts } from "../recipe-ports.ts";
import { failed, passed, type CheckResult } from "./check-result.ts";
import type { RunningStart } from "./running-start-check.ts";

export async function checkPorts(recipe: Recipe, running: RunningStart | null = null): Promise<CheckResult[]> {
  const results: CheckResult[] = [];
  const seen = new Map<number, string>();
  for (const use of recipePorts(recipe).filter((use) => !use.ray)) {
    const clash = seen.get(use.port);
    if (clash) {
      results.push(failed("port", `port ${use.port} is given to both ${clash} and ${use.what}`, "give each a different port", { code: "PORT_IN_USE", path: use.key }));
      continue;
    }
    seen.set(use.port, use.what);
    const check = await checkPort(use.port, use.host);
    if (check.free) results.push(passed("port", `${use.port} (${use.key}) is free`));
    else if (running?.ports.includes(use.port) && check.code === "EADDRINUSE") results.push(passed("port", `${use.port} (${use.key}) is held by the running start (pid ${running.pid}) of this records folder`));
    else results.push(portTaken(use.port, use.what, use.key, check.code));
  }
  return results;
}

function portTaken(port: number, what: string, key: string, code: string): CheckResult {
  const message = code === "EACCES" ? `port ${port} for ${what} needs privileges` : code === "EADDRINUSE" ? `port ${port} for ${what} is already in use` : `cannot listen on port ${port} for ${what}: ${code}`;
  const fix = `stop whatever listens there (see \`ss -ltnp 'sport = :${port}'\`) or choose another port with --set ${key}=<port>`;
  return failed("port", message, fix, { code: "PORT_IN_USE", path: key });
}
