// Doctor: the GPUs this node shows through nvidia-smi, against the GPUs the recipe places on one node.
// Ignores GPU memory and driver versions; other nodes are checked by running doctor there.
import { execa } from "execa";
import type { Recipe } from "../../contracts/recipe.ts";
import { failed, passed, type CheckResult } from "./check-result.ts";
import { lastLine } from "./process-output.ts";

export async function checkGpus(recipe: Recipe): Promise<CheckResult> {
  const needed = recipe.cluster.gpus_per_node;
  const result = await execa("nvidia-smi", ["--query-gpu=index,name,memory.total", "--format=csv,noheader"], { reject: false, timeout: 20_000, stdin: "ignore" });
  if (result.failed) {
    const missing = (result.cause as NodeJS.ErrnoException | undefined)?.code === "ENOENT";
    const why = missing ? "nvidia-smi is not installed (no NVIDIA driver on this machine)" : `nvidia-smi failed: ${lastLine(result.stderr || result.shortMessage || "")}`;
    return failed("gpus", `${why}, so the ${needed} GPUs cluster.gpus_per_node asks for cannot be checked or used`, "run on a machine with NVIDIA GPUs and drivers, or use the rehearsal recipe (no GPUs)");
  }
  const gpus = result.stdout.split("\n").filter((line) => line.trim() !== "");
  const names = [...new Set(gpus.map((line) => line.split(",")[1]?.trim() ?? "?"))].join(", ");
  if (gpus.length < needed) {
    return failed("gpus", `${gpus.length} GPU(s) visible (${names}), cluster.gpus_per_node asks for ${needed}`, "lower cluster.gpus_per_node and the slices, or check CUDA_VISIBLE_DEVICES");
  }
  return passed("gpus", `${gpus.length} GPU(s) visible (${names}); the recipe uses ${needed} per node`);
}
