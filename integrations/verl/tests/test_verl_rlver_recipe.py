"""RLVER's recipe (``prepare --recipe rlver``) through verl 0.9's default V1 trainer path:
TransferQueue and ``AgentLoopWorkerTQ`` in its own Ray worker process, the AEB loop with
``past_think: strip`` and ``samples: turn``, the reward loop with the naive manager.

As RLVER's rollout (``vllm_rollout_spmd_think.py``) builds its batch: every assistant turn is a
training sample whose prompt is the conversation so far, rendered by the chat template from what
the user saw (earlier think blocks gone) and whose response is that turn's reply as generated
(its own think block included, every token trained), and each sample is paid the dialogue's final
reward at its last token. Each reply may take RLVER's per-turn budget of 5,000 tokens.
"""

from __future__ import annotations

import contextlib
import io
import os
import shutil
import sys
import tempfile
import unittest
from typing import Any

import support
import tiny_model
import verl_harness
from verl_harness import THINK_MARKER, canned_reply

from aeb_verl import prepare
from aeb_verl.client import AebEnvironmentClient
from aeb_verl.dataset import read_rows

ROWS = 3
STATE: dict[str, Any] = {}


def setUpModule() -> None:  # noqa: N802 (unittest's name)
    work = STATE["work"] = tempfile.mkdtemp(prefix="aeb-verl-rlver-")
    model = tiny_model.build(os.path.join(work, "model"), [os.path.join(support.SCENARIOS, "*.yaml"), os.path.join(verl_harness.HERE, "fixtures", "policy-replies.json")])
    directory = os.path.join(work, "prepared")
    with contextlib.redirect_stdout(io.StringIO()):
        code = prepare.main(["--url", support.server()["url"], "--out", directory, "--python", sys.executable, "--recipe", "rlver", "--think", "--seed", "7", "--repeats", "1", "--val-repeats", "1", "--val-fraction", "0.25", "--storage-units", "1"])
    if code != 0:
        raise RuntimeError("aeb_verl.prepare --recipe rlver failed")
    STATE["directory"] = directory
    STATE["config"] = verl_harness.trainer_config(directory, model)
    files = [os.path.join(directory, "train.parquet")]
    STATE["rows"] = read_rows(files[0])[:ROWS]
    STATE["samples"], STATE["policy"] = verl_harness.generate_through_transfer_queue(model, STATE["config"], files, ROWS)
    STATE["tokenizer"] = verl_harness.worker_tokenizer(STATE["config"])


def tearDownModule() -> None:  # noqa: N802
    shutil.rmtree(STATE["work"], ignore_errors=True)


def play_directly(spec: dict[str, Any]) -> dict[str, Any]:
    client = AebEnvironmentClient(support.server()["url"], auth_token=support.TOKEN)
    try:
        reset = client.reset({"scenarioId": spec["scenario_id"], "seed": int(spec["seed"]), "repeat": int(spec["repeat"]), "preset": spec["preset"], "rewardMode": spec["reward_mode"]})
        token, messages, rewards = reset["token"], reset["messages"], []
        for turn in range(100):
            reply = canned_reply(turn)["visible"]
            answer = client.step(token, messages, reply)
            rewards.append(answer["reward"])
            token = answer["token"]
            messages = messages + [{"role": "assistant", "content": reply}, {"role": "user", "content": answer["message"]}]
            if answer["done"]:
                return {"rewards": rewards, "messages": messages[1:], "emotion": answer["emotion"]}
        raise AssertionError("the episode never ended")
    finally:
        client.close()


class RlverRecipe(unittest.TestCase):
    def test_the_recipe_writes_rlver_s_settings(self) -> None:
        config = STATE["config"]
        rollout = config.actor_rollout_ref.rollout
        self.assertEqual((config.algorithm.adv_estimator, rollout.name, rollout.n, rollout.prompt_length, rollout.response_length), ("gae", "vllm", 1, 5000, 10000))
        self.assertEqual((config.trainer.test_freq, config.trainer.total_training_steps, config.trainer.val_before_train, config.trainer.save_freq), (999999, 1000, False, 5))
        self.assertEqual((config.actor_rollout_ref.actor.ppo_max_token_len_per_gpu, config.data.train_batch_size, config.actor_rollout_ref.actor.use_kl_loss), (48000, 32, False))

    def test_one_sample_per_assistant_turn_each_paid_the_final_reward_at_its_last_token(self) -> None:
        for row, samples in zip(STATE["rows"], STATE["samples"]):
            direct = play_directly(row["extra_info"]["aeb_episode"])
            name = row["extra_info"]["scenario_id"]
            self.assertEqual(len(samples), len(direct["rewards"]), name)
            final = direct["emotion"] / 100
            for sample in samples:
                self.assertEqual(list(sample["extra_fields"]["turn_scores"]), direct["rewards"], name)
                reward_at = [position for position, value in enumerate(sample["rm_scores"]) if value != 0]
                self.assertEqual(reward_at, [len(sample["responses"]) - 1] if final else [], name)
                self.assertAlmostEqual(sum(sample["rm_scores"]), final, places=6, msg=name)
                self.assertEqual(sample["extra_fields"]["reward_extra_info"]["score"], final)

    def test_each_turn_s_context_is_the_visible_conversation_and_its_reply_is_trained_whole(self) -> None:
        tokenizer = STATE["tokenizer"]
        for row, samples in zip(STATE["rows"], STATE["samples"]):
            direct = play_directly(row["extra_info"]["aeb_episode"])
            for turn, sample in enumerate(samples):
                seen = [dict(message) for message in row["prompt"]] + direct["messages"][: 2 * turn]
                rendered = tokenizer.apply_chat_template(seen, tokenize=True, add_generation_prompt=True)
                rendered = rendered["input_ids"] if not isinstance(rendered, list) else rendered
                self.assertEqual(sample["prompts"], list(rendered), f"{row['extra_info']['scenario_id']} turn {turn}")
                self.assertNotIn(THINK_MARKER, tokenizer.decode(sample["prompts"]))
                self.assertEqual(tokenizer.decode(sample["responses"]), canned_reply(turn)["completion"] + "<|im_end|>")
                self.assertEqual(sample["response_mask"], [1] * len(sample["responses"]))
        self.assertTrue(any(THINK_MARKER in canned_reply(turn)["completion"] for turn in range(3)), "the control: some replies think")

    def test_every_reply_may_take_rlver_s_per_turn_budget(self) -> None:
        prompts, max_tokens = STATE["policy"]
        self.assertEqual(len(max_tokens), sum(len(samples) for samples in STATE["samples"]))
        self.assertEqual(set(max_tokens), {5000})
        self.assertFalse([prompt for prompt in prompts if THINK_MARKER in prompt])


if __name__ == "__main__":
    unittest.main()
