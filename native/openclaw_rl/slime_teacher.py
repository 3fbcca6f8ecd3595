"""The teacher in slime's Megatron trainer (opd.teacher: trainer): before slime trains a batch with teacher tokens, one
forward of the frozen reference weights, swapped into the actor's own parameters, gives teacher_log_probs (and, on the
fork, top-K rows) with no request to the judge engine. Ignores everything else of the step; how and why, and what it
refuses: docs/judging.md. The slime surface it wraps, per flavour and commit: tests/fixtures/slime_actor.json.
"""

from __future__ import annotations

import contextlib
import functools
import importlib
import inspect
import logging
import os

import torch

from . import slime_api, teacher_carriage
from .trainer_teacher import sharded_topk

LOGGER = logging.getLogger(__name__)
TEACHER_TAG = "openclaw_rl_teacher"
ACTOR_MODULE = "slime.backends.megatron_utils.actor"
DATA_MODULE = "slime.backends.megatron_utils.data"
MODEL_MODULE = "slime.backends.megatron_utils.model"
WRAPPED_MARK = "openclaw_rl_trainer_teacher"


class TrainerTeacherError(RuntimeError):
    """The trainer-side teacher cannot run with these slime settings or this batch."""


def check_args(args) -> None:
    """Refuses the settings the teacher's forward cannot be exact with (see the module docstring)."""
    problems = []
    if int(getattr(args, "context_parallel_size", 1) or 1) > 1:
        problems.append(f"--context-parallel-size {args.context_parallel_size}: each rank's log-probs would be its slice of the teacher's longer sequence, not of the student's")
    if getattr(args, "qkv_format", "thd") == "bshd":
        problems.append("--qkv-format bshd: the fork pads every sequence to the student's longest; the teacher's are longer")
    if float(getattr(args, "rollout_top_p", 1.0) or 1.0) != 1.0:
        problems.append(f"--rollout-top-p {args.rollout_top_p}: upstream's top-p replay would restrict the teacher to the student's kept tokens")
    if getattr(args, "enable_weights_backuper", True) is False:
        problems.append("--disable-weights-backuper: slime then keeps one copy of the weights, with no room for the teacher's")
    if not getattr(args, "ref_load", None):
        problems.append("no --ref-load: the teacher is the checkpoint there")
    if getattr(args, "prm_teacher_load", None):
        problems.append(
            f"--prm-teacher-load {args.prm_teacher_load}: a teacher of another size than the student is not built (the reference runs it as its "
            "own actor group on its own GPUs, a change to slime; ours swaps the --ref-load checkpoint into the student's own parameters, so it "
            "must be the student's architecture)"
        )
    if problems:
        raise TrainerTeacherError("openclaw-rl opd.teacher trainer cannot run here: " + "; ".join(problems) + ". Use opd.teacher: engine.")


def install(args, actor_class=None) -> type:
    """Wraps train_actor of slime's Megatron actor (or actor_class) once; returns the class wrapped."""
    check_args(args)
    if actor_class is None:
        actor_class = importlib.import_module(ACTOR_MODULE).MegatronTrainRayActor
    original = actor_class.train_actor
    if getattr(original, WRAPPED_MARK, False):
        return actor_class

    @functools.wraps(original)
    def train_actor(self, rollout_id, rollout_data, *rest, **keywords):
        from .slime_hybrid import fill_hybrid_rows

        fill_hybrid_rows(self, rollout_data)
        fill_teacher_log_probs(self, rollout_data)
        return original(self, rollout_id, rollout_data, *rest, **keywords)

    setattr(train_actor, WRAPPED_MARK, True)
    actor_class.train_actor = train_actor
    return actor_class


def fill_teacher_log_probs(actor, rollout_data: dict) -> int:
    """Sets rollout_data["teacher_log_probs"] for a carried batch (the teacher's forward for samples with teacher
    tokens, the carried values for the others); returns how many samples the teacher scored (0: nothing carried, or
    a pipeline stage other than the last, where slime keeps no per-sample values)."""
    teachers = teacher_carriage.take(rollout_data)
    if teachers is None:
        return 0
    if "teacher_log_probs" in rollout_data:
        raise TrainerTeacherError("openclaw-rl: a batch carries teacher tokens and slime's own teacher_log_probs at once")
    response_lengths = [int(length) for length in rollout_data["response_lengths"]]
    for index, (teacher, length) in enumerate(zip(teachers, response_lengths, strict=True)):
        if teacher.tokens is not None and int(teacher.tokens.numel()) <= length:
            raise TrainerTeacherError(f"openclaw-rl: sample {index}'s teacher tokens ({teacher.tokens.numel()}) hold no hinted prompt before its {length}-token response")
        if teacher.log_probs is not None and int(teacher.log_probs.numel()) != length:
            raise TrainerTeacherError(f"openclaw-rl: sample {index} carries {teacher.log_probs.numel()} teacher log-probs for a {length}-token response")

    topk = int(getattr(actor.args, "openclaw_rl_topk", 0) or 0)
    if topk > 0 and any(teacher.tokens is None for teacher in teachers):
        raise TrainerTeacherError("openclaw-rl: a top-K distillation batch has samples without teacher tokens; every opd sample has a hint")
    tag = teacher_tag(actor)
    data = teacher_rollout_data(rollout_data, teachers)
    with switched_to(actor, tag):
        iterators, num_microbatches = data_iterators(actor, data, rollout_data)
        if topk > 0:
            result = forward_with_topk(actor, iterators, num_microbatches, topk)
        else:
            result = actor.compute_log_prob(iterators, num_microbatches, store_prefix="teacher_")
    forwarded = result.get("teacher_log_probs")
    if forwarded is None:
        return 0
    if topk > 0:
        # as the fork's _get_rollout_data leaves the engine's rows: CPU tensors [R, K], float32 and int64
        rollout_data["teacher_topk_log_probs"] = [value.float().cpu() for value in result["teacher_topk_log_probs"]]
        rollout_data["teacher_topk_indices"] = [value.long().cpu() for value in result["teacher_topk_indices"]]
    values = []
    for teacher, value in zip(teachers, forwarded, strict=True):
        values.append(value if teacher.tokens is not None else teacher.log_probs.to(value.device))
    rollout_data["teacher_log_probs"] = values
    return sum(teacher.tokens is not None for teacher in teachers)


def forward_with_topk(actor, iterators, num_microbatches, topk: int) -> dict:
    """The teacher's forward through slime's forward_only with a function that keeps, per response token, the log-prob
    of the token (slime's own get_log_probs_and_entropy) and the top-K rows over the whole vocabulary
    (trainer_teacher.sharded_topk across the tensor-parallel group): {"teacher_log_probs", "teacher_topk_log_probs",
    "teacher_topk_indices"}, in sample order. The fork only: upstream's training batch carries no top-K rows to a loss."""
    forward_only = importlib.import_module(MODEL_MODULE).forward_only
    helpers = slime_api.bind_slime_api()
    from megatron.core import mpu

    group = mpu.get_tensor_model_parallel_group()

    def teacher_values(logits, *, args, unconcat_tokens, total_lengths, response_lengths, with_entropy=False, max_seq_lens=None, **_rest):
        batch = {"unconcat_tokens": unconcat_tokens, "total_lengths": total_lengths, "response_lengths": response_lengths, "max_seq_lens": max_seq_lens}
        # the rows first: at temperature 1 the fork's log-prob helper turns float32 logits into their softmax in place
        rows = [sharded_topk(chunk, topk, group) for chunk, _tokens in helpers.response_logits(logits, args, batch)]
        log_probs = helpers.response_log_probs(logits, args, batch, with_entropy=False)["log_probs"]
        values = {"log_probs": log_probs, "topk_log_probs": [row[0] for row in rows], "topk_indices": [row[1] for row in rows]}
        return torch.empty((0,), device=logits.device), values

    with torch.no_grad():
        return forward_only(teacher_values, actor.args, actor.model, iterators, num_microbatches, store_prefix="teacher_")


@contextlib.contextmanager
def switched_to(actor, tag: str):
    """The actor's parameters swapped to the weights backup `tag` for a forward, and back to the active ones after."""
    previous = getattr(actor, "_active_model_tag", None) or "actor"
    if getattr(actor.args, "use_routing_replay", False):
        os.environ["ROUTING_REPLAY_STAGE"] = "fallthrough"  # as slime forwards its reference
    actor._switch_model(tag)
    try:
        yield
    finally:
        actor._switch_model(previous)


def teacher_tag(actor) -> str:
    """The weights backup holding the teacher: slime's reference when it loaded the same checkpoint, else ours, loaded
    once (the first carried batch) with slime's own load_other_checkpoint."""
    path = actor.args.ref_load
    tags = actor.weights_backuper.backup_tags
    if "ref" in tags:
        return "ref"
    if TEACHER_TAG not in tags:
        previous = getattr(actor, "_active_model_tag", None) or "actor"
        LOGGER.info("openclaw_rl: loading the trainer's teacher from %s (held in host memory beside the actor's weights)", path)
        actor.load_other_checkpoint(TEACHER_TAG, path)
        actor._switch_model(previous)
    return TEACHER_TAG


def teacher_rollout_data(rollout_data: dict, teachers: list) -> dict:
    """What slime's forward step reads for the teacher's forward: each sample's teacher tokens (its own tokens where it
    carries log-probs: it is scored but its value is not used), their lengths, the same responses and loss masks, and
    the schedule keys of the student's batch (upstream: micro_batch_indices; the fork: dynamic_global_batch_size)."""
    tokens = []
    for teacher, own in zip(teachers, rollout_data["tokens"], strict=True):
        own = torch.as_tensor(own)
        tokens.append(own if teacher.tokens is None else teacher.tokens.to(device=own.device, dtype=own.dtype))
    return forward_data(rollout_data, tokens)


def forward_data(rollout_data: dict, tokens: list[torch.Tensor]) -> dict:
    """What slime's forward step reads to forward other tokens over the same responses: the tokens, their lengths, the
    responses and loss masks, and the student's schedule keys."""
    data = {
        "tokens": tokens,
        "total_lengths": [int(t.numel()) for t in tokens],
        "response_lengths": list(rollout_data["response_lengths"]),
        "loss_masks": list(rollout_data["loss_masks"]),
    }
    for key in ("micro_batch_indices", "dynamic_global_batch_size"):
        if key in rollout_data:
            data[key] = rollout_data[key]
    return data


def data_iterators(actor, data: dict, rollout_data: dict):
    """slime's data iterators over the teacher's data: the fork's get_data_iterator(args, model, rollout_data) schedules
    micro-batches itself (from the teacher's lengths); upstream's get_data_iterator(rollout_data) follows the student's
    schedule (micro_batch_indices and num_microbatches from the rollout manager)."""
    get_data_iterator = importlib.import_module(DATA_MODULE).get_data_iterator
    if len(inspect.signature(get_data_iterator).parameters) >= 3:
        iterators, num_microbatches = get_data_iterator(actor.args, actor.model, data)
        return iterators, num_microbatches
    return get_data_iterator(data), rollout_data["num_microbatches"]
