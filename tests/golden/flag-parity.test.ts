// Flag parity: our train_async.py argv for the full-weight recipes carries the reference scripts' flag values,
// except for the differences listed (each with its reason) in reference-flags.ts.
import { describe, expect, it } from "vitest";
import { goldenPlan, trainArgv } from "./golden-plan.ts";
import { INTENTIONAL_DIFFERENCES, REFERENCE_FLAGS, type FlagTable } from "./reference-flags.ts";

function flagTable(argv: string[]): FlagTable {
  const table: FlagTable = {};
  for (let index = 0; index < argv.length; index++) {
    const flag = argv[index]!;
    expect(flag.startsWith("--"), `expected a flag at position ${index}, got ${flag}`).toBe(true);
    expect(table, `${flag} appears twice`).not.toHaveProperty(flag);
    const next = argv[index + 1];
    const hasValue = next !== undefined && !next.startsWith("--");
    table[flag] = hasValue ? next : null;
    if (hasValue) index++;
  }
  return table;
}

/** "0.0" and "0", "1e-5" and "0.00001" are the same value to slime's argparse. */
function sameValue(left: string | null | undefined, right: string | null | undefined): boolean {
  if (left === right) return true;
  if (left == null || right == null) return false;
  return Number.isFinite(Number(left)) && Number(left) === Number(right);
}

describe("flag parity with the reference launch scripts", () => {
  for (const [recipe, reference] of Object.entries(REFERENCE_FLAGS) as [keyof typeof REFERENCE_FLAGS, FlagTable][]) {
    it(recipe, async () => {
      const ours = flagTable(trainArgv(await goldenPlan(recipe)));
      const differences = INTENTIONAL_DIFFERENCES[recipe];
      const mismatches: string[] = [];
      for (const [flag, value] of Object.entries(reference)) {
        const difference = differences[flag];
        if (difference) {
          const present = flag in ours;
          if (difference.ours === "absent" ? present : !present || !sameValue(ours[flag], difference.ours)) {
            mismatches.push(`${flag}: listed difference says ${String(difference.ours)}, ours is ${present ? String(ours[flag]) : "absent"}`);
          }
        } else if (!(flag in ours)) mismatches.push(`${flag}: in the reference (${String(value)}), missing from ours`);
        else if (!sameValue(ours[flag], value)) mismatches.push(`${flag}: reference ${String(value)}, ours ${String(ours[flag])}`);
      }
      for (const [flag, value] of Object.entries(ours)) {
        if (flag in reference) continue;
        const difference = differences[flag];
        if (!difference) mismatches.push(`${flag}: ours only (${String(value)}) and not listed as an intentional difference`);
        else if (!sameValue(value, difference.ours as string | null)) mismatches.push(`${flag}: listed as ${String(difference.ours)}, ours ${String(value)}`);
      }
      expect(mismatches).toEqual([]);
    });
  }

  it("notices a changed value (the comparison can fail)", async () => {
    const argv = trainArgv(await goldenPlan("qwen3-4b-binary", ["training.lr=2e-5"]));
    expect(flagTable(argv)["--lr"]).toBe("2e-5");
    expect(sameValue("2e-5", REFERENCE_FLAGS["qwen3-4b-binary"]["--lr"])).toBe(false);
  });
});
