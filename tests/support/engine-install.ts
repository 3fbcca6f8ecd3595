// Fake slime and SGLang installations for the real engine_probe.py: a venv of /usr/bin/python3 whose site-packages
// hold a fake SGLang, and a slime git checkout, shaped after tests/fixtures/engine-installs/facts.json (real
// commits, file:line). Only what the probe reads is there; the rest (torch, Megatron, the servers) is not.
import { mkdirSync, readdirSync, readFileSync, writeFileSync } from "node:fs";
import path from "node:path";
import { fileURLToPath } from "node:url";
import { execa } from "execa";

const FACTS_FILE = fileURLToPath(new URL("../fixtures/engine-installs/facts.json", import.meta.url));

interface OptionFact {
  option: string;
  choices?: string[];
  parser: "parser" | "temp_parser";
  source: string;
}
interface SlimeFacts {
  repository: string;
  commit: string;
  checkout_in_repository: string;
  arguments_imports: string[];
  options: OptionFact[];
  backends: string[];
}
interface StreamOptionFact {
  option: string;
  dest: string;
  action: "store_true" | "deprecated_store_true";
  source: string;
}
interface SglangFacts {
  commit: string;
  version: string;
  version_file: string;
  stream_field: string;
  stream_options: StreamOptionFact[];
  /** Where DeprecatedStoreTrueAction lives (server_args.py itself before the arg_groups split), null: nowhere. */
  deprecated_action_defined_in: string | null;
  tool_call_parser_choices_prefix: string[];
  tool_call_parsers: string[];
  log_prob_slicing: boolean;
}
interface Facts {
  slime: Record<"fork" | "upstream", SlimeFacts>;
  sglang: Record<"jan" | "aug" | "v0.5.10", SglangFacts>;
}

export const ENGINE_FACTS = JSON.parse(readFileSync(FACTS_FILE, "utf8")) as Facts;

export type SlimeKind = keyof Facts["slime"] | "none";
export type SglangKind = keyof Facts["sglang"] | "none";

export interface FakeInstallation {
  /** engine.slime.root: the folder holding train_async.py and the slime package (absent for "none"). */
  root: string;
  megatronRoot: string;
  /** engine.slime.python: the venv's interpreter (a link to /usr/bin/python3). */
  python: string;
  /** HEAD of the checkout the slime package is in; null when there is none. */
  commit: string | null;
  /** For the fork: the OpenClaw-RL checkout around root, which holds no slime package itself. */
  repository: string | null;
}

export async function buildInstallation(folder: string, slime: SlimeKind, sglang: SglangKind): Promise<FakeInstallation> {
  mkdirSync(folder, { recursive: true });
  const environment = path.join(folder, "env");
  await execa("/usr/bin/python3", ["-m", "venv", "--without-pip", environment]);
  const lib = path.join(environment, "lib");
  const sitePackages = path.join(lib, readdirSync(lib).find((name) => name.startsWith("python"))!, "site-packages");
  if (sglang !== "none") writeSglang(sitePackages, ENGINE_FACTS.sglang[sglang]);
  const megatronRoot = path.join(folder, "Megatron-LM");
  mkdirSync(path.join(megatronRoot, "megatron"), { recursive: true });
  writeFileSync(path.join(megatronRoot, "megatron", "__init__.py"), "");
  const python = path.join(environment, "bin", "python3");
  if (slime === "none") return { root: path.join(folder, "opt", "slime"), megatronRoot, python, commit: null, repository: null };
  const facts = ENGINE_FACTS.slime[slime];
  const repository = path.join(folder, facts.repository.split("/")[1]!);
  const root = path.join(repository, facts.checkout_in_repository);
  writeSlime(root, facts);
  return { root, megatronRoot, python, commit: await commitAll(repository, `fake ${facts.repository} at ${facts.commit.slice(0, 8)}`), repository: root === repository ? null : repository };
}

function write(file: string, content: string): void {
  mkdirSync(path.dirname(file), { recursive: true });
  writeFileSync(file, content);
}

async function commitAll(repository: string, message: string): Promise<string> {
  const git = (...args: string[]) => execa("git", ["-C", repository, "-c", "user.name=fixture", "-c", "user.email=fixture@example.invalid", "-c", "commit.gpgsign=false", ...args]);
  await git("init", "-q");
  await git("add", "-A");
  await git("commit", "-q", "-m", message);
  return (await git("rev-parse", "HEAD")).stdout.trim();
}

/** slime/utils/arguments.py with the real options in the real nesting (add_*_arguments inside a provider). */
function slimeArguments(facts: SlimeFacts): string {
  const call = (indent: string, parserName: string, fact: OptionFact) => {
    const choices = fact.choices ? `\n${indent}    choices=${JSON.stringify(fact.choices)},` : "";
    const action = fact.choices ? `\n${indent}    type=str,` : `\n${indent}    action="store_true",`;
    return `${indent}# ${fact.source}\n${indent}${parserName}.add_argument(\n${indent}    "${fact.option}",${action}${choices}\n${indent})\n`;
  };
  const nested = facts.options.filter((fact) => fact.parser === "parser");
  const early = facts.options.filter((fact) => fact.parser === "temp_parser");
  return [
    `# Fake of ${facts.repository} ${facts.commit}: the options that tell the flavours apart, nothing else.`,
    "import argparse",
    ...facts.arguments_imports,
    "",
    "",
    "def get_slime_extra_args_provider(add_custom_arguments=None):",
    "    def add_slime_arguments(parser):",
    "        def add_train_arguments(parser):",
    ...nested.map((fact) => call("            ", "parser", fact)),
    "            return parser",
    "",
    "        return add_train_arguments(parser)",
    "",
    "    return add_slime_arguments",
    "",
    "",
    "def _pre_parse_mode():",
    "    temp_parser = argparse.ArgumentParser(add_help=False, allow_abbrev=False)",
    ...early.map((fact) => call("    ", "temp_parser", fact)),
    "    return temp_parser.parse_known_args()",
    "",
  ].join("\n");
}

function writeSlime(root: string, facts: SlimeFacts): void {
  write(path.join(root, "train_async.py"), "import ray\nfrom slime.utils.arguments import parse_args\n");
  write(path.join(root, "slime", "__init__.py"), "");
  write(path.join(root, "slime", "utils", "__init__.py"), "");
  write(path.join(root, "slime", "utils", "arguments.py"), slimeArguments(facts));
  for (const backend of facts.backends) write(path.join(root, "slime", "backends", backend, "__init__.py"), "import torch\n");
}

function versionTuple(version: string): string {
  const parts = version.split(/[.+]/).map((part) => (/^\d+$/.test(part) ? part : JSON.stringify(part)));
  return `(${parts.join(", ")})`;
}

/** sglang with version.py, _version.py (setuptools_scm's file), srt/server_args.py and what it reads. */
function writeSglang(sitePackages: string, facts: SglangFacts): void {
  const sglang = path.join(sitePackages, "sglang");
  write(path.join(sglang, "__init__.py"), "from sglang.version import __version__\n");
  write(path.join(sglang, "version.py"), facts.version_file);
  write(path.join(sglang, "_version.py"), `__version__ = version = ${JSON.stringify(facts.version)}\n__version_tuple__ = version_tuple = ${versionTuple(facts.version)}\n`);
  const parsers = facts.tool_call_parsers.map((name) => `        ${JSON.stringify(name)}: _Detector,`).join("\n");
  write(path.join(sglang, "srt", "function_call", "function_call_parser.py"), `class _Detector:\n    pass\n\n\nclass FunctionCallParser:\n    ToolCallParserEnum = {\n${parsers}\n    }\n`);
  const deprecatedAction = [
    "class DeprecatedStoreTrueAction(argparse.Action):",
    "    def __init__(self, option_strings, dest, new_flag=None, nargs=0, const=True, default=False, **kwargs):",
    "        self.new_flag = new_flag",
    "        super().__init__(option_strings, dest, nargs=nargs, const=const, default=default, **kwargs)",
    "",
    "    def __call__(self, parser, namespace, values, option_string=None):",
    "        setattr(namespace, self.dest, True)",
    "",
  ];
  const actionInServerArgs = facts.deprecated_action_defined_in === "sglang/srt/server_args.py";
  const actionModule = facts.deprecated_action_defined_in !== null && !actionInServerArgs ? facts.deprecated_action_defined_in : null;
  if (actionModule) write(path.join(sitePackages, actionModule), ["import argparse", "", "", ...deprecatedAction].join("\n"));
  const options = facts.stream_options.map((option) =>
    option.action === "store_true"
      ? `        # ${option.source}\n        parser.add_argument("${option.option}", dest="${option.dest}", action="store_true")`
      : `        # ${option.source}\n        parser.add_argument("${option.option}", action=DeprecatedStoreTrueAction, dest="${option.dest}", new_flag="--incremental-streaming-output")`,
  );
  write(
    path.join(sglang, "srt", "server_args.py"),
    [
      `# Fake of SGLang ${facts.commit} python/sglang/srt/server_args.py: the streaming field, its options, the tool-call parsers.`,
      "from __future__ import annotations",
      "",
      "import argparse",
      "import dataclasses",
      "from typing import Optional",
      "",
      "from sglang.srt.function_call.function_call_parser import FunctionCallParser",
      ...(actionModule ? [`from ${actionModule.replace(/\.py$/, "").replaceAll("/", ".")} import DeprecatedStoreTrueAction`] : []),
      "",
      "",
      "@dataclasses.dataclass",
      "class ServerArgs:",
      "    model_path: str = None",
      "    stream_interval: int = 1",
      `    ${facts.stream_field}: bool = False`,
      "    tool_call_parser: Optional[str] = None",
      "",
      "    @staticmethod",
      "    def add_cli_args(parser: argparse.ArgumentParser):",
      '        parser.add_argument("--model-path", type=str)',
      ...options,
      "        tool_call_parser_choices = list(FunctionCallParser.ToolCallParserEnum.keys())",
      `        parser.add_argument("--tool-call-parser", type=str, choices=${JSON.stringify(facts.tool_call_parser_choices_prefix)} + tool_call_parser_choices, default=ServerArgs.tool_call_parser)`,
      "",
      ...(actionInServerArgs ? ["", ...deprecatedAction] : []),
    ].join("\n"),
  );
  // The real module imports zmq, torch and the scheduler's I/O structs: the probe must read it, not import it.
  const manager = facts.log_prob_slicing
    ? "import zmq\n\n\ndef _slice_streaming_output_meta_info(meta_info, last_output_offset):\n    for key in meta_info.keys() & {\"output_token_logprobs\", \"output_top_logprobs\", \"output_token_ids_logprobs\"}:\n        meta_info[key] = meta_info[key][last_output_offset:]\n"
    : "import zmq\n\n\nclass TokenizerManager:\n    def _handle_batch_output(self, state, output_ids, is_stream):\n        state.output_ids.extend(output_ids)\n        if self.server_args.stream_output and is_stream:\n            delta = state.output_ids[state.last_output_offset :]\n            state.last_output_offset = len(state.output_ids)\n            return delta\n        return state.output_ids.copy()\n";
  write(path.join(sglang, "srt", "managers", "tokenizer_manager.py"), manager);
}
