"""slime's --custom-megatron-init-path entry (one function, called with args in every Megatron trainer process once
Megatron is initialised; where, in both flavours: native/tests/fixtures/slime_citations.json).

Installs what the recipe asked of the trainer: always the step metrics forwarder (trainer_metrics.py); the
trainer-side teacher (slime_teacher.py; with it the hybrid's rows, slime_hybrid.py) when the custom config says
openclaw_rl_teacher: trainer, which the hybrid loss needs.
"""

from __future__ import annotations

from . import slime_teacher, trainer_metrics

TEACHER_KEY = "openclaw_rl_teacher"


def install(args) -> list[str]:
    """Returns what was installed, for the log."""
    teacher = getattr(args, TEACHER_KEY, "engine")
    if teacher not in ("engine", "trainer"):
        raise slime_teacher.TrainerTeacherError(f"openclaw-rl: {TEACHER_KEY} is {teacher!r} in slime's custom config; expected engine or trainer")
    if "hybrid_loss_function" in (getattr(args, "custom_loss_function_path", None) or "") and teacher != "trainer":
        raise slime_teacher.TrainerTeacherError(f"openclaw-rl: the hybrid loss needs the trainer's teacher for its rows; {TEACHER_KEY} is {teacher!r} (set it to trainer)")
    installed = [f"metrics via {', '.join(trainer_metrics.install(args)) or 'nothing'}"]
    if teacher == "trainer":
        actor_class = slime_teacher.install(args)
        installed.append(f"trainer teacher on {actor_class.__name__}.train_actor (weights from {args.ref_load})")
    return installed
