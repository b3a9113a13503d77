"""The benchmarks' generated-data cache (bench/check_bench.py --keep): each directory's own marker."""

from __future__ import annotations

import json
import sys
from pathlib import Path

import pytest

BENCH = Path(__file__).resolve().parents[1] / "bench"


@pytest.fixture(scope="module")
def check_bench():
    sys.path.insert(0, str(BENCH))
    try:
        import check_bench
        import gen
    finally:
        sys.path.remove(str(BENCH))
    return check_bench, gen


TINY = {"g": dict(sources=3, reports=2, facts_per_report=2, capture_chars=1000, older_revisions=2)}


def test_keep_gives_g_and_g_none_their_own_markers(check_bench, tmp_path):
    cb, gen = check_bench
    data = cb.Data(tmp_path, shapes=TINY)
    old, _ = data.repo("g")
    none, _ = data.repo("g-none")
    assert (old.capture_files, len(old.older), none.capture_files) == (9, 6, 3)
    g_marker, none_marker = tmp_path / "g" / gen.MARKER, tmp_path / "g-none" / gen.MARKER
    assert not g_marker.samefile(none_marker)
    # A second run reuses both directories, each as generated.
    again = cb.Data(tmp_path, shapes=TINY)
    old2, made = again.repo("g")
    assert made < 1 and (old2.capture_files, sorted(old2.older)) == (9, sorted(old.older))
    none2, _ = again.repo("g-none")
    assert (none2.capture_files, none2.older) == (3, [])
    assert json.loads(g_marker.read_text())["shape"] == TINY["g"]


def test_keep_regenerates_when_the_shape_differs(check_bench, tmp_path):
    cb, gen = check_bench
    cb.Data(tmp_path, shapes=TINY).repo("g-none")
    bigger = {"g": {**TINY["g"], "sources": 4}}
    data = cb.Data(tmp_path, shapes=bigger)
    old, _ = data.repo("g")
    none, _ = data.repo("g-none")
    assert (old.sources, old.capture_files, none.capture_files) == (4, 12, 4)
    # The scale is part of the shape too.
    scaled = cb.Data(tmp_path, scale=0.5, shapes=bigger).repo("g")[0]
    assert scaled.sources == 2 and scaled.capture_files == 6


def test_markers_are_replaced_not_written_through(check_bench, tmp_path):
    _, gen = check_bench
    (tmp_path / "a").mkdir()
    gen.write_marker(tmp_path / "a", {"n": 1})
    (tmp_path / "b").mkdir()
    (tmp_path / "b" / gen.MARKER).hardlink_to(tmp_path / "a" / gen.MARKER)
    gen.write_marker(tmp_path / "b", {"n": 2})
    assert gen.read_marker(tmp_path / "a", {"n": 1}) is not None
    assert gen.read_marker(tmp_path / "b", {"n": 2}) is not None
    assert gen.read_marker(tmp_path / "b", {"n": 1}) is None


def test_k_restyled_configs_approve_the_same_sources(check_bench, tmp_path):
    """(k)'s JSON and [tool.citelint] copies of the 10,000-source config load, through
    citelint's own loader, to the same sources and labels, and leave the original intact."""
    from citelint.config import load_config

    _, gen = check_bench
    sources = [f"https://bench.example/doc/{i:05}" for i in range(40)]
    (tmp_path / "k").mkdir()
    gen.write_yaml_config(tmp_path / "k", sources, ["metric-0", "metric-1"])
    reference = load_config(None, tmp_path / "k")
    for style in ("json", "toml"):
        root = tmp_path / style
        root.mkdir()
        (root / "citelint.yaml").hardlink_to(tmp_path / "k" / "citelint.yaml")
        gen.restyle_config(root, style)
        config = load_config(None, root)
        named = "pyproject.toml" if style == "toml" else "citelint.yaml"
        assert config.path is not None and config.path.name == named
        assert (config.sources, list(config.labels)) == (reference.sources, list(reference.labels))
    assert load_config(None, tmp_path / "k").sources == sources
