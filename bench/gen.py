"""Generated inputs of the benchmarks: citelint repositories of a given shape.

Everything is deterministic: each source's text comes from its own seeded
generator, so a capture does not depend on how many processes wrote the
repository or in which order, and two repositories generated with the same
seed cite byte-identical captures with identical reports (what (g) needs to
compare "with older revisions" against "without").

Captures go through citelint's own record builder and store layout
(``make_record``, ``capture_path``, ``CaptureRecord.to_json``) but skip the
store writer's fsync: a generated repository is thrown away, and syncing
tens of thousands of files would dominate the generation time.
"""

from __future__ import annotations

import hashlib
import json
import os
import random
import subprocess
import sys
import time
from dataclasses import dataclass, field
from pathlib import Path

REPO_ROOT = Path(__file__).resolve().parents[1]
if str(REPO_ROOT) not in sys.path:
    sys.path.insert(0, str(REPO_ROOT))

SEED = 20261129
CITED_AT = "2026-01-01T00:00:00Z"


def make_vocabulary(rng: random.Random, size: int = 4000) -> list[str]:
    """Pseudo-words, a few with the non-ASCII characters real pages carry."""
    letters = "etaoinshrdlucmfwypvbgkjqxz"
    words = ["".join(rng.choice(letters[:12 + i % 14]) for _ in range(rng.randint(2, 10))) for i in range(size)]
    for i in range(0, size, 97):
        words[i] = words[i] + rng.choice(["\u2019s", "\u00e9", "\u2014", "\u00a0km", "\u201cq\u201d"])
    return words


_VOCAB = make_vocabulary(random.Random(SEED))


def page_text(seed: int, source: int, revision: int, size: int) -> str:
    """``size`` characters of pseudo-random words, a function of (seed, source, revision) only."""
    rng = random.Random(f"{seed}/{source}/{revision}")
    words: list[str] = []
    total = 0
    while total < size:
        chunk = rng.choices(_VOCAB, k=2000)
        words += chunk
        total += sum(map(len, chunk)) + len(chunk)
    return " ".join(words)[:size]


def source_url(i: int) -> str:
    return f"https://bench.example/doc/{i:05d}"


def write_record(captures: Path, source: str, text: str, retrieved_at: str) -> tuple[str, Path]:
    """Write one capture file in the store layout; return (sha256, path)."""
    from citelint.store.captures import capture_path, make_record

    record = make_record(source, text, retrieved_at=retrieved_at)
    path = capture_path(captures, source, record.sha256)
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_bytes(record.to_json().encode("ascii"))
    return record.sha256, path


def _write_source(job: tuple[Path, int, int, int, int, list[tuple[int, int]]]
                  ) -> tuple[str, list[str], list[Path]]:
    """Worker: write one source's cited capture and its older revisions.

    Returns the cited digest, the requested slices of the cited text, and the
    paths of the older revisions (so a copy without them can be made).
    """
    captures, seed, i, size, older, slices = job
    source = source_url(i)
    text = page_text(seed, i, 0, size)
    sha, _ = write_record(captures, source, text, CITED_AT)
    old_paths = []
    for k in range(1, older + 1):
        # Strictly earlier than the cited revision: no CL106 warning, but every
        # older file is a revision the check has to consider.
        _, path = write_record(captures, source, page_text(seed, i, k, size), f"2025-12-{k:02d}T00:00:00Z")
        old_paths.append(path)
    return sha, [text[a:a + n] for a, n in slices], old_paths


@dataclass
class Repo:
    """What was generated: counts for the printed line, and the older revision files."""

    root: Path
    sources: int
    reports: int
    facts: int
    capture_files: int
    capture_bytes: int
    older: list[Path] = field(default_factory=list)


def write_repo(root: Path, *, sources: int, reports: int, facts_per_report: int, capture_chars: int,
               older_revisions: int = 0, seed: int = SEED, workers: int | None = None) -> Repo:
    """Write a citelint repository into ``root``.

    ``sources`` sources, each one capture of ``capture_chars`` characters (plus
    ``older_revisions`` older ones); ``reports`` reports of ``facts_per_report``
    cited facts, each a 40-200 character substring of a random source's cited
    capture. Every fact is valid: a check finds no error and no warning.
    """
    root.mkdir(parents=True, exist_ok=True)
    rng = random.Random(seed)
    plan = [[(rng.randrange(sources), rng.randint(40, 200)) for _ in range(facts_per_report)]
            for _ in range(reports)]
    wanted: list[list[tuple[int, int]]] = [[] for _ in range(sources)]
    for facts in plan:
        for i, length in facts:
            wanted[i].append((rng.randrange(capture_chars - length), length))
    from concurrent.futures import ProcessPoolExecutor  # not for the floor process's start-up

    jobs = [(root / "captures", seed, i, capture_chars, older_revisions, wanted[i]) for i in range(sources)]
    with ProcessPoolExecutor(max_workers=workers or os.cpu_count()) as pool:
        results = list(pool.map(_write_source, jobs, chunksize=max(1, sources // 64)))

    labels = [f"metric-{k}" for k in range(facts_per_report)]
    config = {"sources": [source_url(i) for i in range(sources)], "labels": labels}
    (root / "citelint.yaml").write_text(json.dumps(config, indent=1) + "\n", encoding="utf-8")
    (root / "reports").mkdir(exist_ok=True)
    taken = [0] * sources
    width = len(str(reports - 1))
    for r, facts in enumerate(plan):
        out = []
        for k, (i, _) in enumerate(facts):
            sha, snippets, _ = results[i]
            out.append({"state": "cited", "label": labels[k], "source": source_url(i), "captureSha256": sha,
                        "snippet": snippets[taken[i]]})
            taken[i] += 1
        (root / "reports" / f"r{r:0{width}d}.json").write_text(
            json.dumps({"facts": out}, indent=2, ensure_ascii=False), encoding="utf-8")
    files = list((root / "captures").rglob("*.json"))
    return Repo(root, sources, reports, reports * facts_per_report, len(files),
                sum(p.stat().st_size for p in files), [p for _, _, old in results for p in old])


#: A generated directory's marker: what was generated there, and from which arguments.
MARKER = ".generated.json"


def copy_without(src: Repo, dst: Path, drop: list[Path]) -> Repo:
    """Hard-link copy of ``src`` into ``dst`` without the files ``drop`` and
    without ``src``'s marker (a linked marker would be written through)."""
    skip = {p.resolve() for p in drop}
    n = size = 0
    for path in sorted(src.root.rglob("*")):
        if path.is_dir() or path.resolve() in skip or path.relative_to(src.root).as_posix() == MARKER:
            continue
        target = dst / path.relative_to(src.root)
        target.parent.mkdir(parents=True, exist_ok=True)
        os.link(path, target)
        if path.parts[len(src.root.parts)] == "captures":
            n += 1
            size += path.stat().st_size
    return Repo(dst, src.sources, src.reports, src.facts, n, size)


def write_atomic(path: Path, text: str) -> None:
    """Write ``path`` through a temporary file and ``os.replace``: a reader sees
    the old file or the new one, and a hard link to the old file keeps the old
    content instead of being written through."""
    tmp = path.with_name(f".{path.name}.{os.getpid()}.tmp")
    tmp.write_text(text, encoding="utf-8")
    os.replace(tmp, path)


def write_marker(root: Path, shape: dict[str, object], repo: Repo | None = None) -> None:
    """Record in ``root`` that it holds what ``shape`` (the generator's arguments) generates."""
    meta: dict[str, object] = {"shape": shape}
    if repo is not None:
        meta["repo"] = {**{k: v for k, v in vars(repo).items() if k not in ("root", "older")},
                        "older": [p.relative_to(root).as_posix() for p in repo.older]}
    write_atomic(root / MARKER, json.dumps(meta, sort_keys=True) + "\n")


def read_marker(root: Path, shape: dict[str, object]) -> dict[str, object] | None:
    """The marker's record when ``root`` was generated from ``shape`` (JSON-equal), else None."""
    try:
        meta = json.loads((root / MARKER).read_text(encoding="utf-8"))
    except (OSError, ValueError):
        return None
    if not isinstance(meta, dict) or meta.get("shape") != json.loads(json.dumps(shape)):
        return None
    return meta


def cached_repo(root: Path, shape: dict[str, object]) -> Repo | None:
    """The Repo recorded in ``root``'s marker when it was generated from ``shape``."""
    meta = read_marker(root, shape)
    if meta is None or not isinstance(meta.get("repo"), dict):
        return None
    fields: dict = dict(meta["repo"])
    older = [root / p for p in fields.pop("older")]
    return Repo(root, **fields, older=older)


def write_yaml_config(root: Path, sources: list[str], labels: list[str]) -> None:
    """``citelint.yaml`` in block style, one plain scalar a line (how a hand-kept config looks)."""
    lines = ["sources:", *(f"  - {s}" for s in sources), "labels:", *(f"  - {label}" for label in labels)]
    write_atomic(root / "citelint.yaml", "\n".join(lines) + "\n")


def restyle_config(root: Path, style: str) -> None:
    """Rewrite the config :func:`write_yaml_config` wrote in ``root`` in another
    ``style``, approving the same sources and labels: ``"json"``, a
    ``citelint.yaml`` written as JSON (``json.dumps``, one item a line: how a
    generated config looks), or ``"toml"``, ``[tool.citelint]`` in
    ``pyproject.toml`` (one string a line) in place of ``citelint.yaml``.
    Files are replaced, never written through (``root`` may be a hard-link copy)."""
    path = root / "citelint.yaml"
    lines = path.read_text(encoding="utf-8").splitlines()
    sources, labels = config_sources(root), [line[4:] for line in lines[lines.index("labels:") + 1:]]
    if style == "json":
        write_atomic(path, json.dumps({"sources": sources, "labels": labels}, indent=1) + "\n")
        return
    if style != "toml":
        raise ValueError(f"unknown config style {style!r}")
    items = "".join(f"  {json.dumps(s)},\n" for s in sources)
    write_atomic(root / "pyproject.toml", f"[tool.citelint]\nsources = [\n{items}]\nlabels = {json.dumps(labels)}\n")
    path.unlink()


def config_sources(root: Path) -> list[str]:
    """The sources a config written by :func:`write_yaml_config` approves."""
    lines = (root / "citelint.yaml").read_text(encoding="utf-8").splitlines()
    return [line[4:] for line in lines[lines.index("sources:") + 1:lines.index("labels:")]]


def write_hook_pair(small: Path, large: Path, *, extra_sources: int, **shape: int) -> tuple[Repo, Repo]:
    """Two git repositories with the same captures and reports (``write_repo``
    of ``shape``), committed: ``small``'s config approves the cited sources,
    ``large``'s the same plus ``extra_sources`` more."""
    repo = write_repo(small, **shape)
    copy = copy_without(repo, large, [])
    labels = [f"metric-{k}" for k in range(shape["facts_per_report"])]
    cited = [source_url(i) for i in range(repo.sources)]
    write_yaml_config(small, cited, labels)
    write_yaml_config(large, cited + [f"https://bench.example/extra/{i:05d}" for i in range(extra_sources)], labels)
    for root in (small, large):
        git(root, "init", "-q")
        git(root, "add", "-A")
        git(root, "commit", "-q", "-m", "generated")
    # As write_history: an index written after its files, as in a developer's clone.
    time.sleep(1.1)
    for root in (small, large):
        git(root, "update-index", "-q", "--really-refresh")
    return repo, copy


# --------------------------------------------------------------------------- the caching floor

def floor(root: Path) -> tuple[int, int]:
    """The caching floor: read and ``json``-parse every report, read, parse and
    SHA-256-hash each cited capture once, search each snippet, in report order,
    keeping every capture read (``check_bench.py --floor``; the grouped floor,
    ``floor_grouped.py``, keeps one capture at a time).

    Returns (facts, snippets found), for a sanity check.
    """
    texts: dict[tuple[str, str], str | None] = {}
    facts = found = 0
    for report in sorted((root / "reports").iterdir()):
        for fact in json.loads(report.read_text(encoding="utf-8"))["facts"]:
            facts += 1
            key = (fact["source"], fact["captureSha256"])
            if key not in texts:
                src = hashlib.sha256(key[0].encode()).hexdigest()
                record = json.loads((root / "captures" / src / f"{key[1]}.json").read_bytes())
                text = record["text"]
                ok = hashlib.sha256(text.encode()).hexdigest() == key[1]
                texts[key] = text if ok else None
            text = texts[key]
            found += text is not None and fact["snippet"] in text
    return facts, found


# --------------------------------------------------------------------------- git history

def git(root: Path, *args: str) -> str:
    env = {**os.environ, "GIT_AUTHOR_DATE": "2026-01-01T00:00:00Z", "GIT_COMMITTER_DATE": "2026-01-01T00:00:00Z"}
    for key in ("GIT_DIR", "GIT_WORK_TREE", "GIT_INDEX_FILE"):
        env.pop(key, None)
    return subprocess.run(["git", "-c", "user.name=bench", "-c", "user.email=bench@example.invalid",
                           "-c", "commit.gpgsign=false", "-c", "init.defaultBranch=main", *args],
                          cwd=root, env=env, check=True, capture_output=True, text=True).stdout


def write_history(root: Path, *, captures: int = 2000, commits: int = 500, capture_chars: int = 2000,
                  facts: int = 5, seed: int = SEED) -> None:
    """A git repository whose ``captures/`` grew over ``commits`` commits (the
    same number of new captures in each), with one small report, committed last.

    The history is written with one ``git fast-import`` (500 ``git commit``
    processes take most of a minute), then checked out.
    """
    root.mkdir(parents=True, exist_ok=True)
    git(root, "init", "-q")
    rng = random.Random(seed)
    per_commit = max(1, captures // commits)
    stream = bytearray()

    def commit(message: str, files: list[Path]) -> None:
        stream.extend(f"commit refs/heads/main\ncommitter bench <bench@example.invalid> 1767225600 +0000\n"
                      f"data {len(message)}\n{message}\n".encode())
        for path in files:
            body = path.read_bytes()
            stream.extend(f"M 100644 inline {path.relative_to(root).as_posix()}\ndata {len(body)}\n".encode())
            stream.extend(body + b"\n")

    cited = []
    for c in range(commits):
        paths = []
        for i in range(c * per_commit, min(captures, (c + 1) * per_commit)):
            text = page_text(seed, i, 0, capture_chars)
            sha, path = write_record(root / "captures", source_url(i), text, CITED_AT)
            cited.append((source_url(i), sha, text))
            paths.append(path)
        commit(f"captures {c}", paths)
    labels = [f"metric-{k}" for k in range(facts)]
    config = {"sources": [source_url(i) for i in range(captures)], "labels": labels}
    (root / "citelint.yaml").write_text(json.dumps(config, indent=1) + "\n", encoding="utf-8")
    out = []
    for label in labels:
        source, sha, text = cited[rng.randrange(len(cited))]
        start = rng.randrange(len(text) - 100)
        out.append({"state": "cited", "label": label, "source": source, "captureSha256": sha,
                    "snippet": text[start:start + 100]})
    (root / "reports").mkdir(exist_ok=True)
    (root / "reports" / "r.json").write_text(json.dumps({"facts": out}, indent=2), encoding="utf-8")
    commit("report", [root / "citelint.yaml", root / "reports" / "r.json"])
    subprocess.run(["git", "fast-import", "--quiet"], cwd=root, input=bytes(stream), check=True)
    git(root, "reset", "-q", "--hard", "main")
    # A checkout written in the same second as its index leaves every entry
    # "racily clean", which citelint hashes rather than trust; a developer's
    # clone, where a hook runs, has an index written later than its files.
    time.sleep(1.1)
    git(root, "update-index", "-q", "--really-refresh")
