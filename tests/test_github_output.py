"""GitHub output: no injected workflow command, most severe first, full summary.

Untrusted text (report file names, labels, sources, snippets, reasons) must
never become a workflow command. What counts as a command is decided by
:func:`actions_runner.workflow_commands`, a model of the runner's parser
that is stricter than the runner; the tests assert the exact command lines.
"""

from __future__ import annotations

import re

import pytest

from actions_runner import workflow_commands
from citelint.store.captures import make_record
from conftest import SOURCE_A, TEXT_A, Repo

SHA_A = make_record(SOURCE_A, TEXT_A).sha256

#: Every trick at once: a newline followed by a command, an encoded newline,
#: a mask, a legacy set-output, and a stop-commands line with a guessable token.
PAYLOAD = "x\n::error::pwned\n::add-mask::%0Asecret\n##[set-output name=x;]y\n::stop-commands::abc\r::warning::cr"
PAYLOAD_YAML = '"' + PAYLOAD.replace("\n", "\\n").replace("\r", "\\r") + '"'


EVIL_NAME = "reports/a,b:c%0A::add-mask::s\n::error::n.json"


@pytest.fixture
def evil(repo: Repo, monkeypatch: pytest.MonkeyPatch) -> Repo:
    """Reports whose every untrusted field carries PAYLOAD, under a file name that carries commands too."""
    monkeypatch.setenv("GITHUB_ACTIONS", "true")
    sha = repo.records[SOURCE_A].sha256
    repo.write("reports/evil.yaml", (
        "facts:\n"
        f"  - state: unavailable\n    label: {PAYLOAD_YAML}\n    reason: {PAYLOAD_YAML}\n"
        f"  - state: cited\n    label: inventory\n    source: {PAYLOAD_YAML}\n"
        f"    captureSha256: '{sha}'\n    snippet: {PAYLOAD_YAML}\n"
        f"  - state: cited\n    label: sales\n    source: '{SOURCE_A}'\n"
        f"    captureSha256: '{sha}'\n    snippet: {PAYLOAD_YAML}\n"
        f"  - state: unavailable\n    label: sales\n    reason: {PAYLOAD_YAML}\n"
    ))
    # A file name can hold anything but "/" and NUL; the accepted fact adds a CL901 notice.
    repo.write(EVIL_NAME, {"facts": [
        repo.cited(), {"state": "unavailable", "label": PAYLOAD, "reason": PAYLOAD}]})
    return repo


def test_injection_produces_only_citelint_commands(evil: Repo, tmp_path_factory: pytest.TempPathFactory) -> None:
    summary = tmp_path_factory.mktemp("summary") / "step_summary.md"
    run = evil.check("--summary-file", str(summary))
    assert run.code == 1
    commands = workflow_commands(run.out)
    token = commands[-1].name
    assert re.fullmatch(r"[0-9a-f]{32}", token)
    assert [c.line for c in commands] == EXPECTED_COMMANDS + [f"::stop-commands::{token}", f"::{token}::"]

    # The readable listing, inside the stop-commands block, repeats untrusted text neutralised:
    # one line per finding, no raw CR or LF, nothing at a line start that looks like a command.
    listing = run.out.split(f"::stop-commands::{token}\n", 1)[1].split(f"::{token}::\n", 1)[0]
    assert "\r" not in listing
    assert [ln.split(": ")[1][:5] for ln in listing.splitlines() if not ln.startswith(("semantic", " "))] == \
        ["CL003", "CL003", "CL101", "CL104", "CL004"]
    assert all(not ln.lstrip().startswith("::") for ln in listing.splitlines())
    # The step summary: one list item per finding, untrusted text escaped.
    text = summary.read_text(encoding="utf-8")
    assert text.count("\n- **error** ") == 5 and "\\#\\#\\[set-output" in text


def test_runner_model_sees_injected_commands() -> None:
    """The runner model itself: raw untrusted text would have issued commands."""
    names = [c.name for c in workflow_commands(PAYLOAD)]
    assert names == ["error", "add-mask", "set-output", "stop-commands"]
    assert [c.name for c in workflow_commands("::stop-commands::t\n::error::x\n##[error]y\n::t::\n::notice::z")] == \
        ["stop-commands", "t", "notice"]


#: PAYLOAD as an annotation shows it: repr() has made CR and LF visible as \\r and \\n,
#: and the message escaping turned "%" into "%25"; "::" and "##[" after the command's own
#: "::" are data, since the runner parses one command per line from its start.
SHOWN = ("'x\\n::error::pwned\\n::add-mask::%250Asecret\\n##[set-output name=x;]y"
         "\\n::stop-commands::abc\\r::warning::cr'")

#: Reviewed by hand: file= also escapes ",", ":" and the newline of the file name.
EXPECTED_COMMANDS = [
    "::error file=reports/a%2Cb%3Ac%250A%3A%3Aadd-mask%3A%3As%0A%3A%3Aerror%3A%3An.json,line=12,col=16,"
    f"endColumn=120,title=citelint (CL003)::label {SHOWN} is not approved; approve it in the config's `labels` "
    "(a name, or a pattern such as `claim-*`) or use an approved label [unknown-label]",
    f"::error file=reports/evil.yaml,line=3,col=12,endColumn=116,title=citelint (CL003)::label {SHOWN} is not "
    "approved; approve it in the config's `labels` (a name, or a pattern such as `claim-*`) or use an approved "
    "label [unknown-label]",
    f"::error file=reports/evil.yaml,line=7,col=13,endColumn=117,title=citelint (CL101)::source {SHOWN} is not in "
    "the approved `sources` of the config (exact match); cite an approved source [unapproved-source]",
    "::error file=reports/evil.yaml,line=14,col=14,endColumn=118,title=citelint (CL104)::snippet not found in "
    f"capture {SHA_A[:12]}…: no part of the snippet's start occurs in the capture; quote the capture verbatim "
    "[snippet-not-found]",
    "::error file=reports/evil.yaml,line=16,col=12,endColumn=17,title=citelint (CL004)::label 'sales' appears "
    "again (first at line 10); keep one fact per label [duplicate-label]",
    "::notice title=citelint (CL901)::1 accepted citation(s) need semantic review (listed in the step summary)",
]


def test_more_than_ten_findings_most_severe_first_and_summary_lists_all(
        repo: Repo, monkeypatch: pytest.MonkeyPatch, tmp_path_factory: pytest.TempPathFactory) -> None:
    """GitHub shows only 10 annotations of each severity per step: errors come
    first whatever their place in the files, and the summary has every finding."""
    monkeypatch.setenv("GITHUB_ACTIONS", "true")
    labels = [f"m{i:02d}" for i in range(16)]
    repo.config(labels=labels)
    warnings = [repo.cited(label, snippet="42 items") for label in labels[:12]]          # CL105 x 12
    errors = [repo.cited(label, snippet="Synthetic source: 43 items") for label in labels[12:15]]  # CL104 x 3
    repo.report(*warnings, name="reports/a.json")
    repo.report(*errors, name="reports/z.json")
    summary = tmp_path_factory.mktemp("summary") / "summary.md"
    run = repo.check("--summary-file", str(summary))
    assert run.code == 1
    kinds = [c.line.split(" ", 1)[0] for c in workflow_commands(run.out)]
    assert kinds[:16] == ["::error"] * 3 + ["::warning"] * 12 + ["::notice"]
    lines = summary.read_text(encoding="utf-8").splitlines()
    # Files with errors first, then by path; within a file, most severe first.
    assert [ln for ln in lines if ln.startswith("#### ")] == ["#### reports/z\\.json (3)", "#### reports/a\\.json (12)",
                                                               "#### reports/a\\.json"]
    rows = [ln for ln in lines if ln.startswith(("- **error** ", "- **warning** "))]
    assert [r.split(" ")[1] for r in rows] == ["**error**"] * 3 + ["**warning**"] * 12
    assert [re.search(r" at line (\d+), col (\d+):", r).groups() for r in rows] == \
        [(str(8 + 7 * i), "38") for i in range(3)] + [(str(8 + 7 * i), "18") for i in range(12)]
    review = [ln for ln in lines if ln.startswith("- **m")]
    assert len(review) == 12
