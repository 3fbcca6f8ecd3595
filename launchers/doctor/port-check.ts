// Doctor: every port the recipe's processes will listen on (recipe-ports.ts) is free on this machine, and no two
// roles share one; each result names the recipe key and the fix. Ignores what holds a taken port.
import type { Recipe } from "../../contracts/recipe.ts";
import { checkPort, recipePorts } from "../recipe-ports.ts";
import { failed, passed, type CheckResult } from "./doctor-check.ts";

export async function checkPorts(recipe: Recipe): Promise<CheckResult[]> {
  const ports = recipePorts(recipe);
  return Promise.all(
    ports.map(async (use) => {
      const twin = ports.find((other) => other !== use && other.port === use.port);
      if (twin) return failed("port", `${use.key} and ${twin.key} are both ${use.port}`, `give ${use.key} a port of its own`);
      const check = await checkPort(use.port, use.host);
      if (check.free) return passed("port", `${use.port} (${use.key}) is free`);
      if (check.code === "EADDRINUSE") return failed("port", `${use.port} (${use.key}) is in use`, `stop what listens on ${use.port} (e.g. \`ss -ltnp | grep :${use.port}\`) or change ${use.key}`);
      return failed("port", `cannot listen on ${use.host}:${use.port} (${use.key}): ${check.code}`, `check the address, or change ${use.key}`);
    }),
  );
}
