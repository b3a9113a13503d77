"""A positive-only predicate compiled from a JSON Schema (draft 2020-12).

:func:`compile_check` turns a schema written with a small set of keywords
into Python source, one function with every check inlined, and ``exec``s it
once. The predicate answers True only when the value certainly satisfies
the schema; a schema using any other keyword is refused (:class:`Unsupported`)
rather than judged loosely. ``citelint.reports.schema`` builds its quick check of
reports and configs from the packaged schema files with it, and asks
jsonschema whenever the predicate says False.
"""

from __future__ import annotations

import re
from collections.abc import Callable
from typing import Any

# The keywords implemented; a schema using any other keyword is never judged
# (the caller answers "ask jsonschema").
_QUICK_KEYWORDS = frozenset({
    "$schema", "$id", "$defs", "$ref", "title", "description", "type", "properties", "required",
    "additionalProperties", "items", "enum", "const", "pattern", "minLength", "maxLength", "minimum",
    "maximum", "exclusiveMinimum", "minItems", "uniqueItems", "propertyNames", "oneOf",
})


class Unsupported(Exception):
    """The schema uses a keyword or a form :func:`compile_check` does not implement."""


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


def unique_strings(value: list[Any]) -> bool:
    # Only string arrays: jsonschema's equality (1 == 1.0) is not worth copying.
    return all(isinstance(x, str) for x in value) and len(set(value)) == len(value)


_STR = frozenset({str})


def all_strings(value: list[Any], min_length: int) -> bool:
    """Whether every item of ``value`` is a ``str`` (not a subclass: stricter,
    so still positive-only) of at least ``min_length`` characters: a
    config's 10,000 sources decided at C speed, with no bytecode per item."""
    if not _STR.issuperset(map(type, value)):
        return False
    if min_length == 1:
        return "" not in value  # the usual bound: an equality test per item, in C
    return min_length <= 0 or not value or min(map(len, value)) >= min_length


def _indent(lines: list[str]) -> list[str]:
    return ["    " + line for line in lines]


def _length(value: Any) -> int:
    if type(value) is not int:
        raise Unsupported
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

    def __init__(self, defs: Any, tag: str = "") -> None:
        if not isinstance(defs, dict):
            raise Unsupported
        self.defs = defs
        self.tag = tag  # tells apart the names of several checks written into one module
        self.namespace: dict[str, Any] = {"_enum": _enum_holds, "_unique": unique_strings, "_strings": all_strings,
                                          "MISSING": MISSING}
        self.functions: list[str] = []
        self.def_functions: dict[str, str] = {}
        self.inlining: list[str] = []  # the $defs being inlined, outermost first
        self.count = 0

    def fresh(self, prefix: str) -> str:
        self.count += 1
        return f"{prefix}{self.tag}{self.count}"

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
            Unsupported: the schema uses a keyword or form outside ``_QUICK_KEYWORDS``.
        """
        if schema is True or schema is False:
            return ([] if schema else ["return False"]), known
        if not isinstance(schema, dict) or set(schema) - _QUICK_KEYWORDS:
            raise Unsupported
        if "$id" in schema and not root:
            # An embedded resource changes what "#/$defs/..." means inside it.
            raise Unsupported
        lines: list[str] = []
        if "$ref" in schema:
            more, known = self.ref(schema["$ref"], v, known)
            lines += more
        if "type" in schema:
            more, known = self.types(schema["type"], v, known)
            lines += more
        if not isinstance(schema.get("enum", []), list):
            raise Unsupported
        for c in [*([schema["const"]] if "const" in schema else []), *schema.get("enum", [])]:
            if c is not None and type(c) not in (str, int, float, bool):
                # Python's == finds [True] equal to [1]; JSON equality does
                # not (validation §4.2.2): containers are left to jsonschema.
                raise Unsupported
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
            raise Unsupported
        name = ref[8:]
        if name not in self.defs or any(c in name for c in "/~%"):
            raise Unsupported
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
            raise Unsupported
        after = _KIND_OF_TYPE[kind]
        if known == after and kind in ("object", "array", "string", "number"):
            return [], known
        return [f"if {_NOT_OF_TYPE[kind].format(v=v)}: return False"], after

    def strings(self, schema: dict[str, Any], v: str) -> list[str]:
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
        try:
            compiled = re.compile(pattern)
        except (re.error, TypeError):
            raise Unsupported from None
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
                    raise Unsupported
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
            raise Unsupported
        items = schema.get("items")
        if isinstance(items, dict) and items.get("type") == "string" and items.keys() <= {"type", "minLength"}:
            # A list of strings (sources, globs, labels): one call, no loop.
            lines.append(f"if not _strings({v}, {_length(items.get('minLength', 0))}): return False")
            if unique:
                lines.append(f"if len(set({v})) != len({v}): return False")
            return lines
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
            raise Unsupported
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
                # it unguarded first, and MISSING is of no JSON type: that
                # test also tells a missing key.
                lines += [f"{x} = {v}.get({key!r}, MISSING)",
                          *([] if known else [f"if {x} is MISSING: return False"]), *check]
            elif check:
                lines += [f"{x} = {v}.get({key!r}, MISSING)", f"if {x} is not MISSING:", *_indent(check)]
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
            raise Unsupported
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
        if all(isinstance(c, dict) and "const" in c and type(c["const"]) is str for c in consts) and \
                len({c["const"] for c in consts}) == len(consts):
            return key
    return None


#: What a generated check compares with a missing key's value: of no JSON type.
MISSING = object()


def _bounded(check: Check) -> Check:
    """``check`` answering False (unknown) past Python's stack: a recursive
    ``$ref`` recurses with the data, or forever for a cycle that never
    descends into it."""
    def bounded(value: Any) -> bool:
        try:
            return check(value)
        except RecursionError:
            return False
    return bounded


def compile_check(schema: Any, defs: Any, root: bool = False) -> Check:
    """Compile ``schema`` into a predicate implementing draft 2020-12 for
    the keywords in ``_QUICK_KEYWORDS``: generated Python source, ``exec``'d once.

    Args:
        schema: the parsed schema (a dict or a boolean schema).
        defs: the document's ``$defs``; ``$ref`` may name only
            ``#/$defs/<name>`` entries of it (no remote or escaped references).
        root: ``schema`` is the document itself, whose ``$id`` sets the base
            URI; any other ``$id`` is refused.

    Returns a function of one JSON value (dicts, lists, str, int, float,
    bool, None, or their subclasses) to bool, True only when the value
    satisfies ``schema``; it never raises.

    Raises:
        Unsupported: the schema uses any other keyword or form, or nests
            deeper than Python's recursion or block limit.
    """
    try:
        generator = _Generator(defs)
        name = generator.function(schema, root=root)
        code = compile("\n\n".join(generator.functions), "<citelint quick check>", "exec")
    except (SyntaxError, RecursionError):  # SyntaxError: "too many statically nested blocks"
        raise Unsupported from None
    exec(code, generator.namespace)  # the source is built above from the schema's values only
    check: Check = generator.namespace[name]
    return _bounded(check) if generator.def_functions else check


def _constant_source(value: Any) -> str:
    """A Python expression equal to a generated check's constant, for
    :func:`module_source`: a scalar, a tuple of scalars, a set of strings, a
    scalar type, or a compiled pattern's ``match``/``search``."""
    if value is None or type(value) in (str, int, bool):
        return repr(value)
    if type(value) is float and value == value and abs(value) != float("inf"):
        return repr(value)
    if value in (str, int, float, bool):
        return value.__name__
    if type(value) is tuple and all(v is None or type(v) in (str, int, float, bool) for v in value):
        return "(" + "".join(f"{_constant_source(v)}, " for v in value) + ")"
    if type(value) in (set, frozenset) and all(type(v) is str for v in value):
        return "frozenset((" + "".join(f"{v!r}, " for v in sorted(value)) + "))"
    pattern = getattr(value, "__self__", None)
    if isinstance(pattern, re.Pattern) and getattr(value, "__name__", "") in ("match", "search"):
        return f"_re.compile({pattern.pattern!r}, {int(pattern.flags)}).{value.__name__}"
    raise Unsupported


def module_source(entries: dict[str, tuple[Any, Any, bool]], digests: dict[str, str], header: str) -> str:
    """The source of a module holding the checks of ``entries`` precompiled,
    so a process imports them (bytecode-cached) instead of compiling them.

    ``entries`` maps a key (``"report.schema.json#fact"``) to the
    (schema, defs, root) that :func:`compile_check` would take; the module
    defines ``CHECKS`` (key to predicate, each the same as
    ``compile_check`` gives) and ``DIGESTS`` (``digests``: schema file to
    the SHA-256 of the bytes the checks were made from, so a reader can tell
    a stale module). ``header`` is its docstring.

    Raises:
        Unsupported: as :func:`compile_check`, or a constant with no source form.
    """
    parts: list[str] = []
    checks = []
    for n, (key, (schema, defs, root)) in enumerate(entries.items()):
        generator = _Generator(defs, tag=f"_{n}_")
        name = generator.function(schema, root=root)
        for const, value in generator.namespace.items():
            if const.startswith("_k"):
                parts.append(f"{const} = {_constant_source(value)}")
        parts += ["", *("\n\n".join(generator.functions).split("\n")), ""]
        checks.append(f"    {key!r}: {f'_bounded({name})' if generator.def_functions else name},")
    parts += ["", "CHECKS = {", *checks, "}", ""]
    body = "\n".join(parts)
    helpers = [f"{real} as {alias}" if alias != real else real for real, alias in (
        ("MISSING", "MISSING"), ("_bounded", "_bounded"), ("_enum_holds", "_enum"), ("unique_strings", "_unique"),
        ("all_strings", "_strings"))
        if re.search(rf"\b{alias}\b", body)]
    head = [f'"""{header}"""', *(["import re as _re", ""] if "_re." in body else []),
            *([f"from citelint.reports.quickcheck import {', '.join(helpers)}", ""] if helpers else []),
            f"DIGESTS = {dict(sorted(digests.items()))!r}", ""]
    return "\n".join(head) + "\n" + body
