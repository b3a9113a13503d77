"""Harnesses: citelint inside the tools pipelines already run, each a thin layer over the
public API (:class:`citelint.Project`), read-only and offline (docs/integrations.md).

- ``pytest_plugin``: ``pytest --citelint`` (every report a test item), the
  ``citelint_project`` fixture and ``assert_grounded``; needs no extra, and imports only
  pytest when pytest loads it.
- ``langchain``: ``CitationCheck``, a LangChain ``Runnable`` (extra ``langchain``).
- ``mcp``: the ``citelint mcp`` server over stdio (extra ``mcp``).

Nothing here writes a capture: model output never becomes evidence.
"""
