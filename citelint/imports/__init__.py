"""``citelint import``: a saved model response with citations, as a citelint report (DESIGN §9).

Model output is untrusted: an import reads the response (and the request,
and a source map) and writes only the report it is told to write.

Modules, one job each:

- :mod:`~citelint.imports.model`: :class:`Answer` and :class:`Citation`, what adapters hand on;
- :mod:`~citelint.imports.streams`: a saved stream (server-sent events, event lines) as one response;
- :mod:`~citelint.imports.framing`: how a saved file is framed, and the strict JSON inside it;
- :mod:`~citelint.imports.shape`: typed reads of response values, each failure naming its JSON path;
- :mod:`~citelint.imports.anthropic`, :mod:`~citelint.imports.openai`, :mod:`~citelint.imports.gemini`:
  one adapter per provider;
- :mod:`~citelint.imports.documents`: the documents of a request and their text, shared with
  ``citelint capture --from-request`` so both name the same capture;
- :mod:`~citelint.imports.sourcemap`: the operator's source map (document key → URL), shared with
  ``citelint capture --from-request``;
- :mod:`~citelint.imports.write`: an answer as a Markdown or fact report;
- :mod:`~citelint.imports.convert`: one import, response to report text, run by both
  ``citelint import`` and ``Project.import_response``.
"""
