"""The reader view of a checked report (``citelint render``).

Modules, one job each:

- ``build``: the view of one report, from its check result (run with
  ``detail``, which keeps the report's facts, or its text and links) and the config.
- ``view``: the view's plain data, which :mod:`citelint.output.render` formats.
"""
