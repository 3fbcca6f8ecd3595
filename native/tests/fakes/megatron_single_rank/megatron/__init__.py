"""Fake Megatron-LM for openclaw_rl tests: one rank, no tensor or context parallelism.

Only megatron.core.mpu's group queries that slime's helpers and openclaw_rl's losses call."""
