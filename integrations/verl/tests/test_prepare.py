"""``python3 -m aeb_verl.prepare``: the split, the rows, the files, and the errors it reports."""

from __future__ import annotations

import contextlib
import hashlib
import io
import json
import os
import stat
import sys
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
        code = prepare.main(["--url", support.server()["url"], "--format", "jsonl", "--python", sys.executable, *arguments])
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
        for key in ("trainer_config", "agent_loop_config", "reward_function", "launch"):
            self.assertTrue(os.path.isabs(files[key]) and os.path.isfile(files[key]), key)
        for split in ("train", "validation"):
            path = prepared["manifest"][split]["file"]
            self.assertTrue(os.path.isabs(path) and path.endswith(".jsonl"), path)
            with open(path, "rb") as handle:
                self.assertEqual(hashlib.sha256(handle.read()).hexdigest(), prepared["manifest"][split]["sha256"])
        launch = os.stat(files["launch"])
        self.assertTrue(launch.st_mode & stat.S_IXUSR)
        with open(files["trainer_config"], encoding="utf-8") as handle:
            trainer = handle.read()
        for path in (prepared["manifest"]["train"]["file"], prepared["manifest"]["validation"]["file"], files["agent_loop_config"], files["reward_function"]):
            self.assertIn(json.dumps(path), trainer)

    def test_rows_select_the_aeb_agent_loop_and_carry_their_episode(self) -> None:
        prepared = support.prepared_directory()
        openings = {scenario["id"]: scenario for scenario in scenarios_served()}
        rows = prepared["train"] + prepared["validation"]
        check_uniform_schema(rows, "prepared rows")
        for split in ("train", "validation"):
            for index, row in enumerate(prepared[split]):
                info = row["extra_info"]
                kwargs = info["aeb_episode"]
                scenario = openings[info["scenario_id"]]
                self.assertEqual(row["agent_name"], "aeb")
                self.assertEqual(row["data_source"], f"aeb/{scenario['type']}")
                self.assertEqual((info["index"], info["split"], kwargs["split"]), (index, split, split))
                self.assertEqual((kwargs["scenario_id"], kwargs["seed"], kwargs["repeat"], kwargs["preset"], kwargs["reward_mode"]), (info["scenario_id"], info["seed"], info["repeat"], "scenario", "final"))
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
            for name in ("train.jsonl", "validation.jsonl"):
                with open(os.path.join(first, name), "rb") as one, open(os.path.join(second, name), "rb") as other:
                    self.assertEqual(one.read(), other.read(), name)
            rows = read_rows(os.path.join(first, "validation.jsonl"))
            self.assertIn("<think>", rows[0]["prompt"][0]["content"])
            self.assertTrue(all(row["extra_info"]["held_out_by"] == "type" for row in rows if row["extra_info"]["type"] == "gaslighting"))
            with open(os.path.join(first, "trainer.yaml"), encoding="utf-8") as handle:
                trainer = handle.read()
            self.assertIn('adv_estimator: "gae"', trainer)
            self.assertIn("max_response_length: 12288", trainer)


def fake_verl_checkout(directory: str, version: str) -> str:
    """A directory shaped like a verl checkout of this version (what --verl-root reads)."""
    os.makedirs(os.path.join(directory, "verl", "trainer", "config"))
    os.makedirs(os.path.join(directory, "verl", "version"))
    with open(os.path.join(directory, "verl", "trainer", "config", "ppo_trainer.yaml"), "w", encoding="utf-8") as handle:
        handle.write("# placeholder of a checkout's config\n")
    with open(os.path.join(directory, "verl", "version", "version"), "w", encoding="utf-8") as handle:
        handle.write(version + "\n")
    return directory


def config_keys(tree: Any, prefix: str = "") -> set[str]:
    if not isinstance(tree, dict) or not tree:
        return {prefix}
    return {key for name, child in tree.items() for key in config_keys(child, f"{prefix}.{name}" if prefix else name)}


class TargetVerl(unittest.TestCase):
    def test_the_installed_verl_is_detected_and_its_configs_found_through_pkg(self) -> None:
        import verl

        manifest = support.prepared_directory()["manifest"]
        self.assertEqual(manifest["verl"], {"version": verl.__version__, "python": sys.executable, "root": None, "config_searchpath": "pkg://verl.trainer.config"})
        with open(manifest["files"]["trainer_config"], encoding="utf-8") as handle:
            self.assertIn('- "pkg://verl.trainer.config"', handle.read())
        with open(manifest["files"]["launch"], encoding="utf-8") as handle:
            launch = handle.read()
        self.assertIn(f"PYTHON={sys.executable}\n", launch)
        self.assertIn('exec "$PYTHON" -m verl.trainer.main_ppo', launch)
        self.assertNotIn("python3 -m verl", launch)

    def test_a_verl_checkout_of_0_9_is_used_by_absolute_path(self) -> None:
        with tempfile.TemporaryDirectory() as directory:
            root = fake_verl_checkout(os.path.join(directory, "verl-checkout"), "0.9.0")
            self.assertEqual(run_prepare("--out", os.path.join(directory, "out"), "--verl-root", root), (0, ""))
            with open(os.path.join(directory, "out", "trainer.yaml"), encoding="utf-8") as handle:
                self.assertIn(json.dumps(f"file://{root}/verl/trainer/config"), handle.read())
            with open(os.path.join(directory, "out", "launch.sh"), encoding="utf-8") as handle:
                launch = handle.read()
            self.assertIn(f"cd {root}\n", launch)
            self.assertIn(root, launch.split("PYTHONPATH=", 1)[1].split("\n", 1)[0])

    def test_other_verl_versions_are_refused_with_what_to_do(self) -> None:
        with tempfile.TemporaryDirectory() as directory:
            for version in ("0.7.1", "0.8.0", "0.10.0"):
                root = fake_verl_checkout(os.path.join(directory, version), version)
                code, errors = run_prepare("--out", os.path.join(directory, "out"), "--verl-root", root)
                self.assertEqual(code, 1, version)
                self.assertIn(f"verl {version} is not supported", errors)
                self.assertIn("Install verl 0.9", errors)
                self.assertIn("verl <= 0.7's interaction path is no longer supported", errors)
            self.assertFalse(os.path.exists(os.path.join(directory, "out")))

    def test_an_interpreter_without_verl_is_refused(self) -> None:
        with tempfile.TemporaryDirectory() as directory:
            # A Python that cannot see the venv's packages: the same interpreter in isolated mode
            # with no site directory.
            bare = os.path.join(directory, "bare-python")
            with open(bare, "w", encoding="utf-8") as handle:
                handle.write(f"#!/bin/sh\nexec {sys.executable} -I -S \"$@\"\n")
            os.chmod(bare, 0o755)
            errors = io.StringIO()
            with contextlib.redirect_stderr(errors), contextlib.redirect_stdout(io.StringIO()):
                code = prepare.main(["--url", support.server()["url"], "--out", os.path.join(directory, "out"), "--python", bare])
            self.assertEqual(code, 1)
            self.assertIn("has no verl installed", errors.getvalue())

    def test_every_key_the_trainer_config_sets_exists_in_the_installed_verl_s_config(self) -> None:
        import verl
        import yaml

        with open(os.path.join(os.path.dirname(verl.__file__), "trainer", "config", "_generated_ppo_trainer.yaml"), encoding="utf-8") as handle:
            known = config_keys(yaml.safe_load(handle))
        prefixes = {".".join(key.split(".")[:depth]) for key in known for depth in range(1, key.count(".") + 2)}
        for recipe in ("aeb", "rlver"):
            with tempfile.TemporaryDirectory() as directory:
                self.assertEqual(run_prepare("--out", directory, "--recipe", recipe), (0, ""))
                with open(os.path.join(directory, "trainer.yaml"), encoding="utf-8") as handle:
                    ours = yaml.safe_load(handle)
            ours.pop("hydra")
            ours.pop("defaults")
            # reward_kwargs is read with .get by verl/trainer/ppo/reward.py, so it has no default.
            unknown = sorted(key for key in config_keys(ours) if key not in prefixes and not key.startswith("reward.custom_reward_function.reward_kwargs."))
            self.assertEqual(unknown, [], recipe)
            self.assertEqual(ours["reward"]["custom_reward_function"]["name"], "compute_score_with_marks")
            self.assertNotIn("custom_reward_function", ours)
            self.assertNotIn("reward_model", ours)


class Recipes(unittest.TestCase):
    def test_the_rlver_recipe_writes_rlver_s_loop_and_the_aeb_preset_family_is_accepted(self) -> None:
        import yaml

        with tempfile.TemporaryDirectory() as directory:
            self.assertEqual(run_prepare("--out", directory, "--recipe", "rlver", "--preset", "aeb-plus"), (0, ""))
            with open(os.path.join(directory, "agent_loop.yaml"), encoding="utf-8") as handle:
                [entry] = yaml.safe_load(handle)
            with open(os.path.join(directory, "manifest.json"), encoding="utf-8") as handle:
                manifest = json.load(handle)
        self.assertEqual((entry["name"], entry["_target_"], entry["past_think"], entry["samples"], entry["max_turn_tokens"]), ("aeb", "aeb_verl.agent_loop.AebAgentLoop", "strip", "turn", 5000))
        self.assertEqual(entry["environment"]["preset"], "aeb-plus")
        self.assertEqual((manifest["trainer"]["recipe"], manifest["trainer"]["algorithm"], manifest["trainer"]["rollout"], manifest["trainer"]["rollout_n"]), ("rlver", "ppo", "vllm", 1))

    def test_the_aeb_recipe_keeps_think_and_trains_one_sample_per_dialogue(self) -> None:
        import yaml

        with open(support.prepared_directory()["manifest"]["files"]["agent_loop_config"], encoding="utf-8") as handle:
            [entry] = yaml.safe_load(handle)
        self.assertEqual((entry["past_think"], entry["samples"], entry["max_turn_tokens"]), ("keep", "dialogue", None))
        self.assertEqual(entry["environment"]["base_urls"], [support.server()["url"]])
        self.assertNotIn(support.TOKEN, json.dumps(entry))


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
                code = prepare.main(["--url", "http://127.0.0.1:9", "--out", os.path.join(directory, "out"), "--format", "jsonl", "--python", sys.executable, "--max-attempts", "1"])
        self.assertEqual(code, 1)
        self.assertIn("connection_failed", errors.getvalue())


if __name__ == "__main__":
    unittest.main()
