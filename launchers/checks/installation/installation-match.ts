// The installed slime and SGLang against the recipe: one line per fact worth saying, and a failure with the fix
// (and the recipe key) wherever the recipe asks for what the installation cannot do. Pure: no I/O.
import path from "node:path";
import type { Recipe } from "../../../contracts/recipe.ts";
import { parserNames } from "../../../lib/model/model-family.ts";
import { failed, passed, warned, type CheckResult } from "../check-result.ts";
import type { EngineInstallation, SglangProbe, SlimeProbe } from "./engine-probe-report.ts";
import { FORK_COMMIT, flavourMarkers, slimeFlavour } from "./slime-flavour.ts";
import { STREAM_FORM_TEXT, streamFormFor, type StreamFlag } from "./stream-form.ts";

const fail = (id: string, what: string, fix: string, key: string): CheckResult => failed(id, what, fix, { code: "ENGINE_UNSUPPORTED", path: key });

/** `toolCallParser`: SGLang's name of the parser the plan passes (parserNames for the policy's family), null for none. */
export function matchInstallation(recipe: Recipe, installation: EngineInstallation, toolCallParser: string | null = parserNames(recipe.model, null).toolCallParser): CheckResult[] {
  return [...slimeFindings(recipe, installation), ...sglangFindings(recipe, installation.report.sglang, installation.report.slime, toolCallParser)];
}

function slimeFindings(recipe: Recipe, installation: EngineInstallation): CheckResult[] {
  const slime = installation.report.slime;
  const { python, root } = recipe.engine.slime;
  const cloneFix = "clone slime (the fork: the slime/ folder of Gen-Verse/OpenClaw-RL; upstream: THUDM/slime) and set engine.slime.root to it";
  if (!slime.importable) {
    const there = slime.root_exists ? `${root} holds no slime package` : `${root} does not exist`;
    return [fail("slime", `slime is not installed at ${root} (engine.slime.root: ${there}), and ${python} cannot import slime (${slime.error ?? "no reason given"})`, cloneFix, "engine.slime.root")];
  }
  if (slime.namespace) {
    const found = `\`import slime\` finds ${slime.package_dir ?? "a folder"}, a folder without __init__.py, not the slime package`;
    if (slime.nested_checkout) return [fail("slime", `engine.slime.root (${root}): ${found}`, `set engine.slime.root: ${slime.nested_checkout}`, "engine.slime.root")];
    return [fail("slime", `engine.slime.root (${root}): ${found}`, cloneFix, "engine.slime.root")];
  }
  const checkout = path.dirname(slime.package_dir ?? root);
  const findings: CheckResult[] = [];
  if (checkout !== slime.root) {
    findings.push(warned("slime", `${python} imports slime from ${checkout}, not from engine.slime.root (${root}, which holds no slime package)`, `set engine.slime.root: ${checkout}`, "engine.slime.root"));
  } else if (!slime.train_async) {
    findings.push(fail("slime", `engine.slime.root (${root}) holds the slime package but no train_async.py`, cloneFix, "engine.slime.root"));
  }
  if (!slime.arguments) {
    findings.push(warned("slime", `cannot read ${slime.package_dir}/utils/arguments.py (${slime.arguments_error ?? "no report"}), so the slime flavour is unknown`, "check engine.slime.root points at a whole slime checkout"));
    return findings;
  }
  const flavour = slimeFlavour(slime.arguments);
  const commit = installation.commit === null ? "commit unknown (not a git checkout)" : `commit ${installation.commit.slice(0, 12)}${installation.commit === FORK_COMMIT ? " (the fork's pinned commit)" : ""}`;
  const fsdp = slime.fsdp_backend ? "FSDP backend present" : "no FSDP backend";
  const label = flavour === "unknown" ? "slime of unknown flavour" : flavour === "fork" ? "OpenClaw-RL fork slime" : "upstream slime";
  findings.push(passed("slime", `${label} at ${checkout}, ${commit}: ${flavourMarkers(slime.arguments)}; ${fsdp}`));
  const wanted = recipe.engine.slime.flavor;
  if (flavour === "unknown") {
    findings.push(warned("slime", `cannot tell whether the slime at ${checkout} is the fork or upstream (it has ${flavourMarkers(slime.arguments)}); engine.slime.flavor ${wanted} is unchecked`, "check that engine.slime.root is the slime you mean to run"));
  } else if (flavour !== wanted) {
    const why = flavour === "upstream" ? "it has --use-opd and no --prm-enable" : "it has --prm-enable and no --use-opd";
    findings.push(fail("slime", `engine.slime.flavor is ${wanted}, but the slime at ${checkout} is ${flavour === "fork" ? "the OpenClaw-RL fork" : "upstream slime"} (${why})`, `set engine.slime.flavor: ${flavour}`, "engine.slime.flavor"));
  } else {
    findings.push(passed("slime", `engine.slime.flavor ${wanted} matches the installed slime`));
  }
  if (recipe.judge.launch === "slime" && !slime.arguments.markers["--prm-enable"]) {
    findings.push(fail("slime", `judge.launch is slime, but the slime at ${checkout} has no --prm-enable (only the OpenClaw-RL fork hosts the judge)`, "use judge.launch: standalone (a separate SGLang server on the PRM GPUs), or the slime fork from Gen-Verse/OpenClaw-RL", "judge.launch"));
  }
  if (recipe.derived.trainingBackend === "fsdp" && !(slime.fsdp_backend && (slime.arguments.train_backends?.includes("fsdp") ?? false))) {
    findings.push(
      fail(
        "slime",
        `training.backend is fsdp (LoRA), but the slime at ${checkout} has no FSDP backend (slime/backends/fsdp_utils ${slime.fsdp_backend ? "present" : "missing"}; --train-backend accepts ${slime.arguments.train_backends?.join("|") ?? "unknown"})`,
        "use the OpenClaw-RL fork's slime (engine.slime.flavor: fork), or train full weights: training.backend: megatron without training.lora",
        "training.backend",
      ),
    );
  }
  return findings;
}

function sglangFindings(recipe: Recipe, sglang: SglangProbe, slime: SlimeProbe, parser: string | null): CheckResult[] {
  const { python, stream_output_flag: flag } = recipe.engine.slime;
  if (!sglang.importable) {
    return [fail("sglang", `SGLang is not importable by ${python} (${sglang.error ?? "no reason given"})`, "install SGLang into the environment of engine.slime.python (the fork's image pins nightly-dev-20260107-dce8b060, upstream slime v0.5.15.post1), or set engine.slime.python to that environment's interpreter", "engine.slime.python")];
  }
  const version = `SGLang ${sglang.version ?? "(no __version__)"}`;
  const findings: CheckResult[] = [passed("sglang", `${version} at ${sglang.package_dir ?? "?"}: ${serverArgsSummary(sglang)}`)];
  if (sglang.options === null) {
    findings.push(warned("sglang", `cannot build SGLang's argument parser (${sglang.options_error ?? sglang.fields_error ?? "no report"}), so the tool-call parser and the stream flag are checked against ServerArgs fields only`, "run the probe by hand with engine.slime.python to see the import error"));
  }
  if (parser !== null && sglang.tool_call_parsers && !sglang.tool_call_parsers.includes(parser)) {
    findings.push(fail("sglang", `the plan's tool-call parser is ${parser} (model.tool_call_parser ${recipe.model.tool_call_parser}), but ${version} knows only ${sglang.tool_call_parsers.join(", ")}`, `set model.tool_call_parser: none, or install an SGLang that knows ${parser}`, "model.tool_call_parser"));
  }
  findings.push(...pairingFindings(sglang, slime, version));
  const outcome = streamFormFor(flag, sglang);
  if (outcome.kind === "form") {
    findings.push(passed("stream", `engine.slime.stream_output_flag ${flag} gives ${outcome.form} streaming on ${version}: ${STREAM_FORM_TEXT[outcome.form]}`));
  } else if (outcome.kind === "unknown") {
    findings.push(warned("stream", `cannot tell what engine.slime.stream_output_flag ${flag} gives on ${version}: ${outcome.reason}`, "run the probe by hand with engine.slime.python to see the import error", "engine.slime.stream_output_flag"));
  } else {
    findings.push(fail("stream", `engine.slime.stream_output_flag is ${flag}, but ${version} has no ${outcome.option}, so slime has no ${flag} and refuses to start`, streamFix(flag, sglang), "engine.slime.stream_output_flag"));
  }
  return findings;
}

/** The other flag when this SGLang has it (with the form it gives), else none. */
function streamFix(flag: StreamFlag, sglang: SglangProbe): string {
  const other = flag === "--sglang-stream-output" ? "--sglang-incremental-streaming-output" : "--sglang-stream-output";
  const outcome = streamFormFor(other, sglang);
  if (outcome.kind === "form") return `set engine.slime.stream_output_flag: "${other}" (${outcome.form} streaming), or none (cumulative chunks)`;
  return "set engine.slime.stream_output_flag: none (cumulative chunks)";
}

function serverArgsSummary(sglang: SglangProbe): string {
  const parts: string[] = [];
  if (sglang.fields) {
    const present = Object.entries(sglang.fields).filter(([, has]) => has).map(([name]) => name);
    parts.push(present.length > 0 ? `ServerArgs has ${present.join(" and ")}` : "ServerArgs has neither stream_output nor incremental_streaming_output");
  } else {
    parts.push(`ServerArgs unreadable (${sglang.fields_error ?? "no report"})`);
  }
  if (sglang.options) {
    const options = (["--stream-output", "--incremental-streaming-output"] as const).filter((option) => sglang.options![option] !== null).map((option) => `${option} (sets ${sglang.options![option]})`);
    parts.push(options.length > 0 ? `options ${options.join(", ")}` : "no streaming option");
  }
  if (sglang.log_prob_slicing !== null) parts.push(sglang.log_prob_slicing ? "streamed log-probs sliced" : "streamed log-probs never sliced");
  if (sglang.tool_call_parsers) parts.push(`tool-call parsers ${sglang.tool_call_parsers.join(", ")}`);
  return parts.join("; ");
}

/** Each slime flavour was built against one SGLang: the fork's image pins dce8b060 (stream_output), upstream 0.5.15. */
function pairingFindings(sglang: SglangProbe, slime: SlimeProbe, version: string): CheckResult[] {
  if (!slime.arguments || !sglang.fields) return [];
  const flavour = slimeFlavour(slime.arguments);
  const renamed = sglang.fields.incremental_streaming_output;
  if (flavour === "fork" && renamed) {
    return [warned("sglang", `the fork's slime was built for SGLang dce8b060 (ServerArgs.stream_output); ${version} is newer (incremental_streaming_output)`, "use the SGLang of the fork's image (slimerl/sglang:nightly-dev-20260107-dce8b060), or check slime's SGLang calls by hand", "engine.slime.python")];
  }
  if (flavour === "upstream" && !renamed) {
    return [warned("sglang", `upstream slime pins SGLang v0.5.15.post1; ${version} is older (no incremental_streaming_output)`, "install the SGLang upstream slime pins (docker/Dockerfile: slimerl/sglang:v0.5.15.post1)", "engine.slime.python")];
  }
  return [];
}
