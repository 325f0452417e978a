"""The AEB agent loop through the installed verl 0.9, on a CPU, against live ``aeb serve`` replicas.

verl's ``RLHFDataset`` reads the rows ``aeb_verl.prepare`` wrote, verl's ``AgentLoopWorker`` drives
the AEB loop with the prepared registration file and trainer config, a stub policy answers verl's
``generate`` contract with canned replies (some with think blocks), and verl's reward loop worker
scores every sample with the naive manager (``verl_harness`` says what is verl's and what is not).
Two servers sit behind recording proxies, so the tests see what reached the simulated user.

Each dialogue is then checked against the environment played directly: ``/v1/reset`` and
``/v1/step`` with the same scenario, seed and repeat and the canned replies' visible text.
"""

from __future__ import annotations

import contextlib
import io
import json
import os
import shutil
import sys
import tempfile
import unittest
from typing import Any

import support
import tiny_model
import verl_harness
from fault_proxy import FaultProxy
from verl_harness import ASSISTANT_HEADER, THINK_MARKER, canned_reply

from aeb_verl import prepare
from aeb_verl.client import AebEnvironmentClient, AebEnvironmentError
from aeb_verl.dataset import read_rows

STATE: dict[str, Any] = {}


def setUpModule() -> None:  # noqa: N802 (unittest's name)
    work = tempfile.mkdtemp(prefix="aeb-verl-loop-")
    STATE["work"] = work
    STATE["model"] = tiny_model.build(os.path.join(work, "model"), [os.path.join(support.SCENARIOS, "*.yaml"), os.path.join(verl_harness.HERE, "fixtures", "policy-replies.json")])
    replicas = [support.server(), support.start_server()]
    STATE["proxies"] = [FaultProxy(replica["url"], seed=0, mix=()) for replica in replicas]
    urls = [proxy.url for proxy in STATE["proxies"]]
    STATE["final_dir"] = prepare_directory(os.path.join(work, "final"), urls, "--reward-mode", "final")
    STATE["delta_dir"] = prepare_directory(os.path.join(work, "delta"), urls, "--reward-mode", "delta", "--preset", "scenario")
    config = verl_harness.trainer_config(STATE["final_dir"], STATE["model"])
    STATE["rollout"] = verl_harness.Rollout(STATE["model"], config)
    STATE["final"] = rollout_of(STATE["final_dir"], config)
    delta_config = verl_harness.trainer_config(STATE["delta_dir"], STATE["model"])
    STATE["delta"] = rollout_of(STATE["delta_dir"], delta_config)


def tearDownModule() -> None:  # noqa: N802
    for proxy in STATE.get("proxies", []):
        proxy.close()
    shutil.rmtree(STATE["work"], ignore_errors=True)


def prepare_directory(directory: str, urls: list[str], *arguments: str) -> str:
    url_arguments = [item for url in urls for item in ("--url", url)]
    with contextlib.redirect_stdout(io.StringIO()):
        code = prepare.main([*url_arguments, "--out", directory, "--python", sys.executable, "--seed", "7", "--repeats", "1", "--val-repeats", "1", "--val-fraction", "0.25", "--storage-units", "1", *arguments])
    if code != 0:
        raise RuntimeError(f"aeb_verl.prepare failed for {directory}")
    return directory


def rollout_of(directory: str, config: Any) -> dict[str, Any]:
    """One rollout of the directory's training rows, with what each proxy forwarded meanwhile."""
    for proxy in STATE["proxies"]:
        proxy.exchanges.clear()
    files = [os.path.join(directory, "train.parquet")]
    batch, output = STATE["rollout"].generate(files, config)
    return {"rows": read_rows(files[0]), "batch": batch, "output": output, "exchanges": [list(proxy.exchanges) for proxy in STATE["proxies"]]}


def play_directly(spec: dict[str, Any]) -> dict[str, Any]:
    """The row's episode played with the canned replies' visible text, straight to a server."""
    client = AebEnvironmentClient(support.server()["url"], auth_token=support.TOKEN)
    try:
        reset = client.reset({"scenarioId": spec["scenario_id"], "seed": int(spec["seed"]), "repeat": int(spec["repeat"]), "preset": spec["preset"], "rewardMode": spec["reward_mode"]})
        token, messages, rewards, users = reset["token"], reset["messages"], [], []
        for turn in range(100):
            reply = canned_reply(turn)["visible"]
            answer = client.step(token, messages, reply)
            rewards.append(answer["reward"])
            users.append(answer["message"])
            token = answer["token"]
            messages = messages + [{"role": "assistant", "content": reply}, {"role": "user", "content": answer["message"]}]
            if answer["done"]:
                return {"start": reset["emotion"], "rewards": rewards, "users": users, "emotion": answer["emotion"], "end_reason": answer["endReason"]}
        raise AssertionError("the episode never ended")
    finally:
        client.close()


def column(result: dict[str, Any], key: str) -> list[Any]:
    return list(result["output"].non_tensor_batch[key])


def sequence(result: dict[str, Any], index: int) -> tuple[list[int], list[int], list[int]]:
    """(prompt ids, response ids, response mask) of sample ``index``, padding removed."""
    batch = result["output"].batch
    prompt_length = batch["prompts"].shape[1]
    attention = batch["attention_mask"][index].tolist()
    prompt = [token for token, keep in zip(batch["prompts"][index].tolist(), attention[:prompt_length]) if keep]
    valid = sum(attention[prompt_length:])
    return prompt, batch["responses"][index].tolist()[:valid], batch["response_mask"][index].tolist()[:valid]


def runs(tokens: list[int], mask: list[int]) -> list[tuple[int, list[int]]]:
    """The response cut where the mask changes: (mask value, tokens) in order."""
    pieces: list[tuple[int, list[int]]] = []
    for token, value in zip(tokens, mask):
        if pieces and pieces[-1][0] == value:
            pieces[-1][1].append(token)
        else:
            pieces.append((value, [token]))
    return pieces


class DialoguesThroughVerl(unittest.TestCase):
    def check_rewards(self, result: dict[str, Any], mode: str) -> None:
        output = result["output"]
        self.assertEqual(len(output), len(result["rows"]))
        self.assertGreater(len(result["rows"]), 5)
        scores = column(result, "score")
        for index, row in enumerate(result["rows"]):
            spec = row["extra_info"]["aeb_episode"]
            self.assertEqual(spec["reward_mode"], mode)
            direct = play_directly(spec)
            name = spec["scenario_id"]
            # Every dialogue ran until the server said done, with the rewards it pays directly.
            self.assertEqual(column(result, "aeb_end_reason")[index], direct["end_reason"], name)
            self.assertIsNotNone(direct["end_reason"])
            self.assertFalse(column(result, "aeb_budget_cut")[index], name)
            self.assertIsNone(column(result, "aeb_error")[index], name)
            self.assertEqual(list(column(result, "turn_scores")[index]), direct["rewards"], name)
            self.assertEqual(column(result, "aeb_emotion")[index], direct["emotion"], name)
            self.assertEqual(column(result, "aeb_assistant_turns")[index], len(direct["rewards"]), name)
            expected = direct["emotion"] / 100 if mode == "final" else (direct["emotion"] - direct["start"]) / 100
            self.assertAlmostEqual(scores[index], expected, places=9, msg=name)
            self.assertAlmostEqual(scores[index], sum(direct["rewards"]), places=9, msg=name)
            # The score is the sample's token-level reward, at its last token.
            rm_scores = output.batch["rm_scores"][index]
            _, response, _ = sequence(result, index)
            self.assertAlmostEqual(float(rm_scores.sum()), scores[index], places=6, msg=name)
            self.assertAlmostEqual(float(rm_scores[len(response) - 1]), scores[index], places=6, msg=name)
            self.assertEqual((column(result, "aeb_failed")[index], column(result, "aeb_truncated")[index], column(result, "aeb_env_turns")[index]), (0.0, 0.0, float(len(direct["rewards"]))), name)
        self.assertGreater(len(set(round(score, 6) for score in scores)), 2, "the canned replies earn different scores on different scenarios")

    def test_final_mode_every_dialogue_runs_to_done_and_scores_the_final_emotion_over_100(self) -> None:
        self.check_rewards(STATE["final"], "final")
        self.assertTrue(all(reward == 0 for rewards in column(STATE["final"], "turn_scores") for reward in rewards[:-1]))

    def test_delta_mode_the_score_is_the_sum_of_the_turn_rewards(self) -> None:
        self.check_rewards(STATE["delta"], "delta")
        self.assertTrue(any(reward != 0 for rewards in column(STATE["delta"], "turn_scores") for reward in rewards[:-1]))

    def test_the_rows_reach_the_loop_through_verl_s_dataset(self) -> None:
        result = STATE["final"]
        batch = result["batch"]
        self.assertEqual(list(batch.non_tensor_batch["agent_name"]), ["aeb"] * len(result["rows"]))
        for index, row in enumerate(result["rows"]):
            self.assertEqual([dict(message) for message in batch.non_tensor_batch["raw_prompt"][index]], [dict(message) for message in row["prompt"]])
            self.assertEqual(batch.non_tensor_batch["extra_info"][index]["aeb_episode"]["scenario_id"], row["extra_info"]["scenario_id"])


class TokenSequence(unittest.TestCase):
    def test_replies_are_trained_and_user_turns_carry_loss_mask_0_as_the_chat_template_renders_them(self) -> None:
        result = STATE["final"]
        tokenizer = verl_harness.worker_tokenizer(STATE["rollout"].config)
        for index, row in enumerate(result["rows"]):
            direct = play_directly(row["extra_info"]["aeb_episode"])
            prompt, response, mask = sequence(result, index)
            pieces = runs(response, mask)
            turns = len(direct["rewards"])
            # Reply, user, reply, user, ..., reply: the last reply ended the episode.
            self.assertEqual([value for value, _ in pieces], [1, 0] * (turns - 1) + [1], row["extra_info"]["scenario_id"])
            for turn in range(turns):
                self.assertEqual(tokenizer.decode(pieces[2 * turn][1]), canned_reply(turn)["completion"] + "<|im_end|>")
                if turn < turns - 1:
                    self.assertEqual(tokenizer.decode(pieces[2 * turn + 1][1]), f"\n<|im_start|>user\n{direct['users'][turn]}<|im_end|>\n{ASSISTANT_HEADER}\n")
            # The whole sequence is the chat template's rendering of the dialogue as the policy
            # generated it (the template's newline after the last end token aside).
            conversation = [dict(message) for message in row["prompt"]]
            for turn in range(turns):
                conversation.append({"role": "assistant", "content": canned_reply(turn)["completion"]})
                if turn < turns - 1:
                    conversation.append({"role": "user", "content": direct["users"][turn]})
            rendered = tokenizer.apply_chat_template(conversation, tokenize=True, add_generation_prompt=False)
            rendered = rendered["input_ids"] if not isinstance(rendered, list) else rendered
            self.assertEqual(prompt + response + tokenizer.encode("\n", add_special_tokens=False), list(rendered))

    def test_no_think_text_reaches_the_user_while_the_policy_keeps_its_own(self) -> None:
        result = STATE["final"]
        steps = [(body, answer) for exchanges in result["exchanges"] for path, body, _, answer in exchanges if path == "/v1/step"]
        self.assertEqual(len(steps), sum(len(scores) for scores in column(result, "turn_scores")))
        visible = {reply["visible"] for reply in verl_harness.REPLIES}
        for body, _ in steps:
            self.assertIn(body["reply"], visible)
            self.assertNotIn(THINK_MARKER, json.dumps(body))
            self.assertNotIn("<think>", json.dumps(body))
        for exchanges in result["exchanges"]:
            self.assertFalse([path for path, body, _, _ in exchanges if THINK_MARKER in json.dumps(body)])
        # Under AEB's recipe the policy's own context keeps its earlier think blocks (the control:
        # the marker is there to be found).
        prompts, _ = STATE["rollout"].policy_seen()
        self.assertTrue(any(THINK_MARKER in prompt and prompt.count(ASSISTANT_HEADER) > 1 for prompt in prompts))


class Replicas(unittest.TestCase):
    def test_episodes_spread_over_both_replicas_and_each_stays_on_its_own(self) -> None:
        result = STATE["final"]
        resets = [sum(1 for path, *_ in exchanges if path == "/v1/reset") for exchanges in result["exchanges"]]
        self.assertEqual(sum(resets), len(result["rows"]))
        self.assertTrue(all(count > 0 for count in resets), resets)
        self.assertLessEqual(abs(resets[0] - resets[1]), 1, "round robin over the worker's episodes")
        for replica, exchanges in enumerate(result["exchanges"]):
            issued = {answer["token"] for path, _, status, answer in exchanges if status == 200 and path in ("/v1/reset", "/v1/step")}
            for path, body, _, _ in exchanges:
                if path == "/v1/step":
                    self.assertIn(body["token"], issued, f"a step on replica {replica} of an episode started elsewhere")


class Budget(unittest.TestCase):
    def test_a_dialogue_that_outgrows_the_response_budget_stops_and_is_marked_truncated(self) -> None:
        budget = 300
        config = verl_harness.trainer_config(STATE["final_dir"], STATE["model"], f"data.max_response_length={budget}")
        self.assertEqual(config.actor_rollout_ref.rollout.response_length, budget)
        files = [os.path.join(STATE["final_dir"], "train.parquet")]
        _, output = STATE["rollout"].generate(files, config)
        result = {"output": output}
        cut = [index for index in range(len(output)) if column(result, "aeb_budget_cut")[index]]
        self.assertTrue(cut, "some dialogue outgrew 300 tokens")
        for index in range(len(output)):
            _, response, mask = sequence(result, index)
            self.assertLessEqual(len(response), budget)
            if index in cut:
                # The environment never ended it: no terminal reward in final mode, and it says so.
                self.assertIsNone(column(result, "aeb_end_reason")[index])
                self.assertEqual(set(column(result, "turn_scores")[index]), {0.0})
                self.assertEqual((column(result, "score")[index], column(result, "aeb_truncated")[index]), (0.0, 1.0))
                self.assertEqual(mask[-1], 1, "the sample ends with the policy's last judged reply")


class Failures(unittest.TestCase):
    def dead_server_config(self, **environment: Any) -> Any:
        """The final directory's config with the loop pointed at a port nobody listens on."""
        import yaml

        with open(os.path.join(STATE["final_dir"], "agent_loop.yaml"), encoding="utf-8") as handle:
            entries = yaml.safe_load(handle)
        entries[0]["environment"].update({"base_urls": [support.unused_url()], "on_error": "mark", "max_attempts": 1, **environment})
        path = os.path.join(STATE["work"], f"dead-{len(os.listdir(STATE['work']))}.yaml")
        with open(path, "w", encoding="utf-8") as handle:
            yaml.safe_dump(entries, handle)
        return verl_harness.trainer_config(STATE["final_dir"], STATE["model"], f"actor_rollout_ref.rollout.agent.agent_loop_config_path={path}")

    def test_a_dead_server_with_max_failure_rate_aborts_the_rollout(self) -> None:
        files = [os.path.join(STATE["final_dir"], "train.parquet")]
        with self.assertRaises(AebEnvironmentError) as caught:
            STATE["rollout"].generate(files, self.dead_server_config(max_failure_rate=0.05), repeat=3)
        self.assertEqual(caught.exception.code, "failure_rate_exceeded")
        self.assertRegex(str(caught.exception), r"of 2\d episodes of this worker failed, more than max_failure_rate 0.05")

    def test_below_the_rate_a_failed_dialogue_is_marked_and_scored_0(self) -> None:
        files = [os.path.join(STATE["final_dir"], "train.parquet")]
        _, output = STATE["rollout"].generate(files, self.dead_server_config(max_failure_rate=1.0))
        self.assertEqual(list(output.non_tensor_batch["aeb_failed"]), [1.0] * len(output))
        self.assertEqual(list(output.non_tensor_batch["score"]), [0.0] * len(output))
        self.assertTrue(all("connection_failed" in error for error in output.non_tensor_batch["aeb_error"]))


if __name__ == "__main__":
    unittest.main()
