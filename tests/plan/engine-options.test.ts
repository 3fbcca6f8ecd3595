// Every plan against the real parser of its slime: each config in configs/ × flavour × judge.launch either plans
// only options (and choice values) that flavour's parser has, or is refused by name before anything starts.
import { readdirSync, readFileSync } from "node:fs";
import path from "node:path";
import { describe, expect, it } from "vitest";
import { parse } from "yaml";
import { OpenclawRlErrorList } from "../../contracts/errors.ts";
import type { LaunchPlan } from "../../contracts/plan.ts";
import { goldenPlan, REPO_ROOT } from "../golden/golden-plan.ts";
import { OPTIONS, parserProblems, SGLANG_PARSERS, type ParserName } from "./engine-parsers.ts";

const CONFIGS = readdirSync(path.join(REPO_ROOT, "configs"))
  .filter((file) => file.endsWith(".yaml"))
  .map((file) => file.replace(/\.yaml$/, ""));
const FLAVORS = ["fork", "upstream"] as const;
const LAUNCHES = ["slime", "standalone", "external"] as const;

interface RawConfig {
  engine?: { kind?: string };
  training?: { lora?: unknown; backend?: string };
  opd?: { topk?: number };
}

/** The YAML paths upstream must refuse for this config, read from the file itself (not from the code under test). */
function expectedRefusals(config: RawConfig, flavor: string, launch: string): string[] {
  if (flavor !== "upstream" || (config.engine?.kind ?? "slime") !== "slime") return [];
  const paths: string[] = [];
  if (config.training?.lora !== undefined) paths.push("training.lora");
  else if (config.training?.backend === "fsdp") paths.push("training.backend");
  if ((config.opd?.topk ?? 0) > 0) paths.push("opd.topk");
  if (launch === "slime") paths.push("judge.launch");
  return paths;
}

function trainAsyncArgv(plan: LaunchPlan): string[] | null {
  const job = plan.processes.find((process) => process.argv.includes("train_async.py"));
  return job ? job.argv.slice(job.argv.indexOf("train_async.py") + 1) : null;
}

function parserFor(flavor: "fork" | "upstream", argv: string[]): ParserName {
  if (flavor === "upstream") return "upstream";
  const backend = argv.indexOf("--train-backend");
  return backend >= 0 && argv[backend + 1] === "fsdp" ? "fork-fsdp" : "fork";
}

async function refusal(promise: Promise<unknown>): Promise<string[]> {
  try {
    await promise;
  } catch (error) {
    if (error instanceof OpenclawRlErrorList) return error.errors.map((item) => item.toLine());
    throw error;
  }
  return [];
}

describe("every plan against its flavour's real parser", () => {
  it("covers every config in configs/", () => {
    expect(CONFIGS.length).toBeGreaterThanOrEqual(9);
  });

  for (const name of CONFIGS) {
    const config = parse(readFileSync(path.join(REPO_ROOT, "configs", `${name}.yaml`), "utf8")) as RawConfig;
    for (const flavor of FLAVORS) {
      for (const launch of LAUNCHES) {
        const set = [`engine.slime.flavor=${flavor}`, `judge.launch=${launch}`, ...(launch === "external" ? ["judge.url=http://127.0.0.1:31999"] : [])];
        const refused = expectedRefusals(config, flavor, launch);
        it(`${name} × ${flavor} × judge ${launch}: ${refused.length > 0 ? `refused at ${refused.join(", ")}` : "parses"}`, async () => {
          if (refused.length > 0) {
            const lines = await refusal(goldenPlan(name, set));
            expect(lines.filter((line) => line.includes("engine.slime.flavor upstream")).map((line) => line.split(":")[0])).toEqual(refused);
            for (const line of lines) expect(line).toMatch(/ use /); // each refusal says what to use instead
            return;
          }
          const plan = await goldenPlan(name, set);
          const argv = trainAsyncArgv(plan);
          if ((config.engine?.kind ?? "slime") !== "slime") {
            expect(argv).toBeNull(); // rehearsal: stand-ins, no train_async.py to parse
            return;
          }
          expect(argv).not.toBeNull();
          const parser = parserFor(flavor, argv!);
          expect(parserProblems(parser, argv!)).toEqual([]);
          const toolParser = argv![argv!.indexOf("--sglang-tool-call-parser") + 1]!;
          expect(Object.keys(SGLANG_PARSERS[flavor].deprecatedToolCallParsers)).not.toContain(toolParser);
        });
      }
    }
  }
});

describe("the parser check itself", () => {
  it("reports fork-only options on upstream, a bad choice, and LoRA options outside the FSDP parser", () => {
    expect(parserProblems("upstream", ["--prm-enable", "--megatron-to-hf-mode", "bridge"])).toEqual([
      "--prm-enable: not an option of the upstream parser",
      "--megatron-to-hf-mode: not an option of the upstream parser",
    ]);
    expect(parserProblems("upstream", ["--advantage-estimator", "on_policy_distillation"])).toEqual([
      expect.stringMatching(/^--advantage-estimator on_policy_distillation: not one of grpo, gspo, cispo/),
    ]);
    expect(parserProblems("fork", ["--use-lora"])).toEqual(["--use-lora: not an option of the fork parser"]);
    expect(parserProblems("fork-fsdp", ["--use-lora", "--lora-rank", "16", "--tensor-model-parallel-size", "2"])).toEqual([
      "--tensor-model-parallel-size: not an option of the fork-fsdp parser",
    ]);
    expect(parserProblems("fork", ["--sglang-incremental-streaming-output"])).toEqual(["--sglang-incremental-streaming-output: not an option of the fork parser"]);
  });

  it("the fixtures hold what the plans rely on (the lists are the real parsers', not ours)", () => {
    expect(OPTIONS.upstream.has("--use-opd") && OPTIONS.upstream.has("--opd-kl-coef") && !OPTIONS.upstream.has("--prm-enable")).toBe(true);
    expect(OPTIONS["fork-fsdp"].has("--use-lora") && OPTIONS["fork-fsdp"].has("--prm-enable") && !OPTIONS["fork-fsdp"].has("--sequence-parallel")).toBe(true);
    expect(SGLANG_PARSERS.fork.toolCallParsers).toContain("qwen");
    expect(SGLANG_PARSERS.upstream.toolCallParsers).toContain("qwen");
  });
});
