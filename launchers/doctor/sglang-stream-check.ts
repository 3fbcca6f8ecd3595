// Doctor: the SGLang stream flag the slime plan passes (engine.slime.stream_output_flag) exists in the installed
// SGLang. slime derives its --sglang-* flags from SGLang's ServerArgs fields, so a wrong name stops slime at start.
import { execa } from "execa";
import { z } from "zod";
import type { Recipe } from "../../contracts/recipe.ts";
import { failed, passed, skipped, type CheckResult } from "./doctor-check.ts";

const FIELD_SCRIPT = `
import json
try:
    from sglang.srt.server_args import ServerArgs
    fields = getattr(ServerArgs, "__dataclass_fields__", {})
    print(json.dumps({"ok": True, "stream_output": "stream_output" in fields, "incremental_streaming_output": "incremental_streaming_output" in fields}))
except BaseException as error:
    print(json.dumps({"ok": False, "error": (type(error).__name__ + ": " + str(error)).splitlines()[0][:200]}))
`;

const reportSchema = z.union([
  z.object({ ok: z.literal(true), stream_output: z.boolean(), incremental_streaming_output: z.boolean() }),
  z.object({ ok: z.literal(false), error: z.string() }),
]);

const FIELD_OF = { "--sglang-stream-output": "stream_output", "--sglang-incremental-streaming-output": "incremental_streaming_output" } as const;

export async function checkSglangStreamFlag(recipe: Recipe, pythonPath: string): Promise<CheckResult> {
  const flag = recipe.engine.slime.stream_output_flag;
  if (flag === "none") return skipped("sglang", "engine.slime.stream_output_flag is none: SGLang streams cumulative chunks");
  const result = await execa(recipe.engine.slime.python, ["-c", FIELD_SCRIPT], { reject: false, timeout: 180_000, stdin: "ignore", env: { PYTHONPATH: pythonPath } });
  let parsed: z.infer<typeof reportSchema> | null = null;
  try {
    const outcome = reportSchema.safeParse(JSON.parse(result.stdout.trim().split("\n").pop() ?? ""));
    parsed = outcome.success ? outcome.data : null;
  } catch {
    parsed = null;
  }
  if (!parsed || !parsed.ok) {
    return skipped("sglang", `cannot read SGLang's server arguments (${parsed && !parsed.ok ? parsed.error : "no report"}), so engine.slime.stream_output_flag (${flag}) is unchecked`);
  }
  if (parsed[FIELD_OF[flag]]) return passed("sglang", `the installed SGLang has ${FIELD_OF[flag]}: slime accepts ${flag}`);
  const other = flag === "--sglang-stream-output" ? "--sglang-incremental-streaming-output" : "--sglang-stream-output";
  if (parsed[FIELD_OF[other]]) {
    return failed("sglang", `the installed SGLang has no ${FIELD_OF[flag]}, so slime would reject ${flag}`, `set engine.slime.stream_output_flag: "${other}"`);
  }
  return failed("sglang", `the installed SGLang has neither stream_output nor incremental_streaming_output`, `set engine.slime.stream_output_flag: none (the proxy then parses cumulative chunks)`);
}
