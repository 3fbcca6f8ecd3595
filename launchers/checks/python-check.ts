// Doctor: the slime environment's Python imports torch, ray and our openclaw_rl package with the PYTHONPATH the
// slime job gets; and the ray executable runs. Ignores slime and SGLang (installation-check.ts probes those).
import { execa } from "execa";
import { z } from "zod";
import type { Recipe } from "../../contracts/recipe.ts";
import { failed, passed, type CheckResult } from "./check-result.ts";
import { lastLine, parseJson } from "./process-output.ts";

const MODULES = ["torch", "ray", "openclaw_rl"] as const;

const IMPORT_SCRIPT = `
import importlib, json, sys
report = {}
for name in sys.argv[1:]:
    try:
        module = importlib.import_module(name)
        report[name] = {"ok": True, "version": str(getattr(module, "__version__", ""))}
    except BaseException as error:
        report[name] = {"ok": False, "error": (type(error).__name__ + ": " + str(error)).splitlines()[0][:200]}
print(json.dumps(report))
`;

const reportSchema = z.record(z.string(), z.object({ ok: z.boolean(), version: z.string().optional(), error: z.string().optional() }));

export async function checkPythonImports(recipe: Recipe, pythonPath: string): Promise<CheckResult[]> {
  const python = recipe.engine.slime.python;
  const result = await execa(python, ["-c", IMPORT_SCRIPT, ...MODULES], {
    reject: false,
    timeout: 180_000,
    stdin: "ignore",
    env: { PYTHONPATH: pythonPath },
  });
  if (result.failed) {
    const missing = (result.cause as NodeJS.ErrnoException | undefined)?.code === "ENOENT";
    const detail = missing ? `engine.slime.python (${python}) was not found` : `${python} could not run the import check: ${lastLine(result.stderr || result.shortMessage || "")}`;
    return [failed("python", detail, "set engine.slime.python to the interpreter of your slime environment (the one with torch, ray and sglang)")];
  }
  const parsed = reportSchema.safeParse(parseJson(result.stdout.trim().split("\n").pop() ?? ""));
  if (!parsed.success) return [failed("python", `${python} printed no import report: ${lastLine(result.stdout)}`, "run the interpreter by hand and check its environment")];
  return MODULES.map((name) => {
    const entry = parsed.data[name];
    if (entry?.ok) return passed("python", `${python} imports ${name}${entry.version ? ` ${entry.version}` : ""}`);
    return failed("python", `${python} cannot import ${name}: ${entry?.error ?? "no result"}`, importFix(name));
  });
}

export async function checkRay(recipe: Recipe): Promise<CheckResult> {
  const ray = recipe.engine.slime.ray;
  const result = await execa(ray, ["--version"], { reject: false, timeout: 60_000, stdin: "ignore" });
  if (result.failed) {
    const missing = (result.cause as NodeJS.ErrnoException | undefined)?.code === "ENOENT";
    const why = missing ? "was not found" : `does not run: ${lastLine(result.stderr || result.shortMessage || "")}`;
    return failed("ray", `engine.slime.ray (${ray}) ${why}`, "install ray in the slime environment or set engine.slime.ray to its ray executable");
  }
  return passed("ray", `${ray}: ${lastLine(result.stdout)}`);
}

function importFix(name: string): string {
  if (name === "openclaw_rl") return "the package root's native/ folder must be readable; reinstall openclaw-rl";
  return `install ${name} into the environment of engine.slime.python`;
}
