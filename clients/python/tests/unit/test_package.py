"""What holds of the package as a whole: Python 3.9 syntax in every module, the standard library only
at run time, and DataFrame methods that say how to get pandas when it is missing."""

from __future__ import annotations

import ast
import importlib.util
import pathlib
import sys
import sysconfig
import unittest

import mdp_client

PACKAGE = pathlib.Path(mdp_client.__file__).parent
BACKEND = pathlib.Path(__file__).resolve().parents[2] / "_build" / "mdp_build.py"
STDLIB_DIR = pathlib.Path(sysconfig.get_paths()["stdlib"]).resolve()


def is_stdlib(name: str) -> bool:
    """Built into the interpreter or under its standard library (site-packages excluded)."""
    spec = importlib.util.find_spec(name)
    if spec is None:
        return False
    if spec.origin in ("built-in", "frozen"):
        return True
    path = pathlib.Path(spec.origin or next(iter(spec.submodule_search_locations or []), "")).resolve()
    return STDLIB_DIR in path.parents and "site-packages" not in path.parts and "dist-packages" not in path.parts


class PackageTest(unittest.TestCase):
    def modules(self):
        files = sorted(PACKAGE.rglob("*.py")) + [BACKEND]
        self.assertGreaterEqual(len(files), 10)
        return files

    def test_every_module_is_python_3_9(self) -> None:
        for path in self.modules():
            with self.subTest(module=path.name):
                ast.parse(path.read_text(encoding="utf-8"), filename=str(path), feature_version=(3, 9))

    def test_imports_only_the_standard_library_and_pandas_inside_a_function(self) -> None:
        for path in self.modules():
            tree = ast.parse(path.read_text(encoding="utf-8"))
            top = {id(n) for n in tree.body}
            for node in ast.walk(tree):
                names = []
                if isinstance(node, ast.Import):
                    names = [a.name for a in node.names]
                elif isinstance(node, ast.ImportFrom) and node.level == 0:
                    names = [node.module or ""]
                for name in names:
                    root = name.split(".")[0]
                    if root == "pandas":
                        # Only where a DataFrame is asked for, never at import time.
                        self.assertNotIn(id(node), top, f"{path.name} imports pandas at module level")
                    elif root not in ("mdp_client", "__future__"):
                        self.assertTrue(is_stdlib(root), f"{path.name} imports {name}, not of the standard library")

    def test_frames_without_pandas_raise_a_clear_import_error(self) -> None:
        saved = sys.modules.get("pandas")
        sys.modules["pandas"] = None  # type: ignore[assignment]  # makes `import pandas` fail
        try:
            client = mdp_client.Client("mdp_unit", "http://127.0.0.1:9")
            for method, args in [
                ("price_history_frame", ("ARAVALIHOU",)),
                ("index_history_frame", ("Nifty 50",)),
                ("financials_frame", ("ARAVALIHOU",)),
                ("option_chain_frame", ("NIFTY",)),
            ]:
                with self.subTest(method=method):
                    with self.assertRaises(ImportError) as ctx:
                        getattr(client, method)(*args)
                    self.assertIn("pip install pandas", str(ctx.exception))
                    self.assertIn("apt-get install python3-pandas", str(ctx.exception))
        finally:
            if saved is None:
                del sys.modules["pandas"]
            else:
                sys.modules["pandas"] = saved

    def test_the_build_backend_makes_a_wheel_of_every_module(self) -> None:
        import importlib.util
        import tempfile
        import zipfile

        spec = importlib.util.spec_from_file_location("mdp_build", BACKEND)
        backend = importlib.util.module_from_spec(spec)
        spec.loader.exec_module(backend)  # type: ignore[union-attr]
        self.assertEqual(backend.get_requires_for_build_wheel(), [])
        with tempfile.TemporaryDirectory() as out:
            name = backend.build_wheel(out)
            self.assertEqual(name, f"mdp_client-{mdp_client.__version__}-py3-none-any.whl")
            with zipfile.ZipFile(f"{out}/{name}") as whl:
                names = set(whl.namelist())
                metadata = whl.read(f"mdp_client-{mdp_client.__version__}.dist-info/METADATA").decode()
                record = whl.read(f"mdp_client-{mdp_client.__version__}.dist-info/RECORD").decode()
        modules = {p.relative_to(PACKAGE.parent).as_posix() for p in PACKAGE.rglob("*.py")}
        self.assertLessEqual(modules | {"mdp_client/py.typed"}, names)
        self.assertIn("Name: mdp-client\n", metadata)
        self.assertIn("Requires-Python: >=3.9\n", metadata)
        self.assertIn('Requires-Dist: pandas>=1.3; extra == "pandas"', metadata)
        self.assertEqual(len(record.strip().split("\n")), len(names))
