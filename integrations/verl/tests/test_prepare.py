"""``python3 -m aeb_verl.prepare``: the split, the rows, the files, and the errors it reports."""

from __future__ import annotations

import contextlib
import hashlib
import io
import json
import os
import stat
import tempfile
import unittest
from typing import Any

import support

from aeb_verl import prepare
from aeb_verl.client import AebEnvironmentClient
from aeb_verl.dataset import check_uniform_schema, read_rows
from aeb_verl.split import split_scenarios


def setUpModule() -> None:  # noqa: N802
    support.server()



def scenarios_served() -> list[dict[str, Any]]:
    client = AebEnvironmentClient(support.server()["url"], auth_token=support.server()["token"])
    try:
        return client.scenarios()
    finally:
        client.close()


def run_prepare(*arguments: str) -> tuple[int, str]:
    """Runs the command in-process; returns its exit code and what it wrote to stderr."""
    errors = io.StringIO()
    with contextlib.redirect_stderr(errors), contextlib.redirect_stdout(io.StringIO()):
        code = prepare.main(["--url", support.server()["url"], "--format", "jsonl", *arguments])
    return code, errors.getvalue()


def synthetic(types: dict[str, int]) -> list[dict[str, Any]]:
    return [{"id": f"{kind}-{index}", "type": kind, "opening": "hi"} for kind, count in types.items() for index in range(count)]


class Split(unittest.TestCase):
    def test_a_fraction_holds_out_scenarios_spread_over_types_and_keeps_each_type_in_training(self) -> None:
        scenarios = synthetic({"gaslighting": 10, "escalation": 10, "mood_reversal": 10, "singleton": 1})
        split = split_scenarios(scenarios, seed=1, val_fraction=0.2)
        held = {scenario["id"] for scenario in split.validation}
        self.assertEqual(len(held), 6)
        self.assertEqual({kind: sum(1 for scenario in split.validation if scenario["type"] == kind) for kind in ("gaslighting", "escalation", "mood_reversal")}, {"gaslighting": 2, "escalation": 2, "mood_reversal": 2})
        self.assertFalse(held & {scenario["id"] for scenario in split.train})
        self.assertEqual({scenario["type"] for scenario in split.train}, {"gaslighting", "escalation", "mood_reversal", "singleton"})
        self.assertEqual(set(split.held_out_by.values()), {"scenario"})

    def test_the_split_depends_on_the_seed_and_ids_only(self) -> None:
        scenarios = synthetic({"a": 6, "b": 6})
        first = split_scenarios(scenarios, seed=5, val_fraction=0.25)
        self.assertEqual(split_scenarios(list(reversed(scenarios)), seed=5, val_fraction=0.25).held_out_by, first.held_out_by)
        splits = {tuple(sorted(split_scenarios(scenarios, seed=seed, val_fraction=0.25).held_out_by)) for seed in range(6)}
        self.assertGreater(len(splits), 1, "another seed holds out other scenarios")

    def test_held_out_types_go_to_validation_whole(self) -> None:
        split = split_scenarios(synthetic({"a": 3, "b": 3, "c": 4}), seed=1, val_fraction=0.2, val_types=["c"])
        self.assertEqual(sorted(split.held_out_by.values()).count("type"), 4)
        self.assertNotIn("c", {scenario["type"] for scenario in split.train})
        self.assertEqual(sum(1 for why in split.held_out_by.values() if why == "scenario"), 1)

    def test_named_scenarios_replace_the_fraction(self) -> None:
        split = split_scenarios(synthetic({"a": 3, "b": 3}), seed=1, val_fraction=0.5, val_scenarios=["a-1"])
        self.assertEqual(split.held_out_by, {"a-1": "scenario"})

    def test_impossible_splits_are_refused_with_the_reason(self) -> None:
        scenarios = synthetic({"a": 2, "b": 2})
        for options, message in (
            ({"val_types": ["zzz"]}, "held-out type 'zzz' has no scenario"),
            ({"val_scenarios": ["nope"]}, "held-out scenario 'nope'"),
            ({"val_types": ["a", "b"]}, "no scenario is left for training"),
            ({"val_fraction": 0.0}, "no scenario is held out"),
            ({"val_fraction": 1.0}, "fraction must be in"),
        ):
            with self.assertRaisesRegex(ValueError, message):
                split_scenarios(scenarios, seed=1, **options)


class PreparedDirectory(unittest.TestCase):
    def test_every_path_is_absolute_and_exists(self) -> None:
        prepared = support.prepared_directory()
        files = prepared["manifest"]["files"]
        for key in ("trainer_config", "interaction_config", "reward_function", "launch"):
            self.assertTrue(os.path.isabs(files[key]) and os.path.isfile(files[key]), key)
        for split in ("train", "validation"):
            path = prepared["manifest"][split]["file"]
            self.assertTrue(os.path.isabs(path) and path.endswith(".json"), path)
            with open(path, "rb") as handle:
                self.assertEqual(hashlib.sha256(handle.read()).hexdigest(), prepared["manifest"][split]["sha256"])
        launch = os.stat(files["launch"])
        self.assertTrue(launch.st_mode & stat.S_IXUSR)
        with open(files["trainer_config"], encoding="utf-8") as handle:
            trainer = handle.read()
        for path in (prepared["manifest"]["train"]["file"], prepared["manifest"]["validation"]["file"], files["interaction_config"], files["reward_function"]):
            self.assertIn(json.dumps(path), trainer)

    def test_rows_select_the_tool_agent_loop_and_carry_the_interaction_kwargs(self) -> None:
        prepared = support.prepared_directory()
        openings = {scenario["id"]: scenario for scenario in scenarios_served()}
        rows = prepared["train"] + prepared["validation"]
        check_uniform_schema(rows, "prepared rows")
        for split in ("train", "validation"):
            for index, row in enumerate(prepared[split]):
                info = row["extra_info"]
                kwargs = info["interaction_kwargs"]
                scenario = openings[info["scenario_id"]]
                self.assertEqual(row["agent_name"], "tool_agent")
                self.assertEqual(row["data_source"], f"aeb/{scenario['type']}")
                self.assertEqual((info["index"], info["split"], kwargs["split"]), (index, split, split))
                self.assertEqual((kwargs["name"], kwargs["scenario_id"], kwargs["seed"], kwargs["repeat"], kwargs["preset"], kwargs["reward_mode"]), ("aeb", info["scenario_id"], info["seed"], info["repeat"], "scenario", "final"))
                self.assertEqual(row["prompt"][0]["role"], "system")
                self.assertEqual(row["prompt"][-1], {"role": "user", "content": scenario["opening"]})
                self.assertEqual(info["held_out_by"], "scenario" if split == "validation" else "")

    def test_validation_scenarios_are_held_out_from_training(self) -> None:
        prepared = support.prepared_directory()
        train = {row["extra_info"]["scenario_id"] for row in prepared["train"]}
        validation = {row["extra_info"]["scenario_id"] for row in prepared["validation"]}
        self.assertFalse(train & validation)
        self.assertEqual(train | validation, {scenario["id"] for scenario in scenarios_served()})
        self.assertEqual([item["id"] for item in prepared["manifest"]["validation"]["scenarios"]], sorted(validation))

    def test_the_same_arguments_write_the_same_rows(self) -> None:
        with tempfile.TemporaryDirectory() as first, tempfile.TemporaryDirectory() as second:
            for directory in (first, second):
                self.assertEqual(run_prepare("--out", directory, "--seed", "3", "--val-types", "gaslighting", "--think", "--algorithm", "ppo"), (0, ""))
            for name in ("train.json", "validation.json"):
                with open(os.path.join(first, name), "rb") as one, open(os.path.join(second, name), "rb") as other:
                    self.assertEqual(one.read(), other.read(), name)
            rows = read_rows(os.path.join(first, "validation.json"))
            self.assertIn("<think>", rows[0]["prompt"][0]["content"])
            self.assertTrue(all(row["extra_info"]["held_out_by"] == "type" for row in rows if row["extra_info"]["type"] == "gaslighting"))
            with open(os.path.join(first, "trainer.yaml"), encoding="utf-8") as handle:
                trainer = handle.read()
            self.assertIn('adv_estimator: "gae"', trainer)
            self.assertIn("max_response_length: 12288", trainer)


class Errors(unittest.TestCase):
    def test_a_foreign_or_already_prepared_directory_is_not_overwritten(self) -> None:
        with tempfile.TemporaryDirectory() as directory:
            with open(os.path.join(directory, "notes.txt"), "w", encoding="utf-8") as handle:
                handle.write("mine")
            code, errors = run_prepare("--out", directory)
            self.assertEqual(code, 1)
            self.assertIn("not empty and was not written by this command", errors)
        with tempfile.TemporaryDirectory() as directory:
            self.assertEqual(run_prepare("--out", directory)[0], 0)
            code, errors = run_prepare("--out", directory)
            self.assertEqual(code, 1)
            self.assertIn("give --force", errors)

    def test_bad_choices_are_reported_by_name(self) -> None:
        with tempfile.TemporaryDirectory() as directory:
            for arguments, message in (
                (["--types", "nonsense"], "no scenario of type(s) nonsense"),
                (["--suite", "nope"], "lists no scenario of suite nope"),
                (["--verl-root", directory], "is not a verl checkout"),
                (["--algorithm", "grpo", "--rollout-n", "1"], "rollout_n must be >= 2"),
                (["--prompts-dir", os.path.join(directory, "missing")], "no prompts directory"),
            ):
                code, errors = run_prepare("--out", os.path.join(directory, "out"), *arguments)
                self.assertEqual(code, 1, arguments)
                self.assertIn(message, errors, arguments)
            self.assertFalse(os.path.exists(os.path.join(directory, "out")), "nothing is written when the arguments are wrong")

    def test_an_unreachable_server_is_reported_after_the_retry_budget(self) -> None:
        with tempfile.TemporaryDirectory() as directory:
            errors = io.StringIO()
            with contextlib.redirect_stderr(errors):
                code = prepare.main(["--url", "http://127.0.0.1:9", "--out", os.path.join(directory, "out"), "--format", "jsonl", "--max-attempts", "1"])
        self.assertEqual(code, 1)
        self.assertIn("connection_failed", errors.getvalue())


if __name__ == "__main__":
    unittest.main()
