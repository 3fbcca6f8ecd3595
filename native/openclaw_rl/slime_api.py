"""How openclaw_rl's losses call slime's helpers, decided once from the parameters the installed slime declares.

Owns: importing get_log_probs_and_entropy, get_responses and policy_loss_function (slime.backends.megatron_utils.loss)
and compute_log_probs (slime.utils.ppo_utils), checking each signature against the shapes the two known slimes have, and
calling them with the keyword arguments that shape takes. Ignores the loss math and the recipe's flavour name: only
what the installed slime offers decides. The shapes are recorded, file:line, in
native/tests/fixtures/slime_signatures.json, per flavour with the commit it mirrors.

Run ``python -m openclaw_rl.slime_api`` in slime's environment to see the binding (or the mismatch) before training.
"""

from __future__ import annotations

import importlib
import inspect
from collections.abc import Callable, Iterator
from dataclasses import dataclass, field

import torch

LOSS_MODULE = "slime.backends.megatron_utils.loss"
PPO_UTILS_MODULE = "slime.utils.ppo_utils"
FORK = "OpenClaw-RL fork (Gen-Verse/OpenClaw-RL 0d034dd)"
UPSTREAM = "upstream slime (THUDM/slime 624b824)"
RESPONSE_KEYWORDS = ("args", "unconcat_tokens", "total_lengths", "response_lengths")
POLICY_LOSS_PARAMETERS = ("args", "batch", "logits", "sum_of_sample_mean")

EXPECTED = {
    "get_log_probs_and_entropy": (
        "get_log_probs_and_entropy(logits, *, args, unconcat_tokens, total_lengths, response_lengths, with_entropy=False, "
        f"non_loss_data=True, max_seq_lens=None) as in the {FORK}, slime/slime/backends/megatron_utils/loss.py, or the "
        f"same without max_seq_lens (with top_p_token_ids=None, top_p_token_offsets=None) as in {UPSTREAM}, "
        "slime/backends/megatron_utils/loss.py"
    ),
    "get_responses": (
        "get_responses(logits, *, args, unconcat_tokens, total_lengths, response_lengths, max_seq_lens=None), which always "
        f"divides by rollout_temperature, as in the {FORK}, slime/slime/backends/megatron_utils/loss.py, or "
        f"get_responses(..., apply_temperature=True) as in {UPSTREAM}, slime/backends/megatron_utils/loss.py"
    ),
    "policy_loss_function": (
        f"policy_loss_function(args, batch, logits, sum_of_sample_mean) returning (loss, dict of 0-d tensors), as in the {FORK}, "
        "slime/slime/backends/megatron_utils/loss.py"
    ),
    "compute_log_probs": (
        f"compute_log_probs(logits, tokens, process_group) returning [T, 1] log-probs, as in the {FORK}, "
        "slime/slime/utils/ppo_utils.py"
    ),
}


class SlimeApiMismatch(RuntimeError):
    """The installed slime lacks a helper openclaw_rl needs, or declares it with parameters no known slime has."""

    def __init__(self, helper: str, location: str, problem: str, hint: str = ""):
        message = f"slime helper {helper} ({location}): {problem}. openclaw_rl expects {EXPECTED[helper]}"
        super().__init__(f"{message}. {hint}" if hint else message)
        self.helper = helper
        self.location = location


def _import(module_name: str, helper: str):
    try:
        return importlib.import_module(module_name)
    except ImportError as error:
        raise SlimeApiMismatch(helper, module_name, f"the module cannot be imported ({error})") from error


def _location(module) -> str:
    return f"{module.__name__} in {getattr(module, '__file__', None) or 'an unknown file'}"


def _parameters(function: Callable) -> dict[str, inspect.Parameter]:
    return dict(inspect.signature(function).parameters)


def _check_call(helper: str, location: str, parameters: dict[str, inspect.Parameter], keywords: tuple[str, ...]) -> None:
    """logits first and positional, every keyword we pass accepted by name, nothing else required."""
    ordered = list(parameters.values())
    positional = (inspect.Parameter.POSITIONAL_ONLY, inspect.Parameter.POSITIONAL_OR_KEYWORD)
    if not ordered or ordered[0].name != "logits" or ordered[0].kind not in positional:
        raise SlimeApiMismatch(helper, location, f"its parameters are {list(parameters)}, the first is not a positional logits")
    by_keyword = (inspect.Parameter.POSITIONAL_OR_KEYWORD, inspect.Parameter.KEYWORD_ONLY)
    for name in keywords:
        if name not in parameters or parameters[name].kind not in by_keyword:
            raise SlimeApiMismatch(helper, location, f"it has no keyword parameter {name} (its parameters are {list(parameters)})")
    variadic = (inspect.Parameter.VAR_POSITIONAL, inspect.Parameter.VAR_KEYWORD)
    for parameter in ordered[1:]:
        if parameter.default is inspect.Parameter.empty and parameter.kind not in variadic and parameter.name not in keywords:
            raise SlimeApiMismatch(helper, location, f"it requires {parameter.name}, which openclaw_rl does not know how to fill")


@dataclass(frozen=True)
class BoundHelper:
    """One of slime's response helpers and the keyword arguments its signature takes besides the batch's."""

    name: str
    function: Callable
    location: str
    passes_max_seq_lens: bool
    fixed_keywords: dict = field(default_factory=dict)

    def call(self, logits: torch.Tensor, args, batch: dict, **keywords):
        values = {"args": args, "unconcat_tokens": batch["unconcat_tokens"], "total_lengths": batch["total_lengths"], "response_lengths": batch["response_lengths"]}
        if self.passes_max_seq_lens:
            values["max_seq_lens"] = batch.get("max_seq_lens", None)
        return self.function(logits, **values, **self.fixed_keywords, **keywords)

    def describe(self) -> str:
        passed = ["max_seq_lens from the batch"] if self.passes_max_seq_lens else ["no max_seq_lens"]
        passed += [f"{name}={value!r}" for name, value in self.fixed_keywords.items()]
        return f"{self.name} ({self.location}): " + ", ".join(passed)


def _bind_log_probs(module) -> BoundHelper:
    name, location = "get_log_probs_and_entropy", _location(module)
    function = getattr(module, name, None)
    if function is None:
        raise SlimeApiMismatch(name, location, "the module has no such function")
    parameters = _parameters(function)
    _check_call(name, location, parameters, RESPONSE_KEYWORDS + ("with_entropy",))
    return BoundHelper(name, function, location, passes_max_seq_lens="max_seq_lens" in parameters)


def _bind_responses(module) -> BoundHelper:
    name, location = "get_responses", _location(module)
    function = getattr(module, name, None)
    if function is None:
        raise SlimeApiMismatch(name, location, "the module has no such function")
    parameters = _parameters(function)
    _check_call(name, location, parameters, RESPONSE_KEYWORDS)
    fork_shape, upstream_shape = "max_seq_lens" in parameters, "apply_temperature" in parameters
    if fork_shape == upstream_shape:
        which = "both max_seq_lens and apply_temperature" if fork_shape else "neither max_seq_lens nor apply_temperature"
        raise SlimeApiMismatch(name, location, f"it declares {which}, so openclaw_rl cannot tell whether it divides by rollout_temperature")
    # the fork's get_responses always divides by rollout_temperature; upstream's does when asked (the default)
    return BoundHelper(name, function, location, passes_max_seq_lens=fork_shape, fixed_keywords={} if fork_shape else {"apply_temperature": True})


def _bind_token_log_probs(module) -> tuple[Callable | None, str]:
    name, location = "compute_log_probs", _location(module)
    function = getattr(module, name, None)
    if function is None:
        return None, location
    ordered = list(_parameters(function).values())
    positional = [p for p in ordered if p.kind in (inspect.Parameter.POSITIONAL_ONLY, inspect.Parameter.POSITIONAL_OR_KEYWORD)]
    required = [p for p in ordered if p.default is inspect.Parameter.empty and p.kind not in (inspect.Parameter.VAR_POSITIONAL, inspect.Parameter.VAR_KEYWORD)]
    if len(positional) < 3 or len(required) > 3 or any(p not in positional for p in required):
        raise SlimeApiMismatch(name, location, f"its parameters are {[p.name for p in ordered]}, not three positional (logits, tokens, process_group)")
    return function, location


def _bind_policy_loss(module) -> Callable | None:
    name, location = "policy_loss_function", _location(module)
    function = getattr(module, name, None)
    if function is None:
        return None
    names = [p.name for p in _parameters(function).values()]
    if names != list(POLICY_LOSS_PARAMETERS):
        raise SlimeApiMismatch(name, location, f"its parameters are {names}, not {list(POLICY_LOSS_PARAMETERS)}")
    return function


@dataclass(frozen=True)
class SlimeApi:
    """slime's helpers as the losses use them. compute_log_probs is None where slime has none (upstream);
    policy_loss (slime's own PPO loss) where the loss module has none."""

    log_probs: BoundHelper
    responses: BoundHelper
    compute_log_probs: Callable | None
    compute_log_probs_location: str
    policy_loss: Callable | None = None
    policy_loss_location: str = LOSS_MODULE

    def response_log_probs(self, logits: torch.Tensor, args, batch: dict, with_entropy: bool) -> dict[str, list[torch.Tensor]]:
        """{"log_probs": [R] per sample, "entropy": [R] per sample when with_entropy}, at rollout_temperature."""
        output = self.log_probs.call(logits, args, batch, with_entropy=with_entropy)
        if not (isinstance(output, tuple) and len(output) == 2 and isinstance(output[1], dict) and "log_probs" in output[1]):
            raise SlimeApiMismatch(self.log_probs.name, self.log_probs.location, f"it returned {type(output).__name__}, not (tensor, {{'log_probs': ...}})")
        return output[1]

    def response_logits(self, logits: torch.Tensor, args, batch: dict) -> Iterator[tuple[torch.Tensor, torch.Tensor]]:
        """(logits [R, V] divided by rollout_temperature, tokens [R]) per sample."""
        return self.responses.call(logits, args, batch)

    def require_compute_log_probs(self) -> Callable:
        if self.compute_log_probs is None:
            raise SlimeApiMismatch(
                "compute_log_probs",
                self.compute_log_probs_location,
                "the module has no such function, which the top-K distillation loss needs",
                "Upstream slime has none, and its rollout never carries teacher_topk_* into the batch either: use opd.topk: 0 there.",
            )
        return self.compute_log_probs

    def require_policy_loss(self) -> Callable:
        if self.policy_loss is None:
            raise SlimeApiMismatch("policy_loss_function", self.policy_loss_location, "the module has no such function, which openclaw_rl.losses.policy_loss_function wraps")
        return self.policy_loss

    def describe(self) -> str:
        token = f"compute_log_probs ({self.compute_log_probs_location}): " + ("present" if self.compute_log_probs else "absent, the top-K loss refuses to run")
        policy = f"policy_loss_function ({self.policy_loss_location}): " + ("present" if self.policy_loss else "absent, openclaw_rl.losses.policy_loss_function refuses to run")
        return "\n".join([self.log_probs.describe(), self.responses.describe(), token, policy])


def bind_slime_api() -> SlimeApi:
    """Imports slime's helpers and checks their signatures; raises SlimeApiMismatch naming the helper, its file and
    what was expected when the installed slime has neither known shape."""
    loss_module = _import(LOSS_MODULE, "get_log_probs_and_entropy")
    ppo_utils = _import(PPO_UTILS_MODULE, "compute_log_probs")
    compute_log_probs, compute_log_probs_location = _bind_token_log_probs(ppo_utils)
    return SlimeApi(
        _bind_log_probs(loss_module), _bind_responses(loss_module), compute_log_probs, compute_log_probs_location, _bind_policy_loss(loss_module), _location(loss_module)
    )


if __name__ == "__main__":
    print(bind_slime_api().describe())
