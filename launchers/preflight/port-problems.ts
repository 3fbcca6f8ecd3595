// The ports a recipe's own processes listen on (Ray's aside: ray-running-check.ts) that start would refuse: one port
// given to two roles, or one already taken or not allowed. Each problem names the recipe key (its path) and the fix.
import { OpenclawRlError } from "../../contracts/errors.ts";
import type { Recipe } from "../../contracts/recipe.ts";
import { checkPort, recipePorts } from "../recipe-ports.ts";

export async function portProblems(recipe: Recipe): Promise<OpenclawRlError[]> {
  const problems: OpenclawRlError[] = [];
  const seen = new Map<number, string>();
  for (const use of recipePorts(recipe).filter((use) => !use.ray)) {
    const clash = seen.get(use.port);
    if (clash) {
      problems.push(new OpenclawRlError("PORT_IN_USE", `port ${use.port} is given to both ${clash} and ${use.what}`, { path: use.key, hint: "give each a different port" }));
      continue;
    }
    seen.set(use.port, use.what);
    const check = await checkPort(use.port, use.host);
    if (!check.free) problems.push(portTaken(use.port, use.what, use.key, check.code));
  }
  return problems;
}

function portTaken(port: number, what: string, path: string, code: string): OpenclawRlError {
  const message = code === "EACCES" ? `port ${port} for ${what} needs privileges` : code === "EADDRINUSE" ? `port ${port} for ${what} is already in use` : `cannot listen on port ${port} for ${what}: ${code}`;
  return new OpenclawRlError("PORT_IN_USE", message, {
    path,
    hint: `stop whatever listens there (see \`ss -ltnp 'sport = :${port}'\`) or choose another port with --set ${path}=<port>`,
  });
}
