"""openclaw_rl: the slime plugin of openclaw-rl (rollout function, shims, custom losses).

Standard library + torch only; slime is imported inside the functions that need it, so the package loads
(and its tests run) without slime.
"""

__all__ = ["rollout", "shims", "losses", "loss_math"]
