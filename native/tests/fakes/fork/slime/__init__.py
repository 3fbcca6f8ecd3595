"""Fake of the OpenClaw-RL fork's slime (Gen-Verse/OpenClaw-RL 0d034dd, slime/slime/) package slime for openclaw_rl tests: only what openclaw_rl touches,
with the real signatures (tests/fixtures/slime_signatures.json)."""
