"""Packaged JSON Schemas and precise validation messages (CL002).

The schemas live in ``schemas/`` and ship inside the wheel as
``citelint/schemas``. Validators use an empty ``referencing.Registry`` so no
``$ref`` is ever resolved over the network (DESIGN §8: jsonschema would
otherwise fetch remote references).

A fact is a ``oneOf`` union; a plain ``oneOf`` error names the wrong branch,
so facts are validated against the branch their ``state`` names, and the
messages say what to do ("missing snippet", not "'unavailable' was expected").
"""

from __future__ import annotations

import json
from functools import lru_cache
from pathlib import Path
from typing import Any, Callable, Iterator

from citelint import pointers
from citelint.pointers import join as pointer_join

_HERE = Path(__file__).resolve().parent


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


@lru_cache(maxsize=None)
def load_schema(name: str) -> dict[str, Any]:
    """The parsed schema ``name``."""
    return json.loads(schema_path(name).read_text(encoding="utf-8"))


def _validator(schema: dict[str, Any]) -> Any:
    from jsonschema import Draft202012Validator
    from referencing import Registry

    return Draft202012Validator(schema, registry=Registry())


@lru_cache(maxsize=None)
def config_validator() -> Any:
    """A draft 2020-12 validator for ``config.schema.json``."""
    return _validator(load_schema("config.schema.json"))


@lru_cache(maxsize=None)
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
            return pointer_join("", key), (f"an unavailable fact cannot carry {key!r} (no partial citation): remove it, "
                               "or make the fact cited with source, captureSha256 and snippet"), True
        if key == "value":
            return pointer_join("", key), ("facts have no 'value' field: a number lives inside the snippet or nowhere; "
                               "remove it"), True
        keys = _CITED_KEYS if branch == "cited" else _UNAVAILABLE_KEYS
        return pointer_join("", key), f"unexpected key {key!r}; {'a cited' if branch == 'cited' else 'an unavailable'} fact has only " + ", ".join(keys), True
    if field == "captureSha256" and v in ("pattern", "type", "minLength", "maxLength"):
        return "", ("captureSha256 must be 64 lowercase hex characters naming a captured revision "
                    "(see `citelint ls`)"), False
    if v in ("minLength", "pattern") and field in ("snippet", "reason", "label", "source"):
        return "", f"{field} must not be empty or blank", False
    if v == "maxLength":
        return "", f"{field} is too long ({error.message})", False
    if v == "type":
        return "", f"{field or 'value'} must be of type {error.validator_value}, got {_json_type(error.instance)}", False
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


# Keywords the quick check understands; a schema using any other keyword is
# never judged quickly (the quick check answers "ask jsonschema").
_QUICK_KEYWORDS = frozenset({
    "$schema", "$id", "$defs", "$ref", "title", "description", "type", "properties", "required",
    "additionalProperties", "items", "enum", "const", "pattern", "minLength", "maxLength", "minimum",
    "maximum", "exclusiveMinimum", "minItems", "uniqueItems", "propertyNames", "oneOf",
})


class _Unsupported(Exception):
    """The schema uses a keyword or a form the quick check does not implement."""


Check = Callable[[Any], bool]

# What generated code may already know about a value, so that keywords which
# only constrain another kind of value (draft 2020-12 core §7.6.1: minLength
# holds for a number) emit nothing, and a repeated ``type`` is not tested twice.
_OBJECT, _ARRAY, _STRING, _NUMBER, _OTHER = "object", "array", "string", "number", "other"
_KIND_OF_TYPE = {"object": _OBJECT, "array": _ARRAY, "string": _STRING, "integer": _NUMBER,
                 "number": _NUMBER, "boolean": _OTHER, "null": _OTHER}
# Conditions true when {v} is NOT of the JSON type (draft 2020-12 validation
# §6.1.1). isinstance, not ``type() is``: a str or dict subclass (YAML loaders
# build them) is a string or an object to jsonschema too. bool is an int
# subclass but never a JSON number. An integral float (5.0), which jsonschema
# counts as an integer, is refused here: stricter, so still positive-only.
_NOT_OF_TYPE = {
    "object": "not isinstance({v}, dict)",
    "array": "not isinstance({v}, list)",
    "string": "not isinstance({v}, str)",
    "boolean": "not isinstance({v}, bool)",
    "null": "{v} is not None",
    "integer": "not isinstance({v}, int) or isinstance({v}, bool)",
    "number": "not isinstance({v}, (int, float)) or isinstance({v}, bool)",
}
_IS_KIND = {
    _OBJECT: "isinstance({v}, dict)",
    _ARRAY: "isinstance({v}, list)",
    _STRING: "isinstance({v}, str)",
    _NUMBER: "isinstance({v}, (int, float)) and not isinstance({v}, bool)",
}
_BOUND_OPS = {"minimum": ">=", "maximum": "<=", "exclusiveMinimum": ">"}


def _enum_holds(value: Any, options: tuple[Any, ...]) -> bool:
    # Scalars only (see _Generator.emit). Same type as well as equal: never
    # True for 1, as jsonschema requires, and stricter than jsonschema for
    # 1.0 against 1 (still positive-only).
    return any(value == e and type(value) is type(e) for e in options)


def _unique_strings(value: list[Any]) -> bool:
    # Only string arrays: jsonschema's equality (1 == 1.0) is not worth copying.
    return all(isinstance(x, str) for x in value) and len(set(value)) == len(value)


def _indent(lines: list[str]) -> list[str]:
    return ["    " + line for line in lines]


def _length(value: Any) -> int:
    if type(value) is not int:
        raise _Unsupported
    return value


class _Generator:
    """Writes Python source for a predicate equivalent to a schema.

    Checks are inlined into one function per entry point: a failed check is
    ``return False``, so nesting costs nothing at run time. Separate
    functions exist only where a truth value is needed (the branches of a
    ``oneOf`` that must be counted) or for a recursive ``$ref``. Schema
    values reach the source only as ``repr`` of a str or an int or as a name
    bound in ``namespace``, so no schema text is ever executed.
    """

    def __init__(self, defs: Any) -> None:
        if not isinstance(defs, dict):
            raise _Unsupported
        self.defs = defs
        self.namespace: dict[str, Any] = {"_enum": _enum_holds, "_unique": _unique_strings, "_MISSING": object()}
        self.functions: list[str] = []
        self.def_functions: dict[str, str] = {}
        self.inlining: list[str] = []  # the $defs being inlined, outermost first
        self.count = 0

    def fresh(self, prefix: str) -> str:
        self.count += 1
        return f"{prefix}{self.count}"

    def constant(self, value: Any) -> str:
        name = self.fresh("_k")
        self.namespace[name] = value
        return name

    def function(self, schema: Any, name: str | None = None, root: bool = False) -> str:
        """Define a function returning whether its argument satisfies ``schema``; returns its name."""
        name = name or self.fresh("_f")
        v = self.fresh("v")
        body, _ = self.emit(schema, v, None, root)
        self.functions.append("\n".join([f"def {name}({v}):", *_indent(body), "    return True"]))
        return name

    def emit(self, schema: Any, v: str, known: str | None, root: bool = False) -> tuple[list[str], str | None]:
        """Lines that ``return False`` unless the value named ``v`` satisfies
        ``schema``, and what is known of that value after them.

        Raises:
            _Unsupported: the schema uses a keyword or form outside ``_QUICK_KEYWORDS``.
        """
        if schema is True or schema is False:
            return ([] if schema else ["return False"]), known
        if not isinstance(schema, dict) or set(schema) - _QUICK_KEYWORDS:
            raise _Unsupported
        if "$id" in schema and not root:
            # An embedded resource changes what "#/$defs/..." means inside it.
            raise _Unsupported
        lines: list[str] = []
        if "$ref" in schema:
            more, known = self.ref(schema["$ref"], v, known)
            lines += more
        if "type" in schema:
            more, known = self.types(schema["type"], v, known)
            lines += more
        if not isinstance(schema.get("enum", []), list):
            raise _Unsupported
        for c in [*([schema["const"]] if "const" in schema else []), *schema.get("enum", [])]:
            if c is not None and type(c) not in (str, int, float, bool):
                # Python's == finds [True] equal to [1]; JSON equality does
                # not (validation §4.2.2): containers are left to jsonschema.
                raise _Unsupported
        if "const" in schema:
            c = schema["const"]
            if type(c) is str:
                lines.append(f"if type({v}) is not str or {v} != {c!r}: return False")
                known = _STRING
            else:
                lines.append(f"if type({v}) is not {self.constant(type(c))} or not ({v} == {self.constant(c)}): "
                             "return False")
        if "enum" in schema:
            options = schema["enum"]
            if all(type(e) is str for e in options):
                lines.append(f"if type({v}) is not str or {v} not in {self.constant(frozenset(options))}: "
                             "return False")
                known = _STRING
            else:
                lines.append(f"if not _enum({v}, {self.constant(tuple(options))}): return False")
        lines += self.guard(_STRING, v, known, self.strings(schema, v))
        lines += self.guard(_NUMBER, v, known, self.numbers(schema, v))
        lines += self.guard(_ARRAY, v, known, self.arrays(schema, v))
        lines += self.guard(_OBJECT, v, known, self.objects(schema, v))
        if "oneOf" in schema:
            lines += self.one_of(schema["oneOf"], v, known)
        return lines, known

    @staticmethod
    def guard(kind: str, v: str, known: str | None, lines: list[str]) -> list[str]:
        """``lines`` applied only when the value is of ``kind``."""
        if not lines or known not in (None, kind):
            return []
        return lines if known == kind else [f"if {_IS_KIND[kind].format(v=v)}:", *_indent(lines)]

    def ref(self, ref: Any, v: str, known: str | None) -> tuple[list[str], str | None]:
        # Only plain names under the root's $defs: escaped or percent-encoded
        # pointers and other documents are left to jsonschema.
        if not isinstance(ref, str) or not ref.startswith("#/$defs/"):
            raise _Unsupported
        name = ref[8:]
        if name not in self.defs or any(c in name for c in "/~%"):
            raise _Unsupported
        if name in self.inlining:
            if name not in self.def_functions:
                self.def_functions[name] = self.fresh("_d")
                self.inlining, outer = [], self.inlining
                try:
                    self.function(self.defs[name], self.def_functions[name])
                finally:
                    self.inlining = outer
            return [f"if not {self.def_functions[name]}({v}): return False"], known
        self.inlining.append(name)
        try:
            return self.emit(self.defs[name], v, known)
        finally:
            self.inlining.pop()

    def types(self, kind: Any, v: str, known: str | None) -> tuple[list[str], str | None]:
        if not isinstance(kind, str) or kind not in _NOT_OF_TYPE:
            raise _Unsupported
        after = _KIND_OF_TYPE[kind]
        if known == after and kind in ("object", "array", "string", "number"):
            return [], known
        return [f"if {_NOT_OF_TYPE[kind].format(v=v)}: return False"], after

    def strings(self, schema: dict[str, Any], v: str) -> list[str]:
        import re

        lo, hi = _length(schema.get("minLength", 0)), schema.get("maxLength")
        lines = []
        if hi is not None:
            hi = _length(hi)
            lines.append(f"if len({v}) != {hi}: return False" if lo == hi else
                         f"if not ({lo} <= len({v}) <= {hi}): return False" if lo else
                         f"if len({v}) > {hi}: return False")
        elif lo:
            lines.append(f"if len({v}) < {lo}: return False")
        if "pattern" in schema:
            lines.append(self.pattern(schema["pattern"], v))
        return lines

    def pattern(self, pattern: Any, v: str) -> str:
        """``pattern`` (draft 2020-12 validation §6.3.3: a match anywhere,
        as ``re.search``; jsonschema uses Python's ``re`` too)."""
        import re

        try:
            compiled = re.compile(pattern)
        except (re.error, TypeError):
            raise _Unsupported from None
        if pattern == r"\S":
            # re's \s and str.isspace are the same predicate (Py_UNICODE_ISSPACE;
            # the tests compare them on every code point), and isspace is
            # a fraction of a search's cost.
            return f"if not {v} or {v}.isspace(): return False"
        if pattern.startswith("^") and "|" not in pattern and "(?" not in pattern and \
                not compiled.flags & re.MULTILINE:
            # Anchored at the start with no alternation or inline flag: a
            # match can begin only at 0, where match() looks first and alone.
            return f"if {self.constant(compiled.match)}({v}) is None: return False"
        return f"if {self.constant(compiled.search)}({v}) is None: return False"

    def numbers(self, schema: dict[str, Any], v: str) -> list[str]:
        lines = []
        for key, op in _BOUND_OPS.items():
            if key in schema:
                bound = schema[key]
                if isinstance(bound, bool) or not isinstance(bound, (int, float)):
                    raise _Unsupported
                # not (a >= b) rather than a < b: NaN satisfies no bound.
                literal = repr(bound) if type(bound) is int else self.constant(bound)
                lines.append(f"if not ({v} {op} {literal}): return False")
        return lines

    def arrays(self, schema: dict[str, Any], v: str) -> list[str]:
        lines = []
        if _length(schema.get("minItems", 0)):
            lines.append(f"if len({v}) < {schema['minItems']}: return False")
        unique = schema.get("uniqueItems", False)
        if type(unique) is not bool:
            raise _Unsupported
        if unique:
            lines.append(f"if not _unique({v}): return False")
        if "items" in schema:
            x = self.fresh("v")
            item, _ = self.emit(schema["items"], x, None)
            if item:
                lines += [f"for {x} in {v}:", *_indent(item)]
        return lines

    def objects(self, schema: dict[str, Any], v: str) -> list[str]:
        props, required = schema.get("properties", {}), schema.get("required", [])
        extra = schema.get("additionalProperties", True)
        if not isinstance(props, dict) or not isinstance(required, list) or \
                not all(type(k) is str for k in [*props, *required]):
            raise _Unsupported
        names = frozenset(props)
        lines = []
        # The common closed record (additionalProperties false, every property
        # required): as many keys as properties, each present, means no other
        # key, without building a set of them.
        closed = extra is False and set(required) == names
        if closed:
            lines.append(f"if len({v}) != {len(names)}: return False")
        elif extra is False:
            lines.append(f"if not ({v}.keys() <= {self.constant(names)}): return False")
        checks = {}
        for key, sub in props.items():
            x = self.fresh("v")
            checks[key] = (x, *self.emit(sub, x, None))
        lines += [f"if {k!r} not in {v}: return False" for k in dict.fromkeys(required)
                  if k not in checks or not checks[k][1] and not closed]
        for key, (x, check, known) in checks.items():
            if key in required and (check or closed):
                # A check that knows the value's type afterwards has tested
                # it unguarded first, and _MISSING is of no JSON type: that
                # test also tells a missing key.
                lines += [f"{x} = {v}.get({key!r}, _MISSING)",
                          *([] if known else [f"if {x} is _MISSING: return False"]), *check]
            elif check:
                lines += [f"{x} = {v}.get({key!r}, _MISSING)", f"if {x} is not _MISSING:", *_indent(check)]
        if extra is not True and extra is not False:
            k, x = self.fresh("k"), self.fresh("v")
            check, _ = self.emit(extra, x, None)
            if check:
                lines += [f"for {k}, {x} in {v}.items():", f"    if {k} in {self.constant(names)}: continue",
                          *_indent(check)]
        if "propertyNames" in schema:
            k = self.fresh("v")
            check, _ = self.emit(schema["propertyNames"], k, None)
            if check:
                lines += [f"for {k} in {v}:", *_indent(check)]
        return lines

    def one_of(self, subschemas: Any, v: str, known: str | None) -> list[str]:
        """``oneOf``: exactly one branch holds. When the branches are told
        apart by a required key pinned to distinct string constants, only the
        branch an object names can hold (every other one fails its
        ``const``), so that one alone is evaluated; an object without the
        key, or naming none, fails every branch. Anything else counts the
        branches that hold."""
        if not isinstance(subschemas, list) or not subschemas:
            raise _Unsupported
        resolved = [_resolve(sub, self.defs) for sub in subschemas]
        key = _discriminator(resolved) if known in (None, _OBJECT) else None
        count = []
        if key is None or known != _OBJECT:
            branches = [self.function(sub) for sub in subschemas]
            count = [f"if ({' + '.join(f'{f}({v})' for f in branches)}) != 1: return False"]
        if key is None:
            return count
        dispatch = [self.emit(sub, v, _OBJECT)[0] for sub in subschemas]
        tag = self.fresh("t")
        # The branch still tests its own const, which also refuses a tag of
        # another type that compares equal.
        lines = [f"{tag} = {v}.get({key!r})"]
        for i, (branch, code) in enumerate(zip(resolved, dispatch)):
            lines += [f"{'elif' if i else 'if'} {tag} == {branch['properties'][key]['const']!r}:",
                      *_indent(code or ["pass"])]
        lines += ["else:", "    return False"]
        return lines if known == _OBJECT else [f"if {_IS_KIND[_OBJECT].format(v=v)}:", *_indent(lines),
                                               "else:", *_indent(count)]


def _resolve(schema: Any, defs: dict[str, Any]) -> Any:
    """The schema a chain of bare ``$ref``s leads to (itself when it is not one)."""
    seen = []
    while isinstance(schema, dict) and set(schema) == {"$ref"} and isinstance(schema["$ref"], str) and \
            schema["$ref"].startswith("#/$defs/") and schema["$ref"][8:] in defs and schema["$ref"] not in seen:
        seen.append(schema["$ref"])
        schema = defs[schema["$ref"][8:]]
    return schema


def _discriminator(branches: list[Any]) -> str | None:
    """A key every branch requires and pins to a different ``const`` (the
    report schema's ``state``), or None."""
    if not branches or not all(isinstance(b, dict) and isinstance(b.get("required", []), list) and
                               isinstance(b.get("properties", {}), dict) for b in branches):
        return None
    common = set.intersection(*({k for k in b.get("required", []) if type(k) is str} for b in branches))
    for key in sorted(common):
        consts = [b.get("properties", {}).get(key, {}) for b in branches]
        if all(isinstance(c, dict) and "const" in c and isinstance(c["const"], str) for c in consts) and \
                len({c["const"] for c in consts}) == len(consts):
            return key
    return None


def _compile(schema: Any, defs: Any, root: bool = False) -> Check:
    """Compile ``schema`` (whose ``$ref``s name entries of ``defs``) into a
    predicate implementing draft 2020-12 for the keywords in
    ``_QUICK_KEYWORDS``: generated Python source, ``exec``'d once.

    Returns a function of one JSON value (dicts, lists, str, int, float,
    bool, None, or their subclasses) to bool; it never raises.

    Raises:
        _Unsupported: the schema uses any other keyword or form, or nests
            deeper than Python's recursion or block limit.
    """
    try:
        generator = _Generator(defs)
        name = generator.function(schema, root=root)
        code = compile("\n\n".join(generator.functions), "<citelint quick check>", "exec")
    except (SyntaxError, RecursionError):  # SyntaxError: "too many statically nested blocks"
        raise _Unsupported from None
    exec(code, generator.namespace)  # noqa: S102 - source built above from the schema's values only
    check: Check = generator.namespace[name]
    if not generator.def_functions:
        return check

    def bounded(value: Any) -> bool:
        # A recursive $ref recurses with the data (or forever, for a cycle
        # that never descends into it): past Python's stack, "unknown".
        try:
            return check(value)
        except RecursionError:
            return False
    return bounded


@lru_cache(maxsize=None)
def _quick_check(name: str, at: str | None) -> Check | None:
    schema = load_schema(name)
    defs = schema.get("$defs", {})
    try:
        return _compile(defs[at] if at else schema, defs, root=not at)
    except _Unsupported:
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
    first use (:func:`_compile`); a valid cited fact costs about a
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
