"""Start a new rule: ``python scripts/new_rule.py CL110 capture-too-old [--severity warning]``.

Writes what every rule has, so only the check itself is left to write:

- its row in ``citelint/rules.json`` (in id order), with TODO prose;
- ``tests/cases/<id>-<name>/fail-todo/`` and ``pass-todo/``, skeleton golden
  cases (tests/cases/README.md) whose ``README.md`` says what to fill in;
- ``docs/rules.md`` regenerated (what ``citelint rule --markdown`` prints) and
  the README's rules table, both from the new catalog.

Until the TODOs are replaced, tests/test_docs.py and tests/test_cases.py fail:
they name what is missing. After editing the prose, ``--docs`` regenerates
the two documents alone. It edits the checkout it sits in, from anywhere.
"""

from __future__ import annotations

import argparse
import importlib.util
import json
import re
import sys
from pathlib import Path
from types import ModuleType

ROOT = Path(__file__).resolve().parent.parent

SEVERITIES = ("error", "warning", "notice")

#: The starter project of a case, as the other cases write it.
CASE_CONFIG = """\
sources:
  - https://example.org/q3.txt
labels:
  revenue:
    unit: million
    period: Q3 2026
reports:
  - "reports/*.json"
  - "reports/*.yaml"
markdown:
  - "reports/*.md"
"""

CASE_README = """\
# {kind} case of {id} {name} (skeleton from scripts/new_rule.py)

Make this a small project on which {id} {fires}, then generate
`expected.out` and read it (it is the specification):

    CITELINT_REGEN=1 pytest tests/test_cases.py -k {id}

Captures are written with the capture stage (tests/cases/README.md, "Adding a
case"); rename the folder to `{kind}-<what it shows>` and delete this README.
"""


def load_model(root: Path) -> ModuleType:
    """``citelint/model.py`` of the checkout at ``root``, loaded on its own.

    Not ``import citelint``: the installed package may be another checkout
    (an editable install), and the catalog must be the one just written.
    model.py imports only the standard library.
    """
    spec = importlib.util.spec_from_file_location("_new_rule_model", root / "citelint" / "model.py")
    assert spec is not None and spec.loader is not None
    module = importlib.util.module_from_spec(spec)
    sys.modules[spec.name] = module
    spec.loader.exec_module(module)
    return module


def add_catalog_row(root: Path, rule_id: str, name: str, severity: str) -> None:
    """Insert the rule's row into ``citelint/rules.json``, in id order, one row a line.

    Raises:
        SystemExit: the id or the name is taken.
    """
    path = root / "citelint" / "rules.json"
    rows = json.loads(path.read_text(encoding="utf-8"))
    for row in rows:
        if row["id"] == rule_id or row["name"] == name:
            raise SystemExit(f"new_rule: {row['id']} {row['name']} is already in citelint/rules.json")
    new = "  " + json.dumps({
        "id": rule_id, "name": name, "severity": severity,
        "summary": f"TODO: one sentence: when {rule_id} fires.",
        "bad": "TODO: a short failing example", "good": "TODO: the same example, passing",
        "why": "TODO", "fix": "TODO",
    }, ensure_ascii=False)
    # The new line goes in by text, one row a line in id order: every other row
    # keeps its bytes (its escapes, such as \u0301, included).
    lines = path.read_text(encoding="utf-8").rstrip("\n").split("\n")
    body = [line.rstrip(",") for line in lines[1:-1]]
    at = next((i for i, row in enumerate(rows) if row["id"] > rule_id), len(rows))
    body.insert(at, new)
    path.write_text("[\n" + ",\n".join(body) + "\n]\n", encoding="utf-8")


def add_cases(root: Path, rule_id: str, name: str) -> list[Path]:
    """The rule's golden-case folder with a skeleton ``fail-todo`` and ``pass-todo`` case."""
    folder = root / "tests" / "cases" / f"{rule_id}-{name}"
    made = []
    for kind, fires in (("fail", "fires (its id is in the output)"), ("pass", "stays silent")):
        case = folder / f"{kind}-todo"
        (case / "reports").mkdir(parents=True)
        (case / "captures").mkdir()
        (case / "citelint.yaml").write_text(CASE_CONFIG, encoding="utf-8")
        (case / "reports" / "r.json").write_text('{"facts": []}\n', encoding="utf-8")
        (case / "expected.out").write_text("# exit 0\n", encoding="utf-8")
        (case / "README.md").write_text(CASE_README.format(kind=kind, id=rule_id, name=name, fires=fires),
                                        encoding="utf-8")
        made.append(case)
    return made


def regenerate_docs(root: Path) -> None:
    """``docs/rules.md`` and the README's rules table, from ``citelint/rules.json``."""
    model = load_model(root)
    (root / "docs" / "rules.md").write_text(model.rules_markdown(), encoding="utf-8")
    readme = root / "README.md"
    text = readme.read_text(encoding="utf-8")
    table = re.search(r"(<!-- rules-table[^\n]*\n\| id \| name \| severity \| when \|\n\|---\|---\|---\|---\|\n)"
                      r"(?:\|[^\n]*\n)*(<!-- /rules-table -->)", text)
    if table is None:
        return  # no rules table in this README
    rows = "".join(f"| {r.id} | {r.name} | {r.severity} | {r.summary} |\n" for r in model.RULES.values())
    readme.write_text(text[:table.start()] + table.group(1) + rows + table.group(2) + text[table.end():],
                      encoding="utf-8")


def main(argv: list[str] | None = None) -> int:
    """Write a new rule's files, or with ``--docs`` only regenerate the docs; 0 on success."""
    parser = argparse.ArgumentParser(prog="new_rule.py", description=__doc__.split("\n\n")[0])
    parser.add_argument("rule_id", metavar="CLxxx", nargs="?")
    parser.add_argument("name", nargs="?", help="the rule's name in kebab-case, e.g. capture-too-old")
    parser.add_argument("--severity", choices=SEVERITIES, default="error")
    parser.add_argument("--docs", action="store_true",
                        help="only regenerate docs/rules.md and the README table (after editing rules.json)")
    args = parser.parse_args(argv)
    if args.docs:
        regenerate_docs(ROOT)
        return 0
    if args.rule_id is None or args.name is None:
        parser.error("give the rule's id and name (or --docs)")
    if not re.fullmatch(r"CL\d{3}", args.rule_id):
        parser.error(f"rule id {args.rule_id!r} is not CL and three digits")
    if not re.fullmatch(r"[a-z][a-z0-9]*(?:-[a-z0-9]+)*", args.name):
        parser.error(f"rule name {args.name!r} is not kebab-case")
    add_catalog_row(ROOT, args.rule_id, args.name, args.severity)
    cases = add_cases(ROOT, args.rule_id, args.name)
    regenerate_docs(ROOT)
    print(f"{args.rule_id} {args.name}: a row in citelint/rules.json, skeleton cases in "
          f"{cases[0].parent.relative_to(ROOT)}/, docs/rules.md and the README table regenerated.\n"
          "Left: the TODO prose in rules.json (then `python scripts/new_rule.py --docs`), the check in the "
          "module that owns the subject, and the two cases (their README.md says how).")
    return 0


if __name__ == "__main__":
    sys.exit(main())
