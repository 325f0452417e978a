"""Which verl a prepared directory will run, and whether aeb_verl supports it.

``aeb_verl.prepare`` writes a trainer config for one verl: the installed package of the interpreter
``launch.sh`` runs (``--python``, default the one running ``prepare``), or a checkout
(``--verl-root``). It reads that verl's version without importing it (no torch start-up) and refuses
any version but 0.9: verl 0.8 removed the interaction system the old adapter plugged into, and 0.9
moved the reward settings under ``reward.*``; this package's agent loop and config keys were tested
against verl 0.9.0.
"""

from __future__ import annotations

import os
import re
import shutil
import subprocess
import sys
from dataclasses import dataclass
from typing import Optional

SUPPORTED_SERIES = (0, 9)
TESTED = "0.9.0"

_PROBE = (
    "import importlib.metadata as m, importlib.util as u\n"
    "spec = u.find_spec('verl')\n"
    "print(m.version('verl') if spec else '')\n"
    "print(spec.origin if spec else '')\n"
)


@dataclass(frozen=True)
class VerlTarget:
    version: str
    #: The interpreter ``launch.sh`` runs (absolute).
    python: str
    #: The checkout given with ``--verl-root``, or None for the installed package.
    root: Optional[str]
    #: Where Hydra finds verl's own configs (``ppo_trainer`` and its groups).
    searchpath: str


def unsupported(version: str) -> Optional[str]:
    """Why this verl version is refused, or None when it is supported."""
    match = re.match(r"(\d+)\.(\d+)", version)
    if match and (int(match.group(1)), int(match.group(2))) == SUPPORTED_SERIES:
        return None
    return (
        f"verl {version} is not supported: aeb_verl runs on verl 0.9 (its agent loop API and reward.* settings; tested with {TESTED}). "
        "verl <= 0.7's interaction path is no longer supported (verl 0.8 removed it). "
        "Install verl 0.9 (bash ../shared/verl/setup-venv.sh VENV, or pip install 'verl==0.9.*') and give its interpreter with --python"
    )


def detect(python: Optional[str], verl_root: Optional[str]) -> VerlTarget:
    """The verl the directory will run; raises ValueError naming what is wrong and what to do."""
    # Not resolved through symlinks: a virtual environment's python is a link to the base one.
    interpreter = os.path.abspath(python) if python and os.sep in python else ((shutil.which(python) or python) if python else sys.executable)
    if verl_root:
        root = os.path.abspath(verl_root)
        if not os.path.isfile(os.path.join(root, "verl", "trainer", "config", "ppo_trainer.yaml")):
            raise ValueError(f"--verl-root {root} is not a verl checkout (no verl/trainer/config/ppo_trainer.yaml)")
        try:
            with open(os.path.join(root, "verl", "version", "version"), encoding="utf-8") as handle:
                version = handle.read().strip()
        except FileNotFoundError:
            raise ValueError(f"--verl-root {root} has no verl/version/version file: is it a verl checkout?") from None
        target = VerlTarget(version, interpreter, root, f"file://{root}/verl/trainer/config")
    else:
        try:
            probe = subprocess.run([interpreter, "-c", _PROBE], capture_output=True, text=True, timeout=60)
        except (OSError, subprocess.TimeoutExpired) as error:
            raise ValueError(f"cannot run the interpreter {interpreter!r} to find verl ({error}); give --python with the interpreter that has verl, or --verl-root") from None
        lines = probe.stdout.splitlines()
        if probe.returncode != 0 or len(lines) < 2:
            raise ValueError(f"the interpreter {interpreter!r} failed to report its verl: {probe.stderr.strip()[-300:]}")
        if not lines[0]:
            raise ValueError(f"{interpreter} has no verl installed: give --python with the interpreter that has verl 0.9 (bash ../shared/verl/setup-venv.sh VENV builds one), or --verl-root")
        target = VerlTarget(lines[0].strip(), interpreter, None, "pkg://verl.trainer.config")
    reason = unsupported(target.version)
    if reason:
        raise ValueError(reason)
    return target
