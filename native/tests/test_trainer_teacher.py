"""The trainer's teacher (opd.teacher: trainer) against the judge engine's scoring on the same turns.

One tiny causal model (a GRU language model, float64) is the teacher for both paths:
- engine: the orchestrator's own TeacherScorer (tests/support/teacher-scoring-driver.ts, run with tsx) sends its
  prefill (T = 1) or per-position (T != 1) requests to a loopback engine that answers them from the model the way
  SGLang does (prefill: input log-probs at 1 from logprob_start_len; sampler: log_softmax(last logits / T) of the
  asked token ids, and the top-K row), one model call per request;
- trainer: the bridge's teacher tokens through openclaw_rl.rollout.build_samples, then
  openclaw_rl.trainer_teacher.fill_teacher_log_probs with ONE forward of the model over hinted prompt + response.
The values (and top-K rows) must agree within float32 rounding.
"""

from __future__ import annotations

import json
import os
import subprocess
import threading
import unittest
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer

import torch

from openclaw_rl import rollout, teacher_carriage
from openclaw_rl.batch_frame import DecodedBatch, DecodedSample
from openclaw_rl.trainer_teacher import fill_teacher_log_probs, response_teacher_values, sharded_topk

REPO = os.path.abspath(os.path.join(os.path.dirname(__file__), "..", ".."))
DRIVER = os.path.join(REPO, "tests", "support", "teacher-scoring-driver.ts")
TSX = os.path.join(REPO, "node_modules", ".bin", "tsx")
VOCAB = 40


class TinyTeacher(torch.nn.Module):
    """A causal language model: row p of its logits depends on tokens[: p + 1] only."""

    def __init__(self):
        super().__init__()
        generator = torch.Generator().manual_seed(7)
        self.embedding = torch.nn.Embedding(VOCAB, 8).double()
        self.recurrent = torch.nn.GRU(8, 16, batch_first=True).double()
        self.head = torch.nn.Linear(16, VOCAB).double()
        with torch.no_grad():
            for parameter in self.parameters():
                parameter.copy_(torch.randn(parameter.shape, generator=generator, dtype=torch.float64) * 0.8)

    def forward(self, tokens: torch.Tensor) -> torch.Tensor:
        with torch.no_grad():
            hidden, _ = self.recurrent(self.embedding(tokens.long()).unsqueeze(0))
            return self.head(hidden).squeeze(0)


def entry(value, token):
    return [None if value is None else float(value), int(token), None]


class ModelEngine(BaseHTTPRequestHandler):
    """POST /generate answered from the tiny model as SGLang answers the two teacher requests."""

    model: TinyTeacher
    calls: list

    def log_message(self, *arguments):
        pass

    def do_POST(self):
        body = json.loads(self.rfile.read(int(self.headers["Content-Length"])))
        ids = body["input_ids"]
        params = body["sampling_params"]
        topk = int(body.get("top_logprobs_num") or 0)
        logits = self.model(torch.tensor(ids))
        self.calls.append(len(ids))
        if params["max_new_tokens"] == 0:
            # prefill: input log-probs at temperature 1 whatever the request says; entry 0 is the start token's (null)
            start = int(body["logprob_start_len"])
            table = torch.log_softmax(logits, dim=-1)
            meta = {"input_token_logprobs": [entry(None, ids[start])] + [entry(table[p - 1, ids[p]], ids[p]) for p in range(start + 1, len(ids))]}
            if topk:
                rows = [table[p - 1].topk(topk) for p in range(start + 1, len(ids))]
                meta["input_top_logprobs"] = [None] + [[entry(v, i) for v, i in zip(row.values, row.indices)] for row in rows]
            output = []
        else:
            # the sampler: log_softmax(logits / T) of the next token, for the asked ids and the top-K row
            table = torch.log_softmax(logits[-1] / float(params["temperature"]), dim=-1)
            chosen = int(table.argmax())
            meta = {
                "output_token_logprobs": [entry(table[chosen], chosen)],
                "output_token_ids_logprobs": [[entry(table[token], token) for token in body["token_ids_logprob"]]],
            }
            if topk:
                row = table.topk(topk)
                meta["output_top_logprobs"] = [[entry(v, i) for v, i in zip(row.values, row.indices)]]
            output = [chosen]
        meta["finish_reason"] = {"type": "length", "length": len(output)}
        answer = json.dumps({"text": "", "output_ids": output, "meta_info": meta}).encode()
        self.send_response(200)
        self.send_header("Content-Type", "application/json")
        self.send_header("Content-Length", str(len(answer)))
        self.end_headers()
        self.wfile.write(answer)


def engine_values(url: str, prompt: list[int], response: list[int], temperature: float, topk: int) -> dict:
    arguments = {"engineUrl": url, "promptIds": prompt, "responseIds": response, "temperature": temperature, "topk": topk, "window": 4}
    finished = subprocess.run([TSX, DRIVER, json.dumps(arguments)], cwd=REPO, capture_output=True, text=True, timeout=300)
    if finished.returncode != 0:
        raise AssertionError(f"teacher-scoring-driver failed ({finished.returncode}): {finished.stderr[-2000:]}")
    return json.loads(finished.stdout.strip().splitlines()[-1])


def trainer_samples(student_prompt: list[int], hinted_prompt: list[int], response: list[int]) -> list:
    """The bridge's sample with teacherTokens, as the real rollout function builds it."""
    length = len(response)
    arrays = {
        "tokens": torch.tensor(student_prompt + response, dtype=torch.int32),
        "lossMask": torch.ones(length, dtype=torch.int32),
        "rolloutLogProbs": torch.full((length,), -1.0),
        "teacherTokens": torch.tensor(hinted_prompt + response, dtype=torch.int32),
    }
    header = {"seq": 1, "id": "s:0", "kind": "opd", "why": "test", "approximate": False, "responseLength": length, "status": "completed", "reward": 1, "weightVersions": [["0", length]], "topk": 0}
    return rollout.build_samples(DecodedBatch(header={"batchId": "b"}, samples=[DecodedSample(header=header, arrays=arrays)]))


class TrainerTeacherMatchesEngineTest(unittest.TestCase):
    @classmethod
    def setUpClass(cls):
        cls.model = TinyTeacher()
        cls.calls = []
        handler = type("Handler", (ModelEngine,), {"model": cls.model, "calls": cls.calls})
        cls.server = ThreadingHTTPServer(("127.0.0.1", 0), handler)
        threading.Thread(target=cls.server.serve_forever, daemon=True).start()
        cls.url = f"http://127.0.0.1:{cls.server.server_address[1]}"
        generator = torch.Generator().manual_seed(3)
        cls.student_prompt = torch.randint(0, VOCAB, (9,), generator=generator).tolist()
        cls.hinted_prompt = cls.student_prompt[:6] + torch.randint(0, VOCAB, (5,), generator=generator).tolist() + cls.student_prompt[6:]
        cls.response = torch.randint(0, VOCAB, (12,), generator=generator).tolist()

    @classmethod
    def tearDownClass(cls):
        cls.server.shutdown()
        cls.server.server_close()

    def compare(self, temperature: float, topk: int, scoring: str, requests: int):
        del self.calls[:]
        engine = engine_values(self.url, self.hinted_prompt, self.response, temperature, topk)
        self.assertTrue(engine["ok"], engine)
        self.assertEqual((engine["scoring"], engine["requests"], len(self.calls)), (scoring, requests, requests))

        samples = trainer_samples(self.student_prompt, self.hinted_prompt, self.response)
        forwards = []
        self.assertEqual(fill_teacher_log_probs(samples, lambda tokens: forwards.append(len(tokens)) or self.model(tokens), temperature, topk), 1)
        self.assertEqual(forwards, [len(self.hinted_prompt) + len(self.response)])  # one forward over hinted prompt + response
        trainer = samples[0]
        expected = torch.tensor(engine["values"]["logProbs"], dtype=torch.float64)
        torch.testing.assert_close(trainer.teacher_log_probs.double(), expected, rtol=0, atol=2e-6)
        if topk:
            torch.testing.assert_close(trainer.teacher_topk_log_probs.double(), torch.tensor(engine["values"]["topk"]["logProbs"], dtype=torch.float64), rtol=0, atol=2e-6)
            self.assertEqual(trainer.teacher_topk_indices.tolist(), engine["values"]["topk"]["indices"])
        self.compare_in_slime(temperature, topk, engine)
        # the hinted prompt matters: over the student's own prompt the teacher says something else
        own = response_teacher_values(self.model(torch.tensor(self.student_prompt + self.response)), self.student_prompt + self.response, len(self.response), temperature)
        self.assertGreater(float((own.log_probs.double() - expected).abs().max()), 1e-3)

    def compare_in_slime(self, temperature: float, topk: int, engine: dict):
        """The same turn through slime's trainer (the fakes of each flavour): slime_teacher's wrapper of train_actor,
        the teacher = this model at --ref-load; top-K rows on the fork only."""
        from argparse import Namespace

        from openclaw_rl import slime_teacher

        from .slime_fakes import fake_slime

        for flavour in ("fork", "upstream"):
            rows = topk if flavour == "fork" else 0
            with self.subTest(slime=flavour), fake_slime(flavour):
                from slime.backends.megatron_utils.actor import MegatronTrainRayActor
                from slime.ray.rollout import RolloutManager

                args = Namespace(rollout_temperature=temperature, ref_load="/ckpt/teacher", max_tokens_per_gpu=64, log_probs_chunk_size=-1, qkv_format="thd", openclaw_rl_topk=rows)
                train_data = RolloutManager(None)._convert_samples_to_train_data(trainer_samples(self.student_prompt, self.hinted_prompt, self.response))
                rollout_data = {key: list(value) for key, value in train_data.items()}
                rollout_data["tokens"] = [torch.tensor(tokens, dtype=torch.long) for tokens in rollout_data["tokens"]]
                rollout_data.update(total_lengths=[len(tokens) for tokens in rollout_data["tokens"]], micro_batch_indices=[[0]], num_microbatches=[1])
                slime_teacher.install(args)
                actor = MegatronTrainRayActor()
                actor.setup(args, {"actor": lambda tokens: self.fail("the actor's weights scored the teacher")}, checkpoints={"/ckpt/teacher": self.model})
                actor.train_actor(0, rollout_data)
                got = actor.trained[0][1]
                torch.testing.assert_close(got["teacher_log_probs"][0].double(), torch.tensor(engine["values"]["logProbs"], dtype=torch.float64), rtol=0, atol=2e-6)
                if rows:
                    torch.testing.assert_close(got["teacher_topk_log_probs"][0].double(), torch.tensor(engine["values"]["topk"]["logProbs"], dtype=torch.float64), rtol=0, atol=2e-6)
                    self.assertEqual(got["teacher_topk_indices"][0].tolist(), engine["values"]["topk"]["indices"])

    def test_per_position_scoring_at_rollout_temperature(self):
        self.compare(0.6, 0, "per-position", len(self.response))

    def test_per_position_scoring_with_topk_rows(self):
        self.compare(0.8, 3, "per-position", len(self.response))

    def test_prefill_scoring_at_temperature_one(self):
        self.compare(1.0, 3, "prefill", 1)


class TrainerTeacherValuesTest(unittest.TestCase):
    def test_rows_sliced_onto_the_response_and_scaled(self):
        logits = torch.randn(7, 5, generator=torch.Generator().manual_seed(1))
        tokens = [0, 1, 2, 3, 4, 0, 1]
        values = response_teacher_values(logits, tokens, 3, 0.5, topk=2)
        by_hand = torch.stack([torch.log_softmax(logits[p - 1] / 0.5, dim=-1)[tokens[p]] for p in (4, 5, 6)])
        torch.testing.assert_close(values.log_probs, by_hand)
        self.assertEqual(tuple(values.topk_log_probs.shape), (3, 2))

    def test_refuses_what_does_not_fit(self):
        logits = torch.zeros(4, 5)
        with self.assertRaisesRegex(ValueError, "must hold a hinted prompt"):
            response_teacher_values(logits, [1, 2, 3, 4], 4, 1.0)
        with self.assertRaisesRegex(ValueError, "expected \\[5, vocab\\]"):
            response_teacher_values(logits, [1, 2, 3, 4, 5], 2, 1.0)

    def test_combine_batch_mixes_teacher_tokens_and_rollout_teachers(self):
        hinted = trainer_samples([1, 2], [1, 9, 2], [3, 4])[0]
        decoded = []
        for seq, extra in ((1, {"teacherTokens": torch.tensor([1, 9, 2, 3, 4], dtype=torch.int32)}), (2, {"teacherLogProbs": torch.tensor([-0.5, -0.25])}), (3, {})):
            arrays = {"tokens": torch.tensor([1, 2, 3, 4], dtype=torch.int32), "lossMask": torch.ones(2, dtype=torch.int32), "rolloutLogProbs": torch.tensor([-0.5, -0.25]), **extra}
            header = {"seq": seq, "id": f"s:{seq}", "kind": "combined", "why": "t", "approximate": False, "responseLength": 2, "status": "completed", "reward": 1, "weightVersions": [["0", 2]], "topk": 0}
            decoded.append(DecodedSample(header=header, arrays=arrays))
        samples = rollout.build_samples(DecodedBatch(header={"batchId": "b"}, samples=decoded[:2]))
        carried = [teacher_carriage.carried(sample) for sample in samples]
        self.assertEqual([teacher.tokens is not None for teacher in carried], [True, False])
        self.assertEqual([getattr(sample, "teacher_log_probs", None) for sample in samples], [None, None])  # both travel in the carriage
        model = TinyTeacher()
        self.assertEqual(fill_teacher_log_probs(samples, model, 0.6), 1)
        self.assertEqual(samples[1].teacher_log_probs.tolist(), [-0.5, -0.25])
        self.assertEqual(samples[0].teacher_log_probs.shape, (2,))
        self.assertEqual(teacher_carriage.carried(hinted).tokens.tolist(), [1, 9, 2, 3, 4])
        with self.assertRaisesRegex(RuntimeError, "teacherLogProbs on 2 of 3 samples"):
            rollout.build_samples(DecodedBatch(header={"batchId": "b"}, samples=decoded))

    def test_samples_carrying_nothing_keep_their_teacher(self):
        samples = trainer_samples([1, 2], [1, 9, 2], [3, 4])
        samples[0].multimodal_train_inputs = None
        samples[0].teacher_log_probs = torch.tensor([-1.0, -2.0])
        self.assertEqual(fill_teacher_log_probs(samples, lambda tokens: self.fail("no forward expected"), 1.0), 0)
        self.assertEqual(samples[0].teacher_log_probs.tolist(), [-1.0, -2.0])

def _sharded_topk_rank(rank: int, world: int, store: str, rows: torch.Tensor, topk: int, out: str, chunk_rows: int = 1024, at=None) -> None:
    import torch.distributed as dist

    dist.init_process_group("gloo", init_method=f"file://{store}", rank=rank, world_size=world)
    try:
        width = rows.shape[-1] // world
        result = sharded_topk(rows[:, rank * width : (rank + 1) * width], topk, dist.group.WORLD, chunk_rows=chunk_rows, at=at)
        torch.save(result, f"{out}.{rank}")
    finally:
        dist.destroy_process_group()


class ShardedTopkTest(unittest.TestCase):
    """The teacher's top-K rows when tensor parallelism splits the vocabulary: each rank's slice, one answer."""

    def setUp(self):
        generator = torch.Generator().manual_seed(3)
        self.rows = torch.randn(5, 12, generator=generator) * 3
        self.full = torch.log_softmax(self.rows, dim=-1).topk(4, dim=-1)

    def test_one_rank_is_log_softmax_topk(self):
        values, indices = sharded_topk(self.rows, 4)
        torch.testing.assert_close(values, self.full.values)
        self.assertEqual(indices.tolist(), self.full.indices.tolist())

    def test_two_ranks_holding_half_the_vocabulary_each(self):
        import tempfile

        import torch.multiprocessing as mp

        with tempfile.TemporaryDirectory() as folder:
            out = os.path.join(folder, "rows")
            mp.spawn(_sharded_topk_rank, args=(2, os.path.join(folder, "store"), self.rows, 4, out), nprocs=2, join=True)
            for rank in range(2):
                values, indices = torch.load(f"{out}.{rank}")
                torch.testing.assert_close(values, self.full.values, rtol=1e-6, atol=1e-6)
                self.assertEqual(indices.tolist(), self.full.indices.tolist())

    def test_two_ranks_in_chunks_with_the_log_probs_at_given_ids(self):
        import tempfile

        import torch.multiprocessing as mp

        at = torch.randint(0, 12, (5, 3), generator=torch.Generator().manual_seed(4))
        with tempfile.TemporaryDirectory() as folder:
            out = os.path.join(folder, "rows")
            mp.spawn(_sharded_topk_rank, args=(2, os.path.join(folder, "store"), self.rows, 4, out, 2, at), nprocs=2, join=True)
            for rank in range(2):
                values, indices, picked = torch.load(f"{out}.{rank}")
                torch.testing.assert_close(values, self.full.values, rtol=1e-6, atol=1e-6)
                self.assertEqual(indices.tolist(), self.full.indices.tolist())
                torch.testing.assert_close(picked, torch.log_softmax(self.rows, dim=-1).gather(-1, at), rtol=1e-6, atol=1e-6)

    def test_chunks_give_the_values_of_the_whole_pass(self):
        generator = torch.Generator().manual_seed(8)
        rows = torch.randn(37, 50, generator=generator) * 3
        at = torch.randint(0, 50, (37, 4), generator=generator)
        whole = sharded_topk(rows, 6, chunk_rows=10_000, at=at)
        for chunk_rows in (1, 5, 36, 37):
            chunked = sharded_topk(rows, 6, chunk_rows=chunk_rows, at=at)
            for got, want in zip(chunked, whole):
                self.assertTrue(torch.equal(got, want), f"chunk_rows {chunk_rows}")
        empty = sharded_topk(rows[:0], 6, at=at[:0])
        self.assertEqual([tuple(value.shape) for value in empty], [(0, 6), (0, 6), (0, 4)])

    def test_the_largest_temporary_does_not_grow_with_the_response(self):
        from torch.utils._python_dispatch import TorchDispatchMode

        class LargestTensor(TorchDispatchMode):
            largest = 0

            def __torch_dispatch__(self, func, types, args=(), kwargs=None):
                result = func(*args, **(kwargs or {}))
                for value in result if isinstance(result, (tuple, list)) else (result,):
                    if isinstance(value, torch.Tensor):
                        LargestTensor.largest = max(LargestTensor.largest, value.numel())
                return result

        vocab, chunk_rows, largest = 3000, 64, {}
        for length in (256, 1024):
            rows = torch.randn(length, vocab, dtype=torch.bfloat16)
            for name, size in (("chunked", chunk_rows), ("whole", length)):
                LargestTensor.largest = 0
                with LargestTensor():
                    sharded_topk(rows, 20, chunk_rows=size)
                largest[(name, length)] = LargestTensor.largest
        self.assertEqual(largest[("chunked", 256)], chunk_rows * vocab)
        self.assertEqual(largest[("chunked", 1024)], chunk_rows * vocab)
        self.assertEqual(largest[("whole", 1024)], 1024 * vocab)

    def test_refuses_more_than_the_vocabulary(self):
        with self.assertRaisesRegex(ValueError, "has 12 tokens, fewer than the top-13"):
            sharded_topk(self.rows, 13)


if __name__ == "__main__":
    unittest.main()
