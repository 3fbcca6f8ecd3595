# Stand-in for the `openai` package: terminal-rl/custom_types.py imports two type names from it, used only as
# annotations. Nothing else of openai is here.
