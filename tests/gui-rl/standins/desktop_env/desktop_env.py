# Stand-in for desktop_env.desktop_env.DesktopEnv, written for tests: a desktop with one text editor whose document
# the pyautogui actions typewrite/write and press('enter'|'backspace') change; WAIT does nothing, DONE and FAIL end the
# episode (done), as OSWorld's special actions do. The observation is OSWorld's shape: a screenshot (a few bytes here),
# the accessibility tree when require_a11y_tree (else None, as OSWorld gives it), the instruction. evaluate: 1 when the
# document equals the task config's evaluator.expected, or, after FAIL, when the evaluator's func is "infeasible".
import ast
import re

SCREENSHOT = b"\x89PNG\r\n\x1a\n stand-in screenshot"


class _Controller:
    def start_recording(self):
        return None

    def end_recording(self, out_path):
        return None


class DesktopEnv:
    def __init__(self, require_a11y_tree=True, **options):
        self.require_a11y_tree = require_a11y_tree
        self.options = options
        self.controller = _Controller()
        self.task_config = None
        self.document = ""
        self.last_action = None

    def reset(self, task_config=None, seed=None, options=None):
        if task_config is not None and "evaluator" not in task_config:
            raise ValueError("task config has no evaluator")
        self.task_config = task_config
        self.document = ""
        self.last_action = None
        return self._get_obs()

    def _get_obs(self):
        tree = f'<desktop>\n  <window name="Text Editor">\n    <text-area name="document">{self.document}</text-area>\n  </window>\n</desktop>' if self.require_a11y_tree else None
        instruction = (self.task_config or {}).get("instruction")
        return {"screenshot": SCREENSHOT, "accessibility_tree": tree, "terminal": None, "instruction": instruction}

    def step(self, action, pause=2):
        self.last_action = action
        info = {}
        if action in ("DONE", "FAIL"):
            return self._get_obs(), 0, True, {"done": True}
        if action != "WAIT":
            match = re.fullmatch(r"pyautogui\.(typewrite|write|press)\((.*)\)", str(action).strip())
            if not match:
                info = {"error": f"the stand-in desktop does not know {action!r}"}
            else:
                argument = ast.literal_eval(match.group(2))
                if match.group(1) != "press":
                    self.document += str(argument)
                elif argument == "enter":
                    self.document += "\n"
                elif argument == "backspace":
                    self.document = self.document[:-1]
        return self._get_obs(), 0, False, info

    def evaluate(self):
        evaluator = (self.task_config or {}).get("evaluator", {})
        if self.last_action == "FAIL":
            return 1.0 if evaluator.get("func") == "infeasible" else 0.0
        return 1.0 if self.document == evaluator.get("expected") else 0.0

    def close(self):
        return None
