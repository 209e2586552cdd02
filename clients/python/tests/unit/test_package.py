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
        # A description: the one-line summary, and the README as the long one (what pip show -v prints).
        summary = next(line for line in metadata.split("\n") if line.startswith("Summary: "))
        self.assertIn("market-data API", summary)
        self.assertIn("Description-Content-Type: text/markdown\n", metadata)
        self.assertTrue(metadata.split("\n\n", 1)[1].startswith("# mdp-client"), "README.md is not the long description")
        self.assertIn('Requires-Dist: pandas>=1.3; extra == "pandas"', metadata)
        self.assertEqual(len(record.strip().split("\n")), len(names))
        with tempfile.TemporaryDirectory() as out:
            sdist = backend.build_sdist(out)
            import tarfile

            with tarfile.open(f"{out}/{sdist}") as tar:
                self.assertIn(f"mdp_client-{mdp_client.__version__}/README.md", tar.getnames())

    def test_the_frame_methods_take_their_routes_parameters_by_name(self) -> None:
        import inspect

        from mdp_client._generated.operations import OPERATIONS

        for method, op_id in [
            ("price_history_frame", "getPriceHistory"),
            ("index_history_frame", "getIndexHistory"),
            ("financials_frame", "getFinancials"),
            ("option_chain_frame", "getOptionChain"),
        ]:
            with self.subTest(method=method):
                sig = inspect.signature(getattr(mdp_client.Client, method))
                kinds = {p.kind for p in sig.parameters.values()}
                self.assertNotIn(inspect.Parameter.VAR_KEYWORD, kinds, "takes **params")
                params = OPERATIONS[op_id]["params"]
                positional = [n for n, p in sig.parameters.items() if p.kind == p.POSITIONAL_OR_KEYWORD][1:]
                keyword = [n for n, p in sig.parameters.items() if p.kind == p.KEYWORD_ONLY]
                self.assertEqual(positional, [p["name"] for p in params if p["required"]])
                self.assertEqual([n for n in keyword if n not in ("options", "all_pages")], [p["name"] for p in params if not p["required"]])
                # An enum parameter's Literal lists the values the document publishes.
                for p in params:
                    if "enum" in p["schema"]:
                        annotation = str(sig.parameters[p["name"]].annotation)
                        for value in p["schema"]["enum"]:
                            self.assertRegex(annotation, f"['\"]{value}['\"]", f"{method}({p['name']}=...)")

    def test_no_docstring_advises_encoding_by_hand(self) -> None:
        routes = (PACKAGE / "_generated" / "routes.py").read_text(encoding="utf-8")
        self.assertFalse("percent-encode `&`" in routes, "a docstring advises encoding `&` by hand")
        self.assertIn("`M&M` as it is", routes)
        readme = (PACKAGE.parent.parent / "README.md").read_text(encoding="utf-8")
        self.assertFalse("percent-encode `&`" in readme, "the README advises encoding `&` by hand")
