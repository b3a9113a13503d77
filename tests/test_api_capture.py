"""The trusted stage from Python: ``Project.capture`` against real local HTTPS
servers (trustme certificates) and ``Project.record``, through public names.

Refusals are exceptions of the ``CitelintError`` hierarchy; nothing is
printed, nothing is written when a source is refused, and the process's
state (working directory, standard streams) is left alone.
"""

from __future__ import annotations

import os
import shutil
from pathlib import Path

import pytest

import citelint
from servers import response
from test_fetch import ca, ca_file, serve  # noqa: F401  (fixtures: a trustme CA and its file, real HTTPS servers)

TEXT = "Revenue rose 12% to $4.1 million in the third quarter of 2026."


def project_for(root: Path, ca_file: str, *sources: str) -> citelint.Project:
    shutil.copyfile(ca_file, root / "ca.pem")
    # The only server a test can run is on loopback, which the stage refuses by default.
    return citelint.Project.from_config({"sources": list(sources), "labels": ["revenue"],
                                         "capture": {"ca_file": "ca.pem", "allow_private_addresses": True,
                                                     "timeout_s": 5}}, root)


def test_capture_fetches_an_approved_source_and_a_report_citing_it_passes(
        tmp_path: Path, ca_file: str, serve, capsys: pytest.CaptureFixture[str]) -> None:
    s = serve(response(body=TEXT.encode()))
    url = s.url("/q3.txt")
    project = project_for(tmp_path, ca_file, url)
    before = os.getcwd()
    ref = project.capture(url)
    assert (ref.source, ref.created, ref.bytes, ref.warning) == (url, True, len(TEXT.encode()), "")
    assert ref.path.is_file() and ref.path.is_relative_to(project.captures_dir)
    again = project.capture(url)
    assert (again.capture_sha256, again.created) == (ref.capture_sha256, False)
    report = {"facts": [{"state": "cited", "label": "revenue", "source": url, "captureSha256": ref.capture_sha256,
                         "snippet": "Revenue rose 12% to $4.1 million"}]}
    assert project.check_report(report).ok
    assert capsys.readouterr() == ("", "")
    assert os.getcwd() == before


def test_a_refused_capture_raises_and_writes_nothing(tmp_path: Path, ca_file: str, serve) -> None:
    s = serve(response("404 Not Found", body=b"gone"))
    approved = s.url("/q3.txt")
    project = project_for(tmp_path, ca_file, approved)
    with pytest.raises(citelint.CaptureRefused, match="not in the approved sources") as caught:
        project.capture(s.url("/other.txt"))
    assert isinstance(caught.value, citelint.CitelintError)
    with pytest.raises(citelint.CaptureRefused, match="404"):
        project.capture(approved)
    assert not project.captures_dir.exists() or not any(project.captures_dir.rglob("*.json"))


def test_record_keeps_what_the_pipeline_held(tmp_path: Path, ca_file: str) -> None:
    source = "https://example.org/q3.txt"
    project = project_for(tmp_path, ca_file, source)
    ref = project.record(source, TEXT, retrieved_at="2026-12-01T00:00:00Z")
    assert ref.created and project.record(source, TEXT.encode(), retrieved_at="2026-12-01T00:00:00Z") == \
        citelint.CaptureRef(source, ref.capture_sha256, ref.path, False, ref.bytes)
    with pytest.raises(citelint.CaptureRefused, match="looks like text/html") as refused:
        project.record(source, "<!DOCTYPE html><html><body><p>Revenue</p></body></html>")
    # A library call names its argument, not the command line's flag.
    assert "content_type='text/html'" in str(refused.value) and "--content-type" not in str(refused.value)
    with pytest.raises(citelint.CaptureRefused, match="not in the approved sources"):
        project.record("https://example.org/other.txt", TEXT)
    with pytest.raises(citelint.CaptureRefused, match="empty"):
        project.record(source, "")
    with pytest.raises(citelint.UsageError, match="str or bytes"):
        project.record(source, 12)  # type: ignore[arg-type]
    assert sorted(p.name for p in project.captures_dir.rglob("*.json")) == [f"{ref.capture_sha256}.json"]
