"""docs/api.md and the public surface agree, and its worked pipeline runs.

The reference section of docs/api.md is generated from the public names
(``citelint.__all__``), their signatures and docstrings, and the public
members of each class: a name added to or removed from the surface, or a
docstring changed, fails here until the docs are regenerated with
``CITELINT_REGEN=1 pytest tests/test_api_docs.py`` (review the diff).
"""

from __future__ import annotations

import dataclasses
import inspect
import json
import os
import re
import shutil
import subprocess
import sys
from pathlib import Path
from typing import Any

import citelint
from conftest import REPO_ROOT, corpus_path

DOC = REPO_ROOT / "docs" / "api.md"
BEGIN = "<!-- api-reference: generated from the docstrings (CITELINT_REGEN=1 pytest tests/test_api_docs.py) -->\n"
END = "<!-- /api-reference -->\n"


def _signature(obj: Any, drop_self: bool = False) -> str:
    """``(a: T = d, *, b: U) -> R`` with annotations as written (strings under
    ``from __future__ import annotations``)."""
    sig = inspect.signature(obj)
    params = list(sig.parameters.values())
    if drop_self and params and params[0].name in ("self", "cls"):
        params = params[1:]
    parts: list[str] = []
    star = False
    for p in params:
        if p.kind is p.KEYWORD_ONLY and not star:
            parts.append("*")
            star = True
        if p.kind is p.VAR_POSITIONAL:
            star = True
        text = ("*" if p.kind is p.VAR_POSITIONAL else "**" if p.kind is p.VAR_KEYWORD else "") + p.name
        if p.annotation is not p.empty:
            text += f": {p.annotation}"
        if p.default is not p.empty:
            text += f" = {p.default!r}"
        parts.append(text)
    ret = f" -> {sig.return_annotation}" if sig.return_annotation is not sig.empty else ""
    return f"({', '.join(parts)}){ret}"


_ROLE = re.compile(r":(?:meth|class|func|data|mod|attr|exc):`(~?)([^`]+)`")


def _doc(obj: Any) -> str:
    """A docstring as Markdown: reST roles and double backquotes as code, and the
    ``Raises:``/``Returns:`` sections as lists (their indented lines as items)."""
    text = _ROLE.sub(lambda m: f"`{m.group(2).rsplit('.', 1)[-1] if m.group(1) else m.group(2)}`",
                     inspect.cleandoc(obj.__doc__ or "")).replace("``", "`")
    out: list[str] = []
    for line in text.splitlines():
        if line in ("Raises:", "Returns:"):
            out += [f"*{line[:-1]}:*", ""]
        elif line.startswith("    ") and out and (out[-1].startswith("- ") and not _ITEM.match(line)):
            out[-1] += " " + line.strip()  # the item's next line
        elif line.startswith("    "):
            out.append("- " + line.strip())
        else:
            out.append(line)
    return "\n".join(out)


#: A line that starts an item of a docstring section: ``    ErrorName: why``.
_ITEM = re.compile(r"    \w+: ")


def members(cls: type) -> list[tuple[str, Any]]:
    """The public members a class defines itself, in definition order: methods,
    class methods, properties (dataclass fields are in its signature instead)."""
    out = []
    field_names = {f.name for f in dataclasses.fields(cls)} if dataclasses.is_dataclass(cls) else set()
    for name, value in vars(cls).items():
        if name.startswith("_") or name in field_names:
            continue
        if isinstance(value, (staticmethod, classmethod)):
            value = value.__func__
        if callable(value) or isinstance(value, property):
            out.append((name, value))
    return out


def public_surface() -> list[str]:
    """Every public name, ``Class.member`` included, in docs order."""
    names = []
    for name in citelint.__all__:
        names.append(name)
        obj = getattr(citelint, name)
        if inspect.isclass(obj):
            names += [f"{name}.{member}" for member, _ in members(obj)]
    return names


def reference() -> str:
    """The generated reference section of docs/api.md."""
    out = [BEGIN, "\n"]
    for name in citelint.__all__:
        obj = getattr(citelint, name)
        if name == "__version__":
            out.append(f"### `citelint.__version__`\n\nThe version of citelint, a string: `{obj}`.\n\n")
            continue
        if inspect.isclass(obj):
            base = obj.__mro__[1]
            kind = f"exception, a `{base.__name__}`" if issubclass(obj, BaseException) else \
                "frozen dataclass" if dataclasses.is_dataclass(obj) else "class"
            # A class's signature is its constructor's; "-> None" says nothing there.
            shown = "" if issubclass(obj, BaseException) else _signature(obj).removesuffix(" -> None")
            out.append(f"### `citelint.{name}{shown}`\n\n*{kind}*\n\n{_doc(obj)}\n\n")
            for member, value in members(obj):
                if isinstance(value, property):
                    out.append(f"#### `{name}.{member}` (property)\n\n{_doc(value)}\n\n")
                else:
                    static = isinstance(inspect.getattr_static(obj, member), staticmethod)
                    out.append(f"#### `{name}.{member}{_signature(value, drop_self=not static)}`\n\n{_doc(value)}\n\n")
        else:
            out.append(f"### `citelint.{name}{_signature(obj)}`\n\n*function*\n\n{_doc(obj)}\n\n")
    out.append(END)
    return "".join(out)


def _split(text: str) -> tuple[str, str, str]:
    start, end = text.index(BEGIN), text.index(END) + len(END)
    return text[:start], text[start:end], text[end:]


def test_docs_reference_is_the_public_surface_with_its_docstrings() -> None:
    text = DOC.read_text(encoding="utf-8")
    head, current, tail = _split(text)
    wanted = reference()
    if os.environ.get("CITELINT_REGEN") and current != wanted:
        DOC.write_text(head + wanted + tail, encoding="utf-8")
        current = wanted
    documented = re.findall(r"^#{3,4} `(?:citelint\.)?([\w.]+)", current, re.M)
    surface = public_surface()
    assert sorted(set(surface) - set(documented)) == [], "public names docs/api.md does not document"
    assert sorted(set(documented) - set(surface)) == [], "names docs/api.md documents that are not public"
    assert current == wanted, "docs/api.md's reference differs from the docstrings: CITELINT_REGEN=1 to update"


def test_every_public_name_has_a_docstring_and_loads_lazily() -> None:
    for name in public_surface():
        if name == "__version__":
            continue
        head, _, member = name.partition(".")
        obj = getattr(citelint, head)
        value = inspect.getattr_static(obj, member) if member else obj
        if isinstance(value, (staticmethod, classmethod)):
            value = value.__func__
        assert (value.__doc__ or "").strip(), f"{name} has no docstring"
    # What the package offers (dir(), its lazy names included; its own submodules aside) is __all__.
    import types

    offered = {name for name in dir(citelint)
               if not name.startswith("_") and not isinstance(getattr(citelint, name), types.ModuleType)}
    assert sorted(offered) == sorted(set(citelint.__all__) - {"__version__"})


def test_docs_say_what_is_public() -> None:
    text = DOC.read_text(encoding="utf-8")
    stability = " ".join(text[text.index("## Stability"):text.index("## A worked pipeline")].split())
    for phrase in ("citelint.__all__", "internal", "1.0", "semantic versioning", "citelint.output/1"):
        assert phrase.lower() in stability.lower(), phrase


# ----------------------------------------------------------------- the worked pipeline

def pipeline_code() -> str:
    """The Python block of docs/api.md's worked pipeline (the one after "## A worked pipeline")."""
    text = DOC.read_text(encoding="utf-8")
    section = text[text.index("## A worked pipeline"):]
    match = re.search(r"```python\n(.*?)```", section, re.S)
    assert match, "the worked pipeline has no python block"
    return match.group(1)


def test_the_worked_pipeline_publishes_a_clean_answer_and_refuses_a_misquote(tmp_path: Path) -> None:
    """Record (the trusted stage from Python) -> context -> the request -> the model call, stubbed
    by the recorded Anthropic response -> import with no source map -> check -> publish only if
    clean; a response whose cited text differs from the document by one character is not published."""
    stem = "anthropic-messages-char-location-helpcenter.cookbook"
    for suffix in ("request", "response"):
        shutil.copyfile(corpus_path("api-citations", f"{stem}.{suffix}.json"), tmp_path / f"{suffix}.json")
    example = REPO_ROOT / "examples" / "model-output"
    for name in ("citelint.yaml", "sources.yaml"):
        shutil.copyfile(example / name, tmp_path / name)
    (tmp_path / "reports").mkdir()
    code = pipeline_code()
    # All in-process, through public names: no command line, and no source map for the import.
    assert "subprocess" not in code and "source_map" not in code
    for call in ("project.record(", "project.context(", "project.import_response(", "project.check_markdown("):
        assert call in code, call
    env = {**os.environ, "PYTHONPATH": str(REPO_ROOT)}
    run = subprocess.run([sys.executable, "-c", code], cwd=tmp_path, capture_output=True, text=True,
                         env=env, timeout=300)
    assert run.returncode == 0, run.stdout + run.stderr
    published = (tmp_path / "public" / "answer.md").read_text(encoding="utf-8")
    assert published.count("#:~:text=") == 2 and "capture:4e444036983d" in published
    assert run.stdout.startswith("refused to publish:\n  reports/answer.md:1:294: CL204 quotation not found")
    # The misquoted answer was not published over the clean one, and nothing else was.
    assert sorted(p.name for p in (tmp_path / "public").iterdir()) == ["answer.md"]
    # The API writes no report: reports/ holds nothing the pipeline did not write itself.
    assert list((tmp_path / "reports").iterdir()) == []
    assert json.loads((tmp_path / "response.json").read_text(encoding="utf-8"))["content"]
