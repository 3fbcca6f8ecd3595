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
#     None-valued fields dropped (parser/jinja_template_utils.py:147), assistant tool_calls' function.arguments strings
#     decoded with orjson.loads; 4ad990ba serving_chat.py:108-143 decodes the same way and refuses anything but an object.
#   The AssistantTracker extension only adds the {% generation %} tag, which no template here uses.
import json
import sys
from datetime import datetime
from functools import lru_cache

import jinja2
import jinja2.ext
from jinja2.sandbox import ImmutableSandboxedEnvironment

SPECIAL_TOKENS_ATTRIBUTES = ["bos_token", "eos_token", "unk_token", "sep_token", "pad_token", "cls_token", "mask_token"]


@lru_cache
def compile_template(source):
    def raise_exception(message):
        raise jinja2.exceptions.TemplateError(message)

    def tojson(x, ensure_ascii=False, indent=None, separators=None, sort_keys=False):
        return json.dumps(x, ensure_ascii=ensure_ascii, indent=indent, separators=separators, sort_keys=sort_keys)

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


def sglang_message(message):
    message = {key: value for key, value in message.items() if value is not None}
    message.setdefault("content", "")
    if message.get("role") == "assistant" and isinstance(message.get("tool_calls"), list):
        for call in message["tool_calls"]:
            function = call.get("function")
            if isinstance(function, dict) and isinstance(function.get("arguments"), str):
                function["arguments"] = json.loads(function["arguments"])
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
    return compile_template(request["template"]).render(**request.get("context", {}))


def main():
    for line in sys.stdin:
        request = json.loads(line)
        try:
            reply = {"text": answer(request)}
        except Exception as error:  # the caller compares failures too
            reply = {"error": f"{type(error).__name__}: {error}"}
        sys.stdout.write(json.dumps(reply) + "\n")
        sys.stdout.flush()


if __name__ == "__main__":
    main()
