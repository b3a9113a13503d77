"""The reader view of a checked report (``citelint render``).

Modules, one job each:

- ``build``: the view of one report, from its check result, text and config.
- ``view``: the view's plain data, which :mod:`citelint.output.render` formats.
"""
