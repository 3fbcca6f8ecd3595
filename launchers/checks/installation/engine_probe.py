"""What slime and SGLang installation the slime environment's Python sees, as one JSON line on stdout.
Reads facts only (imports, dataclass fields, argparse options, source markers); starts nothing and judges nothing.

Run as `python engine_probe.py --slime-root ROOT` with the PYTHONPATH the slime job gets. The slime checkout is read
as source (its arguments.py by AST: importing it needs Megatron and a GPU stack); SGLang is imported as slime imports
it (ServerArgs and ServerArgs.add_cli_args, from which slime derives its --sglang-* flags). The commit is git's job
(the caller runs it). Every section catches its own failure, so the line is always printed.
"""

import argparse
import ast
import contextlib
import dataclasses
import importlib
import importlib.util
import json
import os
import sys

REPORT_VERSION = 1

# Options whose presence in slime/utils/arguments.py tells the fork from upstream slime.
SLIME_MARKER_OPTIONS = ("--prm-enable", "--distill-topk", "--use-opd", "--opd-type", "--opd-kl-coef")
# SGLang CLI options behind slime's --sglang-stream-output / --sglang-incremental-streaming-output.
SGLANG_STREAM_OPTIONS = ("--stream-output", "--incremental-streaming-output")
SGLANG_STREAM_FIELDS = ("stream_output", "incremental_streaming_output")
# The helper that makes incremental streaming slice the log-probs too (SGLang 3178f395, v0.5.11).
LOG_PROB_SLICING_MARKER = "_slice_streaming_output_meta_info"


def describe(error):
    text = (type(error).__name__ + ": " + str(error)).strip().splitlines()
    return (text[0] if text else type(error).__name__)[:300]


def string_constant(node):
    if isinstance(node, ast.Constant) and isinstance(node.value, str):
        return node.value
    return None


def string_list(node):
    if not isinstance(node, (ast.List, ast.Tuple)):
        return None
    values = [string_constant(element) for element in node.elts]
    return values if all(value is not None for value in values) else None


def read_slime_arguments(path):
    """Option strings of every add_argument call, and the choices of the two options that differ by flavour."""
    with open(path, encoding="utf-8") as handle:
        tree = ast.parse(handle.read(), filename=path)
    options = set()
    choices = {}
    for node in ast.walk(tree):
        if not (isinstance(node, ast.Call) and isinstance(node.func, ast.Attribute) and node.func.attr == "add_argument"):
            continue
        names = [string_constant(argument) for argument in node.args]
        names = [name for name in names if name and name.startswith("--")]
        options.update(names)
        for keyword in node.keywords:
            if keyword.arg == "choices":
                for name in names:
                    listed = string_list(keyword.value)
                    if listed is not None:
                        choices[name] = listed
    return {
        "markers": {option: option in options for option in SLIME_MARKER_OPTIONS},
        "advantage_estimators": choices.get("--advantage-estimator"),
        "train_backends": choices.get("--train-backend"),
    }


def probe_slime(root):
    report = {
        "root": root,
        "root_exists": os.path.isdir(root),
        "train_async": os.path.isfile(os.path.join(root, "train_async.py")),
        "importable": False,
        "error": None,
        "package_dir": None,
        "namespace": False,
        "nested_checkout": None,
        "arguments": None,
        "arguments_error": None,
        "fsdp_backend": None,
    }
    try:
        module = importlib.import_module("slime")
    except BaseException as error:
        report["error"] = describe(error)
        return report
    report["importable"] = True
    locations = list(getattr(module, "__path__", []))
    if getattr(module, "__file__", None) is None:
        # A folder without __init__.py (e.g. the OpenClaw-RL checkout, whose slime/ holds the real checkout).
        report["namespace"] = True
        report["package_dir"] = locations[0] if locations else None
        for location in locations:
            if os.path.isfile(os.path.join(location, "slime", "__init__.py")):
                report["nested_checkout"] = location
                break
        return report
    package_dir = os.path.dirname(os.path.abspath(module.__file__))
    report["package_dir"] = package_dir
    report["fsdp_backend"] = os.path.isdir(os.path.join(package_dir, "backends", "fsdp_utils"))
    try:
        report["arguments"] = read_slime_arguments(os.path.join(package_dir, "utils", "arguments.py"))
    except BaseException as error:
        report["arguments_error"] = describe(error)
    return report


def server_args_options(server_args_class):
    """The CLI options SGLang's own parser defines (slime re-adds each with the --sglang- prefix)."""
    parser = argparse.ArgumentParser(add_help=False)
    server_args_class.add_cli_args(parser)
    options = {}
    for action in parser._actions:
        for option in action.option_strings:
            options[option] = {"dest": action.dest, "choices": list(action.choices) if action.choices is not None else None}
    return options


def probe_sglang():
    report = {
        "importable": False,
        "error": None,
        "version": None,
        "package_dir": None,
        "fields": None,
        "fields_error": None,
        "options": None,
        "options_error": None,
        "tool_call_parsers": None,
        "log_prob_slicing": None,
        "log_prob_slicing_error": None,
    }
    try:
        module = importlib.import_module("sglang")
    except BaseException as error:
        report["error"] = describe(error)
        return report
    report["importable"] = True
    version = getattr(module, "__version__", None)
    report["version"] = str(version) if version is not None else None
    report["package_dir"] = os.path.dirname(os.path.abspath(module.__file__)) if getattr(module, "__file__", None) else None
    try:
        server_args = importlib.import_module("sglang.srt.server_args").ServerArgs
        names = {field.name for field in dataclasses.fields(server_args)}
        report["fields"] = {name: name in names for name in SGLANG_STREAM_FIELDS}
    except BaseException as error:
        report["fields_error"] = describe(error)
        server_args = None
    if server_args is not None:
        try:
            options = server_args_options(server_args)
            report["options"] = {option: (options[option]["dest"] if option in options else None) for option in SGLANG_STREAM_OPTIONS}
            parser = options.get("--tool-call-parser")
            report["tool_call_parsers"] = [name for name in parser["choices"] if name != "auto"] if parser and parser["choices"] else None
        except BaseException as error:
            report["options_error"] = describe(error)
    try:
        spec = importlib.util.find_spec("sglang.srt.managers.tokenizer_manager")
        if spec is None or not spec.origin:
            raise FileNotFoundError("sglang.srt.managers.tokenizer_manager not found")
        with open(spec.origin, encoding="utf-8") as handle:
            report["log_prob_slicing"] = LOG_PROB_SLICING_MARKER in handle.read()
    except BaseException as error:
        report["log_prob_slicing_error"] = describe(error)
    return report


def main():
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--slime-root", required=True)
    arguments = parser.parse_args()
    # Imports may print (warnings, banners); only the report goes to stdout.
    with contextlib.redirect_stdout(sys.stderr):
        report = {
            "report_version": REPORT_VERSION,
            "python": {"executable": sys.executable, "version": ".".join(str(part) for part in sys.version_info[:3])},
            "slime": probe_slime(os.path.abspath(arguments.slime_root)),
            "sglang": probe_sglang(),
        }
    sys.stdout.write(json.dumps(report) + "\n")
    sys.stdout.flush()


if __name__ == "__main__":
    main()
