"""The public Python API (docs/api.md), served from the top-level package.

Import it as ``citelint``: ``from citelint import Project``. The names
:data:`citelint.__all__` lists are public; the modules here, and everything
else in the package, are internal and may move.

Modules, one job each:

- ``project``: :class:`Project` (open, check, enforce, the trusted stage),
  and the check ``citelint check`` runs through it (``check_paths``);
- ``result``: the frozen dataclasses a check returns (``Result`` and what it
  holds), built from the JSON formatter's dictionary;
- ``links``: :class:`Allowlist` and :func:`enforce_links`, links held to what a
  model was given, with no capture store, and ``Enforced``;
- ``capture``: the trusted stage from Python (``Project.capture``, ``record``)
  and the ``CaptureRef`` it returns;
- ``prompt``: ``Project.context`` (the permissible sources for a prompt) and
  ``Project.import_response`` (a cited answer as a report's text), and the
  ``Context`` and ``Imported`` they return.

This package's ``__init__`` imports nothing, so ``citelint check`` loading
``project`` does not load the result dataclasses or the link stack.
"""
