"""Fake megatron.core: parallel_state under its legacy alias mpu, as megatron/core/__init__.py:25-26 has it.

Nothing else of Megatron core is mirrored."""

from megatron.core import parallel_state

mpu = parallel_state
