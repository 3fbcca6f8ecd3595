# Stand-in: the type name terminal-rl/custom_types.py imports (an annotation only).


class ChatCompletion:
    pass
