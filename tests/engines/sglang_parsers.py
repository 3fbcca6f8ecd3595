# SGLang's own answer parsing, from the pip-installed package: its ReasoningParser, then its FunctionCallParser, as its
# chat route runs them on a finished output (serving_chat.py: reasoning split first when a reasoning parser is set, then
# tool calls when the parser finds one), and the same two parsers fed the output in pieces as its stream does. One JSON
# request per stdin line, one JSON answer per stdout line. Ignores tool_choice constraints and call ids.
import logging
import os
import sys

logging.disable(logging.CRITICAL)
sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "support"))

import sglang  # noqa: E402
from sglang.srt.entrypoints.openai.protocol import Tool  # noqa: E402
from sglang.srt.function_call.function_call_parser import FunctionCallParser  # noqa: E402
from sglang.srt.parser.reasoning_parser import ReasoningParser  # noqa: E402

from json_lines import serve  # noqa: E402


def whole(request, tools):
    text, reasoning = request["text"], ""
    if request["reasoningParser"]:
        parser = ReasoningParser(model_type=request["reasoningParser"], stream_reasoning=False, force_reasoning=request["forceReasoning"])
        reasoning, text = parser.parse_non_stream(text)
    calls = []
    if request["toolCallParser"] and tools:
        parser = FunctionCallParser(tools, request["toolCallParser"])
        if parser.has_tool_call(text):
            text, items = parser.parse_non_stream(text)
            calls = [{"name": item.name, "arguments": item.parameters} for item in items]
    return {"content": text or "", "reasoning": reasoning or "", "calls": calls}


def streamed(request, tools):
    content, reasoning, calls = "", "", []
    reasoner = ReasoningParser(model_type=request["reasoningParser"], stream_reasoning=True, force_reasoning=request["forceReasoning"]) if request["reasoningParser"] else None
    caller = FunctionCallParser(tools, request["toolCallParser"]) if request["toolCallParser"] and tools else None
    for piece in request["pieces"]:
        text = piece
        if reasoner:
            thought, text = reasoner.parse_stream_chunk(piece)
            reasoning += thought or ""
        text = text or ""
        if caller and text:
            text, items = caller.parse_stream_chunk(text)
            for item in items:
                index = item.tool_index if item.tool_index is not None and item.tool_index >= 0 else len(calls) - 1
                while len(calls) <= index:
                    calls.append({"name": "", "arguments": ""})
                if item.name:
                    calls[index]["name"] = item.name
                calls[index]["arguments"] += item.parameters or ""
        content += text or ""
    return {"content": content, "reasoning": reasoning, "calls": calls}


def answer(request):
    tools = [Tool.model_validate(tool) for tool in request.get("tools") or []]
    return streamed(request, tools) if "pieces" in request else whole(request, tools)


if __name__ == "__main__":
    serve(answer, hello={"sglang": sglang.__version__})
