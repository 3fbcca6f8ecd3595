// On slime's FSDP backend (training.lora) the weight version a token is labelled with is approximate (its weight
// sync does not pause generation): the running orchestrator says so in GET /status and on the dashboard.
import { mkdtempSync, readFileSync } from "node:fs";
import { tmpdir } from "node:os";
import path from "node:path";
import { describe, expect, it } from "vitest";
import { recipeSchema, type RecipeInput } from "../../contracts/recipe.ts";
import { startOrchestrator } from "../../orchestrator/run.ts";
import { statusSnapshotSchema } from "../../contracts/status.ts";
import { versionLabels } from "../../orchestrator/weights/version-labels.ts";

const base: RecipeInput = { method: "binary", model: { path: "builtin:qwen3", tokenizer_path: "builtin:qwen3" } };

const sync = (JSON.parse(readFileSync(new URL("../fixtures/sglang/weight-version-routes.json", import.meta.url), "utf8")) as {
  fsdp_sync: { pauses_generation: { fsdp: boolean; megatron: boolean } };
}).fsdp_sync;

describe("version labels", () => {
  it("are approximate only where slime trains with FSDP", () => {
    const exactOn = (training: RecipeInput["training"]) => versionLabels(recipeSchema.parse({ ...base, engine: { kind: "slime" }, training })).exact;
    expect([exactOn({ backend: "fsdp" }), exactOn({})]).toEqual([sync.pauses_generation.fsdp, sync.pauses_generation.megatron]);
    expect(versionLabels(recipeSchema.parse({ ...base, engine: { kind: "slime" }, training: { lora: {} } }))).toEqual({ exact: false, note: expect.stringContaining("does not pause generation") });
    expect(versionLabels(recipeSchema.parse({ ...base, engine: { kind: "slime" }, training: { backend: "fsdp" } })).exact).toBe(false);
    expect(versionLabels(recipeSchema.parse({ ...base, engine: { kind: "slime" } }))).toEqual({ exact: true, note: null });
    expect(versionLabels(recipeSchema.parse({ ...base, engine: { kind: "rehearsal" }, training: { lora: {} } }))).toEqual({ exact: true, note: null });
  });

  it("a LoRA run's status and dashboard say that its version labels are approximate", async () => {
    const runDir = mkdtempSync(path.join(tmpdir(), "openclaw-rl-lora-"));
    const recipe = recipeSchema.parse({ ...base, engine: { kind: "slime" }, training: { lora: {} }, judge: { launch: "external", url: "http://127.0.0.1:9" }, records: { dir: runDir } });
    const orchestrator = await startOrchestrator({
      recipe,
      runDir,
      apiKey: undefined,
      engines: { policy: "http://127.0.0.1:9", judge: "http://127.0.0.1:9" },
      readiness: () => ({ ready: true, reason: "test", retryAfterS: 0 }),
      ports: { proxy: 0, admin: 0 },
    });
    try {
      const auth = { headers: { authorization: `Bearer ${orchestrator.adminToken}` } };
      const status = statusSnapshotSchema.parse(await (await fetch(`${orchestrator.urls.admin}/status`, auth)).json());
      expect(status.version_labels).toEqual({ exact: false, note: versionLabels(recipe).note });
      const snapshot = (await (await fetch(`${orchestrator.urls.admin}/dashboard/api/snapshot`, auth)).json()) as { versionLabelNote: string | null };
      expect(snapshot.versionLabelNote).toBe(versionLabels(recipe).note);
      const page = await (await fetch(orchestrator.urls.dashboard)).text();
      expect(page).toContain('id="version-label-note"');
    } finally {
      await orchestrator.stop();
    }
  });
});
