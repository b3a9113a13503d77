"""pytest plugin (entry point ``pytest11``: ``citelint``): reports as test items, and
helpers for pipeline tests.

- ``pytest --citelint``: every report pytest's collection reaches (a file the governing
  citelint config's ``reports`` or ``markdown`` globs match) is one test item,
  ``reports/q3.json::citelint``, marked ``citelint``, that fails with its findings as
  ``citelint check`` prints them; a config that does not load is one failing item at the
  config file. As pytest-ruff and pytest-mypy do for source files.
- the ``citelint_project`` fixture: the :class:`citelint.Project` of the rootdir (or of
  the ``citelint_project`` ini option's path), opened once per session;
- :func:`assert_grounded`: check a Markdown answer or a fact report in a test.

Loading this module imports pytest only: citelint itself loads when an item runs or a
helper is called, and without ``--citelint`` nothing is collected. Read-only.
"""

from __future__ import annotations

from collections.abc import Iterator, Mapping
from pathlib import Path
from typing import TYPE_CHECKING, Any

import pytest

if TYPE_CHECKING:
    from citelint import Finding, Project, Result
    from citelint.errors import CitelintError

#: The suffixes a report can have (``citelint check`` reads no other file as one).
REPORT_SUFFIXES = frozenset({".json", ".yaml", ".yml", ".md", ".markdown"})
#: The names a config file can have.
CONFIG_NAMES = frozenset({"citelint.yaml", "pyproject.toml"})


def pytest_addoption(parser: pytest.Parser) -> None:
    """``--citelint`` and the ``citelint_project`` ini option."""
    group = parser.getgroup("citelint", "citelint: cited excerpts verified against committed captures")
    group.addoption("--citelint", action="store_true", default=False,
                    help="check every report of a citelint project as a test item (report::citelint)")
    parser.addini("citelint_project", "directory (or config file) of the citelint project the "
                                      "citelint_project fixture opens; default: the rootdir", default="")


def pytest_configure(config: pytest.Config) -> None:
    """Register the ``citelint`` marker (``pytest --citelint -m citelint`` runs only the reports)."""
    config.addinivalue_line("markers", "citelint: a report checked by citelint (pytest --citelint)")


class _Projects:
    """The projects met during collection, one per config file, opened once: a
    :class:`citelint.Project`, or the error its config fails with."""

    def __init__(self) -> None:
        self.by_config: dict[Path, Project | CitelintError] = {}
        #: Configs that do not load, met through a file under them.
        self.met_broken: set[Path] = set()
        self.by_folder: dict[Path, Path | None] = {}
        #: Per config file: the findings at error severity by report (its path relative to
        #: the project root), from one check of every report of that project the run selected.
        self.failing: dict[Path, dict[str, list[Finding]]] = {}
        self.results: dict[Path, Result] = {}

    def governing(self, path: Path) -> tuple[Path, Project | CitelintError] | None:
        """The config file governing ``path`` (found from its folder upward, as ``citelint
        check`` finds one for a path) and its project or error; None when no config is found."""
        from citelint import CitelintError, Project
        from citelint.config import discover

        folder = path.parent
        if folder not in self.by_folder:
            # Once per folder: a captures directory holds thousands of .json files.
            try:
                self.by_folder[folder] = discover(folder)
            except CitelintError as exc:
                # None anywhere up the tree, or two in one folder: then the nearest
                # citelint.yaml carries the error, as a failing item, and nothing under it
                # passes unchecked.
                nearest = next((d / "citelint.yaml" for d in (folder, *folder.parents)
                                if (d / "citelint.yaml").is_file()), None)
                self.by_folder[folder] = nearest
                if nearest is not None:
                    self.by_config.setdefault(nearest, exc)
        config_file = self.by_folder[folder]
        if config_file is None:
            return None
        if config_file not in self.by_config:
            try:
                self.by_config[config_file] = Project.open(config_file)
            except CitelintError as exc:
                self.by_config[config_file] = exc
        return config_file, self.by_config[config_file]


_PROJECTS = pytest.StashKey[_Projects]()


def pytest_collect_file(file_path: Path, parent: pytest.Collector) -> pytest.Collector | None:
    """A :class:`ReportFile` for each report a citelint config governs, and a
    :class:`ConfigFile` for a config that does not load; only with ``--citelint``."""
    config = parent.config
    if not config.getoption("citelint"):
        return None
    if file_path.suffix.lower() not in REPORT_SUFFIXES and file_path.name not in CONFIG_NAMES:
        return None
    projects = config.stash.setdefault(_PROJECTS, _Projects())
    found = projects.governing(file_path)
    if found is None:
        return None
    config_file, project = found
    from citelint import CitelintError

    if isinstance(project, CitelintError):
        if file_path == config_file:
            return ConfigFile.from_parent(parent, path=file_path)
        projects.met_broken.add(config_file)  # an item is added for it if none is collected
        return None
    from citelint.api.project import project_config

    kind, _ = project_config(project).classify(str(file_path.resolve()))
    return ReportFile.from_parent(parent, path=file_path) if kind is not None else None


def pytest_collection_modifyitems(session: pytest.Session, config: pytest.Config,
                                  items: list[pytest.Item]) -> None:
    """A failing item for each config that does not load whose own file was not collected
    (``pytest --citelint reports/``): a file under a broken config never passes in silence."""
    projects = config.stash.get(_PROJECTS, None)
    if projects is None or not projects.met_broken:
        return
    have = {item.path for item in items if isinstance(item, ConfigItem)}
    for config_file in sorted(projects.met_broken - have):
        items.append(ConfigItem.from_parent(session, name=f"{config_file.name}::citelint-config",
                                            path=config_file))


def _report_name(project: Project, path: Path) -> str:
    """How findings name the report at ``path``: relative to the project root, POSIX."""
    import os

    return Path(os.path.relpath(os.path.realpath(path), os.path.realpath(project.root))).as_posix()


class ReportFile(pytest.File):
    """A report: one :class:`ReportItem`."""

    def collect(self) -> Iterator[pytest.Item]:
        """The report's one item, ``citelint``."""
        yield ReportItem.from_parent(self, name="citelint")


class ReportItem(pytest.Item):
    """One report checked as ``citelint check REPORT`` checks it, from its project's root;
    it fails when a finding is at error severity, with the findings as the failure text."""

    def __init__(self, **kwargs: Any) -> None:
        super().__init__(**kwargs)
        self.add_marker("citelint")

    def runtest(self) -> None:
        """Fail with :class:`citelint.FindingsError` when the report has a finding at error
        severity. The first item of a project checks every selected report of that project
        in one run (one config, one store, one allowlist, as ``citelint check`` does), and
        each item then reads its own findings."""
        from citelint.errors import FindingsError

        projects = self.config.stash[_PROJECTS]
        found = projects.governing(self.path)
        assert found is not None, "the report's config went away during the run"
        config_file, project = found
        if isinstance(project, BaseException):
            raise project
        if config_file not in projects.failing:
            mine = [item.path for item in self.session.items
                    if isinstance(item, ReportItem) and projects.governing(item.path) == found]
            result = project.check(paths=[str(p.resolve()) for p in mine])
            failing: dict[str, list[Finding]] = {}
            for finding in result.errors():
                failing.setdefault(finding.path, []).append(finding)
            projects.failing[config_file] = failing
            projects.results[config_file] = result
        mine_failing = projects.failing[config_file].get(_report_name(project, self.path))
        if mine_failing:
            raise FindingsError(projects.results[config_file], mine_failing)

    def repr_failure(self, excinfo: pytest.ExceptionInfo[BaseException], style: Any = None) -> str:
        """The findings (or the error that stopped the check), not a traceback."""
        from citelint import CitelintError

        if isinstance(excinfo.value, CitelintError):
            return str(excinfo.value)
        return str(super().repr_failure(excinfo, style=style))

    def reportinfo(self) -> tuple[Path, int | None, str]:
        """Where the item is: the report file."""
        return self.path, None, f"citelint: {self.path.name}"


class ConfigFile(pytest.File):
    """A citelint config that does not load: one failing item."""

    def collect(self) -> Iterator[pytest.Item]:
        """The config's one item, ``citelint-config``."""
        yield ConfigItem.from_parent(self, name="citelint-config")


class ConfigItem(pytest.Item):
    """Fails with the config's error (what ``citelint check`` exits 2 with)."""

    def __init__(self, **kwargs: Any) -> None:
        super().__init__(**kwargs)
        self.add_marker("citelint")

    def runtest(self) -> None:
        """Raise the config's error."""
        found = self.config.stash[_PROJECTS].governing(self.path)
        if found is not None and isinstance(found[1], BaseException):
            raise found[1]

    def repr_failure(self, excinfo: pytest.ExceptionInfo[BaseException], style: Any = None) -> str:
        """The config error's message."""
        return str(excinfo.value)

    def reportinfo(self) -> tuple[Path, int | None, str]:
        """Where the item is: the config file."""
        return self.path, None, f"citelint config: {self.path.name}"


@pytest.fixture(scope="session")
def citelint_project(pytestconfig: pytest.Config) -> Project:
    """The :class:`citelint.Project` of the ``citelint_project`` ini option (a directory or
    a config file, relative to the rootdir), else of the rootdir, config found by walking up
    as ``citelint check`` finds it. Fails the tests that use it with the config error when
    there is no usable config."""
    from citelint import Project

    given = str(pytestconfig.getini("citelint_project") or "")
    return Project.open(pytestconfig.rootpath / given if given else pytestconfig.rootpath)


def assert_grounded(text_or_report: str | bytes | Mapping[str, Any], project: Project | None = None, *,
                    name: str | None = None, strict: bool = False) -> Result:
    """Assert that an answer passes citelint: a ``str`` is a Markdown report (its links,
    quotation links and prose quotations checked against the captures), a mapping a parsed
    fact report, ``bytes`` a fact report's JSON (YAML when ``name`` ends in ``.yaml`` or
    ``.yml``). ``project`` defaults to the one governing the working directory; ``name`` is
    how findings name the report. With ``strict``, warnings fail too.

    Returns:
        The :class:`citelint.Result`, when it passes.

    Raises:
        AssertionError: a finding at error severity (warning too, with ``strict``); the
            message lists the findings, one ``path:line:col: CLxxx message [name]`` a line.
        CitelintError: no usable config, or a value of another type (UsageError).
    """
    from citelint import FindingsError, Project

    project = project if project is not None else Project.open()
    if isinstance(text_or_report, str):
        result = project.check_markdown(text_or_report, name=name or "<answer.md>")
    else:
        result = project.check_report(text_or_report, name=name or "<report.json>")
    try:
        return result.raise_for_errors(strict=strict)
    except FindingsError as exc:
        raise AssertionError(f"citelint: {exc}") from None
