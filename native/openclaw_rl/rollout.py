"""slime's rollout function for openclaw-rl (--rollout-function-path openclaw_rl.rollout.generate_rollout).

Samples are made by the openclaw-rl proxy and judges; this function only fetches a batch of
args.rollout_batch_size of them from the orchestrator's bridge and builds slime Samples. A batch is acknowledged
once slime has provably trained it, which is two calls later (see _acknowledge_trained). It ignores data_source
(no dataset in this mode) and has no evaluation path.
"""

from __future__ import annotations

import time

import torch

from . import teacher_carriage
from .batch_frame import DecodedBatch, decode_batch_frame
from .bridge_client import BatchUnknown, BridgeClient, BridgeEndpoint, BridgeUnavailable
from .slime_types import carried_teacher_arrays, slime_types

LONG_POLL_MS = 20_000
PROGRESS_EVERY_S = 30.0
RECONNECT_GIVE_UP_S = 600.0
BACKOFF_S = (0.2, 0.5, 1.0, 2.0, 5.0)

_client: BridgeClient | None = None
_hello_sent = False
# (rollout_id, batch_id) of the batches returned to slime and not acknowledged yet, oldest first
_returned: list[tuple[int, str]] = []


def _router_url(args, ip_attr: str, port_attr: str) -> str | None:
    ip = getattr(args, ip_attr, None)
    port = getattr(args, port_attr, None)
    return f"http://{ip}:{port}" if ip is not None and port is not None else None


def _routers(args) -> dict:
    return {"policy": _router_url(args, "sglang_router_ip", "sglang_router_port"), "judge": _router_url(args, "prm_router_ip", "prm_router_port")}


def _log(text: str) -> None:
    print(f"[openclaw_rl] {text}", flush=True)


class _Connection:
    """Retries bridge calls across orchestrator restarts: backoff, then hello again (same session)."""

    def __init__(self, client: BridgeClient, args):
        self.client = client
        self.args = args

    def call(self, action):
        global _hello_sent
        failing_since = None
        attempt = 0
        while True:
            try:
                if not _hello_sent:
                    self.client.hello(_routers(self.args))
                    _hello_sent = True
                return action()
            except BridgeUnavailable as error:
                now = time.monotonic()
                failing_since = failing_since or now
                if now - failing_since > RECONNECT_GIVE_UP_S:
                    raise RuntimeError(f"openclaw-rl bridge unreachable for {RECONNECT_GIVE_UP_S:.0f}s: {error}") from error
                delay = BACKOFF_S[min(attempt, len(BACKOFF_S) - 1)]
                if attempt == 0 or attempt % 10 == 0:
                    _log(f"bridge unreachable ({error}); retrying every <= {BACKOFF_S[-1]:.0f}s")
                attempt += 1
                _hello_sent = False  # the orchestrator may have restarted: say hello again before the next call
                time.sleep(delay)


def _acknowledge(connection: _Connection, rollout_id: int, batch_id: str) -> None:
    try:
        connection.call(lambda: connection.client.ack(rollout_id, batch_id))
    except BatchUnknown as error:
        # the orchestrator records every hand-out before the batch leaves and keeps it across restarts, so this means
        # its store was moved aside or lost: the batch cannot be acknowledged, and nothing more can be done here
        _log(f"batch {batch_id} (rollout {rollout_id}) was trained, but the orchestrator does not know it (its store was replaced?): {error}")


def _acknowledge_trained(connection: _Connection) -> None:
    """Acknowledges every batch returned to slime except the latest one, which slime may still be training.

    slime calls generate(r + 1) on its single-threaded rollout manager. train_async.py submits it before train(r)
    (generation overlaps training) but after train(r - 1) returned; train.py submits it after train(r) returned.
    So when call r + 1 starts, the batch of call r - 1 is trained under either driver, the batch of call r maybe not.
    """
    while len(_returned) > 1:
        rollout_id, batch_id = _returned[0]
        _acknowledge(connection, rollout_id, batch_id)
        _returned.pop(0)


def _fetch_batch(connection: _Connection, rollout_id: int, size: int) -> DecodedBatch:
    started = time.monotonic()
    last_progress_line = started
    holding = [batch_id for _, batch_id in _returned]
    while True:
        frame, ready = connection.call(lambda: connection.client.request_batch(rollout_id, size, LONG_POLL_MS, holding))
        if frame is None:
            now = time.monotonic()
            connection.call(lambda: connection.client.progress(rollout_id, ready, size, (now - started) * 1000.0))
            if now - last_progress_line >= PROGRESS_EVERY_S:
                if connection.client.training_paused:
                    _log(f"training is paused by the orchestrator (evaluation.stop_if_worse; `openclaw-rl status` says why): {ready} samples wait (rollout {rollout_id}, {now - started:.0f}s)")
                else:
                    _log(f"waiting for samples: {ready}/{size} (rollout {rollout_id}, {now - started:.0f}s)")
                last_progress_line = now
            continue
        return decode_batch_frame(frame)


def _check_teacher_all_or_none(batch: DecodedBatch) -> None:
    # slime detects teacher fields from samples[0] only; the orchestrator's batch assembler (batch-frame.ts) fills
    # combine batches so this holds. A violation is a bug there, not something to patch up here. A sample with
    # teacherTokens (opd.teacher trainer) gets its teacher log-probs from the trainer's teacher, so it counts as having them.
    for name in ("teacherLogProbs", "teacherTopkLogProbs", "teacherTopkIndices"):
        present = [name in sample.arrays or (name == "teacherLogProbs" and "teacherTokens" in sample.arrays) for sample in batch.samples]
        if any(present) and not all(present):
            raise RuntimeError(f"openclaw-rl bridge sent {name} on {sum(present)} of {len(present)} samples; slime needs all or none")


def _check_carriable(batch: DecodedBatch) -> None:
    # the trainer's teacher gives token-level log-probs only (the recipe refuses top-K with opd.teacher trainer)
    topk = [block for sample in batch.samples[:1] for block in sample.arrays if block.startswith("teacherTopk")]
    if topk:
        raise RuntimeError(f"openclaw-rl bridge sent teacherTokens with {', '.join(topk)}; the trainer's teacher computes token-level log-probs only (opd.topk: 0)")


TEACHER_BLOCKS = {"teacherLogProbs": "teacher_log_probs", "teacherTopkLogProbs": "teacher_topk_log_probs", "teacherTopkIndices": "teacher_topk_indices"}


def _check_teacher_carried(batch: DecodedBatch, sample_class) -> None:
    # an array the installed slime's converter leaves behind would vanish between here and the loss: refuse the batch
    carried = carried_teacher_arrays(sample_class)
    sent = {TEACHER_BLOCKS[block] for sample in batch.samples[:1] for block in sample.arrays if block in TEACHER_BLOCKS}
    dropped = sorted(sent - carried)
    if dropped:
        raise RuntimeError(
            f"openclaw-rl bridge sent {', '.join(dropped)}, but this slime's Sample ({sample_class.__module__}) declares "
            f"{', '.join(sorted(carried))} as its only teacher field(s) and its rollout carries only declared fields into the "
            "training batch, so the top-K loss would never see them. Top-K "
            "distillation needs the OpenClaw-RL fork's slime; on this slime use opd.topk: 0."
        )


def _split_candidates(ids: torch.Tensor, lengths, sample_id: str) -> list[torch.Tensor]:
    """The hintCandidateTokens block cut at the header's candidateLengths (contracts/bridge.ts)."""
    if not isinstance(lengths, list) or not lengths or any(not isinstance(length, int) or length < 1 for length in lengths):
        raise RuntimeError(f"openclaw-rl bridge sent sample {sample_id} with hintCandidateTokens but candidateLengths {lengths!r} (a list of positive lengths)")
    if sum(lengths) != int(ids.numel()):
        raise RuntimeError(f"openclaw-rl bridge sent sample {sample_id} with candidateLengths summing to {sum(lengths)} for {ids.numel()} hintCandidateTokens")
    return list(torch.split(ids, lengths))


def _check_candidates_all_or_none(batch: DecodedBatch) -> None:
    # the fork's converter drops a sample without multimodal_train_inputs when another has one
    present = ["hintCandidateTokens" in sample.arrays for sample in batch.samples]
    if any(present) and not all(present):
        raise RuntimeError(f"openclaw-rl bridge sent a batch where only {sum(present)} of {len(present)} samples carry hintCandidateTokens; a hybrid batch has them on every sample")


def build_samples(batch: DecodedBatch, step_wise: bool = False) -> list:
    """slime Samples from a decoded batch (teacher arrays as torch tensors; the rest as lists).

    The reward slime trains with is the sample's advantage where it has one (an episode step: its reward standardised
    within its (task group, step index) bucket by the orchestrator), else its reward; metadata raw_reward keeps the
    reward itself (the fork logs it). With step_wise (the fork's --advantage-estimator step_wise) every sample also
    carries metadata.step_wise as the fork's _post_process_step_wise_rewards reads it (slime/ray/rollout.py): one
    step spanning the whole response, its value the trained reward (run with --disable-rewards-normalization: the
    buckets were already standardised over whole task groups, which a training batch may split).

    teacher_log_probs is assigned the same way on either slime: upstream's Sample declares it as a field (None when
    the batch has no teacher), the fork's takes it as a new attribute; both converters then find it.
    """
    Sample, _, _ = slime_types()
    _check_teacher_all_or_none(batch)
    _check_candidates_all_or_none(batch)
    carry = any("teacherTokens" in sample.arrays for sample in batch.samples)  # opd.teacher trainer: teacher_carriage.py
    if carry:
        _check_carriable(batch)
    else:
        _check_teacher_carried(batch, Sample)
    samples = []
    for decoded in batch.samples:
        header, arrays = decoded.header, decoded.arrays
        length = int(header["responseLength"])
        sample = Sample()
        sample.index = int(header["seq"])
        sample.group_index = int(header["seq"])
        sample.prompt = header.get("prompt", "")
        sample.response = header.get("response", "")
        sample.tokens = arrays["tokens"].tolist()
        sample.response_length = length
        sample.loss_mask = arrays["lossMask"].tolist()
        sample.rollout_log_probs = arrays["rolloutLogProbs"].tolist()
        trained_reward = float(header.get("advantage", header["reward"]))
        sample.reward = {"score": trained_reward}
        sample.status = Sample.Status.TRUNCATED if header["status"] == "truncated" else Sample.Status.COMPLETED
        sample.weight_versions = [version for version, count in header["weightVersions"] for _ in range(count)]
        sample.metadata = {
            "openclaw_id": header["id"],
            "kind": header["kind"],
            "why": header["why"],
            "approximate": header["approximate"],
            "raw_reward": float(header["reward"]),
        }
        episode = header.get("episode")
        if episode is not None:
            sample.metadata["episode"] = episode
        sampling = header.get("sampling")
        if sampling is not None:
            sample.metadata["sampling"] = sampling
        if step_wise:
            step_score = episode.get("stepScore") if episode is not None else None
            sample.metadata["step_wise"] = {
                "step_scores": [float(step_score) if step_score is not None else 0.0],
                "step_scores_with_outcome": [trained_reward],
                "step_indices": [int(episode["stepIndex"]) if episode is not None else 0],
                "step_token_spans": [[0, length]],
                "outcome_reward": float(episode["outcome"]) if episode is not None else float(header["reward"]),
            }
        if carry:
            # opd.teacher trainer: the hinted prompt + response for the trainer's teacher to score, or (a combine sample
            # without a hint) the teacher log-probs sent, travel to the trainer in multimodal_train_inputs
            teacher_carriage.attach(sample, arrays.get("teacherTokens"), arrays.get("teacherLogProbs"))
        elif "teacherLogProbs" in arrays:
            sample.teacher_log_probs = arrays["teacherLogProbs"].clone()
        if "hintCandidateTokens" in arrays:
            # method: hybrid: every hint candidate's ids (hinted prompt + response) for the trainer's teacher
            teacher_carriage.attach_candidates(sample, _split_candidates(arrays["hintCandidateTokens"], header.get("candidateLengths"), header["id"]))
        if "teacherTopkLogProbs" in arrays:
            k = int(header["topk"])
            sample.teacher_topk_log_probs = arrays["teacherTopkLogProbs"].reshape(length, k).clone()
            sample.teacher_topk_indices = arrays["teacherTopkIndices"].reshape(length, k).to(torch.int64)
        samples.append(sample)
    return samples


def generate_rollout(args, rollout_id, data_source, evaluation=False):
    """Acknowledges the batches slime has trained, then blocks until args.rollout_batch_size samples are ready and
    returns them to slime (acknowledged by a later call, once trained)."""
    global _client
    if evaluation:
        raise RuntimeError(
            "openclaw_rl.rollout.generate_rollout has no evaluation path: samples come from live users, there is no "
            "eval dataset in this mode. Remove --eval-interval / --eval-function-path from the slime arguments."
        )
    size = int(getattr(args, "rollout_batch_size", 0) or 0)
    if size < 1:
        raise ValueError(f"args.rollout_batch_size must be >= 1, got {size!r}")
    if _client is None:
        _client = BridgeClient(BridgeEndpoint.from_environment())
    _, RolloutFnTrainOutput, _ = slime_types()
    started = time.monotonic()
    connection = _Connection(_client, args)
    _acknowledge_trained(connection)
    batch = _fetch_batch(connection, int(rollout_id), size)
    step_wise = getattr(args, "advantage_estimator", None) == "step_wise"
    samples = build_samples(batch, step_wise)  # a batch that cannot be built is not held: the next request gives it back
    _returned.append((int(rollout_id), batch.header["batchId"]))
    metrics = {key: float(value) for key, value in batch.header.get("metrics", {}).items()}
    metrics["openclaw/rollout_wait_s"] = time.monotonic() - started
    _log(f"rollout {rollout_id}: {len(samples)} samples in {metrics['openclaw/rollout_wait_s']:.2f}s (batch {batch.header['batchId']})")
    return RolloutFnTrainOutput(samples=[[sample] for sample in samples], metrics=metrics)


def acknowledge_returned_batches(args=None) -> None:
    """Acknowledges every batch returned to slime so far. Call it only once the trainer has trained all of them
    (the end of a finite run: slime itself has no hook for it, so its last batch is delivered again next run)."""
    global _client
    if _client is None or not _returned:
        return
    connection = _Connection(_client, args)
    while _returned:
        rollout_id, batch_id = _returned[0]
        _acknowledge(connection, rollout_id, batch_id)
        _returned.pop(0)


def reset_for_tests() -> None:
    """Forget the module's connection and held batches (tests start several orchestrators in one process)."""
    global _client, _hello_sent
    if _client is not None:
        _client.close()
    _client = None
    _hello_sent = False
    _returned.clear()
