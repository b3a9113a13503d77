"""The LangChain harness in real LCEL chains with langchain-core's own fake chat model (no
network): a grounded answer passes through, a misquotation raises with the findings,
``enforce`` degrades invented links, async and string outputs work, and nothing the model
writes reaches the captures.
"""

from __future__ import annotations

import asyncio
from pathlib import Path

import pytest
from langchain_core.language_models.fake_chat_models import FakeListChatModel
from langchain_core.messages import AIMessage
from langchain_core.output_parsers import StrOutputParser
from langchain_core.prompts import ChatPromptTemplate

from citelint import FindingsError, Project
from citelint.integrations.langchain import CitationCheck

SOURCE = "https://example.org/q3.txt"
TEXT = "Revenue rose 12% to $4.1 million in the third quarter, the company said."
GOOD = f"Revenue [rose 12%]({SOURCE}#:~:text=Revenue%20rose%2012%25) in the quarter."
MISQUOTED = f"Revenue [rose 15%]({SOURCE}#:~:text=Revenue%20rose%2015%25) in the quarter."
INVENTED = GOOD + " See also [a report](https://example.org/invented)."


@pytest.fixture
def project(tmp_path: Path) -> Project:
    project = Project(captures="captures", sources=[SOURCE], root=tmp_path)
    project.record(SOURCE, TEXT, retrieved_at="2026-12-01T10:00:00Z")  # the trusted stage, in the test
    return project


def chain(project: Project, answer: str, **options: object) -> object:
    prompt = ChatPromptTemplate.from_messages([("system", "Cite only the sources given."), ("human", "{question}")])
    return prompt | FakeListChatModel(responses=[answer]) | CitationCheck(project, **options)


def files(root: Path) -> dict[str, bytes]:
    return {str(p.relative_to(root)): p.read_bytes() for p in root.rglob("*") if p.is_file()}


def test_a_grounded_answer_passes_through_unchanged(project: Project) -> None:
    out = chain(project, GOOD).invoke({"question": "Q3 revenue?"})
    assert isinstance(out, AIMessage) and out.content == GOOD
    check = CitationCheck(project)
    check.invoke(GOOD)
    assert check.last_result is not None and check.last_result.ok and check.last_result.counts.links == 1


def test_a_misquotation_raises_with_the_findings(project: Project) -> None:
    with pytest.raises(FindingsError) as caught:
        chain(project, MISQUOTED).invoke({"question": "Q3 revenue?"})
    assert [f.rule for f in caught.value.findings] == ["CL204"]
    assert "answer.md:1:" in str(caught.value) and "CL204" in str(caught.value)
    assert not caught.value.result.ok


def test_enforce_degrades_invented_links_and_still_refuses_a_misquotation(project: Project) -> None:
    before = files(project.root)
    out = chain(project, INVENTED, mode="enforce").invoke({"question": "Q3 revenue?"})
    assert isinstance(out, AIMessage)
    assert out.content == GOOD + " See also a report."
    with pytest.raises(FindingsError, match="CL201"):
        chain(project, INVENTED).invoke({"question": "Q3 revenue?"})
    with pytest.raises(FindingsError, match="CL204"):
        chain(project, MISQUOTED + " [x](https://example.org/invented)", mode="enforce").invoke({"question": "?"})
    assert files(project.root) == before  # nothing the model wrote became evidence


def test_strings_async_and_batches(project: Project) -> None:
    text_chain = FakeListChatModel(responses=[GOOD]) | StrOutputParser() | CitationCheck(project, mode="enforce")
    assert text_chain.invoke("Q3 revenue?") == GOOD
    assert asyncio.run(chain(project, GOOD).ainvoke({"question": "Q3?"})).content == GOOD
    with pytest.raises(FindingsError):
        asyncio.run(chain(project, MISQUOTED).ainvoke({"question": "Q3?"}))
    check = CitationCheck(project)
    outs = check.batch([GOOD, MISQUOTED], return_exceptions=True)
    assert outs[0] == GOOD and isinstance(outs[1], FindingsError)


def test_list_content_is_checked_on_its_text_and_bad_input_is_a_usage_error(project: Project) -> None:
    from citelint import UsageError

    message = AIMessage(content=[{"type": "text", "text": GOOD}])
    assert CitationCheck(project).invoke(message) is message
    with pytest.raises(UsageError, match="list of blocks"):
        CitationCheck(project, mode="enforce").invoke(message)
    with pytest.raises(UsageError, match="takes a str or a message"):
        CitationCheck(project).invoke(42)
    with pytest.raises(UsageError, match="'raise' or 'enforce'"):
        CitationCheck(project, mode="fix")  # type: ignore[arg-type]


def test_a_chain_writes_nothing_and_opens_no_connection(project: Project, monkeypatch: pytest.MonkeyPatch) -> None:
    """Watched by the audit hook (after a first run loads what it imports): no file opened
    for writing, no socket connected, bound or resolved, whatever the model wrote."""
    import sys

    from audit import watching

    monkeypatch.setattr(sys, "dont_write_bytecode", True)
    enforcing = chain(project, INVENTED, mode="enforce")
    enforcing.invoke({"question": "?"})
    with watching() as events:
        out = enforcing.invoke({"question": "?"})
        with pytest.raises(FindingsError):
            chain(project, MISQUOTED).invoke({"question": "?"})
    assert out.content == GOOD + " See also a report."
    assert events.writes == []


def test_without_the_langchain_extra_the_import_says_how_to_install_it() -> None:
    import subprocess
    import sys

    code = ("import sys\nsys.modules['langchain_core'] = None\n"
            "try:\n    import citelint.integrations.langchain\nexcept ImportError as exc:\n    print(exc)\n")
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True).stdout
    assert "pip install 'citelint-provenance[langchain]'" in out
