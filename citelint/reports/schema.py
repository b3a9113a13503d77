"""Packaged JSON Schemas and precise validation messages (CL002).

The schemas live in ``schemas/`` and ship inside the wheel as
``citelint/schemas``. Validators use an empty ``referencing.Registry`` so no
``$ref`` is ever resolved over the network (DESIGN §8: jsonschema would
otherwise fetch remote references).

A fact is a ``oneOf`` union; a plain ``oneOf`` error names the wrong branch,
so facts are validated against the branch their ``state`` names, and the
messages say what to do ("missing snippet", not "'unavailable' was expected").
Valid documents never reach jsonschema: a quick check compiled from the same
schema files (``citelint.reports.quickcheck``) accepts them first.
"""

from __future__ import annotations

import json
from collections.abc import Callable, Iterator
from functools import cache
from pathlib import Path
from typing import Any

from citelint.reports import pointers
from citelint.reports.pointers import join as pointer_join

_HERE = Path(__file__).resolve().parent.parent  # the citelint package


def schema_path(name: str) -> Path:
    """Path of the packaged schema ``name`` (e.g. ``report.schema.json``).

    Installed wheels carry ``citelint/schemas``; a source checkout keeps the
    schemas in the top-level ``schemas/`` directory.

    Raises:
        FileNotFoundError: the schema is not installed.
    """
    for candidate in (_HERE / "schemas" / name, _HERE.parent / "schemas" / name):
        if candidate.is_file():
            return candidate
    raise FileNotFoundError(f"packaged schema {name} is missing; reinstall citelint")


@cache
def load_schema(name: str) -> dict[str, Any]:
    """The parsed schema ``name``."""
    return json.loads(schema_path(name).read_text(encoding="utf-8"))


def _validator(schema: dict[str, Any]) -> Any:
    from jsonschema import Draft202012Validator
    from referencing import Registry

    return Draft202012Validator(schema, registry=Registry())


@cache
def config_validator() -> Any:
    """A draft 2020-12 validator for ``config.schema.json``."""
    return _validator(load_schema("config.schema.json"))


@cache
def shard_validator() -> Any:
    """A draft 2020-12 validator for ``shard.schema.json`` (``citelint merge``'s input)."""
    return _validator(load_schema("shard.schema.json"))


@cache
def _branch_validator(branch: str) -> Any:
    schema = load_schema("report.schema.json")
    return _validator({"$schema": schema["$schema"], "$id": schema["$id"], "$defs": schema["$defs"],
                       "$ref": f"#/$defs/{branch}"})


_CITED_KEYS = ("state", "label", "source", "captureSha256", "snippet")
_UNAVAILABLE_KEYS = ("state", "label", "reason")
_CITATION_FIELDS = {"source", "captureSha256", "snippet"}


def _describe(error: Any, branch: str | None) -> tuple[str, str, bool]:
    """(pointer suffix, message, at_key) for one jsonschema error inside a fact."""
    path = list(error.relative_path)
    field = str(path[-1]) if path else ""
    v = error.validator
    if v == "required":
        missing = error.message.split("'")[1] if "'" in error.message else "a required key"
        what = {"cited": "a cited fact", "unavailable": "an unavailable fact"}.get(branch or "", "a fact")
        return "", f"missing {missing}: {what} needs " + ", ".join(
            _CITED_KEYS if branch == "cited" else _UNAVAILABLE_KEYS), False
    if v == "additionalProperties":
        allowed = set(error.schema.get("properties", {}))
        extra = sorted(set(error.instance) - allowed)
        key = extra[0] if extra else "?"
        if branch == "unavailable" and key in _CITATION_FIELDS:
            return pointer_join("", key), (f"an unavailable fact cannot carry {key!r} (no partial citation): "
                                           "remove it, or make the fact cited with source, captureSha256 "
                                           "and snippet"), True
        if key == "value":
            return pointer_join("", key), ("facts have no 'value' field: a number lives inside the snippet or nowhere; "
                               "remove it"), True
        keys = _CITED_KEYS if branch == "cited" else _UNAVAILABLE_KEYS
        which = "a cited" if branch == "cited" else "an unavailable"
        return pointer_join("", key), f"unexpected key {key!r}; {which} fact has only " + ", ".join(keys), True
    if field == "captureSha256" and v in ("pattern", "type", "minLength", "maxLength"):
        return "", ("captureSha256 must be 64 lowercase hex characters naming a captured revision "
                    "(see `citelint ls`)"), False
    if v == "pattern" and field == "label" and isinstance(error.instance, str) and error.instance.strip():
        return "", (f"label {error.instance!r} begins or ends with whitespace, so it looks like another label "
                    "(and would escape CL004); remove the whitespace"), False
    if v in ("minLength", "pattern") and field in ("snippet", "reason", "label", "source"):
        return "", f"{field} must not be empty or blank", False
    if v == "maxLength":
        return "", f"{field} is too long ({error.message})", False
    if v == "type":
        got = _json_type(error.instance)
        return "", f"{field or 'value'} must be of type {error.validator_value}, got {got}", False
    if v in ("enum", "const") and field == "state":
        return "", f'state must be "cited" or "unavailable", got {json.dumps(error.instance)}', False
    return "", f"{field + ': ' if field else ''}{error.message}", False


def _json_type(value: Any) -> str:
    if value is None:
        return "null"
    if isinstance(value, bool):
        return "boolean"
    if isinstance(value, (int, float)):
        return "number"
    if isinstance(value, str):
        return "string"
    if isinstance(value, list):
        return "array"
    return "object"


#: The quick checks a check runs, precompiled into ``citelint/reports/_quickchecks.py``
#: (:func:`quick_checks_source`; tests/test_schema_quick.py keeps it current).
PRECOMPILED = (("report.schema.json", "fact"), ("config.schema.json", None))


def _key(name: str, at: str | None) -> str:
    return f"{name}#{at}" if at else name


def _digest(name: str) -> str:
    import hashlib

    return hashlib.sha256(schema_path(name).read_bytes()).hexdigest()


def quick_checks_source() -> str:
    """The source of ``citelint/reports/_quickchecks.py``: the quick checks of
    :data:`PRECOMPILED`, generated from the packaged schemas
    (:func:`citelint.reports.quickcheck.module_source`), with each schema file's digest.

    Regenerate it after changing a schema: ``python -c "from citelint.reports.schema
    import quick_checks_source as q; print(q(), end='')" > citelint/reports/_quickchecks.py``.
    Until then the checks are compiled at run time (:func:`_quick_check`).
    """
    from citelint.reports.quickcheck import module_source

    entries = {}
    for name, at in PRECOMPILED:
        schema = load_schema(name)
        defs = schema.get("$defs", {})
        entries[_key(name, at)] = (defs[at] if at else schema, defs, not at)
    return module_source(entries, {name: _digest(name) for name, _ in PRECOMPILED},
                         "Quick checks generated from schemas/ by citelint.reports.schema.quick_checks_source: "
                         "do not edit.\n\n"
                         "citelint.reports.schema uses them while DIGESTS matches the schema files, and compiles\n"
                         "the checks at run time otherwise (compiling costs a check several milliseconds\n"
                         "of start-up; importing this module, a fraction of one).\n")


def _precompiled(name: str, at: str | None) -> Callable[[Any], bool] | None:
    """The check of :data:`PRECOMPILED` for (``name``, ``at``) when it was made from the schema file as it is."""
    if (name, at) not in PRECOMPILED:
        return None
    try:
        from citelint.reports import _quickchecks
    except ImportError:  # pragma: no cover - the module ships with the package
        return None
    if _quickchecks.DIGESTS.get(name) != _digest(name):
        return None  # a schema changed since the module was generated
    return _quickchecks.CHECKS.get(_key(name, at))


@cache
def _quick_check(name: str, at: str | None) -> Callable[[Any], bool] | None:
    """The quick check of schema ``name`` (or its ``$defs[at]``): precompiled
    when :func:`_precompiled` has it, else compiled now; None when the schema
    uses a keyword the quick check does not implement."""
    found = _precompiled(name, at)
    if found is not None:
        return found
    from citelint.reports.quickcheck import Unsupported, compile_check

    schema = load_schema(name)
    defs = schema.get("$defs", {})
    try:
        return compile_check(defs[at] if at else schema, defs, root=not at)
    except Unsupported:
        return None


def quick_valid(name: str, value: Any, at: str | None = None) -> bool:
    """True when ``value`` certainly satisfies the packaged schema ``name``
    (or its ``$defs[at]``).

    A positive-only check for the common case: False means "unknown, ask
    jsonschema" (which also words the message). It implements draft 2020-12
    for a small keyword set and gives up on a schema using any other
    keyword, so it never accepts what jsonschema would reject. It spares a
    clean run the cost of importing jsonschema (about a third of a small
    check's start-up). The predicate is compiled from the schema file at
    first use (:func:`citelint.reports.quickcheck.compile_check`); a valid cited fact costs about a
    microsecond.

    Raises:
        FileNotFoundError: the schema is not installed.
        KeyError: ``at`` names no entry of the schema's ``$defs``.
    """
    check = _quick_check(name, at)
    return check is not None and check(value)


def _never(value: Any) -> bool:
    return False


def _fact_errors(fact: Any, pointer: str) -> Iterator[tuple[str, str, bool]]:
    """The problems of one fact at ``pointer`` that the quick check did not
    accept, worded by branch; none when jsonschema finds it valid after all."""
    if not isinstance(fact, dict):
        yield pointer, f"a fact must be an object, got {_json_type(fact)}", False
        return
    state = fact.get("state")
    if "state" not in fact:
        yield pointer, 'missing state: every fact needs "state": "cited" or "unavailable"', False
        return
    if state not in ("cited", "unavailable"):
        yield pointer + "/state", f'state must be "cited" or "unavailable", got {json.dumps(state)}', False
        return
    errors = sorted(_branch_validator(state).iter_errors(fact),
                    key=lambda e: (e.validator != "required", list(map(str, e.relative_path))))
    seen = set()
    for error in errors:
        sub = pointer
        for token in error.relative_path:
            sub = pointer_join(sub, token)
        suffix, message, at_key = _describe(error, state)
        if (sub + suffix, message) not in seen:
            seen.add((sub + suffix, message))
            yield sub + suffix, message, at_key


def validate_facts(facts: Any, pointer: str) -> Iterator[tuple[str, str, bool]]:
    """Validate a facts array found at ``pointer`` (the schema's ``$defs/facts``).

    Yields (pointer, message, at_key) for each problem; ``at_key`` means the
    position should be the key's rather than the value's.
    """
    if not isinstance(facts, list):
        yield pointer, f"facts must be an array, got {_json_type(facts)}", False
        return
    # Most facts are well formed: the quick check spares them jsonschema, and
    # map() runs it with no Python frame of ours and no pointer built per
    # valid fact, still lazily for a caller that stops early.
    valid = _quick_check("report.schema.json", "fact") or _never
    for index, ok in enumerate(map(valid, facts)):
        if not ok:
            yield from _fact_errors(facts[index], pointer_join(pointer, index))


def check_document(data: Any, facts_pointer: str | None) -> tuple[Any, str, Iterator[tuple[str, str, bool]]]:
    """Validate a loaded report and find its facts (rule CL002).

    With ``facts_pointer`` None the document is the report (``report.schema.json``);
    otherwise only the value at that JSON Pointer is validated, as the
    schema's ``$defs/facts`` (DESIGN §2.1 ``facts_pointer``).

    Returns (facts, pointer of the facts, problems): facts is whatever sits
    at the pointer (None or ``pointers.MISSING`` when absent), problems are
    (pointer, message, at_key) triples as from :func:`validate_report`, in
    document order and computed lazily, so a caller that stops early does
    not pay for the rest.
    """
    if facts_pointer is None:
        facts = data.get("facts") if isinstance(data, dict) else None
        return facts, "/facts", validate_report(data)
    facts = pointers.resolve(data, facts_pointer)
    if facts is pointers.MISSING:
        return facts, facts_pointer, iter([("", f"no value at facts_pointer {facts_pointer!r}; fix the pointer "
                                                "in the config or the document", False)])
    return facts, facts_pointer, validate_facts(facts, facts_pointer)


def validate_report(data: Any) -> Iterator[tuple[str, str, bool]]:
    """Validate a whole report document against ``report.schema.json``.

    Yields (pointer, message, at_key) for each problem.
    """
    if not isinstance(data, dict):
        yield "", f'a report must be an object {{"facts": [...]}}, got {_json_type(data)}', False
        return
    for key in sorted(set(data) - {"facts", "$schema"}):
        yield f"/{key}", (f"unexpected top-level key {key!r}; a report has only \"facts\" (and \"$schema\"); "
                          "set facts_pointer in citelint.yaml for facts embedded in a larger document"), True
    if "$schema" in data and not isinstance(data["$schema"], str):
        yield "/$schema", "$schema must be a string", False
    if "facts" not in data:
        yield "", 'missing facts: a report is {"facts": [...]}', False
        return
    yield from validate_facts(data["facts"], "/facts")
