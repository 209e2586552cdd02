"""The package's build backend (PEP 517 and PEP 660), standard library only, in the source tree.

So that ``pip install ./clients/python`` works offline in any Python 3.9+ environment, a fresh virtual
environment included: setuptools before 70.1 builds wheels only with the ``wheel`` package, which a
fresh environment does not have (and Python 3.12's have no setuptools at all), and fetching either
needs an index. A pure-Python package's wheel is a zip of its files and three metadata files; this
writes exactly that. The metadata comes from pyproject.toml's [project] table (the simple fields this
project uses; Python 3.9 and 3.10 have no TOML parser).
"""

from __future__ import annotations

import base64
import hashlib
import io
import os
import re
import tarfile
import zipfile
from pathlib import Path
from typing import Dict, List, Optional, Tuple

ROOT = Path(__file__).resolve().parent.parent
SOURCE = ROOT / "src"
PACKAGE = "mdp_client"


def _project() -> Dict[str, object]:
    text = (ROOT / "pyproject.toml").read_text(encoding="utf-8")
    section = re.search(r"^\[project\]\n(.*?)(?=^\[)", text, re.M | re.S)
    extras = re.search(r"^\[project\.optional-dependencies\]\n(.*?)(?=^\[|\Z)", text, re.M | re.S)
    if section is None:
        raise RuntimeError("pyproject.toml has no [project] table")
    fields: Dict[str, object] = {
        k: v for k, v in re.findall(r'^([a-z-]+)\s*=\s*"([^"]*)"\s*$', section.group(1), re.M)
    }
    fields["extras"] = {
        k: re.findall(r'"([^"]+)"', v)
        for k, v in re.findall(r"^([a-z0-9_-]+)\s*=\s*\[(.*?)\]", extras.group(1) if extras else "", re.M | re.S)
    }
    return fields


def _names() -> Tuple[str, str, str]:
    project = _project()
    name = str(project["name"])
    version = str(project["version"])
    dist = re.sub(r"[-_.]+", "_", name)
    return name, version, f"{dist}-{version}"


def _metadata() -> str:
    project = _project()
    lines = [
        "Metadata-Version: 2.1",
        f"Name: {project['name']}",
        f"Version: {project['version']}",
        f"Summary: {project.get('description', '')}",
        f"Requires-Python: {project.get('requires-python', '>=3.9')}",
    ]
    for extra, requirements in dict(project["extras"]).items():  # type: ignore[arg-type]
        lines.append(f"Provides-Extra: {extra}")
        lines += [f'Requires-Dist: {r}; extra == "{extra}"' for r in requirements]
    readme = project.get("readme")
    if readme:
        # The long description (what `pip show --verbose` and an index's page show) is the message body.
        lines.append("Description-Content-Type: text/markdown")
        return "\n".join(lines) + "\n\n" + (ROOT / str(readme)).read_text(encoding="utf-8")
    return "\n".join(lines) + "\n"


WHEEL = "Wheel-Version: 1.0\nGenerator: mdp_build\nRoot-Is-Purelib: true\nTag: py3-none-any\n"


def _package_files() -> List[Tuple[str, bytes]]:
    out = []
    for path in sorted((SOURCE / PACKAGE).rglob("*")):
        if path.is_file() and "__pycache__" not in path.parts and path.suffix in (".py", ".typed"):
            out.append((path.relative_to(SOURCE).as_posix(), path.read_bytes()))
    return out


def _wheel(directory: str, files: List[Tuple[str, bytes]]) -> str:
    _, _, stem = _names()
    info = f"{stem}.dist-info"
    files = files + [(f"{info}/METADATA", _metadata().encode()), (f"{info}/WHEEL", WHEEL.encode())]
    record = []
    for name, data in files:
        digest = base64.urlsafe_b64encode(hashlib.sha256(data).digest()).rstrip(b"=").decode()
        record.append(f"{name},sha256={digest},{len(data)}")
    record.append(f"{info}/RECORD,,")
    filename = f"{stem}-py3-none-any.whl"
    with zipfile.ZipFile(os.path.join(directory, filename), "w", zipfile.ZIP_DEFLATED) as whl:
        for name, data in files:
            whl.writestr(name, data)
        whl.writestr(f"{info}/RECORD", "\n".join(record) + "\n")
    return filename


def get_requires_for_build_wheel(config_settings: Optional[dict] = None) -> List[str]:
    return []


def get_requires_for_build_sdist(config_settings: Optional[dict] = None) -> List[str]:
    return []


def get_requires_for_build_editable(config_settings: Optional[dict] = None) -> List[str]:
    return []


def prepare_metadata_for_build_wheel(metadata_directory: str, config_settings: Optional[dict] = None) -> str:
    _, _, stem = _names()
    info = Path(metadata_directory) / f"{stem}.dist-info"
    info.mkdir(parents=True, exist_ok=True)
    (info / "METADATA").write_text(_metadata(), encoding="utf-8")
    (info / "WHEEL").write_text(WHEEL, encoding="utf-8")
    return info.name


prepare_metadata_for_build_editable = prepare_metadata_for_build_wheel


def build_wheel(wheel_directory: str, config_settings: Optional[dict] = None, metadata_directory: Optional[str] = None) -> str:
    return _wheel(wheel_directory, _package_files())


def build_editable(wheel_directory: str, config_settings: Optional[dict] = None, metadata_directory: Optional[str] = None) -> str:
    # `pip install -e`: a .pth file puts the source directory on sys.path.
    return _wheel(wheel_directory, [(f"__editable__.{PACKAGE}.pth", f"{SOURCE}\n".encode())])


def build_sdist(sdist_directory: str, config_settings: Optional[dict] = None) -> str:
    _, _, stem = _names()
    filename = f"{stem}.tar.gz"
    with tarfile.open(os.path.join(sdist_directory, filename), "w:gz") as tar:
        for top in ("pyproject.toml", "_build/mdp_build.py", "README.md"):
            tar.add(ROOT / top, arcname=f"{stem}/{top}")
        for name, data in _package_files():
            info = tarfile.TarInfo(f"{stem}/src/{name}")
            info.size = len(data)
            tar.addfile(info, io.BytesIO(data))
        pkg_info = tarfile.TarInfo(f"{stem}/PKG-INFO")
        meta = _metadata().encode()
        pkg_info.size = len(meta)
        tar.addfile(pkg_info, io.BytesIO(meta))
    return filename
