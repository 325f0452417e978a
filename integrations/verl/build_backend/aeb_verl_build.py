"""A PEP 517 / PEP 660 build backend for ``aeb_verl``, standard library only.

``pip install integrations/verl`` builds the package in an isolated environment with the build
requirements of ``pyproject.toml`` installed first. Requiring setuptools would make an offline
install fail (pip would have to download it; a setuptools without ``wheel`` cannot build wheels
anyway), so the build requires nothing: this in-tree backend (``backend-path``) writes the wheel,
the editable wheel and the sdist itself. The package is pure Python, so a wheel is a zip of the
package with three metadata files.

Metadata comes from the ``[project]`` table of ``pyproject.toml``. That file is read with a small
reader of the TOML subset it uses (``[table]`` headers, ``key = <value>`` where the value is a JSON
string or array of strings, ``#`` comment lines), so the backend also runs on Python 3.9 and 3.10,
which have no ``tomllib``; anything else in the file is an error, not a guess.
"""

from __future__ import annotations

import base64
import hashlib
import io
import json
import os
import tarfile
import zipfile
from typing import Any, Optional

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
PACKAGE = "aeb_verl"
# Fixed timestamps: the same sources give byte-identical archives.
ZIP_TIME = (1980, 1, 1, 0, 0, 0)
SDIST_EXTRAS = ("pyproject.toml", "README.md", os.path.join("build_backend", "aeb_verl_build.py"))


def read_pyproject(path: str = os.path.join(ROOT, "pyproject.toml")) -> dict[str, dict[str, Any]]:
    tables: dict[str, dict[str, Any]] = {}
    table: Optional[dict[str, Any]] = None
    with open(path, encoding="utf-8") as handle:
        for number, raw in enumerate(handle, start=1):
            line = raw.strip()
            if not line or line.startswith("#"):
                continue
            if line.startswith("[") and line.endswith("]"):
                table = tables.setdefault(line[1:-1].strip(), {})
                continue
            key, equals, value = line.partition("=")
            if not equals or table is None:
                raise ValueError(f"pyproject.toml line {number}: expected [table] or key = value")
            try:
                parsed = json.loads(value.strip())
            except ValueError:
                raise ValueError(f"pyproject.toml line {number}: the value must be a JSON string or array of strings") from None
            if not (isinstance(parsed, str) or (isinstance(parsed, list) and all(isinstance(item, str) for item in parsed))):
                raise ValueError(f"pyproject.toml line {number}: the value must be a string or an array of strings")
            table[key.strip().strip('"')] = parsed
    return tables


def _project() -> dict[str, Any]:
    project = read_pyproject().get("project")
    if not project or "name" not in project or "version" not in project:
        raise ValueError("pyproject.toml needs [project] with name and version")
    return project


def _distribution(project: dict[str, Any]) -> str:
    return project["name"].replace("-", "_")


def _metadata(project: dict[str, Any]) -> str:
    lines = ["Metadata-Version: 2.1", f"Name: {project['name']}", f"Version: {project['version']}"]
    for field, key in (("Summary", "description"), ("Requires-Python", "requires-python"), ("License", "license")):
        if key in project:
            lines.append(f"{field}: {project[key]}")
    return "\n".join(lines) + "\n"


def _entry_points() -> str:
    scripts = read_pyproject().get("project.scripts", {})
    return "".join(["[console_scripts]\n"] + [f"{name} = {target}\n" for name, target in sorted(scripts.items())]) if scripts else ""


def _package_files() -> list[tuple[str, str]]:
    """(path in the archive, path on disk) of every file of the package, sorted."""
    files = []
    for directory, subdirectories, names in os.walk(os.path.join(ROOT, PACKAGE)):
        subdirectories[:] = sorted(name for name in subdirectories if name != "__pycache__")
        for name in sorted(names):
            if name.endswith((".pyc", ".pyo")):
                continue
            path = os.path.join(directory, name)
            files.append((os.path.relpath(path, ROOT).replace(os.sep, "/"), path))
    return files


def _record_line(name: str, data: bytes) -> str:
    digest = base64.urlsafe_b64encode(hashlib.sha256(data).digest()).rstrip(b"=").decode("ascii")
    return f"{name},sha256={digest},{len(data)}\n"


def _write_wheel(wheel_directory: str, contents: list[tuple[str, bytes]]) -> str:
    project = _project()
    distribution = _distribution(project)
    dist_info = f"{distribution}-{project['version']}.dist-info"
    metadata = [(f"{dist_info}/METADATA", _metadata(project).encode("utf-8")), (f"{dist_info}/WHEEL", b"Wheel-Version: 1.0\nGenerator: aeb_verl_build\nRoot-Is-Purelib: true\nTag: py3-none-any\n")]
    entry_points = _entry_points()
    if entry_points:
        metadata.append((f"{dist_info}/entry_points.txt", entry_points.encode("utf-8")))
    entries = contents + metadata
    record = "".join(_record_line(name, data) for name, data in entries) + f"{dist_info}/RECORD,,\n"
    entries.append((f"{dist_info}/RECORD", record.encode("utf-8")))
    basename = f"{distribution}-{project['version']}-py3-none-any.whl"
    with zipfile.ZipFile(os.path.join(wheel_directory, basename), "w", compression=zipfile.ZIP_DEFLATED) as archive:
        for name, data in entries:
            info = zipfile.ZipInfo(name, ZIP_TIME)
            info.external_attr = 0o644 << 16
            info.compress_type = zipfile.ZIP_DEFLATED
            archive.writestr(info, data)
    return basename


def _read(path: str) -> bytes:
    with open(path, "rb") as handle:
        return handle.read()


# -- PEP 517 hooks -------------------------------------------------------------------------------


def get_requires_for_build_wheel(config_settings: Optional[dict[str, Any]] = None) -> list[str]:
    return []


def get_requires_for_build_sdist(config_settings: Optional[dict[str, Any]] = None) -> list[str]:
    return []


def get_requires_for_build_editable(config_settings: Optional[dict[str, Any]] = None) -> list[str]:
    return []


def build_wheel(wheel_directory: str, config_settings: Optional[dict[str, Any]] = None, metadata_directory: Optional[str] = None) -> str:
    return _write_wheel(wheel_directory, [(name, _read(path)) for name, path in _package_files()])


def build_editable(wheel_directory: str, config_settings: Optional[dict[str, Any]] = None, metadata_directory: Optional[str] = None) -> str:
    """A wheel holding only a .pth file that puts this source tree on sys.path (PEP 660)."""
    return _write_wheel(wheel_directory, [(f"{PACKAGE}.pth", (ROOT + "\n").encode("utf-8"))])


def build_sdist(sdist_directory: str, config_settings: Optional[dict[str, Any]] = None) -> str:
    project = _project()
    base = f"{_distribution(project)}-{project['version']}"
    files = [(name, path) for name, path in _package_files()] + [(extra.replace(os.sep, "/"), os.path.join(ROOT, extra)) for extra in SDIST_EXTRAS]
    basename = f"{base}.tar.gz"
    with tarfile.open(os.path.join(sdist_directory, basename), "w:gz", format=tarfile.PAX_FORMAT) as archive:
        for name, data in [("PKG-INFO", _metadata(project).encode("utf-8"))] + [(name, _read(path)) for name, path in files]:
            info = tarfile.TarInfo(f"{base}/{name}")
            info.size = len(data)
            info.mode = 0o644
            info.mtime = 315532800
            archive.addfile(info, io.BytesIO(data))
    return basename
