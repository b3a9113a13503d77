"""The public Python API (docs/api.md), through public names only: ``import citelint``.

The CLI is the other side of several tests: ``citelint check --format json``
run in the project root must print exactly ``Result.to_dict()``, on the
examples, on the whole ExpertQA validation split and on the README corpus.
"""

from __future__ import annotations

import json
import os
import shutil
import sys
import threading
from pathlib import Path
from typing import Any

import pytest

import citelint
from conftest import REPO_ROOT, SOURCE_A, SOURCE_B, TEXT_A, Repo, corpus_path, run_cli

EXAMPLES = REPO_ROOT / "examples"


def cli_json(root: Path, *paths: str) -> dict[str, Any]:
    """What ``citelint check --format json [PATH...]`` prints in ``root``."""
    run = run_cli("check", "--format", "json", *paths, cwd=root)
    assert run.code in (0, 1), run.err
    return json.loads(run.out)


# ----------------------------------------------------------------- CLI JSON == Result.to_dict()

@pytest.mark.parametrize("example", ["expertqa", "expertqa-faults", "model-output"])
def test_check_equals_the_cli_json_on_the_examples(example: str) -> None:
    root = EXAMPLES / example
    result = citelint.Project.open(root).check()
    assert result.to_dict() == cli_json(root)
    assert result.ok == (example != "expertqa-faults")
    assert result.counts.files == len(list((root / "reports").iterdir()))


def test_check_report_and_check_markdown_equal_the_cli_on_one_file() -> None:
    root = EXAMPLES / "expertqa-faults"
    project = citelint.Project.open(root)
    for report in sorted((root / "reports").iterdir()):
        name = report.relative_to(root).as_posix()
        if report.suffix == ".md":
            result = project.check_markdown(report.read_text(encoding="utf-8"), name=name)
        else:
            result = project.check_report(report.read_bytes(), name=name)
        assert result.to_dict() == cli_json(root, name), name


def test_check_equals_the_cli_json_on_the_expertqa_validation_split(tmp_path: Path) -> None:
    corpus = corpus_path("expertqa")
    sys.path.insert(0, str(REPO_ROOT / "bench"))
    try:
        import expertqa_validate
    finally:
        sys.path.remove(str(REPO_ROOT / "bench"))
    # Both splits converted, with every mutation of every fact: thousands of findings of each fact rule.
    expertqa_validate.build_tree(tmp_path / "eqa", corpus)
    result = citelint.Project.open(tmp_path / "eqa").check()
    assert result.counts.errors > 10_000 and result.counts.facts_cited > 10_000
    assert result.to_dict() == cli_json(tmp_path / "eqa")


def test_check_equals_the_cli_json_on_the_readme_corpus(tmp_path: Path) -> None:
    readmes = sorted(corpus_path("markdown-readmes").glob("*.md"))
    root = tmp_path / "readmes"
    (root / "reports").mkdir(parents=True)
    for path in readmes:
        shutil.copyfile(path, root / "reports" / path.name)
    # Every tenth README's first link is captured (through the API's trusted stage), so
    # grounded links, ungrounded ones and near misses all occur.
    sources: list[str] = []
    for path in readmes[::10]:
        found = citelint.Allowlist.from_inputs([path.read_text(encoding="utf-8")]).sources
        sources += [url for url in found if url not in sources and url.startswith("https://")][:1]
    (root / "citelint.yaml").write_text(json.dumps({"sources": sources}), encoding="utf-8")
    project = citelint.Project.open(root)
    for source in sources:
        project.record(source, f"Captured text of {source}, a page linked from a README.")
    result = project.check()
    assert result.counts.files == len(readmes) and 0 < result.counts.links_grounded < result.counts.links
    assert result.to_dict() == cli_json(root)


# ----------------------------------------------------------------- the result types

def test_result_fields_are_the_output_schema_properties() -> None:
    """Each dataclass field is one key of the JSON (snake case), no more, no fewer: a key added to
    the output is a field in the same change."""
    schema = json.loads((REPO_ROOT / "schemas" / "output.schema.json").read_text(encoding="utf-8"))
    defs = schema["$defs"]

    def keys(cls: type) -> list[str]:
        import dataclasses

        def camel(name: str) -> str:
            head, *rest = name.split("_")
            return head + "".join(part.title() for part in rest)
        return [camel(f.name) for f in dataclasses.fields(cls) if not f.name.startswith("_")]

    assert keys(citelint.Finding) == list(defs["finding"]["properties"])
    assert keys(citelint.AcceptedFact) == list(defs["accepted"]["properties"])
    assert keys(citelint.AcceptedQuotation) == list(defs["acceptedQuotation"]["properties"])
    assert keys(citelint.Counts) == list(schema["properties"]["counts"]["properties"])
    top = {"semanticReview" if k == "semanticReview" else k for k in schema["properties"]} - {"format"}
    assert set(keys(citelint.Result)) == (top - {"citelint"}) | {"version"}


def test_result_is_frozen_and_to_dict_is_a_fresh_copy(repo: Repo) -> None:
    repo.report(repo.cited())
    result = citelint.Project.open(repo.root).check()
    with pytest.raises(AttributeError):
        result.findings = ()  # type: ignore[misc]
    first = result.to_dict()
    first["findings"].append("changed")
    assert result.to_dict()["findings"] == []
    fact = result.accepted[0]
    assert isinstance(fact, citelint.AcceptedFact)
    assert (fact.kind, fact.source, fact.capture_sha256, fact.snippet, fact.offset) == \
        ("fact", SOURCE_A, repo.records[SOURCE_A].sha256, "Synthetic source: 42 items", 0)


def test_raise_for_errors_raises_findings_error_holding_the_result(repo: Repo) -> None:
    project = citelint.Project.open(repo.root)
    clean = project.check_report({"facts": [repo.cited()]})
    assert clean.raise_for_errors() is clean
    bad = project.check_report({"facts": [repo.cited(snippet="Synthetic source: 43 items")]}, name="r.json")
    with pytest.raises(citelint.FindingsError) as caught:
        bad.raise_for_errors()
    assert isinstance(caught.value, citelint.CitelintError)
    assert caught.value.result is bad
    assert [f.rule for f in caught.value.findings] == ["CL104"]
    assert str(caught.value).splitlines()[1].startswith("r.json:8:38: CL104 snippet not found")


# ----------------------------------------------------------------- opening a project

def test_project_without_a_config_file(tmp_path: Path) -> None:
    project = citelint.Project(captures="evidence", sources=[SOURCE_A], labels=["inventory"], root=tmp_path)
    assert (project.root, project.captures_dir, project.config_path) == \
        (tmp_path.resolve(), tmp_path.resolve() / "evidence", None)
    ref = project.record(SOURCE_A, TEXT_A)
    assert ref.created and ref.path.is_relative_to(tmp_path / "evidence")
    report = {"facts": [{"state": "cited", "label": "inventory", "source": SOURCE_A,
                         "captureSha256": ref.capture_sha256, "snippet": "42 items, measured on 2026-07-01"}]}
    assert project.check_report(report).ok
    unknown = project.check_report({"facts": [{**report["facts"][0], "label": "sales"}]})
    assert [f.rule for f in unknown.findings] == ["CL003"]


def test_project_arguments_are_checked(tmp_path: Path) -> None:
    with pytest.raises(citelint.UsageError, match="sources takes a list"):
        citelint.Project(sources=SOURCE_A, root=tmp_path)
    with pytest.raises(citelint.ConfigError, match="^config:"):
        citelint.Project(sources=[SOURCE_A, SOURCE_A], root=tmp_path)
    with pytest.raises(citelint.ConfigError, match="whitespace"):
        citelint.Project(labels={" revenue": {"unit": "USD"}}, root=tmp_path)


def test_project_links_allow_grounds_a_link_without_a_capture(tmp_path: Path) -> None:
    project = citelint.Project(links_allow=["https://docs.example/*"], root=tmp_path)
    assert project.check_markdown("See [the docs](https://docs.example/a).\n").ok
    assert not project.check_markdown("See [x](https://other.example/a).\n").ok


def test_from_config_takes_any_config_the_schema_accepts_and_names_the_bad_key(tmp_path: Path) -> None:
    config = {"sources": [SOURCE_A], "labels": {"claim-*": {}}, "rules": {"CL105": "off"},
              "quotes": {"min_chars": 30}}
    project = citelint.Project.from_config(config, tmp_path)
    assert project.sources == (SOURCE_A,)
    assert config == {"sources": [SOURCE_A], "labels": {"claim-*": {}}, "rules": {"CL105": "off"},
                      "quotes": {"min_chars": 30}}, "the mapping given is not changed"
    with pytest.raises(citelint.ConfigError, match=r"^config:rules\.CL104: .*cannot be lowered"):
        citelint.Project.from_config({"rules": {"CL104": "off"}}, tmp_path)
    with pytest.raises(citelint.ConfigError, match="sorces"):
        citelint.Project.from_config({"sorces": []}, tmp_path)
    with pytest.raises(citelint.UsageError, match="not a directory"):
        citelint.Project.from_config({}, tmp_path / "missing")
    with pytest.raises(citelint.ConfigError, match="^config: not data a config can hold"):
        citelint.Project.from_config({"captures": tmp_path}, tmp_path)
    with pytest.raises(citelint.ConfigError, match="must be a mapping"):
        citelint.Project.from_config(["sources"], tmp_path)  # type: ignore[arg-type]
    with pytest.raises(citelint.ConfigError, match=r"not a number a setting can hold"):
        citelint.Project.from_config({"capture": {"timeout_s": float("nan")}}, tmp_path)


def test_open_discovers_upward_or_takes_the_config_file(repo: Repo, tmp_path: Path) -> None:
    (repo.root / "reports" / "deep").mkdir(parents=True)
    assert citelint.Project.open(repo.root / "reports" / "deep").root == repo.root.resolve()
    assert citelint.Project.open(repo.root / "citelint.yaml").sources == (SOURCE_A, SOURCE_B)
    (repo.root / "citelint.yaml").write_text("sources: [1\n", encoding="utf-8")
    with pytest.raises(citelint.ConfigError, match=r"citelint\.yaml:"):
        citelint.Project.open(repo.root)


def test_open_of_a_relative_path_walks_up_from_it(repo: Repo, monkeypatch: pytest.MonkeyPatch) -> None:
    (repo.root / "reports" / "deep").mkdir(parents=True)
    monkeypatch.chdir(repo.root / "reports" / "deep")
    assert citelint.Project.open().root == repo.root.resolve()
    assert citelint.Project.open(".").root == repo.root.resolve()
    monkeypatch.chdir(repo.root / "reports")
    assert citelint.Project.open("deep").root == repo.root.resolve()
    assert citelint.Project.open("../citelint.yaml").root == repo.root.resolve()


def test_the_api_never_changes_the_working_directory(repo: Repo) -> None:
    before = os.getcwd()
    repo.report(repo.cited())
    project = citelint.Project.open(repo.root)
    assert project.check(["reports/r.json"]).accepted[0].path == "reports/r.json"
    assert os.getcwd() == before


# ----------------------------------------------------------------- bad input

def test_bad_input_is_a_finding_or_a_usage_error(repo: Repo) -> None:
    project = citelint.Project.open(repo.root)
    broken = project.check_report('{"facts": [', name="reports/x.json")
    assert [(f.rule, f.path) for f in broken.findings] == [("CL001", "reports/x.json")]
    yaml = project.check_report("facts:\n  - state: unavailable\n    label: sales\n    reason: not yet\n",
                                name="reports/x.yaml")
    assert yaml.ok and yaml.counts.facts_unavailable == 1
    assert not project.check_report(b"\xff\xfe").ok
    with pytest.raises(citelint.UsageError, match="Markdown as str or bytes, got int"):
        project.check_markdown(42)  # type: ignore[arg-type]
    with pytest.raises(citelint.UsageError, match="a mapping, str or bytes, got list"):
        project.check_report([repo.cited()])  # type: ignore[arg-type]
    with pytest.raises(citelint.UsageError, match="not JSON data"):
        project.check_report({"facts": [object()]})
    with pytest.raises(citelint.UsageError, match="no such file"):
        project.check(["reports/none.json"])
    with pytest.raises(citelint.UsageError, match="not one string"):
        project.check("reports")
    # A file named that is no report is never passed over in silence (the CLI skips it, for pre-commit).
    repo.write("notes.txt", "not a report")
    with pytest.raises(citelint.UsageError, match=r"^notes\.txt: matches none of .* check_report"):
        project.check(["notes.txt"])


def test_a_check_of_nothing_is_ok_but_fails_strict(repo: Repo) -> None:
    empty = citelint.Project.open(repo.root).check()
    assert empty.ok and empty.counts.files == 0
    assert empty.to_dict() == cli_json(repo.root)
    with pytest.raises(citelint.FindingsError, match="no file was checked") as caught:
        empty.raise_for_errors(strict=True)
    assert caught.value.findings == ()


# ----------------------------------------------------------------- links held to what the model received

def test_enforce_links_with_an_allowlist_of_what_the_model_received() -> None:
    prompt = "Answer from these sources only: https://help.example/tracking and <https://help.example/returns>."
    document = {"type": "document", "title": "https://help.example/orders", "source": {"data": "text"}}
    allowlist = citelint.Allowlist.from_inputs([prompt, document])
    assert allowlist.sources == ("https://help.example/tracking", "https://help.example/returns",
                                 "https://help.example/orders")
    answer = ("Track it [here](https://HELP.example/tracking), return it <https://help.example/returns>, "
              "or see [our blog](https://blog.example/post) and https://evil.example/x.\n\n"
              "[ref]: https://help.example/orders\n[Orders][ref] [Other][o]\n\n[o]: javascript:alert(1)\n")
    enforced = citelint.enforce_links(answer, allowlist)
    assert enforced.text == (
        "Track it [here](https://HELP.example/tracking), return it <https://help.example/returns>, "
        "or see our blog and `https://evil.example/x`.\n\n"
        "[ref]: https://help.example/orders\n[Orders][ref] Other\n\n[o]: javascript:alert(1)\n")
    assert [(r.href, r.rule) for r in enforced.removed] == [
        ("https://blog.example/post", "CL201"), ("https://evil.example/x", "CL201"), ("javascript:alert(1)", "CL202")]
    assert "allowlist" in enforced.removed[0].message and "citelint capture" not in enforced.removed[0].message
    assert citelint.enforce_links(enforced.text, allowlist).removed == ()
    assert "https://help.example/tracking" in allowlist and "https://blog.example/post" not in allowlist


def test_allowlist_arguments_are_checked() -> None:
    with pytest.raises(citelint.UsageError, match="not one string"):
        citelint.Allowlist.from_inputs("https://a.example/")
    with pytest.raises(citelint.UsageError, match="not one string"):
        citelint.Allowlist("https://a.example/")
    with pytest.raises(citelint.UsageError, match="a bytes"):
        citelint.Allowlist.from_inputs([b"https://a.example/"])
    allowlist = citelint.Allowlist(["https://a.example/", "ftp://b.example/"], allow=["https://c.example/*"])
    assert allowlist.rejected == ("ftp://b.example/",)
    assert allowlist.allows("https://c.example/any/page") and not allowlist.allows("https://c.example.evil/")
    with pytest.raises(citelint.UsageError, match="relative"):
        citelint.enforce_links("", allowlist, relative="warn")


def test_project_enforce_links_degrades_what_its_captures_do_not_ground(repo: Repo) -> None:
    project = citelint.Project.open(repo.root)
    text = f"[a]({SOURCE_A}) and [c](https://example.org/c.txt) and <{SOURCE_B}>\n"
    enforced = project.enforce_links(text)
    assert enforced.text == f"[a]({SOURCE_A}) and c and <{SOURCE_B}>\n"
    assert [r.href for r in enforced.removed] == ["https://example.org/c.txt"] and enforced.changed
    assert project.check_markdown(enforced.text).ok


# ----------------------------------------------------------------- threads

def test_reads_from_several_threads_give_the_serial_results() -> None:
    root = EXAMPLES / "expertqa-faults"
    project = citelint.Project.open(root)
    texts = {p.relative_to(root).as_posix(): p.read_bytes() for p in sorted((root / "reports").iterdir())}
    allowlist = citelint.Allowlist.from_inputs([(root / "citelint.yaml").read_text(encoding="utf-8")])
    markdown = (root / "reports" / "q2-answer.md").read_text(encoding="utf-8") if \
        (root / "reports" / "q2-answer.md").exists() else "[x](https://example.org/)\n"

    def work() -> list[Any]:
        out: list[Any] = [project.check().to_dict()]
        for name, data in texts.items():
            out.append((project.check_markdown(data, name=name) if name.endswith(".md")
                        else project.check_report(data, name=name)).to_dict())
        out.append(project.enforce_links(markdown))
        out.append(citelint.enforce_links(markdown, allowlist))
        return out

    serial = work()
    results: list[list[Any]] = []
    failures: list[BaseException] = []

    def run() -> None:
        try:
            results.append(work())
        except BaseException as exc:  # noqa: BLE001 - handed to the main thread's assertion
            failures.append(exc)

    threads = [threading.Thread(target=run) for _ in range(6)]
    for t in threads:
        t.start()
    for t in threads:
        t.join()
    assert failures == []
    assert results == [serial] * 6
    import gc

    assert gc.isenabled(), "the collector paused during the checks is enabled again"


def test_the_cli_check_runs_through_the_api_without_loading_its_result_types() -> None:
    """``citelint check`` opens and checks through the API's module (so the two cannot disagree), in a
    fresh interpreter, without paying for the result dataclasses (``dataclasses`` loads ``inspect``)."""
    import subprocess

    code = ("import io, sys\nfrom citelint.cli import main\n"
            "code = main(['check', 'reports/q2.json'], stdout=io.StringIO(), stderr=io.StringIO())\n"
            "print(code, sorted(m for m in sys.modules if m in ('citelint.api.project', 'citelint.api.result',"
            " 'citelint.api.links', 'dataclasses', 'inspect')))\n")
    out = subprocess.run([sys.executable, "-c", code], cwd=EXAMPLES / "expertqa", capture_output=True, text=True)
    assert out.stdout.split(maxsplit=1) == ["0", "['citelint.api.project']\n"], out.stdout + out.stderr


def test_threads_whose_first_call_renders_markdown_set_cmark_up_once() -> None:
    """In a fresh interpreter, threads released together each make their first Markdown check: cmark-gfm's
    process-wide setup (its extension list, the freeing renderer's one arena, loaded past 256 K characters)
    happens once, and every thread gets the serial result."""
    import subprocess

    code = (
        "import sys, threading, citelint\n"
        "project = citelint.Project.open('.')\n"
        "small = open('reports/q2-answer.md', encoding='utf-8').read()\n"
        "large = small * (300_000 // len(small) + 1)\n"
        "barrier = threading.Barrier(4)\n"
        "out = {}\n"
        "def run(i):\n"
        "    barrier.wait()\n"
        "    texts = (small, large) if i % 2 else (large, small)\n"
        "    out[i] = [project.check_markdown(t, name='reports/x.md').to_dict() for t in texts]\n"
        "threads = [threading.Thread(target=run, args=(i,)) for i in range(4)]\n"
        "[t.start() for t in threads]; [t.join() for t in threads]\n"
        "serial = [project.check_markdown(t, name='reports/x.md').to_dict() for t in (small, large)]\n"
        "ok = all(out[i] == (serial if i % 2 else serial[::-1]) for i in range(4))\n"
        "print(len(out), ok, serial[1]['counts']['links'])\n")
    out = subprocess.run([sys.executable, "-c", code], cwd=EXAMPLES / "expertqa", capture_output=True, text=True,
                         timeout=300)
    assert out.returncode == 0, out.stderr
    count, ok, links = out.stdout.split()
    assert (count, ok) == ("4", "True") and int(links) > 1000


def test_the_api_reads_write_nothing_and_open_no_socket(repo: Repo, monkeypatch: pytest.MonkeyPatch) -> None:
    """DESIGN §1 for the library calls: an audit hook (tests/audit.py) sees no open for writing and no
    socket while a project is opened, checked in every way and its links enforced."""
    from audit import watching

    repo.report(repo.cited(), {"state": "unavailable", "label": "sales", "reason": "n/a"})
    repo.report(repo.cited(snippet="not in the capture at all"), name="reports/bad.json")
    markdown = f"See [the source]({SOURCE_A}) and <https://example.org/invented>.\n"
    repo.write("reports/note.md", markdown)
    monkeypatch.setattr(sys, "dont_write_bytecode", True)  # lazy imports write no .pyc while watched
    before = sorted((p, p.stat().st_mtime_ns) for p in repo.root.rglob("*"))
    with watching() as events:
        project = citelint.Project.open(repo.root)
        results = [project.check(), project.check_report({"facts": [repo.cited()]}),
                   project.check_markdown(markdown, name="reports/note.md")]
        enforced = project.enforce_links(markdown)
        allowed = citelint.enforce_links(markdown, citelint.Allowlist.from_inputs([f"use {SOURCE_B} only"]))
    assert events.writes == []
    assert sorted((p, p.stat().st_mtime_ns) for p in repo.root.rglob("*")) == before
    assert [r.ok for r in results] == [False, True, False]
    assert [r.href for r in enforced.removed] == ["https://example.org/invented"]
    assert [r.href for r in allowed.removed] == [SOURCE_A, "https://example.org/invented"]
