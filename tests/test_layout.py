"""The package's layout, guarded: an AST scan of ``citelint/`` (no import, no subprocess).

It fails on an ``_underscore`` name imported from another module, on an import
cycle, on an import against the layer order below, and when the README's
"### Layout" block and the tree disagree. Each check is a function of a scanned
tree, tested on small synthetic trees as well as on the real one.

Imports made with ``importlib.import_module`` (the ``FORMATTERS`` registry,
the command modules of ``citelint.cli``) are not seen; they point down anyway.
"""

from __future__ import annotations

import ast
import re
from pathlib import Path
from typing import NamedTuple

import pytest

from conftest import REPO_ROOT

PACKAGE = REPO_ROOT / "citelint"

#: The layer order, top first. A unit is a top-level entry of the package: a
#: sub-package with everything in it (``cli``), a flat module (``facts``), or
#: ``__init__`` for the package's own ``__init__.py`` (it holds ``__version__``,
#: and re-exports the public API lazily: see :func:`lazy_exports`).
#: A module may import from its own unit and from any unit of a lower layer;
#: the units of one layer are independent: none imports another, except as
#: SIDEWAYS says. The README's "### Layout" section states this order
#: (test_readme_states_the_layer_order).
LAYERS: tuple[tuple[str, ...], ...] = (
    ("__main__",),
    ("cli",),
    # The harnesses (pytest, LangChain, MCP): thin layers over the public API; cli runs `citelint mcp`.
    ("integrations",),
    # The public Python API (docs/api.md): the CLI's check runs through it.
    ("api",),
    # capture --from-request reads a request's documents with the importer's
    # parser (imports.documents, imports.sourcemap), and output.render formats
    # the reader view's plain data (reader.view): both point down one layer.
    # context chooses captures as check would trust them (git, signatures) and writes the
    # document blocks that imports.documents reads back.
    ("check", "capture", "output", "context"),
    ("imports", "reader", "passages"),
    ("facts", "links", "git", "evidence"),
    ("config",),
    ("configfile",),
    ("reports", "store", "excerpts"),
    ("model", "settings", "errors", "files", "urls", "__init__"),
    # What a reader can see and how untrusted text is shown: the label patterns of model use it;
    # and the review fingerprints of model's accepted citations.
    ("escape", "fingerprints"),
)

#: Imports between units of one layer that the tree still has: (importer,
#: imported) -> why, and what removes it. The test fails when a new one
#: appears, and when one of these is gone (then delete its entry).
SIDEWAYS: dict[tuple[str, str], str] = {}

#: Import cycles the tree still has, each as the sorted modules in it -> why,
#: and what removes it. Same rule as SIDEWAYS: new ones fail, stale ones too.
KNOWN_CYCLES: dict[tuple[str, ...], str] = {}


class Import(NamedTuple):
    """One imported name (or module) as the scan saw it."""

    importer: str  # dotted module name, "citelint.links.quote"
    target: str  # the module imported from, or the module imported
    name: str | None  # the name taken from target; None for ``import target``
    line: int
    type_checking: bool  # inside ``if TYPE_CHECKING:``


class Scan(NamedTuple):
    """A scanned package: its modules (dotted name -> file) and every import of its own modules."""

    package: str
    modules: dict[str, Path]
    imports: list[Import]
    attributes: list[Import]  # ``alias.name`` where alias is a module of the package


def module_name(package_dir: Path, path: Path) -> str:
    """The dotted name of the module at ``path`` inside ``package_dir``."""
    parts = list(path.relative_to(package_dir.parent).with_suffix("").parts)
    if parts[-1] == "__init__":
        parts.pop()
    return ".".join(parts)


def _is_type_checking(test: ast.expr) -> bool:
    return (isinstance(test, ast.Name) and test.id == "TYPE_CHECKING") or (
        isinstance(test, ast.Attribute) and test.attr == "TYPE_CHECKING"
    )


def scan(package_dir: Path) -> Scan:
    """Every import of the package's own modules, at module level or inside functions."""
    modules = {
        module_name(package_dir, p): p for p in sorted(package_dir.rglob("*.py")) if "__pycache__" not in p.parts
    }
    imports: list[Import] = []
    attributes: list[Import] = []
    for importer, path in modules.items():
        found = _ModuleScan(package_dir.name, importer, path.name == "__init__.py", modules)
        found.visit(ast.parse(path.read_text(encoding="utf-8"), str(path)), False)
        imports += found.imports
        attributes += found.attributes
    return Scan(package_dir.name, modules, imports, attributes)


class _ModuleScan:
    """The imports of one module, and the attributes read from the modules they bind."""

    def __init__(self, package: str, importer: str, is_package: bool, modules: dict[str, Path]) -> None:
        self.package, self.importer, self.is_package, self.modules = package, importer, is_package, modules
        self.aliases: dict[str, str] = {}  # local name -> module of the package it is bound to
        self.imports: list[Import] = []
        self.attributes: list[Import] = []

    def ours(self, module: str) -> bool:
        """True for the package itself and its modules."""
        return module == self.package or module.startswith(self.package + ".")

    def visit(self, node: ast.AST, type_checking: bool) -> None:
        """Visit ``node``'s children; an ``if TYPE_CHECKING:`` body is marked as such."""
        for child in ast.iter_child_nodes(node):
            if isinstance(child, ast.If) and _is_type_checking(child.test):
                for stmt in child.body:
                    self.visit_node(stmt, True)
                for stmt in child.orelse:
                    self.visit_node(stmt, type_checking)
            else:
                self.visit_node(child, type_checking)

    def visit_node(self, node: ast.AST, type_checking: bool) -> None:
        """Record ``node`` if it imports one of the package's modules or reads one's attribute; then its children."""
        if isinstance(node, ast.Import):
            for alias in node.names:
                if self.ours(alias.name):
                    self.imports.append(Import(self.importer, alias.name, None, node.lineno, type_checking))
                    if alias.asname:
                        self.aliases[alias.asname] = alias.name
        elif isinstance(node, ast.ImportFrom):
            base = node.module or ""
            if node.level:
                # Relative: the importer's package, less one part per extra dot.
                anchor = self.importer.split(".") if self.is_package else self.importer.split(".")[:-1]
                anchor = anchor[: len(anchor) - (node.level - 1)]
                base = ".".join(anchor + ([base] if base else []))
            if self.ours(base):
                for alias in node.names:
                    sub = f"{base}.{alias.name}"
                    if sub in self.modules:  # ``from pkg import module``
                        self.imports.append(Import(self.importer, sub, None, node.lineno, type_checking))
                        self.aliases[alias.asname or alias.name] = sub
                    else:
                        self.imports.append(Import(self.importer, base, alias.name, node.lineno, type_checking))
        elif isinstance(node, ast.Attribute) and isinstance(node.value, ast.Name) and node.value.id in self.aliases:
            self.attributes.append(
                Import(self.importer, self.aliases[node.value.id], node.attr, node.lineno, type_checking)
            )
        self.visit(node, type_checking)


def _private(name: str) -> bool:
    return name.startswith("_") and not (name.startswith("__") and name.endswith("__"))


def private_imports(tree: Scan) -> list[str]:
    """``_name`` used outside the module that defines it, and ``_module`` outside its package.

    A leading underscore on a name means "this module's own"; on a module,
    "its package's own" (``reports._quickchecks`` is read by ``reports.schema``).
    """
    problems = []
    for imp in tree.imports + tree.attributes:
        if imp.name is not None and _private(imp.name) and f"{imp.target}.{imp.name}" not in tree.modules:
            problems.append(f"{imp.importer}:{imp.line}: {imp.target}.{imp.name} is private to its module")
            continue
        module = imp.target if imp.name is None else f"{imp.target}.{imp.name}"
        parts = module.split(".")
        for i, part in enumerate(parts):
            owner = ".".join(parts[:i])
            if _private(part) and not (imp.importer == owner or imp.importer.startswith(owner + ".")):
                problems.append(f"{imp.importer}:{imp.line}: {module} is private to {owner}")
                break
    return problems


def import_cycles(tree: Scan) -> list[tuple[str, ...]]:
    """The cycles of the import graph, each as its sorted modules.

    Function-level imports count: they postpone a cycle to the first call but
    still tie the two modules together. ``if TYPE_CHECKING:`` imports do not:
    they never run, so they cannot make an import fail, and annotations are
    strings here (``from __future__ import annotations``).
    """
    graph: dict[str, set[str]] = {m: set() for m in tree.modules}
    for imp in tree.imports:
        if not imp.type_checking and imp.target in graph and imp.target != imp.importer:
            graph[imp.importer].add(imp.target)
    # Tarjan's strongly connected components, iteratively (no recursion limit).
    index: dict[str, int] = {}
    low: dict[str, int] = {}
    stack: list[str] = []
    on_stack: set[str] = set()
    cycles: list[tuple[str, ...]] = []
    for start in graph:
        if start in index:
            continue
        work = [(start, iter(sorted(graph[start])))]
        index[start] = low[start] = len(index)
        stack.append(start)
        on_stack.add(start)
        while work:
            node, successors = work[-1]
            for nxt in successors:
                if nxt not in index:
                    index[nxt] = low[nxt] = len(index)
                    stack.append(nxt)
                    on_stack.add(nxt)
                    work.append((nxt, iter(sorted(graph[nxt]))))
                    break
                if nxt in on_stack:
                    low[node] = min(low[node], index[nxt])
            else:
                work.pop()
                if work:
                    low[work[-1][0]] = min(low[work[-1][0]], low[node])
                if low[node] == index[node]:
                    component = []
                    while True:
                        member = stack.pop()
                        on_stack.discard(member)
                        component.append(member)
                        if member == node:
                            break
                    if len(component) > 1:
                        cycles.append(tuple(sorted(component)))
    return sorted(cycles)


def unit_of(tree: Scan, module: str) -> str:
    """The top-level entry of the package a module belongs to (``__init__`` for the package itself)."""
    parts = module.split(".")
    return parts[1] if len(parts) > 1 else "__init__"


def lazy_exports(package_dir: Path) -> dict[str, str]:
    """The package ``__init__``'s PEP 562 table ``_LAZY`` (public name -> the
    module serving it on first attribute access), read from its source; {}
    when it has none."""
    module = ast.parse((package_dir / "__init__.py").read_text(encoding="utf-8"))
    for node in module.body:
        target = node.target if isinstance(node, ast.AnnAssign) else \
            node.targets[0] if isinstance(node, ast.Assign) and len(node.targets) == 1 else None
        if isinstance(target, ast.Name) and target.id == "_LAZY" and node.value is not None:
            return ast.literal_eval(node.value)
    return {}


def is_lazy_export(tree: Scan, imp: Import, lazy: dict[str, str]) -> bool:
    """True for an ``if TYPE_CHECKING:`` import in the package's ``__init__``
    of a name its ``_LAZY`` table serves from that same module: a re-export
    for type checkers only, which never runs (at run time ``__getattr__``
    imports the module on first use), so it is no import against the layer
    order. Any other import in ``__init__`` still counts."""
    return imp.importer == tree.package and imp.type_checking and imp.name is not None \
        and lazy.get(imp.name) == imp.target


def layer_problems(tree: Scan, layers: tuple[tuple[str, ...], ...],
                   lazy: dict[str, str] | None = None) -> tuple[list[str], set[tuple[str, str]]]:
    """Upward imports, and units missing from ``layers``; with the sideways pairs (importer, imported) seen.
    ``lazy`` is the package's lazy re-export table (:func:`lazy_exports`)."""
    rank = {unit: i for i, layer in enumerate(layers) for unit in layer}
    problems = sorted(
        f"{unit} is in no layer" for unit in {unit_of(tree, m) for m in tree.modules} if unit not in rank
    )
    sideways: set[tuple[str, str]] = set()
    for imp in tree.imports:
        if lazy and is_lazy_export(tree, imp, lazy):
            continue
        src, dst = unit_of(tree, imp.importer), unit_of(tree, imp.target)
        if src == dst or src not in rank or dst not in rank:
            continue
        if rank[dst] < rank[src]:
            problems.append(f"{imp.importer}:{imp.line}: imports {imp.target} from a higher layer ({src} → {dst})")
        elif rank[dst] == rank[src]:
            sideways.add((src, dst))
    return problems, sideways


def render_layers(layers: tuple[tuple[str, ...], ...]) -> str:
    """The layer order as the README states it: `` `cli` → (`check`, `capture`) → … ``."""
    return " → ".join(
        f"`{layer[0]}`" if len(layer) == 1 else "(" + ", ".join(f"`{u}`" for u in layer) + ")" for layer in layers
    )


def layout_section(readme: str) -> str:
    """The README's "### Layout" section, up to the next heading."""
    match = re.search(r"^### Layout\n(.*?)(?=^#)", readme + "\n#", re.S | re.M)
    assert match, "README.md has no '### Layout' section"
    return match.group(1)


def layout_problems(readme: str, package_dir: Path) -> list[str]:
    """Where the README's layout block and the files of the package disagree.

    The block lists every file of the package (modules, data files) and every
    sub-package, one line each: its name at two spaces of indent per level, then
    what it is for. A sub-package's ``__init__.py`` is its package's line.
    """
    block = re.search(r"^```\n(.*?)^```", layout_section(readme), re.S | re.M)
    assert block, "README.md's layout section has no code block"
    lines = block.group(1).splitlines()
    problems = []
    if not lines or lines[0] != f"{package_dir.name}/":
        problems.append(f"the layout block does not start with '{package_dir.name}/'")
    listed: dict[str, int] = {}
    parents: list[str] = [""]  # the directory at each depth, relative to the package
    for number, line in enumerate(lines[1:], start=2):
        entry = re.fullmatch(r"((?:  )+)(\S+) +(\S.*)", line)
        depth = len(entry.group(1)) // 2 if entry else 0
        if not entry or depth > len(parents):
            problems.append(f"layout block line {number} is not '<indent><name>  <what it is for>': {line!r}")
            continue
        del parents[depth:]
        name = parents[-1] + entry.group(2)
        if entry.group(2).endswith("/"):
            parents.append(name)
        if name in listed:
            problems.append(f"{name} is listed twice (lines {listed[name]} and {number})")
        listed[name] = number
    present = set()
    for path in package_dir.rglob("*"):
        if "__pycache__" in path.parts or path.suffix == ".pyc":
            continue
        rel = path.relative_to(package_dir).as_posix()
        if path.is_dir():
            present.add(rel + "/")
        elif not (path.name == "__init__.py" and path.parent != package_dir):
            present.add(rel)
    block_says = "in the README's layout block"
    problems += [f"{name} is in the package but not {block_says}" for name in sorted(present - set(listed))]
    problems += [f"{name} is {block_says} but not in the package" for name in sorted(set(listed) - present)]
    return problems


@pytest.fixture(scope="module")
def tree() -> Scan:
    """The real package, scanned once."""
    return scan(PACKAGE)


# --- the real tree ---------------------------------------------------------------------------


def test_no_private_name_is_imported_across_modules(tree: Scan) -> None:
    assert private_imports(tree) == []


def test_no_import_cycle_but_the_known_ones(tree: Scan) -> None:
    cycles = import_cycles(tree)
    assert [c for c in cycles if c not in KNOWN_CYCLES] == []
    assert [c for c in KNOWN_CYCLES if c not in cycles] == [], "a known cycle is gone: delete it from KNOWN_CYCLES"


def test_imports_follow_the_layer_order(tree: Scan) -> None:
    assert len({u for layer in LAYERS for u in layer}) == sum(map(len, LAYERS)), "a unit is in two layers"
    problems, sideways = layer_problems(tree, LAYERS, lazy_exports(PACKAGE))
    assert problems == []
    assert sorted(sideways - set(SIDEWAYS)) == [], "units of one layer import each other"
    assert sorted(set(SIDEWAYS) - sideways) == [], "a SIDEWAYS import is gone: delete its entry"


def test_readme_layout_block_matches_the_tree() -> None:
    assert layout_problems((REPO_ROOT / "README.md").read_text(encoding="utf-8"), PACKAGE) == []


def test_readme_states_the_layer_order() -> None:
    section = " ".join(layout_section((REPO_ROOT / "README.md").read_text(encoding="utf-8")).split())
    assert render_layers(LAYERS) in section
    for importer, imported in SIDEWAYS:
        assert f"`{importer}` → `{imported}`" in section, "the README names each SIDEWAYS import"


# --- the scanner on synthetic trees ------------------------------------------------------------


def make_tree(root: Path, files: dict[str, str]) -> Path:
    """A package ``pkg`` under ``root`` with the given files (relative path -> source)."""
    package_dir = root / "pkg"
    for rel, source in {"__init__.py": "", **files}.items():
        path = package_dir / rel
        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_text(source, encoding="utf-8")
    return package_dir


def test_scanner_finds_private_names_across_modules(tmp_path: Path) -> None:
    package_dir = make_tree(tmp_path, {
        "a.py": "_secret = 1\n\ndef _helper():\n    pass\n",
        "b.py": "from pkg.a import _secret\n",
        "c.py": "def f():\n    from pkg.a import _helper\n",
        "d.py": "from pkg import a\n\nx = a._secret\n",
        "sub/__init__.py": "from pkg.sub import _gen\n",
        "sub/_gen.py": "",
        "sub/user.py": "from pkg.sub import _gen\n",
        "e.py": "from pkg.sub import _gen\nfrom pkg import __version__\n",
    })
    assert private_imports(scan(package_dir)) == [
        "pkg.b:1: pkg.a._secret is private to its module",
        "pkg.c:2: pkg.a._helper is private to its module",
        "pkg.e:1: pkg.sub._gen is private to pkg.sub",
        "pkg.d:3: pkg.a._secret is private to its module",
    ]


def test_scanner_finds_cycles_at_module_and_function_level_but_not_type_checking(tmp_path: Path) -> None:
    package_dir = make_tree(tmp_path, {
        "a.py": "from pkg.b import x\n",
        "b.py": "x = 1\n\ndef f():\n    from pkg.a import y\n",
        "c.py": "from typing import TYPE_CHECKING\nif TYPE_CHECKING:\n    from pkg.d import z\n",
        "d.py": "import pkg.c\n",
        "e.py": "from . import f\n",
        "f.py": "from .e import g\n",
    })
    assert import_cycles(scan(package_dir)) == [("pkg.a", "pkg.b"), ("pkg.e", "pkg.f")]


def test_scanner_finds_upward_imports_and_unplaced_units(tmp_path: Path) -> None:
    package_dir = make_tree(tmp_path, {
        "top.py": "from pkg import low\n",
        "mid/__init__.py": "",
        "mid/one.py": "from pkg.top import x\nfrom pkg.mid import two\nfrom pkg.side import y\n",
        "mid/two.py": "",
        "side.py": "",
        "low.py": "def f():\n    from pkg.mid.one import z\n",
        "stray.py": "",
    })
    problems, sideways = layer_problems(scan(package_dir), (("top",), ("mid", "side"), ("low", "__init__")))
    assert problems == [
        "stray is in no layer",
        "pkg.low:2: imports pkg.mid.one from a higher layer (low → mid)",
        "pkg.mid.one:1: imports pkg.top from a higher layer (mid → top)",
    ]
    assert sideways == {("mid", "side")}


def test_layout_check_finds_missing_extra_and_malformed_lines(tmp_path: Path) -> None:
    package_dir = make_tree(tmp_path, {"a.py": "", "sub/__init__.py": "", "sub/b.py": "", "data.json": ""})

    def readme(block: str) -> str:
        return f"# x\n\n### Layout\n\nprose\n\n```\n{block}```\n\n## Next\n"

    good = "pkg/\n  __init__.py  the version\n  a.py  does a\n  data.json  data\n  sub/  a package\n    b.py  does b\n"
    assert layout_problems(readme(good), package_dir) == []
    assert layout_problems(readme(good.replace("    b.py  does b\n", "")), package_dir) == [
        "sub/b.py is in the package but not in the README's layout block",
    ]
    assert layout_problems(readme(good + "  gone.py  was here\n"), package_dir) == [
        "gone.py is in the README's layout block but not in the package",
    ]
    # b.py at the top level is a different file from sub/b.py.
    assert layout_problems(readme(good.replace("    b.py", "  b.py")), package_dir) == [
        "sub/b.py is in the package but not in the README's layout block",
        "b.py is in the README's layout block but not in the package",
    ]
    assert layout_problems(readme(good + "                wrapped description\n"), package_dir) == [
        "layout block line 7 is not '<indent><name>  <what it is for>': "
        "'                wrapped description'",
    ]


def test_lazy_reexports_are_exempt_only_under_type_checking_and_only_as_listed(tmp_path: Path) -> None:
    package_dir = make_tree(tmp_path, {
        "__init__.py": ("from typing import TYPE_CHECKING\n"
                        "if TYPE_CHECKING:\n    from pkg.top import Api\n    from pkg.top import Other\n"
                        "_LAZY = {'Api': 'pkg.top'}\n"
                        "def f():\n    from pkg.top import Api\n"),
        "top.py": "Api = Other = 1\n",
    })
    layers = (("top",), ("__init__",))
    tree = scan(package_dir)
    assert lazy_exports(package_dir) == {"Api": "pkg.top"}
    # The TYPE_CHECKING import of a listed name passes; an unlisted name, or a run-time import, does not.
    problems, _ = layer_problems(tree, layers, lazy_exports(package_dir))
    assert problems == [
        "pkg:4: imports pkg.top from a higher layer (__init__ → top)",
        "pkg:7: imports pkg.top from a higher layer (__init__ → top)",
    ]


def test_import_citelint_loads_none_of_its_modules() -> None:
    """PEP 562 for real: importing the package runs none of the imports the layout test exempts."""
    import subprocess
    import sys

    code = "import sys, citelint; print(sorted(m for m in sys.modules if m.startswith('citelint.')))"
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True, cwd=REPO_ROOT)
    assert out.stdout.strip() == "[]"


def test_layers_render_as_the_readme_states_them() -> None:
    assert render_layers((("a",), ("b", "c"), ("d",))) == "`a` → (`b`, `c`) → `d`"
