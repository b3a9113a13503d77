"""``citelint import perplexity``, xAI through ``import openai``, and responses of
a shape the chosen importer does not read (issue 23): the recorded Perplexity and
xAI responses of the corpus as a user imports and checks them, and every
recording refused, never passed empty, by an importer that does not read it.
"""

from __future__ import annotations

import json
import re
from pathlib import Path

import pytest

from test_import_anthropic import cli, corpus, files, project

PERPLEXITY = "perplexity-chat-completions-citations.vercel-ai.response.json"
XAI = "xai-responses-web-search.vercel-ai.response.json"
LINK = re.compile(r"\[\[(\d+)\]\]\((https?://[^\s)]+)\)")


def _recorded(name: str) -> dict:
    return json.loads(corpus(name).read_text(encoding="utf-8"))


def _sources_line(markdown: str) -> str:
    last = markdown.rstrip("\n").rsplit("\n", 1)[-1]
    assert last.startswith("Sources: "), markdown[-300:]
    return last


# --------------------------------------------------------------------------- Perplexity

def test_perplexity_every_cited_url_becomes_a_link_and_each_marker_links_its_url(tmp_path: Path) -> None:
    data = _recorded(PERPLEXITY)
    urls = data["citations"]
    text = data["choices"][0]["message"]["content"]
    assert len(urls) == 7
    root = project(tmp_path / "p", [])
    run = cli("import", "perplexity", str(corpus(PERPLEXITY)), "--out", "reports/a.md", cwd=root)
    assert run.returncode == 0, run.stderr
    written = (root / "reports" / "a.md").read_text(encoding="utf-8")
    found = LINK.findall(written)
    assert {url for _, url in found} == set(urls)  # all 7, none invented
    markers = re.findall(r"\[(\d+)\]", text)
    assert len(found) == len(markers) + 1 == 14
    # Each of the model's [n] markers is now a link to the n-th URL, with the model's number as its text ...
    for (n, url), marker in zip(found, markers):
        assert n == marker and url == urls[int(n) - 1]
    # ... and the answer is otherwise as the model wrote it.
    body, sources = written.rsplit("\n\nSources: ", 1)
    assert LINK.sub(lambda m: f"[{m.group(1)}]", body) == text
    # [4] (wfin.com) is in citations[] but no marker names it: listed after the answer, not dropped.
    assert sources == f"[[4]]({urls[3]})\n"  # numbered as Perplexity numbers its sources
    assert "citations[3] is named by no [n] marker" in run.stderr
    check = json.loads(cli("check", "--format", "json", cwd=root).stdout)
    assert [f["rule"] for f in check["findings"]] == ["CL201"] * 14  # governed, not yet captured


def test_perplexity_marker_naming_no_url_is_not_linked(tmp_path: Path) -> None:
    # Constructed from the recording: its last marker changed to one past the list.
    data = _recorded(PERPLEXITY)
    message = data["choices"][0]["message"]
    message["content"] = message["content"].replace("methodology.[5]", "methodology.[9]")
    (tmp_path / "r.json").write_text(json.dumps(data), encoding="utf-8")
    run = cli("import", "perplexity", "r.json", "--out", "a.md", cwd=tmp_path)
    assert run.returncode == 1
    written = (tmp_path / "a.md").read_text(encoding="utf-8")
    assert "methodology.[9: not linked]" in written
    assert "the answer's marker [9] names no source: the response lists 7" in run.stderr
    assert 'not linked: no source URL: add "[9]": https://... to the source map' in run.stderr
    assert run.stderr.splitlines()[-1].startswith("citelint: 1 of 14 citations not linked")
    # [5] is still named by its other markers; nothing else changes.
    assert len(LINK.findall(written)) == 13
    (tmp_path / "map.json").write_text(json.dumps({"[9]": "https://example.org/nine"}))
    run = cli("import", "perplexity", "r.json", "--source-map", "map.json", "--out", "a.md", "--force", cwd=tmp_path)
    assert run.returncode == 0, run.stderr
    assert "methodology.[[9]](https://example.org/nine)" in (tmp_path / "a.md").read_text(encoding="utf-8")


def test_perplexity_search_results_alone_and_markers_in_code(tmp_path: Path) -> None:
    # Constructed from the recording: search_results[] instead of citations[] (the newer shape),
    # and a code span holding an index that is no citation.
    data = _recorded(PERPLEXITY)
    urls = data.pop("citations")
    data["search_results"] = [{"title": f"page {i}", "url": u, "date": None} for i, u in enumerate(urls)]
    data["choices"][0]["message"]["content"] += "\n\nIn code, `rows[1]` is the second row."
    (tmp_path / "r.json").write_text(json.dumps(data), encoding="utf-8")
    run = cli("import", "perplexity", "r.json", "--out", "a.md", cwd=tmp_path)
    assert run.returncode == 0, run.stderr
    written = (tmp_path / "a.md").read_text(encoding="utf-8")
    assert {url for _, url in LINK.findall(written)} == set(urls)
    assert "`rows[1]`" in written


def test_perplexity_search_results_url_missing_from_citations_is_listed_not_dropped(tmp_path: Path) -> None:
    # Constructed: the two lists disagree. z/9 was in no report and no message, exit 0.
    (tmp_path / "r.json").write_text(json.dumps({
        "choices": [{"message": {"role": "assistant", "content": "A [1]."}}],
        "citations": ["https://a.example/1"], "search_results": [{"title": "Z", "url": "https://z.example/9"}]}))
    root = project(tmp_path / "p", [])
    run = cli("import", "perplexity", str(tmp_path / "r.json"), "--out", "reports/a.md", cwd=root)
    assert run.returncode == 0, run.stderr
    written = (root / "reports" / "a.md").read_text(encoding="utf-8")
    assert written == "A [[1]](https://a.example/1).\n\nSources: [[2]](https://z.example/9)\n"
    assert "citation [2]: search_results[0] lists a URL that citations[] does not" in run.stderr
    check = json.loads(cli("check", "--format", "json", cwd=root).stdout)
    assert [f["rule"] for f in check["findings"]] == ["CL201"] * 2  # both governed


def test_perplexity_bad_citation_list_names_its_path(tmp_path: Path) -> None:
    data = _recorded(PERPLEXITY)
    data["citations"][2] = {"url": 3}
    (tmp_path / "r.json").write_text(json.dumps(data), encoding="utf-8")
    run = cli("import", "perplexity", "r.json", "--out", "a.md", cwd=tmp_path)
    assert run.returncode == 2 and "Traceback" not in run.stderr
    assert run.stderr == "citelint: r.json: citations[2] must be a string (a URL), found an object\n"
    assert files(tmp_path) == {"r.json"}


@pytest.mark.parametrize("kind", ["chat.completion.chunk", "chat.completion"])
def test_perplexity_saved_stream_of_chat_chunks(kind: str, tmp_path: Path) -> None:
    # Constructed: the recording's answer as Chat Completions chunks, citations on each chunk;
    # read as chunks whatever their "object" says.
    data = _recorded(PERPLEXITY)
    text = data["choices"][0]["message"]["content"]
    cut = text.index("\n\n")
    chunks = [{"id": data["id"], "object": kind, "citations": data["citations"],
               "choices": [{"index": 0, "delta": {"content": part}, "finish_reason": finish}]}
              for part, finish in ((text[:cut], None), (text[cut:], "stop"))]
    (tmp_path / "r.sse.txt").write_text("".join(f"data: {json.dumps(c)}\n\n" for c in chunks) + "data: [DONE]\n\n")
    run = cli("import", "perplexity", "r.sse.txt", "--out", "a.md", cwd=tmp_path)
    assert run.returncode == 0, run.stderr
    assert len(LINK.findall((tmp_path / "a.md").read_text(encoding="utf-8"))) == 14


# --------------------------------------------------------------------------- xAI

def test_xai_citations_without_spans_are_source_links_after_the_answer(tmp_path: Path) -> None:
    data = _recorded(XAI)
    part = data["output"][1]["content"][0]
    urls = [a["url"] for a in part["annotations"]]
    assert all("start_index" not in a for a in part["annotations"])
    root = project(tmp_path / "p", [])
    run = cli("import", "openai", str(corpus(XAI)), "--out", "reports/a.md", cwd=root)
    assert run.returncode == 0, run.stderr
    written = (root / "reports" / "a.md").read_text(encoding="utf-8")
    assert written.startswith(part["text"] + "\n\nSources: ")
    assert _sources_line(written) == "Sources: " + " ".join(f"[[{i}]]({u})" for i, u in enumerate(urls, 1))
    assert "citations [1], [2], [3], [4], [5]: the provider gave no position" in run.stderr
    check = json.loads(cli("check", "--format", "json", cwd=root).stdout)
    assert [f["rule"] for f in check["findings"]] == ["CL201"] * 5


def test_xai_one_citation_without_a_span_does_not_fail_the_others(tmp_path: Path) -> None:
    # Constructed from the recording: the first annotation given a span, the others left without.
    data = _recorded(XAI)
    part = data["output"][1]["content"][0]
    end = part["text"].index(" in July 2023") + len(" in July 2023")
    part["annotations"][1].update(start_index=0, end_index=end)
    (tmp_path / "r.json").write_text(json.dumps(data), encoding="utf-8")
    run = cli("import", "openai", "r.json", "--out", "a.md", cwd=tmp_path)
    assert run.returncode == 0, run.stderr
    written = (tmp_path / "a.md").read_text(encoding="utf-8")
    assert written.startswith("xAI is an American artificial intelligence company founded by Elon Musk in July "
                              "2023 [[1]](https://x.ai/company).")
    assert _sources_line(written).count("[[") == 4
    # Half a span is a bad value, not "no span": refused with its path.
    part["annotations"][1].pop("end_index")
    (tmp_path / "r.json").write_text(json.dumps(data), encoding="utf-8")
    run = cli("import", "openai", "r.json", "--out", "b.md", cwd=tmp_path)
    assert run.returncode == 2
    assert "output[1].content[0].annotations[1].end_index is missing" in run.stderr


# --------------------------------------------------------------------------- shapes an importer does not read

COHERE = {"id": "c", "finish_reason": "COMPLETE", "message": {  # constructed from Cohere's chat v2 reference
    "role": "assistant", "content": [{"type": "text", "text": "The grass is green."}],
    "citations": [{"start": 13, "end": 18, "text": "green", "type": "TEXT_CONTENT", "sources": [
        {"type": "document", "id": "doc:0", "document": {"id": "doc:0", "title": "Lawns",
                                                         "url": "https://example.org/lawns"}}]}]}}

ONE_PER_SHAPE = {
    "anthropic": "anthropic-messages-web-search.pydantic-ai.response.json",
    "openai": "openai-responses-web-search.pydantic-ai.response.json",
    "xai": XAI,
    "openrouter": "openrouter-chat-completions-web-search.pydantic-ai.response.json",
    "gemini": "gemini-generate-content-google-search.pydantic-ai.response.json",
    "gemini-interactions": "gemini-interactions-google-search.vercel-ai.response.json",
    "perplexity": PERPLEXITY,
    "cohere": None,
}
READS = {"anthropic": "anthropic", "openai": "openai", "xai": "openai", "openrouter": "openai",
         "gemini": "gemini", "gemini-interactions": "gemini", "perplexity": "perplexity", "cohere": "cohere"}
# Perplexity's importer reads any Chat Completions object (its message is one), OpenRouter's too.
ALSO_READ = {("openrouter", "perplexity")}


@pytest.mark.parametrize("shape", sorted(ONE_PER_SHAPE))
@pytest.mark.parametrize("vendor", ["anthropic", "openai", "gemini", "cohere", "perplexity"])
def test_a_response_the_importer_does_not_read_is_refused_naming_what_it_reads(shape: str, vendor: str,
                                                                             tmp_path: Path) -> None:
    if vendor == READS[shape] or (shape, vendor) in ALSO_READ:
        pytest.skip("the importer that reads this shape")
    name = ONE_PER_SHAPE[shape]
    if name is None:
        (tmp_path / "r.json").write_text(json.dumps(COHERE))
        path = "r.json"
    else:
        path = str(corpus(name))
    run = cli("import", vendor, path, "--out", "a.md", cwd=tmp_path)
    assert run.returncode == 2, run.stdout + run.stderr
    assert f"citelint import {vendor} reads " in run.stderr and "Traceback" not in run.stderr
    assert f"try citelint import {READS[shape]}" in run.stderr
    assert not (tmp_path / "a.md").exists()


def test_perplexity_given_to_openai_is_refused_not_zero_links(tmp_path: Path) -> None:
    run = cli("import", "openai", str(corpus(PERPLEXITY)), "--out", "a.md", cwd=tmp_path)
    assert run.returncode == 2 and run.stdout == ""
    assert ("a Chat Completions object with a top-level citations list, which is Perplexity's shape; "
            "citelint import openai reads an OpenAI or xAI Responses object (output[]) or a Chat Completions "
            "object (choices[], annotations url_citation; OpenRouter); it looks like a perplexity response: "
            "try citelint import perplexity") in run.stderr


def test_nothing_imported_from_a_response_that_lists_citations_is_refused(tmp_path: Path) -> None:
    # Constructed: a Responses object whose citations sit where no importer reads them.
    response = {"status": "completed", "output": [{"type": "message", "content": [
        {"type": "output_text", "text": "An answer.", "annotations": []}], "citations": ["https://example.org/"]}]}
    (tmp_path / "r.json").write_text(json.dumps(response))
    run = cli("import", "openai", "r.json", "--out", "a.md", cwd=tmp_path)
    assert run.returncode == 2
    assert "r.json: output[0].citations lists citations, but none were imported; citelint import openai reads" \
        in run.stderr


def test_responses_url_citation_at_0_0_is_a_source_of_the_whole_answer() -> None:
    # Constructed: an empty span before the first character supports nothing, as in Chat Completions.
    from citelint.imports import openai

    response = {"output": [{"type": "message", "content": [{"type": "output_text", "text": "An answer.",
                "annotations": [{"type": "url_citation", "url": "https://example.org/", "start_index": 0,
                                 "end_index": 0}]}]}]}
    (citation,) = openai.answer(response, request=None).citations
    assert citation.whole and (citation.start, citation.end) == (10, 10)
