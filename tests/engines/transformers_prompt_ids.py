# Prompt ids from transformers itself: a local tokenizer folder (no hub) loaded by AutoTokenizer.from_pretrained
# ("transformers") or by SGLang's own get_tokenizer, which wraps it with its fixes ("sglang"), then
# apply_chat_template(tokenize=True), the messages handled as SGLang's chat route hands them on. One JSON request per
# stdin line ({"loader", "folder", "chat"}), one JSON answer per stdout line ({"ids"} or {"error"}). Ignores
# multimodal content.
import os
import sys

os.environ["HF_HUB_OFFLINE"] = "1"
os.environ.setdefault("TRANSFORMERS_VERBOSITY", "error")
sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "support"))

import transformers  # noqa: E402
from transformers import AutoTokenizer  # noqa: E402

from json_lines import serve  # noqa: E402
from transformers_chat_template import sglang_message  # noqa: E402  (SGLang's message handling, mirrored there)

tokenizers = {}


def load(loader, folder):
    if loader == "sglang":
        from sglang.srt.utils.hf_transformers.tokenizer import get_tokenizer

        return get_tokenizer(folder)
    return AutoTokenizer.from_pretrained(folder, local_files_only=True)


def tokenizer_of(loader, folder):
    if (loader, folder) not in tokenizers:
        tokenizers[(loader, folder)] = load(loader, folder)
    return tokenizers[(loader, folder)]


def prompt_ids(loader, folder, chat):
    ids = tokenizer_of(loader, folder).apply_chat_template(
        [sglang_message(message) for message in chat["messages"]],
        tools=chat.get("tools") or None,
        add_generation_prompt=True,
        tokenize=True,
        return_dict=False,
        **(chat.get("chat_template_kwargs") or {}),
    )
    return list(ids)


if __name__ == "__main__":
    serve(
        lambda request: {"ids": prompt_ids(request.get("loader", "transformers"), request["folder"], request["chat"])},
        hello={"transformers": transformers.__version__, "tokenizers": __import__("tokenizers").__version__},
    )
