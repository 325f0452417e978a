"""``python -m aeb_verl.prepare ... && launch.sh`` as a user runs them, on a machine without a GPU:
verl 0.9's trainer composes the written config, starts Ray, TransferQueue and its task runner, and
stops at its own resource check, ``Total available GPUs 0 is less than total desired GPUs 8``,
which is as far as a CPU machine goes. Everything before it (Hydra finding verl's configs through
``pkg://``, ``validate_config``, the reward and agent loop settings) has then been accepted.

``--storage-units 1``: TransferQueue's storage units take a CPU each, and verl's trainer waits
forever for units a small machine cannot place (this machine has 2 CPUs; 2 units hang here).
"""

from __future__ import annotations

import os
import shutil
import subprocess
import sys
import tempfile
import unittest

import support
import tiny_model
import verl_harness

#: A start takes about two minutes on two shared CPUs; a hang (the storage units) takes forever.
LAUNCH_TIMEOUT = 480


class DryStart(unittest.TestCase):
    def test_prepare_then_launch_sh_reaches_verl_s_gpu_check(self) -> None:
        work = tempfile.mkdtemp(prefix="aeb-verl-dry-start-")
        self.addCleanup(shutil.rmtree, work, True)
        model = tiny_model.build(os.path.join(work, "model"), [os.path.join(support.SCENARIOS, "*.yaml"), os.path.join(verl_harness.HERE, "fixtures", "policy-replies.json")])
        out = os.path.join(work, "prepared")
        env = {**os.environ, "PYTHONPATH": support.PACKAGE_ROOT, "AEB_SERVER_TOKEN": support.TOKEN}
        env.pop("AEB_VERL_PYTHON", None)
        prepared = subprocess.run([sys.executable, "-m", "aeb_verl.prepare", "--url", support.server()["url"], "--out", out, "--model", model, "--storage-units", "1", "--python", sys.executable], capture_output=True, text=True, env=env, timeout=120)
        self.assertEqual(prepared.returncode, 0, prepared.stderr)
        self.assertIn(f"launch: {out}/launch.sh", prepared.stdout)
        # launch.sh as written: no overrides, its own interpreter, started from another directory.
        launched = subprocess.run([os.path.join(out, "launch.sh")], capture_output=True, text=True, env={key: value for key, value in env.items() if key != "PYTHONPATH"}, cwd=work, timeout=LAUNCH_TIMEOUT, stdin=subprocess.DEVNULL)
        output = launched.stdout + launched.stderr
        self.assertNotEqual(launched.returncode, 0)
        self.assertIn("ValueError: Total available GPUs 0 is less than total desired GPUs 8", output, output[-3000:])
        # The trainer printed the config it runs: the AEB loop, its registration and the reward function.
        self.assertIn(f"'agent_loop_config_path': '{out}/agent_loop.yaml'", output)
        self.assertIn("'default_agent_loop': 'aeb'", output)
        self.assertIn("'name': 'compute_score_with_marks'", output)
        self.assertIn(f"'path': '{support.PACKAGE_ROOT}/aeb_verl/reward.py'", output)


if __name__ == "__main__":
    unittest.main()
