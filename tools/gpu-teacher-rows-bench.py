"""GPU check of the trainer teacher's top-K rows per hint candidate (native/openclaw_rl/trainer_teacher.sharded_topk, one
rank): 1,024 rows at a time (the default) against one full-vocabulary pass over every response row, at vocabulary
151,936, 2K / 8K / 16K rows, K = 4 and 20, with the log-probs at the student's top-K as the hybrid asks. Prints JSON
lines (time by CUDA events after a warm-up, peak memory above the logits, max |Δ| between the two) and writes
teacher_rows_bench.json into $OUT (else /tmp). Run from the repository root: python3 tools/gpu-teacher-rows-bench.py
"""

import json
import os
import sys

import torch

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "native"))
from openclaw_rl.trainer_teacher import CHUNK_ROWS, sharded_topk  # noqa: E402

device, vocab, results = torch.device("cuda"), 151_936, []


def measure(function):
    torch.cuda.synchronize()
    function()
    torch.cuda.synchronize()
    base = torch.cuda.memory_allocated()
    torch.cuda.reset_peak_memory_stats()
    start, end = torch.cuda.Event(enable_timing=True), torch.cuda.Event(enable_timing=True)
    start.record()
    value = function()
    end.record()
    torch.cuda.synchronize()
    return value, start.elapsed_time(end), (torch.cuda.max_memory_allocated() - base) / 2**30


for rows_count in (2048, 8192, 16384):
    for topk in (4, 20):
        logits = (torch.randn(rows_count, vocab, device=device, dtype=torch.bfloat16) * 4) / 0.6
        student = torch.randint(0, vocab, (rows_count, topk), device=device)
        whole, whole_ms, whole_gib = measure(lambda: sharded_topk(logits, topk, None, chunk_rows=rows_count, at=student))
        chunked, chunked_ms, chunked_gib = measure(lambda: sharded_topk(logits, topk, None, at=student))
        row = dict(rows=rows_count, topk=topk, chunk_rows=CHUNK_ROWS, full_ms=round(whole_ms, 2), full_peak_GiB=round(whole_gib, 2),
                   chunked_ms=round(chunked_ms, 2), chunked_peak_GiB=round(chunked_gib, 2),
                   max_abs_diff=max(float((a.float() - b.float()).abs().max()) for a, b in zip(whole, chunked)))
        print(json.dumps(row), flush=True)
        results.append(row)
        del logits, student
        torch.cuda.empty_cache()

with open(os.path.join(os.environ.get("OUT", "/tmp"), "teacher_rows_bench.json"), "w") as handle:
    json.dump(results, handle, indent=1)
