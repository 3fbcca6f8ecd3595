// Runs engine_probe.py with the slime environment's Python and the PYTHONPATH the slime job gets, parses its JSON
// line, and asks git for the slime checkout's commit. Ignores what the facts mean (installation-match.ts).
import path from "node:path";
import { fileURLToPath } from "node:url";
import { execa } from "execa";
import type { Recipe } from "../../../contracts/recipe.ts";
import { slimePythonPath } from "../../slime/slime-job.ts";
import { lastLine, parseJson } from "../process-output.ts";
import { engineProbeReportSchema, type EngineInstallation } from "./engine-probe-report.ts";

const PROBE_SCRIPT = fileURLToPath(new URL("./engine_probe.py", import.meta.url));
/** Importing SGLang's server arguments pulls in torch and friends: seconds, sometimes a minute on a cold disk. */
const PROBE_TIMEOUT_MS = 180_000;

export type EngineProbeOutcome =
  | { kind: "installed"; installation: EngineInstallation }
  | { kind: "probe-failed"; detail: string; fix: string };

export interface EngineProbeOptions {
  packageRoot: string;
  /** The environment to run in (start's, with PATH); absent: this process's. */
  environment?: Record<string, string | undefined>;
}

export async function probeEngine(recipe: Recipe, options: EngineProbeOptions): Promise<EngineProbeOutcome> {
  const { python, root } = recipe.engine.slime;
  const variables = { ...recipe.engine.slime.env, PYTHONPATH: slimePythonPath(recipe, options.packageRoot) };
  const result = await execa(python, [PROBE_SCRIPT, "--slime-root", root], {
    reject: false,
    timeout: PROBE_TIMEOUT_MS,
    stdin: "ignore",
    env: options.environment ? { ...options.environment, ...variables } : variables,
    extendEnv: options.environment === undefined,
  });
  const fixPython = "set engine.slime.python to the interpreter of your slime environment (the one with torch, ray and sglang)";
  if (result.failed) {
    const missing = (result.cause as NodeJS.ErrnoException | undefined)?.code === "ENOENT";
    if (missing) return { kind: "probe-failed", detail: `engine.slime.python (${python}) was not found`, fix: fixPython };
    if (result.timedOut) return { kind: "probe-failed", detail: `${python} did not finish the installation probe in ${PROBE_TIMEOUT_MS / 1000} s`, fix: `run \`${python} ${PROBE_SCRIPT} --slime-root ${root}\` by hand and see where it hangs` };
    return { kind: "probe-failed", detail: `${python} could not run the installation probe: ${lastLine(result.stderr || result.shortMessage || "")}`, fix: fixPython };
  }
  const reportLine = result.stdout.trim().split("\n").pop() ?? "";
  const parsed = engineProbeReportSchema.safeParse(parseJson(reportLine));
  if (!parsed.success) {
    const printed = reportLine === "" ? "nothing" : `${parseJson(reportLine) === null ? "not JSON" : parsed.error.issues[0]?.message ?? "an unexpected shape"}: ${lastLine(reportLine)}`;
    return { kind: "probe-failed", detail: `${python} printed no installation report (${printed})`, fix: fixPython };
  }
  return { kind: "installed", installation: { report: parsed.data, commit: await checkoutCommit(checkoutFolder(parsed.data.slime)) } };
}

/** The checkout the job really imports slime from: the parent of the package, else engine.slime.root. */
function checkoutFolder(slime: EngineInstallation["report"]["slime"]): string | null {
  if (slime.importable && !slime.namespace && slime.package_dir) return path.dirname(slime.package_dir);
  return slime.root_exists ? slime.root : null;
}

async function checkoutCommit(folder: string | null): Promise<string | null> {
  if (folder === null) return null;
  const result = await execa("git", ["-C", folder, "rev-parse", "HEAD"], { reject: false, timeout: 20_000, stdin: "ignore" });
  const commit = result.failed ? "" : result.stdout.trim();
  return /^[0-9a-f]{40}$/.test(commit) ? commit : null;
}
