"""The rehearsal engine's stand-in trainer: runs the REAL rollout function (openclaw_rl.rollout.generate_rollout)
in slime's train_async loop order and performs weight updates on the stand-in policy server the way slime's
Megatron sync does (pause_generation abort → new weights + version → continue_generation).

"Training" is the stand-in policy's style softmax (learner.py; method hybrid: hybrid.py) when torch
learning is on, and a sleep of --train-seconds either way; each step's loss numbers go to the bridge as slime's trainer
metrics do (openclaw_rl.trainer_metrics). The model is a stand-in. Prints one JSON line per event on stdout.
"""

from __future__ import annotations

import argparse
import importlib
import json
import os
import signal
import sys
import threading
import time
import urllib.parse
import urllib.request
from types import SimpleNamespace

HTTP_TIMEOUT_S = 30.0


def emit(event: str, **fields) -> None:
    print(json.dumps({"event": event, "time": round(time.time(), 3), **fields}), flush=True)


def http_json(method: str, url: str, body: dict | None = None) -> dict | str:
    data = json.dumps(body).encode("utf-8") if body is not None else None
    request = urllib.request.Request(url, data=data, method=method, headers={"Content-Type": "application/json"})
    with urllib.request.urlopen(request, timeout=HTTP_TIMEOUT_S) as response:
        text = response.read().decode("utf-8")
    try:
        return json.loads(text) if text else ""
    except json.JSONDecodeError:
        return text


SERVER_WAIT_S = 120.0


def wait_for_server(url: str, timeout_s: float) -> None:
    """Polls GET /health until the server answers 200; raises after timeout_s (the supervisor then reports it)."""
    deadline = time.monotonic() + timeout_s
    while True:
        try:
            with urllib.request.urlopen(url.rstrip("/") + "/health", timeout=2.0) as response:
                if response.status == 200:
                    return
        except OSError:
            pass
        if time.monotonic() > deadline:
            raise RuntimeError(f"the policy server at {url} did not answer /health within {timeout_s:.0f}s")
        time.sleep(0.1)


def torch_importable() -> bool:
    try:
        import torch  # noqa: F401
    except ImportError:
        return False
    return True


def acknowledge_only_rollout(*arguments, **keywords):
    from acknowledge_only import generate_rollout

    return generate_rollout(*arguments, **keywords)


def load_function(path: str):
    module, _, attribute = path.rpartition(".")
    return getattr(importlib.import_module(module), attribute)


class Background:
    """One rollout call on a daemon thread (slime's rollout_manager.generate.remote), awaited with .result()."""

    def __init__(self, function, *arguments):
        self._done = threading.Event()
        self._value = None
        self._error = None
        self._thread = threading.Thread(target=self._run, args=(function, arguments), daemon=True)
        self._thread.start()

    def _run(self, function, arguments) -> None:
        try:
            self._value = function(*arguments)
        except BaseException as error:  # handed to the waiting main thread
            self._error = error
        finally:
            self._done.set()

    def result(self):
        while not self._done.wait(0.2):  # short waits keep SIGTERM handling prompt
            pass
        if self._error is not None:
            raise self._error
        return self._value


def parse_arguments(argv):
    parser = argparse.ArgumentParser(description="openclaw-rl rehearsal stand-in trainer (the model is a stand-in)")
    parser.add_argument("--policy-url", required=True)
    parser.add_argument("--judge-url", required=True)
    parser.add_argument("--method", choices=("binary", "opd", "combine", "hybrid"), required=True)
    parser.add_argument("--batch-size", type=int, required=True)
    parser.add_argument("--train-seconds", type=float, default=1.0)
    parser.add_argument("--num-rollout", type=int, default=100_000_000)
    parser.add_argument("--update-weights-interval", type=int, default=1)
    parser.add_argument("--learn", choices=("auto", "on", "off"), default="auto")
    parser.add_argument("--lr", type=float, default=0.5)
    parser.add_argument("--eps-clip", type=float, default=0.2)
    parser.add_argument("--eps-clip-high", type=float, default=0.28)
    parser.add_argument("--w-rl", type=float, default=1.0)
    parser.add_argument("--w-opd", type=float, default=1.0)
    parser.add_argument("--opd-teacher", choices=("engine", "trainer"), default="engine", help="trainer: samples carry teacher tokens, scored here")
    parser.add_argument("--teacher-temperature", type=float, default=1.0)
    parser.add_argument("--hybrid-selection", choices=("sequence_optimal", "token_optimal", "shortest"), default="sequence_optimal")
    parser.add_argument("--hybrid-subset", choices=("student", "teacher", "overlap"), default="student")
    parser.add_argument("--hybrid-topk", type=int, default=4)
    parser.add_argument("--hybrid-clip", type=float, default=1.0, help="0 or less switches the clamp of teacher − old off")
    parser.add_argument("--run-dir", required=True, help="policy files go to <run-dir>/standin-policy/")
    parser.add_argument("--keep-policies", type=int, default=3, help="policy-vN.json files kept (the newest N; 0 keeps all)")
    parser.add_argument("--rollout-function-path", default="openclaw_rl.rollout.generate_rollout")
    return parser.parse_args(argv)


def slime_like_args(options) -> SimpleNamespace:
    policy = urllib.parse.urlparse(options.policy_url)
    judge = urllib.parse.urlparse(options.judge_url)
    return SimpleNamespace(
        sglang_router_ip=policy.hostname,
        sglang_router_port=policy.port,
        prm_router_ip=judge.hostname,
        prm_router_port=judge.port,
        rollout_batch_size=options.batch_size,
        n_samples_per_prompt=1,
        num_steps_per_rollout=1,
        global_batch_size=options.batch_size,
        reward_key="score",
        loss_type="custom_loss" if options.method != "binary" else "policy_loss",
        eps_clip=options.eps_clip,
        eps_clip_high=options.eps_clip_high,
    )


def make_learner(options):
    if options.learn == "off":
        return None
    try:
        import torch  # noqa: F401
    except ImportError:
        if options.learn == "on":
            raise SystemExit("--learn on needs torch, and /usr/bin/python3 cannot import it")
        return None
    from learner import StyleLearner

    state = http_json("GET", options.policy_url.rstrip("/") + "/standin/state")
    responder = state.get("responder") if isinstance(state, dict) else None
    if not isinstance(responder, dict) or "style_token_ids" not in responder:
        raise SystemExit(f"{options.policy_url} is not the stand-in policy (GET /standin/state has no style_token_ids)")
    return StyleLearner(
        responder["style_token_ids"], responder["marker_ids"], options.method,
        lr=options.lr, eps_clip=options.eps_clip, eps_clip_high=options.eps_clip_high, w_rl=options.w_rl, w_opd=options.w_opd,
        logits=responder.get("logits"),
        approach_token_ids=responder.get("approach_token_ids", ()),
        approach_marker_ids=responder.get("approach_marker_ids", ()),
        approach_logits=responder.get("approach_logits"),
    )


class WeightSync:
    """slime's update_weights as seen by SGLang: pause (abort in-flight), load weights with a new version, continue."""

    def __init__(self, policy_url: str, run_dir: str, learner, keep_policies: int = 3):
        self.policy_url = policy_url.rstrip("/")
        self.keep_policies = keep_policies
        self.folder = os.path.join(run_dir, "standin-policy")
        self.learner = learner
        self.version = 0

    def update(self) -> None:
        started = time.monotonic()
        self.version += 1
        version = str(self.version)
        http_json("POST", self.policy_url + "/pause_generation", {"mode": "abort"})
        try:
            if self.learner is not None:
                path = os.path.join(self.folder, f"policy-v{version}.json")
                self.learner.write_policy_file(path)
                answer = http_json("POST", self.policy_url + "/update_weights_from_disk", {"model_path": path, "weight_version": version})
                if not isinstance(answer, dict) or not answer.get("success"):
                    raise RuntimeError(f"update_weights_from_disk failed: {answer}")
                stale = os.path.join(self.folder, f"policy-v{self.version - self.keep_policies}.json")
                if self.keep_policies > 0 and os.path.exists(stale):
                    os.remove(stale)
            else:
                http_json("POST", self.policy_url + "/update_weight_version", {"new_version": version})
        finally:
            http_json("POST", self.policy_url + "/continue_generation", {})
        fields = {"version": version, "seconds": round(time.monotonic() - started, 3)}
        if self.learner is not None:
            fields["probabilities"] = self.learner.probabilities()
        emit("weights-updated", **fields)


class StandinTeacher:
    """The frozen teacher of opd.teacher trainer: the stand-in teacher model's one forward pass over each sample's
    teacher tokens (hinted prompt + response), reached through the judge stand-in's /standin/teacher_forward (the
    stand-in has no weights to load here), at the rollout temperature; the response's values become
    teacher_log_probs. A sample that carries teacher log-probs instead (combine without a hint: its rollout's) keeps them,
    as in the real trainer's teacher (openclaw_rl.trainer_teacher.fill_teacher_values)."""

    def __init__(self, judge_url: str, temperature: float):
        self.url = judge_url.rstrip("/") + "/standin/teacher_forward"
        self.temperature = temperature

    def fill(self, samples) -> int:
        import torch

        from openclaw_rl.trainer_teacher import TeacherValues, fill_teacher_values

        def values_of(tokens, response_length: int) -> TeacherValues:
            ids = tokens.tolist()
            answer = http_json("POST", self.url, {"input_ids": ids, "temperature": self.temperature})
            return TeacherValues(torch.tensor(answer["token_logprobs"][len(ids) - response_length:], dtype=torch.float32))

        return fill_teacher_values(samples, values_of)


class StandinHybridTeacher:
    """method hybrid's frozen teacher: the judge stand-in's teacher model (the stand-in policy's base, uniform styles,
    reading the candidate's hint) through /standin/teacher_forward. Its style row at a decision comes from one forward
    per style with that style's id put at the decision positions (the stand-in's teacher scores a decision from its
    prompt alone), renormalised over the styles."""

    def __init__(self, judge_url: str, temperature: float, style_ids):
        self.url = judge_url.rstrip("/") + "/standin/teacher_forward"
        self.temperature = temperature
        self.style_ids = list(style_ids)
        self.forwards = 0

    def styles(self, ids: list[int], positions: list[int]) -> list[list[float]]:
        import torch

        columns = []
        for style_id in self.style_ids:
            substituted = list(ids)
            for position in positions:
                substituted[position] = style_id
            answer = http_json("POST", self.url, {"input_ids": substituted, "temperature": self.temperature})
            self.forwards += 1
            columns.append([answer["token_logprobs"][position] for position in positions])
        rows = torch.tensor(columns, dtype=torch.float32).T  # [positions, styles]
        return torch.log_softmax(rows, dim=-1).tolist()


class StepMetrics:
    """Each step's loss numbers to the orchestrator's bridge, through the wrapper slime's `log` gets in a real run
    (openclaw_rl.trainer_metrics), keyed `train/<name>` with `train/step` the rollout id; off without a bridge."""

    def __init__(self):
        self.forwarder = None
        if os.environ.get("OPENCLAW_RL_BRIDGE"):
            from openclaw_rl.bridge_client import BridgeClient, BridgeEndpoint
            from openclaw_rl.trainer_metrics import StepMetricsForwarder

            self.forwarder = StepMetricsForwarder(lambda *_arguments, **_keywords: None, BridgeClient(BridgeEndpoint.from_environment()))

    def send(self, step: int, numbers: dict) -> None:
        if self.forwarder is not None and numbers:
            self.forwarder(None, {"train/step": step, **{f"train/{name}": value for name, value in numbers.items()}}, "train/step")


def train(rollout_id: int, output, learner, train_seconds: float, teacher: StandinTeacher | None = None, hybrid=None, metrics: StepMetrics | None = None) -> None:
    started = time.monotonic()
    samples = [sample for group in output.samples for sample in group]
    forwards = teacher.fill(samples) if teacher is not None else 0
    if hybrid is not None and learner is not None:
        from hybrid import hybrid_step

        hybrid_teacher, hybrid_loss = hybrid
        before = hybrid_teacher.forwards
        from_learner = hybrid_step(learner, samples, hybrid_teacher.styles, hybrid_loss)
        from_learner["teacher_forwards"] = hybrid_teacher.forwards - before
    else:
        from_learner = learner.step(samples) if learner is not None else {}
    if metrics is not None and "loss" in from_learner:
        metrics.send(rollout_id, from_learner.get("hybrid") or {"loss": from_learner["loss"]})
    rewards = [float(sample.reward.get("score", 0.0)) if isinstance(sample.reward, dict) else float(sample.reward or 0.0) for sample in samples]
    remaining = train_seconds - (time.monotonic() - started)
    if remaining > 0:
        time.sleep(remaining)
    emit(
        "trained",
        rollout_id=rollout_id,
        samples=len(samples),
        reward_mean=round(sum(rewards) / len(rewards), 4) if rewards else None,
        kinds=sorted({(sample.metadata or {}).get("kind", "?") for sample in samples}),
        metrics={key: value for key, value in (output.metrics or {}).items() if isinstance(value, (int, float))},
        **({"teacher_forwards": forwards} if teacher is not None else {}),
        **from_learner,
        **({"probabilities": learner.probabilities()} if learner is not None else {}),
    )


def main(argv=None) -> int:
    options = parse_arguments(sys.argv[1:] if argv is None else argv)
    signal.signal(signal.SIGTERM, lambda *_: sys.exit(0))
    if options.learn != "on" and not torch_importable():
        # the real rollout function builds torch tensors: without torch, fetch and acknowledge batches only
        print("[standin-trainer] torch is not importable by this Python: no learning; batches are only fetched over the bridge and acknowledged", flush=True)
        options.learn = "off"
        generate_rollout = acknowledge_only_rollout
    else:
        generate_rollout = load_function(options.rollout_function_path)
    wait_for_server(options.policy_url, SERVER_WAIT_S)  # slime creates the engines before the trainer talks to them
    learner = make_learner(options)
    print(
        f"[standin-trainer] the model is a stand-in: this trainer runs the real {options.rollout_function_path} in slime's "
        f"train_async order and {'trains a style softmax with torch' if learner else 'only sleeps'} ({options.method}, batch {options.batch_size})",
        flush=True,
    )
    args = slime_like_args(options)
    sync = WeightSync(options.policy_url, options.run_dir, learner, options.keep_policies)
    teacher = StandinTeacher(options.judge_url, options.teacher_temperature) if options.opd_teacher == "trainer" and options.method != "hybrid" and learner is not None else None
    hybrid = None
    if options.method == "hybrid" and learner is not None:
        from hybrid import HybridLoss

        loss = HybridLoss(options.hybrid_selection, options.hybrid_subset, options.hybrid_topk, options.hybrid_clip, options.w_rl, options.w_opd)
        hybrid = (StandinHybridTeacher(options.judge_url, options.teacher_temperature, learner.style_token_ids), loss)
    metrics = StepMetrics()
    sync.update()  # slime's initial actor_model.update_weights()
    pending = Background(generate_rollout, args, 0, None)
    current = None
    for rollout_id in range(options.num_rollout):
        if pending is not None:
            current = pending.result()
        pending = Background(generate_rollout, args, rollout_id + 1, None) if rollout_id + 1 < options.num_rollout else None
        train(rollout_id, current, learner, options.train_seconds, teacher, hybrid, metrics)
        if (rollout_id + 1) % options.update_weights_interval == 0:
            if pending is not None:
                current = pending.result()  # wait until batch r+1 is complete, then push w_{r+1}
                pending = None
            sync.update()
    emit("done", rollouts=options.num_rollout)
    return 0


if __name__ == "__main__":
    sys.exit(main())
