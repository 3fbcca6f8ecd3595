"""From a bridge batch to the micro-batch slime hands a custom loss, the way each slime does it (CP = TP = 1).

Owns: a synthetic decoded bridge batch, slime's tensor conversion after its converter (fork actor.py:218-293,
upstream actor.py:284-298), get_batch's key filter (the fixture's requested keys) and packing (thd: one padded row;
bshd: one row per sample, fork only), and the logits laid out to match. slime's own converter is the fake's
RolloutManager. Ignores log-prob recomputation and advantages: the tests pass those in.
"""

from __future__ import annotations

from argparse import Namespace

import torch

from openclaw_rl.batch_frame import DecodedBatch, DecodedSample

PAD_MULTIPLE = 8
VALUES = {"qkv_format": None, "rollout_temperature": 0.6, "log_probs_chunk_size": 3, "allgather_cp": False}


def decoded_batch(prompt_lengths: list[int], masks: list[list[int]], vocab: int, topk: int = 0, teacher: bool = True, seed: int = 0) -> DecodedBatch:
    """A bridge batch as decode_batch_frame returns it: int32/float32 1-D blocks, camelCase names."""
    generator = torch.Generator().manual_seed(seed)
    samples = []
    for index, (prompt_length, mask) in enumerate(zip(prompt_lengths, masks)):
        length = len(mask)
        arrays = {
            "tokens": torch.randint(0, vocab, (prompt_length + length,), generator=generator, dtype=torch.int32),
            "lossMask": torch.tensor(mask, dtype=torch.int32),
            "rolloutLogProbs": (torch.rand(length, generator=generator) * -3.0).float(),
        }
        if teacher:
            arrays["teacherLogProbs"] = (torch.rand(length, generator=generator) * -3.0).float()
        if topk:
            table = torch.log_softmax(torch.randn(length, vocab, generator=generator), dim=-1)
            values, indices = table.topk(topk, dim=-1)
            arrays["teacherTopkLogProbs"] = values.reshape(-1).float()
            arrays["teacherTopkIndices"] = indices.reshape(-1).to(torch.int32)
        header = {
            "seq": 100 + index, "id": f"sample-{index}", "kind": "main", "why": "test", "approximate": False,
            "responseLength": length, "status": "completed", "reward": [1, -1, 0, 1][index % 4],
            "weightVersions": [["3", length]], "prompt": "p", "response": "r", "topk": topk,
        }
        samples.append(DecodedSample(header=header, arrays=arrays))
    return DecodedBatch(header={"batchId": "b-test", "version": 1, "type": "batch"}, samples=samples)


def slime_args(flavour_signatures: dict, layout: str, **overrides) -> Namespace:
    """args with exactly the attributes that slime's helpers of this flavour read (fixture reads_args), plus ours."""
    read = set()
    for entry in flavour_signatures["functions"].values():
        read.update(entry.get("reads_args", []))
    values = {name: (layout if name == "qkv_format" else VALUES.get(name, 0.0)) for name in read}
    values.update(eps_clip=0.2, eps_clip_high=0.28, entropy_coef=0.0, use_kl_loss=False, use_rollout_logprobs=False)
    values.update(overrides)
    return Namespace(**values)


def micro_batch(train_data: dict, flavour_signatures: dict, layout: str, device: torch.device, computed: dict) -> dict:
    """The batch dict a custom loss receives: train_data tensorised, filtered to the flavour's requested keys, with
    what slime computes before the loss (log_probs, advantages: `computed`) and what get_batch adds."""
    data = dict(train_data)
    data.update(computed)
    data["total_lengths"] = [len(tokens) for tokens in data["tokens"]]
    if layout == "bshd":
        longest = max(data["total_lengths"])
        data["max_seq_lens"] = [(longest + PAD_MULTIPLE - 1) // PAD_MULTIPLE * PAD_MULTIPLE] * len(data["tokens"])
    tensor_types = {"tokens": torch.long, "loss_masks": torch.int, "rollout_log_probs": torch.float32, "teacher_log_probs": torch.float32,
                    "teacher_topk_log_probs": torch.float32, "teacher_topk_indices": torch.long}
    for key, dtype in tensor_types.items():
        if key in data:
            data[key] = [torch.as_tensor(value).to(device=device, dtype=dtype) for value in data[key]]
    for key in ("log_probs", "advantages", "ref_log_probs"):
        if key in data:
            data[key] = [value.to(device) for value in data[key]]
    batch = {key: data.get(key) for key in flavour_signatures["batch"]["requested_keys"]}
    batch["unconcat_tokens"] = data["tokens"]
    return batch


def logits_for(batch: dict, layout: str, vocab: int, device: torch.device, seed: int = 1) -> torch.Tensor:
    """Leaf float32 logits laid out as Megatron returns them for this packing (thd padded to PAD_MULTIPLE rows)."""
    generator = torch.Generator().manual_seed(seed)
    if layout == "bshd":
        shape = (len(batch["total_lengths"]), batch["max_seq_lens"][0], vocab)
    else:
        total = sum(batch["total_lengths"])
        shape = (1, (total + PAD_MULTIPLE - 1) // PAD_MULTIPLE * PAD_MULTIPLE, vocab)
    return (torch.randn(shape, generator=generator) * 2.0).to(device).requires_grad_(True)


def response_rows(logits: torch.Tensor, batch: dict, layout: str) -> list[torch.Tensor]:
    """Per sample, the logits rows that predict its response tokens ([R, V]), read directly from the layout."""
    rows, end = [], 0
    for index, (total, length) in enumerate(zip(batch["total_lengths"], batch["response_lengths"])):
        if layout == "bshd":
            rows.append(logits[index, total - length - 1 : total - 1])
        else:
            end += total
            rows.append(logits[0, end - length - 1 : end - 1])
    return rows
