# Renders chat templates with Python's jinja2 set up exactly as transformers' apply_chat_template does, for the parity
# tests: one JSON request per stdin line, one JSON answer per stdout line. Ignores tokenizing and multimodal content.
#
# transformers 5.18.0 (the PyPI wheel; huggingface/transformers@5e43e2e8 has the same environment):
#   src/transformers/utils/chat_template_utils.py:484-501  _cached_compile_jinja_template: ImmutableSandboxedEnvironment
#     (trim_blocks, lstrip_blocks, extensions AssistantTracker + jinja2.ext.loopcontrols), filters["tojson"] =
#     json.dumps(x, ensure_ascii=False, indent=None, separators=None, sort_keys=False), globals raise_exception
#     (jinja2.exceptions.TemplateError) and strftime_now (datetime.now().strftime)
#   src/transformers/utils/chat_template_utils.py:587-593  render(messages=, tools=, documents=, add_generation_prompt=, **kwargs)
#   src/transformers/tokenization_utils_base.py:3108        template_kwargs = {**self.special_tokens_map, **kwargs}
#   src/transformers/tokenization_utils_base.py:980-988,1342-1358  special_tokens_map: bos, eos, unk, sep, pad, cls,
#     mask tokens that are set, as strings (an AddedToken's content)
# SGLang (the OpenAI request → apply_chat_template), mirror oulgen/sglang:
#   dce8b060 (the engine the fork pins) python/sglang/srt/entrypoints/openai/serving_chat.py:338-368: content None → "",
#     None-valued fields dropped (parser/jinja_template_utils.py:147), content parts flattened to their text parts
#     joined by " " for templates that do not loop over content, as Qwen3's (jinja_template_utils.py:203-215),
#     assistant tool_calls' function.arguments strings decoded with orjson.loads; 4ad990ba serving_chat.py:108-143
#     decodes the same way and refuses anything but an object.
#   orjson is not in Debian: sglang_loads below is json.loads made to decode as orjson 3.8.3 does (what it printed for
#     these inputs): integers exact within [-2**63, 2**64-1] and floats beyond ("18446744073709551616" →
#     1.8446744073709552e+19), NaN/Infinity refused, a float too large for a double refused ("1e400": "number is
#     infinity when parsed as double"), lone surrogates refused ('"\\ud800"': "no matched low surrogate"), a repeated
#     key keeps its first position and last value ('{"a":1,"a":2,"b":3}' → {'a': 2, 'b': 3}).
#   The AssistantTracker extension only adds the {% generation %} tag, which no template here uses.
import json
from datetime import datetime
from functools import lru_cache

import jinja2
import jinja2.ext
from jinja2.sandbox import ImmutableSandboxedEnvironment

from json_lines import serve

SPECIAL_TOKENS_ATTRIBUTES = ["bos_token", "eos_token", "unk_token", "sep_token", "pad_token", "cls_token", "mask_token"]


def tojson(x, ensure_ascii=False, indent=None, separators=None, sort_keys=False):
    return json.dumps(x, ensure_ascii=ensure_ascii, indent=indent, separators=separators, sort_keys=sort_keys)


@lru_cache
def compile_template(source):
    def raise_exception(message):
        raise jinja2.exceptions.TemplateError(message)

    def strftime_now(format):
        return datetime.now().strftime(format)

    environment = ImmutableSandboxedEnvironment(trim_blocks=True, lstrip_blocks=True, extensions=[jinja2.ext.loopcontrols])
    environment.filters["tojson"] = tojson
    environment.globals["raise_exception"] = raise_exception
    environment.globals["strftime_now"] = strftime_now
    return environment.from_string(source)


def special_tokens_map(tokenizer_config):
    tokens = {}
    for name in SPECIAL_TOKENS_ATTRIBUTES:
        value = tokenizer_config.get(name)
        if isinstance(value, dict):
            value = value.get("content")
        if value is not None:
            tokens[name] = str(value)
    return tokens


def sglang_integer(text):
    value = int(text)
    return value if -(2**63) <= value <= 2**64 - 1 else float(text)


def sglang_float(text):
    value = float(text)
    if value in (float("inf"), float("-inf")):
        raise ValueError("number is infinity when parsed as double")
    return value


def refuse_constant(text):
    raise ValueError(f"unexpected character: {text}")


def refuse_lone_surrogates(value):
    if isinstance(value, str) and any(0xD800 <= ord(character) <= 0xDFFF for character in value):
        raise ValueError("no matched low surrogate in string")
    for item in value.items() if isinstance(value, dict) else value if isinstance(value, list) else []:
        for part in item if isinstance(item, tuple) else (item,):
            refuse_lone_surrogates(part)
    return value


def sglang_loads(text):
    return refuse_lone_surrogates(json.loads(text, parse_int=sglang_integer, parse_float=sglang_float, parse_constant=refuse_constant))


def sglang_message(message):
    message = {key: value for key, value in message.items() if value is not None}
    message.setdefault("content", "")
    if isinstance(message["content"], list):
        parts = [part["text"] for part in message["content"] if isinstance(part, dict) and part.get("type") == "text"]
        message["content"] = " ".join(parts) if parts else ""
    if message.get("role") == "assistant" and isinstance(message.get("tool_calls"), list):
        for call in message["tool_calls"]:
            function = call.get("function")
            if isinstance(function, dict) and isinstance(function.get("arguments"), str):
                function["arguments"] = sglang_loads(function["arguments"])
    return message


def apply_chat_template(template, tokenizer_config, chat):
    kwargs = {**special_tokens_map(tokenizer_config), **(chat.get("chat_template_kwargs") or {})}
    return compile_template(template).render(
        messages=[sglang_message(message) for message in chat["messages"]],
        tools=chat.get("tools") or None,
        documents=None,
        add_generation_prompt=chat["add_generation_prompt"],
        **kwargs,
    )


def answer(request):
    if "chat" in request:
        return apply_chat_template(request["template"], request.get("tokenizer_config") or {}, request["chat"])
    if "json" in request:  # decode as SGLang does, then dump as transformers' tojson does
        return tojson(sglang_loads(request["json"]), **request.get("dumps", {}))
    if "strftime" in request:  # a fixed naive local time, as datetime.now() gives one
        return datetime(*request["strftime"]).strftime(request["format"])
    context = dict(request.get("context", {}))
    for key in request.get("decode", []):  # context strings that reach the template decoded as SGLang decodes arguments
        context[key] = sglang_loads(context[key])
    return compile_template(request["template"]).render(**context)


if __name__ == "__main__":
    serve(lambda request: {"text": answer(request)})
