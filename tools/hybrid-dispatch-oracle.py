# Writes tests/fixtures/openclaw-rl-hybrid/dispatch-cases.json: what the reference's own hybrid server answers for
# each case of hint votes × evaluation votes × candidate cap: its _opd_evaluate (hint keeping, evaluation majority) and
# its _maybe_submit_ready_samples dispatch, down to the Sample it submits (reward, candidate prompts).
# Usage: /usr/bin/python3 tools/hybrid-dispatch-oracle.py REFERENCE_GIT_DIR > tests/fixtures/openclaw-rl-hybrid/dispatch-cases.json
# Runs the reference's source read from its git directory at ffdebf1 (tranzmatt/OpenClaw-RL, not kept here) with
# Debian's python3-torch; its web, HTTP and slime imports are stand-ins, the judge calls return the case's votes.
import asyncio, itertools, json, os, queue, subprocess, sys, threading, types

COMMIT = "ffdebf1d46883394308fb4d8659a62794c38d43b"
git_dir = sys.argv[1]
HINT_HEADER = "[user's hint / instruction]\n"
PROMPT_IDS = [101, 102]
RESPONSE_IDS = [201, 202, 203]


def show(path):
    return subprocess.run(["git", f"--git-dir={git_dir}", "show", f"{COMMIT}:{path}"], check=True, capture_output=True, text=True).stdout


def stand_in(name, **attributes):
    module = types.ModuleType(name)
    module.__dict__.update(attributes)
    sys.modules[name] = module
    return module


class Sample:
    class Status:
        COMPLETED = "completed"
        ABORTED = "aborted"


for name in ("httpx", "uvicorn", "slime", "slime.utils"):
    stand_in(name)
stand_in("fastapi", FastAPI=object, Header=object, HTTPException=Exception, Request=object)
stand_in("fastapi.responses", JSONResponse=object, StreamingResponse=object)
stand_in("slime.utils.processing_utils", load_tokenizer=None)
stand_in("slime.utils.types", Sample=Sample)


def load(name, path):
    module = types.ModuleType(name)
    sys.modules[name] = module
    exec(compile(show(path), path, "exec"), module.__dict__)
    return module


load("openclaw_opd_api_server", "openclaw-opd/openclaw_opd_api_server.py")
load("openclaw_combine_api_server", "openclaw-combine/openclaw_combine_api_server.py")
select = load("openclaw_combine_select_api_server", "openclaw-combine/openclaw_combine_select_api_server.py")


class Tokenizer:
    """Renders a conversation as its last message's text and tokenizes text as its UTF-8 bytes (decodable here)."""

    def apply_chat_template(self, messages, **kwargs):
        return messages[-1]["content"]

    def __call__(self, text, add_special_tokens=False):
        return {"input_ids": list(text.encode("utf-8"))}


def candidate_of(ids):
    """The hint a candidate's ids carry, or "<unenhanced>" for the un-enhanced prompt + response."""
    if ids == PROMPT_IDS + RESPONSE_IDS:
        return "<unenhanced>"
    text = bytes(ids).decode("utf-8")
    return text[text.index(HINT_HEADER) + len(HINT_HEADER):]


def run_case(hint_votes, eval_votes, max_candidates):
    os.environ["OPENCLAW_TOPK_MAX_CAND"] = str(max_candidates)
    server = select.OpenClawCombineSelectAPIServer.__new__(select.OpenClawCombineSelectAPIServer)
    server._prm_tokenizer = None
    server._prm_m = len(hint_votes)
    server._eval_mode = True
    server.tokenizer = Tokenizer()
    server._append_prm_record = lambda record: None
    server._eval_scores = []
    server._eval_scores_lock = threading.Lock()
    server._index_counter = itertools.count(0)
    server._group_counter = itertools.count(0)
    server.output_queue = queue.Queue()

    async def judge_once(prompt, index):
        return {"vote_id": index, "score": hint_votes[index]["score"], "hint": hint_votes[index]["hint"], "raw": ""}

    async def eval_once(prompt, index):
        return eval_votes[index]

    server._query_judge_once = judge_once
    server._query_prm_eval_once = eval_once
    turn = {"response_text": "", "messages": [{"role": "user", "content": "do it"}], "prompt_ids": PROMPT_IDS, "response_ids": RESPONSE_IDS,
            "response_logprobs": [-0.5] * len(RESPONSE_IDS), "prompt_text": "do it", "tools": None}

    async def evaluate_and_dispatch():
        server._teacher_lp_semaphore = asyncio.Semaphore(1)
        task = asyncio.ensure_future(server._opd_evaluate("s", 1, turn, {"role": "user", "content": "next"}))
        await task
        server._prm_tasks = {"s": {1: task}}
        server._pending_turn_data = {"s": {1: turn}}
        submitted = []
        server._safe_create_task = submitted.append
        server._maybe_submit_ready_samples("s")
        for coroutine in submitted:
            await coroutine
        return task.result()

    result = asyncio.run(evaluate_and_dispatch())
    samples = []
    while not server.output_queue.empty():
        samples.extend(server.output_queue.get()[1])
    if not samples:
        sample = None
    else:
        [only] = samples
        sample = {"reward": only.reward["score"], "candidates": [candidate_of(ids) for ids in only.teacher_tokens_candidates]}
    return {"evalScore": result["eval_score"], "sample": sample}


HINT_SETS = {
    "three distinct, unsorted": [{"score": 1, "hint": "a much longer hint than the others"}, {"score": 1, "hint": "short hint!"}, {"score": 1, "hint": "medium length hint"}],
    "duplicates after trimming, one vote -1": [{"score": 1, "hint": "  keep this hint  "}, {"score": 1, "hint": "keep this hint"}, {"score": -1, "hint": "a rejected vote's hint"}],
    "length at the minimum and one above": [{"score": 1, "hint": "0123456789"}, {"score": 1, "hint": "0123456789A"}, {"score": None, "hint": ""}],
    "code points, not UTF-16 units": [{"score": 1, "hint": "😀😀😀😀😀😀"}, {"score": 1, "hint": "😀😀😀😀😀😀😀😀😀😀😀"}, {"score": 1, "hint": "ééééééééééé"}],
    "Python whitespace is trimmed, U+FEFF is not": [{"score": 1, "hint": "\x1c\x85 ten chars!! \u3000"}, {"score": 1, "hint": "\ufeffnine chars"}, {"score": 1, "hint": "\u2028 12 chars...\x1f"}],
    "equal lengths keep the votes' order": [{"score": 1, "hint": "bbbbbbbbbbbb"}, {"score": 1, "hint": "aaaaaaaaaaaa"}, {"score": 1, "hint": "cccccccccccc"}, {"score": 1, "hint": "dddddddddddd"}],
    "no positive vote": [{"score": -1, "hint": "a hint from a -1 vote"}, {"score": None, "hint": ""}, {"score": -1, "hint": ""}],
    "every vote failed": [{"score": None, "hint": ""}, {"score": None, "hint": ""}, {"score": None, "hint": ""}],
}
EVAL_SETS = {
    "+1 majority": [1, 1, -1],
    "-1 majority": [-1, -1, 1],
    "tie": [1, -1, None],
    "0 majority": [0, 0, 1],
    "every vote failed": [None, None, None],
}

cases = []
for (hint_name, hint_votes), (eval_name, eval_votes) in itertools.product(HINT_SETS.items(), EVAL_SETS.items()):
    for max_candidates in (3, 1) if hint_name in ("three distinct, unsorted", "equal lengths keep the votes' order") else (3,):
        votes = eval_votes + [None] * (len(hint_votes) - len(eval_votes))
        cases.append({"name": f"{hint_name} × {eval_name} × cap {max_candidates}", "hintVotes": hint_votes, "evalVotes": votes, "maxCandidates": max_candidates,
                      **run_case(hint_votes, votes, max_candidates)})

json.dump({
    "_source": f"tools/hybrid-dispatch-oracle.py on tranzmatt/OpenClaw-RL {COMMIT}: OpenClawCombineSelectAPIServer._opd_evaluate "
               "(openclaw-combine/openclaw_combine_select_api_server.py:96-245; min hint length 10 at :160, the cap OPENCLAW_TOPK_MAX_CAND at :79-80), "
               "the dispatch of its parent (openclaw_combine_api_server.py:151-212) and the Samples it submits (select server :247-347). "
               "sample null = no sample; candidates: each candidate's hint, <unenhanced> for the prompt + response without one.",
    "minHintChars": 10,
    "cases": cases,
}, sys.stdout, indent=1)
sys.stdout.write("\n")
