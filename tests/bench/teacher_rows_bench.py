"""One measurement of the trainer teacher's top-K rows (native/openclaw_rl/trainer_teacher.sharded_topk) on the CPU:
`python3 teacher_rows_bench.py ROWS CHUNK_ROWS` prints one JSON line {rows, chunk_rows, ms, peak_mib}. Run once per
process: the peak is the growth of the process's maximum resident set over the pass (bf16 logits at vocabulary
151,936, already in memory, divided by the rollout temperature 0.6 as the trainer's are)."""

import json
import os
import resource
import sys
import time

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "..", "native"))

import torch  # noqa: E402

from openclaw_rl.trainer_teacher import sharded_topk  # noqa: E402

VOCAB, TOPK = 151_936, 20
rows_count, chunk_rows = int(sys.argv[1]), int(sys.argv[2])
torch.set_num_threads(1)
generator = torch.Generator().manual_seed(0)
rows = torch.empty(rows_count, VOCAB, dtype=torch.bfloat16)
for start in range(0, rows_count, 64):  # filled in slices, so making them raises the resident set by no more than this
    rows[start : start + 64] = torch.randn(min(64, rows_count - start), VOCAB, generator=generator) * 4 / 0.6
sharded_topk(rows[:8], TOPK, chunk_rows=chunk_rows)  # warm the kernels on a few rows
before = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss
start = time.perf_counter()
sharded_topk(rows, TOPK, chunk_rows=chunk_rows)
elapsed = time.perf_counter() - start
after = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss
print(json.dumps({"rows": rows_count, "chunk_rows": chunk_rows, "ms": round(elapsed * 1000, 1), "peak_mib": round((after - before) / 1024, 1)}))
