# Stand-in: the type name terminal-rl/custom_types.py imports (an annotation only).
from typing import Any, Dict

ChatCompletionMessageParam = Dict[str, Any]
