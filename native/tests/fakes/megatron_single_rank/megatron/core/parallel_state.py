"""Fake megatron.core.parallel_state for a single rank (TP = CP = 1), signatures as parallel_state.py in the
fork's vendored Megatron-LM (0d034dd, :1365, :1739) and Megatron-LM 1dcf0daf (:1392, :1782). No process groups exist."""

from __future__ import annotations


def get_tensor_model_parallel_group(check_initialized=True):
    # a single rank has no tensor-parallel group; slime's helpers pass it through to the vocab-parallel math
    return None


def get_context_parallel_world_size():
    return 1
