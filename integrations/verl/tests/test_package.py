"""The in-tree build backend: ``pip install integrations/verl`` builds offline from these hooks."""

from __future__ import annotations

import base64
import hashlib
import importlib.util
import os
import tarfile
import tempfile
import unittest
import zipfile

import support

spec = importlib.util.spec_from_file_location("aeb_verl_build", os.path.join(support.PACKAGE_ROOT, "build_backend", "aeb_verl_build.py"))
assert spec is not None and spec.loader is not None
backend = importlib.util.module_from_spec(spec)
spec.loader.exec_module(backend)


class Wheel(unittest.TestCase):
    def test_the_wheel_holds_the_package_and_a_record_that_matches_it(self) -> None:
        with tempfile.TemporaryDirectory() as directory:
            name = backend.build_wheel(directory)
            self.assertEqual(name, "aeb_verl-0.3.0-py3-none-any.whl")
            with zipfile.ZipFile(os.path.join(directory, name)) as wheel:
                names = wheel.namelist()
                record = wheel.read("aeb_verl-0.3.0.dist-info/RECORD").decode()
                metadata = wheel.read("aeb_verl-0.3.0.dist-info/METADATA").decode()
                entry_points = wheel.read("aeb_verl-0.3.0.dist-info/entry_points.txt").decode()
                for line in record.splitlines():
                    path, digest, size = line.split(",")
                    if path.endswith("RECORD"):
                        continue
                    data = wheel.read(path)
                    self.assertEqual(digest, "sha256=" + base64.urlsafe_b64encode(hashlib.sha256(data).digest()).rstrip(b"=").decode(), path)
                    self.assertEqual(int(size), len(data), path)
            # The same sources give the same bytes.
            with open(os.path.join(directory, name), "rb") as handle:
                first = handle.read()
            os.remove(os.path.join(directory, name))
            backend.build_wheel(directory)
            with open(os.path.join(directory, name), "rb") as handle:
                self.assertEqual(handle.read(), first)
        for module in ("__init__", "client", "retry", "settings", "agent_loop", "environment", "verl_target", "reward", "prepare", "dataset", "split", "launch_files", "visible_reply"):
            self.assertIn(f"aeb_verl/{module}.py", names)
        for template in ("trainer.yaml", "agent_loop.yaml", "launch.sh", "recipes.json"):
            self.assertIn(f"aeb_verl/templates/{template}", names)
        self.assertFalse([name for name in names if "__pycache__" in name or name.endswith(".pyc")])
        self.assertIn("Name: aeb-verl\nVersion: 0.3.0\n", metadata)
        self.assertIn("aeb-verl-prepare = aeb_verl.prepare:main", entry_points)
        self.assertEqual(backend.get_requires_for_build_wheel(), [])

    def test_the_editable_wheel_points_at_the_source_tree(self) -> None:
        with tempfile.TemporaryDirectory() as directory:
            with zipfile.ZipFile(os.path.join(directory, backend.build_editable(directory))) as wheel:
                self.assertEqual(wheel.read("aeb_verl.pth").decode().strip(), support.PACKAGE_ROOT)

    def test_the_sdist_holds_what_a_build_needs(self) -> None:
        with tempfile.TemporaryDirectory() as directory:
            with tarfile.open(os.path.join(directory, backend.build_sdist(directory))) as sdist:
                names = sdist.getnames()
        for needed in ("aeb_verl-0.3.0/PKG-INFO", "aeb_verl-0.3.0/pyproject.toml", "aeb_verl-0.3.0/build_backend/aeb_verl_build.py", "aeb_verl-0.3.0/aeb_verl/agent_loop.py"):
            self.assertIn(needed, names)

    def test_the_version_is_stated_once(self) -> None:
        import aeb_verl

        self.assertEqual(backend.read_pyproject()["project"]["version"], aeb_verl.__version__)

    def test_pyproject_syntax_the_reader_does_not_know_is_an_error(self) -> None:
        with tempfile.NamedTemporaryFile("w", suffix=".toml", delete=False) as handle:
            handle.write('[project]\nname = "x"\nversion = 1.0\n')
        try:
            with self.assertRaisesRegex(ValueError, "line 3"):
                backend.read_pyproject(handle.name)
        finally:
            os.remove(handle.name)


if __name__ == "__main__":
    unittest.main()
