// The banner's "OpenClaw config" command, run as printed, writes the endpoint the run actually serves:
// --set / --method overrides (proxy.port here) carry over through the run's resolved recipe.
import { mkdtempSync, readFileSync } from "node:fs";
import { tmpdir } from "node:os";
import path from "node:path";
import { describe, expect, it } from "vitest";
import { loadRecipe } from "../../cli/recipe-file.ts";
import { createRunFolder } from "../../cli/commands/run-folder.ts";
import { formatBanner } from "../../cli/commands/start-banner.ts";
import { freePort } from "../support/loopback.ts";
import { REPO_ROOT, runCliInProcess } from "./cli-process.ts";

const scratch = mkdtempSync(path.join(tmpdir(), "start-banner-"));

describe("start banner", () => {
  it("prints an openclaw-config command that reproduces the run's --set overrides", async () => {
    const runDir = path.join(scratch, "run with space");
    const [proxyPort, policyPort] = [await freePort(), await freePort()]; // (nothing listens on them)
    const { recipe, file } = loadRecipe({ recipe: path.join(REPO_ROOT, "configs/rehearsal.yaml"), set: [`proxy.port=${proxyPort}`, "proxy.admin_port=40111", `engine.rehearsal.policy_port=${policyPort}`, "model.served_name=my-model", `records.dir=${runDir}`] });
    createRunFolder(runDir, recipe);
    const banner = formatBanner({ recipe, recipeFile: file, runDir, urls: { proxy: `http://127.0.0.1:${proxyPort}/v1`, admin: "http://127.0.0.1:40111", dashboard: "http://127.0.0.1:40111/dashboard/", bridge: null }, apiKeySet: false, engines: [], notes: [] });
    const line = banner.split("\n").find((text) => text.includes("OpenClaw config"))!;
    expect(line).toContain(`npx openclaw-rl openclaw-config --recipe '${runDir}/recipe.resolved.yaml' --write ~/.openclaw/openclaw.json`);
    expect(banner).toContain(`Status             npx openclaw-rl status --run '${runDir}'   (or --json, --watch)`);
    expect(banner).toContain(`Demo               npx openclaw-rl demo --recipe '${runDir}/recipe.resolved.yaml'`);
    expect(banner).toContain(`Held-out eval      npx openclaw-rl eval --run '${runDir}'`);

    const demoRecipe = /demo --recipe (.+)$/m.exec(banner)![1]!.replace(/^'(.*)'$/, "$1");
    const demo = await runCliInProcess(["demo", "--recipe", demoRecipe, "--turns", "1"]); // (nothing listens: it names the port it tried)
    expect(demo.stderr).toContain(`cannot reach the proxy at http://127.0.0.1:${proxyPort}/v1/models`);

    const printedRecipe = /--recipe (.+) --write/.exec(line)![1]!.replace(/^'(.*)'$/, "$1");
    const target = path.join(scratch, "openclaw.json");
    const result = await runCliInProcess(["openclaw-config", "--recipe", printedRecipe, "--write", target]);
    expect(result.exitCode).toBe(0);
    const provider = JSON.parse(readFileSync(target, "utf8")).models.providers.rl;
    expect(provider.baseUrl).toBe(`http://127.0.0.1:${proxyPort}/v1`);
    expect(provider.models[0].id).toBe("my-model");
  });

  it("says on slime's FSDP backend (training.lora) that weight version labels are approximate, and not on Megatron", () => {
    const urls = { proxy: "http://127.0.0.1:30000/v1", admin: "http://127.0.0.1:30001", dashboard: "http://127.0.0.1:30001/dashboard/", bridge: null };
    const banner = (config: string) => {
      const { recipe, file } = loadRecipe({ recipe: path.join(REPO_ROOT, "configs", config), set: [`records.dir=${scratch}`] });
      return formatBanner({ recipe, recipeFile: file, runDir: scratch, urls, apiKeySet: false, engines: [], notes: [] });
    };
    expect(banner("qwen3-4b-binary-lora.yaml")).toContain("⚠ weight version labels are approximate on slime's FSDP backend (training.lora)");
    expect(banner("qwen3-4b-binary.yaml")).not.toContain("approximate");
  });
});
