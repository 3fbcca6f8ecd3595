"""Fake of upstream slime (THUDM/slime 624b824, slime/) package slime.backends.megatron_utils for openclaw_rl tests: only what openclaw_rl touches,
with the real signatures (tests/fixtures/slime_signatures.json)."""
