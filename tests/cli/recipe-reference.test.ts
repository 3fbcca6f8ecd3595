// The committed recipe reference is exactly what the schema generates (regenerate with
// `node bin/openclaw-rl.mjs recipe-reference --write docs/recipe-reference.md`), and it covers every key.
import { readFileSync } from "node:fs";
import path from "node:path";
import { describe, expect, it } from "vitest";
import { renderRecipeReference } from "../../cli/recipe-reference-markdown.ts";
import { runCliInProcess } from "./cli-process.ts";

const committed = path.join(import.meta.dirname, "../../docs/recipe-reference.md");

describe("recipe reference", () => {
  it("docs/recipe-reference.md matches the schema", () => {
    expect(readFileSync(committed, "utf8")).toBe(renderRecipeReference());
  });

  it("lists the keys users edit, with defaults and descriptions", () => {
    const text = renderRecipeReference();
    for (const key of ["method", "judge.votes", "cluster.prm_gpus", "training.max_staleness", "training.lora.rank", "combine.w_opd", "opd.topk", "proxy.api_key_env", "engine.slime.root", "sink.path", "records.dir"]) {
      expect(text, key).toContain(key.includes(".") ? `\`${key}\`` : `## \`${key}\``);
    }
    expect(text).toMatch(/\| `judge\.votes` \| integer[^|]*\| `3` \| m: judge votes per turn/);
  });

  it("lists the cross-field rules of contracts/recipe/cross-checks.ts, the KL one among them", () => {
    const rules = renderRecipeReference().split("## Cross-field checks")[1]!.replace(/\s+/g, " ");
    expect(rules).toContain("`training.kl_coef` > 0 needs `training.use_kl_loss: true`");
    expect(rules).toContain("`sink.kind: jsonl` needs `sink.path`");
  });

  it("--write into a folder that does not exist: one clear line, exit 2, no stack trace", async () => {
    const result = await runCliInProcess(["recipe-reference", "--write", "/nonexistent/dir/x.md"]);
    expect(result.exitCode).toBe(2);
    expect(result.stderr).toMatch(/^error: --write: cannot write \/nonexistent\/dir\/x\.md: no such file or directory \(ENOENT\) \(hint: check that the folder \/nonexistent\/dir exists/);
    expect(result.stderr.trim().split("\n")).toHaveLength(1);
  });
});
