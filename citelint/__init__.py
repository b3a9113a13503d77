"""citelint: a linter that keeps generated reports honest about their sources.

Every accepted excerpt occurs verbatim in the exact captured revision of the
exact source the report names; every link in a Markdown report points at a
source that was actually captured.
"""

__version__ = "0.1.0"
