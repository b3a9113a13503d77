"""The check driver and what only it uses.

Modules, one job each:

- ``run``: ``run_check``: select files, run the rules in two phases, collect
  one :class:`~citelint.model.CheckResult`.
- ``targets``: which files a check reads, how each is named, and reading one.
- ``loaded``: a report between the phases, and the emitter that stamps each
  finding with its rule id and severity.
- ``markdown``: a Markdown report checked: links, claims in prose, ``--fix``.
- ``grounding``: what grounds a run's Markdown links (captures, git, signatures).
- ``parallel``: work cut into chunks shared with forked workers (``--jobs``),
  and their results packed as columns by field name.
"""
