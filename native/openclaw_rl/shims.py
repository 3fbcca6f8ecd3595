"""No-op shims that keep slime's --custom-generate-function-path / --custom-rm-path valid.

In openclaw-rl every training sample comes from the proxy through the bridge, so slime's default rollout
(the only caller of these) never runs for training. Owns nothing else.
"""

from __future__ import annotations


async def generate(args, sample, sampling_params, evaluation=False):
    raise RuntimeError(
        "openclaw_rl.shims.generate was called: in openclaw-rl samples come from the proxy through the bridge, "
        "so slime must use --rollout-function-path openclaw_rl.rollout.generate_rollout and run no eval rollouts"
    )


def _score(sample) -> dict:
    reward = getattr(sample, "reward", None)
    if isinstance(reward, dict) and "score" in reward:
        return {"score": float(reward["score"])}
    if isinstance(reward, (int, float)):
        return {"score": float(reward)}
    return {"score": 0.0}


async def reward(args, sample_or_samples, **kwargs):
    """The reward the orchestrator already judged, as {"score": r} (a list of them for a group)."""
    if isinstance(sample_or_samples, list):
        return [_score(sample) for sample in sample_or_samples]
    return _score(sample_or_samples)
