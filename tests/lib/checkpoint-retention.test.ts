// A save folder laid out as Megatron's torch_dist writer leaves it (iter_%07d with common.pt, metadata.json and
// __<rank>_<n>.distcp shards, the tracker written last): listing, and pruning to a retention count.
import { mkdirSync, mkdtempSync, writeFileSync, existsSync } from "node:fs";
import { tmpdir } from "node:os";
import path from "node:path";
import { describe, expect, it } from "vitest";
import { listCheckpoints, TRACKER_FILE } from "../../lib/checkpoints/checkpoint-list.ts";
import { checkpointsToPrune, pruneCheckpoints } from "../../lib/checkpoints/checkpoint-retention.ts";

function megatronSaveFolder(iterations: number[], tracked: number | null): string {
  const saveDir = mkdtempSync(path.join(tmpdir(), "ckpt-"));
  for (const iteration of iterations) {
    const folder = path.join(saveDir, `iter_${String(iteration).padStart(7, "0")}`);
    mkdirSync(folder);
    writeFileSync(path.join(folder, "common.pt"), Buffer.alloc(100));
    writeFileSync(path.join(folder, "metadata.json"), '{"sharded_backend":"torch_dist"}');
    writeFileSync(path.join(folder, "__0_0.distcp"), Buffer.alloc(1000 + iteration));
    writeFileSync(path.join(folder, "__1_0.distcp"), Buffer.alloc(1000));
  }
  if (tracked !== null) writeFileSync(path.join(saveDir, TRACKER_FILE), `${tracked}\n`);
  return saveDir;
}

describe("checkpoint list", () => {
  it("lists iterations newest first with size, the tracker's one as latest, one above it as in progress", () => {
    const saveDir = megatronSaveFolder([1, 3, 5], 3);
    mkdirSync(path.join(saveDir, "iter_garbage"));
    const entries = listCheckpoints(saveDir);
    expect(entries.map((entry) => [entry.iteration, entry.latest, entry.inProgress])).toEqual([
      [5, false, true],
      [3, true, false],
      [1, false, false],
    ]);
    const size = 100 + '{"sharded_backend":"torch_dist"}'.length + 1000 + 3 + 1000;
    expect(entries[1]!.bytes).toBe(size);
    expect(entries[1]!.modifiedAt).toBeGreaterThan(Date.now() - 60_000);
  });

  it("is empty for a folder slime has not created yet, and everything is in progress before the first tracker", () => {
    expect(listCheckpoints(path.join(tmpdir(), "no-such-save-folder-xyz"))).toEqual([]);
    expect(listCheckpoints(megatronSaveFolder([1], null)).map((entry) => entry.inProgress)).toEqual([true]);
  });
});

describe("checkpoint retention", () => {
  it("keeps the newest `keep` complete checkpoints and deletes the older ones", () => {
    const saveDir = megatronSaveFolder([1, 3, 5, 7, 9], 9);
    expect(pruneCheckpoints(saveDir, 3).map((entry) => entry.iteration)).toEqual([3, 1]);
    expect(listCheckpoints(saveDir).map((entry) => entry.iteration)).toEqual([9, 7, 5]);
    expect(pruneCheckpoints(saveDir, 3)).toEqual([]);
  });

  it("never deletes the one being written (above the tracker) nor the tracker's", () => {
    const saveDir = megatronSaveFolder([1, 3, 5, 7], 5);
    const deleted = pruneCheckpoints(saveDir, 1);
    expect(deleted.map((entry) => entry.iteration)).toEqual([3, 1]);
    expect(existsSync(path.join(saveDir, "iter_0000007"))).toBe(true);
    expect(existsSync(path.join(saveDir, "iter_0000005"))).toBe(true);
  });

  it("keeps the tracker's iteration even when newer complete ones would fill the count", () => {
    const entries = [
      { iteration: 9, latest: false, inProgress: false },
      { iteration: 7, latest: true, inProgress: false },
    ].map((entry) => ({ ...entry, folder: "", modifiedAt: 0, bytes: 0 }));
    expect(checkpointsToPrune(entries, 1)).toEqual([]);
  });

  it("deletes nothing before the first tracker", () => {
    expect(pruneCheckpoints(megatronSaveFolder([1, 3, 5], null), 1)).toEqual([]);
  });
});
