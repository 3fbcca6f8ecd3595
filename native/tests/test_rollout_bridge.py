"""generate_rollout against the real orchestrator bridge on loopback (slime stand-in = the contract test;
the stand-in mirrors the OpenClaw-RL slime fork at 0d034dd)."""

from __future__ import annotations

import contextlib
import io
import os
import shutil
import tempfile
import threading
import time
import unittest
import unittest.mock
from types import SimpleNamespace

import torch

from openclaw_rl import bridge_client, rollout
from openclaw_rl.bridge_client import BridgeError
from openclaw_rl.slime_types import StandInRolloutFnTrainOutput, StandInSample, slime_types

from .fixture_bridge import FixtureBridge


def make_args(batch_size: int) -> SimpleNamespace:
    return SimpleNamespace(rollout_batch_size=batch_size, sglang_router_ip="127.0.0.1", sglang_router_port=30001, prm_router_ip=None, prm_router_port=None)


class RolloutBridgeTest(unittest.TestCase):
    def setUp(self):
        rollout.reset_for_tests()
        self.bridges: list[FixtureBridge] = []

    def tearDown(self):
        rollout.reset_for_tests()
        for bridge in self.bridges:
            bridge.close()

    def start(self, *arguments: str, directory: str | None = None) -> FixtureBridge:
        bridge = FixtureBridge(*arguments, directory=directory)
        self.bridges.append(bridge)
        bridge.environment()
        return bridge

    def test_stand_in_is_used_without_slime(self):
        sample_class, output_class, real = slime_types()
        self.assertFalse(real)
        self.assertIs(sample_class, StandInSample)
        self.assertIs(output_class, StandInRolloutFnTrainOutput)

    def test_batch_fields_hello_and_surplus(self):
        bridge = self.start("--samples", "6", "--response-length", "5", "--prompt-length", "3")
        output = rollout.generate_rollout(make_args(4), 0, None)
        self.assertIsInstance(output, StandInRolloutFnTrainOutput)
        self.assertEqual(len(output.samples), 4)
        samples = [group[0] for group in output.samples]
        self.assertTrue(all(len(group) == 1 for group in output.samples))
        for sample in samples:
            self.assertIsInstance(sample, StandInSample)
            self.assertEqual(sample.response_length, 5)
            self.assertEqual(len(sample.tokens), 8)
            self.assertTrue(all(isinstance(token, int) for token in sample.tokens))
            self.assertEqual(len(sample.loss_mask), 5)
            self.assertEqual(len(sample.rollout_log_probs), 5)
            self.assertIsInstance(sample.rollout_log_probs[0], float)
            self.assertIn(sample.reward["score"], (1.0, 0.0, -1.0))
            self.assertIn(sample.status, (StandInSample.Status.COMPLETED, StandInSample.Status.TRUNCATED))
            self.assertEqual(sample.weight_versions, ["default"] * 5)
            self.assertTrue(sample.prompt.startswith("prompt "))
            self.assertFalse(hasattr(sample, "teacher_log_probs"))
        first = samples[0]
        # sample 0 from the factory: tokens 0..7, log-probs -(p%7+1)/8, reward 1
        self.assertEqual(first.tokens, list(range(8)))
        self.assertEqual(first.rollout_log_probs, [-0.125, -0.25, -0.375, -0.5, -0.625])
        self.assertEqual(first.reward, {"score": 1.0})
        self.assertEqual(len({s.index for s in samples}), 4)
        self.assertEqual([s.index for s in samples], [s.group_index for s in samples])
        self.assertEqual(output.metrics["openclaw/reward_positive"], 2.0)
        self.assertAlmostEqual(output.metrics["rollout/prm_eval_score"], 0.25)
        stats = bridge.command("stats")
        # handed to slime, not acknowledged: slime has not trained it yet (two calls later it has)
        self.assertEqual(stats["stats"]["counts"], {"ready": 2, "delivered": 4, "acknowledged": 0, "droppedStale": 0})
        self.assertEqual(stats["hello"]["routers"], {"policy": "http://127.0.0.1:30001", "judge": None})
        self.assertIn("batch-delivered", stats["events"])

        # the 2 surplus samples stay; the next call blocks until 2 more arrive
        result = {}
        worker = threading.Thread(target=lambda: result.setdefault("output", rollout.generate_rollout(make_args(4), 1, None)))
        worker.start()
        time.sleep(0.5)
        self.assertTrue(worker.is_alive(), "generate_rollout must block until 4 samples are ready")
        bridge.command("put 2")
        worker.join(timeout=30)
        self.assertFalse(worker.is_alive())
        second = [group[0] for group in result["output"].samples]
        self.assertEqual(len(second), 4)
        self.assertFalse({s.index for s in samples} & {s.index for s in second}, "a sample was delivered twice")
        rollout.acknowledge_returned_batches()
        self.assertEqual(bridge.command("stats")["stats"]["counts"], {"ready": 0, "delivered": 0, "acknowledged": 8, "droppedStale": 0})

    def test_a_batch_is_acknowledged_once_slime_has_trained_it(self):
        # train_async: generate(r + 1) overlaps train(r) and starts after train(r - 1); train.py: after train(r)
        bridge = self.start("--samples", "6")
        counts = lambda: bridge.command("stats")["stats"]["counts"]
        first = rollout.generate_rollout(make_args(2), 0, None)
        self.assertEqual(counts(), {"ready": 4, "delivered": 2, "acknowledged": 0, "droppedStale": 0})
        second = rollout.generate_rollout(make_args(2), 1, None)  # slime may still be training batch 0
        self.assertEqual(counts(), {"ready": 2, "delivered": 4, "acknowledged": 0, "droppedStale": 0})
        rollout.generate_rollout(make_args(2), 2, None)  # batch 0 is trained now
        self.assertEqual(counts(), {"ready": 0, "delivered": 4, "acknowledged": 2, "droppedStale": 0})
        ids = lambda output: [group[0].metadata["openclaw_id"] for group in output.samples]
        self.assertEqual(len(set(ids(first)) | set(ids(second))), 4)
        # the orchestrator is killed and restarts: what it had handed out is still out, and the late ack of batch 1 counts
        directory = bridge.directory
        bridge.process.kill()
        bridge.process.wait()
        again = self.start("--samples", "2", "--first", "100", directory=directory)
        self.assertEqual(again.command("stats")["stats"]["counts"], {"ready": 2, "delivered": 4, "acknowledged": 2, "droppedStale": 0})
        printed = io.StringIO()
        with contextlib.redirect_stdout(printed):
            third = rollout.generate_rollout(make_args(2), 3, None)
        self.assertNotIn("does not know it", printed.getvalue())
        self.assertEqual(ids(third), ["session-100:100", "session-101:101"])
        self.assertEqual(again.command("stats")["stats"]["counts"], {"ready": 0, "delivered": 4, "acknowledged": 4, "droppedStale": 0})

    def test_a_batch_that_cannot_be_built_is_not_acknowledged_and_comes_back(self):
        bridge = self.start("--samples", "4")
        with unittest.mock.patch.object(rollout, "build_samples", side_effect=RuntimeError("cannot build")):
            with self.assertRaisesRegex(RuntimeError, "cannot build"):
                rollout.generate_rollout(make_args(2), 0, None)
        self.assertEqual(bridge.command("stats")["stats"]["counts"], {"ready": 2, "delivered": 2, "acknowledged": 0, "droppedStale": 0})
        output = rollout.generate_rollout(make_args(2), 0, None)  # asked again: the batch it could not build comes back
        self.assertEqual([group[0].metadata["openclaw_id"] for group in output.samples], ["session-0:0", "session-1:1"])
        self.assertEqual(bridge.command("stats")["stats"]["counts"], {"ready": 2, "delivered": 2, "acknowledged": 0, "droppedStale": 0})

    def test_mixed_teacher_batch_is_filled_on_every_sample(self):
        self.start("--samples", "4", "--teacher", "mixed", "--response-length", "6")
        output = rollout.generate_rollout(make_args(4), 0, None)
        samples = [group[0] for group in output.samples]
        for sample in samples:
            self.assertIsInstance(sample.teacher_log_probs, torch.Tensor)
            self.assertEqual(sample.teacher_log_probs.dtype, torch.float32)
            self.assertEqual(tuple(sample.teacher_log_probs.shape), (6,))
        filled = [s for s in samples if s.metadata["kind"] == "rl"]
        taught = [s for s in samples if s.metadata["kind"] == "opd"]
        self.assertEqual((len(filled), len(taught)), (2, 2))
        for sample in filled:  # RL-only rule: teacher = rollout log-probs
            self.assertEqual(sample.teacher_log_probs.tolist(), sample.rollout_log_probs)
        for sample in taught:
            self.assertTrue(torch.allclose(sample.teacher_log_probs, torch.tensor(sample.rollout_log_probs) - 0.25))
        self.assertEqual(output.metrics["openclaw/teacher_filled_from_rollout"], 2.0)

    def test_episode_steps_train_their_advantage_and_carry_step_wise_metadata(self):
        self.start("--samples", "4", "--response-length", "5", "--episodes")
        args = make_args(4)
        args.advantage_estimator = "step_wise"
        samples = [group[0] for group in rollout.generate_rollout(args, 0, None).samples]
        by_index = {sample.metadata["episode"]["episodeId"]: sample for sample in samples}
        odd, even = by_index["task:1:0:1"], by_index["task:0:0:0"]
        # the trained reward is the standardised advantage; raw_reward keeps r_t = o + c·p
        self.assertEqual(odd.reward, {"score": 1.5})
        self.assertEqual(odd.metadata["raw_reward"], 1.5)
        self.assertEqual(even.reward, {"score": -0.5})
        self.assertEqual(even.metadata["raw_reward"], -0.5)
        self.assertEqual(
            odd.metadata["step_wise"],
            {"step_scores": [0.5], "step_scores_with_outcome": [1.5], "step_indices": [1], "step_token_spans": [[0, 5]], "outcome_reward": 1.0},
        )
        self.assertEqual(even.metadata["step_wise"]["step_indices"], [0])
        self.assertEqual(even.metadata["step_wise"]["outcome_reward"], -1.0)

    def test_without_step_wise_no_step_metadata_and_chat_samples_train_their_reward(self):
        self.start("--samples", "3", "--response-length", "5")
        samples = [group[0] for group in rollout.generate_rollout(make_args(3), 0, None).samples]
        for sample in samples:
            self.assertNotIn("step_wise", sample.metadata)
            self.assertNotIn("episode", sample.metadata)
            self.assertEqual(sample.reward["score"], sample.metadata["raw_reward"])
            # the sampling the response was drawn with travels with it
            self.assertEqual(sample.metadata["sampling"], {"temperature": 0.6, "top_p": 1, "top_k": -1})

    def test_topk_fields(self):
        self.start("--samples", "2", "--teacher", "topk", "--topk", "5", "--response-length", "7")
        output = rollout.generate_rollout(make_args(2), 0, None)
        for group in output.samples:
            sample = group[0]
            self.assertEqual(tuple(sample.teacher_topk_log_probs.shape), (7, 5))
            self.assertEqual(sample.teacher_topk_log_probs.dtype, torch.float32)
            self.assertEqual(sample.teacher_topk_indices.dtype, torch.int64)
            self.assertEqual(sample.teacher_topk_log_probs[0].tolist(), [-1.0, -2.0, -3.0, -4.0, -5.0])
            self.assertEqual(sample.teacher_topk_indices[1].tolist(), [5, 6, 7, 8, 9])

    def test_stale_samples_are_not_delivered(self):
        bridge = self.start("--samples", "2", "--version", "1", "--max-staleness", "1")
        bridge.command("version 3")  # the 2 samples (version 1) are now 2 behind: stale
        bridge.command("put 2 3")
        output = rollout.generate_rollout(make_args(2), 0, None)
        self.assertEqual([group[0].weight_versions[0] for group in output.samples], ["3", "3"])
        stats = bridge.command("stats")
        self.assertEqual(stats["stats"]["counts"]["droppedStale"], 2)
        self.assertIn("sample-dropped", stats["events"])

    def test_a_kept_alive_connection_the_server_closed_is_reopened_without_a_warning(self):
        self.start("--samples", "4", "--keep-alive-ms", "200")
        printed = io.StringIO()
        with contextlib.redirect_stdout(printed):
            rollout.generate_rollout(make_args(2), 0, None)
            # a training step longer than the bridge's keep-alive (Node closes the idle socket about 1 s after it)
            time.sleep(1.6)
            output = rollout.generate_rollout(make_args(2), 1, None)
        self.assertEqual(len(output.samples), 2)
        self.assertNotIn("unreachable", printed.getvalue())

    def test_a_connection_closed_just_before_it_is_used_is_retried_once_without_a_warning(self):
        # the close comes after the idle check (a race): the send or the answer fails, and the request goes again
        self.start("--samples", "4", "--keep-alive-ms", "200")
        printed = io.StringIO()
        with contextlib.redirect_stdout(printed), unittest.mock.patch.object(bridge_client, "_closed_by_peer", return_value=False):
            rollout.generate_rollout(make_args(2), 0, None)
            time.sleep(1.6)
            output = rollout.generate_rollout(make_args(2), 1, None)
        self.assertEqual(len(output.samples), 2)
        self.assertNotIn("unreachable", printed.getvalue())

    def test_many_progress_reports_then_a_batch_on_one_connection_without_a_warning(self):
        # every empty long-poll is followed by a progress report (answered 204); the next request goes out on the
        # same kept-alive connection, which works only if the 204 answer was read to its end
        bridge = self.start("--samples", "0")
        connections: list[bool] = []
        connect = bridge_client.BridgeClient._connect

        def counting_connect(client):
            fresh = connect(client)
            connections.append(fresh)
            return fresh

        feeder = threading.Timer(1.0, lambda: bridge.command("put 2"))
        printed = io.StringIO()
        with contextlib.redirect_stdout(printed), unittest.mock.patch.object(rollout, "LONG_POLL_MS", 20), unittest.mock.patch.object(
            bridge_client.BridgeClient, "_connect", counting_connect
        ):
            feeder.start()
            output = rollout.generate_rollout(make_args(2), 0, None)
        feeder.join()
        self.assertEqual(len(output.samples), 2)
        self.assertNotIn("unreachable", printed.getvalue())
        self.assertGreater(len(connections), 20)  # hello, then many batch-wait / progress pairs, then the batch
        self.assertEqual(connections.count(True), 1, "one connection for the hello, every progress and the batch")

    def test_a_paused_training_is_said_in_the_log_and_the_batch_comes_once_resumed(self):
        # evaluation.stop_if_worse: samples are ready, yet every long-poll ends in batch-wait {paused: true} until the
        # orchestrator resumes training; the rollout function says why it waits instead of "waiting for samples"
        bridge = self.start("--samples", "2")
        self.assertEqual(bridge.command("pause")["paused"], True)
        resumer = threading.Timer(1.0, lambda: bridge.command("resume"))
        printed = io.StringIO()
        with contextlib.redirect_stdout(printed), unittest.mock.patch.object(rollout, "LONG_POLL_MS", 20), unittest.mock.patch.object(rollout, "PROGRESS_EVERY_S", 0.0):
            resumer.start()
            output = rollout.generate_rollout(make_args(2), 0, None)
        resumer.join()
        self.assertEqual(len(output.samples), 2)
        self.assertIn("training is paused by the orchestrator (evaluation.stop_if_worse", printed.getvalue())
        self.assertNotIn("waiting for samples", printed.getvalue())

    def test_an_orchestrator_restarted_between_calls_gets_the_hello_again(self):
        directory = tempfile.mkdtemp(prefix="openclaw-bridge-restart-")
        self.addCleanup(shutil.rmtree, directory, True)
        first = self.start("--samples", "2", directory=directory)
        rollout.generate_rollout(make_args(2), 0, None)
        first.close()
        second = self.start("--first", "100", directory=directory)
        self.assertEqual(second.url, first.url)
        second.command("put 2")
        printed = io.StringIO()
        with contextlib.redirect_stdout(printed):
            output = rollout.generate_rollout(make_args(2), 1, None)
        self.assertEqual(len(output.samples), 2)
        self.assertNotIn("unreachable", printed.getvalue())
        stats = second.command("stats")
        self.assertEqual(stats["hello"]["routers"], {"policy": "http://127.0.0.1:30001", "judge": None})

    def test_evaluation_is_refused(self):
        self.start("--samples", "1")
        with self.assertRaisesRegex(RuntimeError, "no evaluation path"):
            rollout.generate_rollout(make_args(1), 0, None, evaluation=True)

    def test_wrong_token_is_a_clear_error(self):
        self.start("--samples", "1")
        os.environ["OPENCLAW_RL_BRIDGE_TOKEN"] = "wrong"
        with self.assertRaisesRegex(BridgeError, "401"):
            rollout.generate_rollout(make_args(1), 0, None)

    def test_missing_environment_is_a_clear_error(self):
        os.environ.pop("OPENCLAW_RL_BRIDGE", None)
        with self.assertRaisesRegex(BridgeError, "OPENCLAW_RL_BRIDGE"):
            rollout.generate_rollout(make_args(1), 0, None)


if __name__ == "__main__":
    unittest.main()
