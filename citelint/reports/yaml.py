"""Strict YAML loading with a line and column for every JSON Pointer.

Reports and the config may be YAML. It is read through PyYAML's events with
no implicit typing for reports (every scalar is the string its author wrote:
``no``, ``2026-07-01`` and ``1:30`` stay strings) and the YAML 1.2 core
schema for the config; anchors, aliases, explicit tags, duplicate keys,
control characters, lone surrogates and nesting deeper than ``MAX_DEPTH``
are refused (DESIGN §2.3, §8). A failure is a :class:`ParseFailure` value.

Where PyYAML was built with libyaml, libyaml scans and parses (several
times faster than PyYAML's pure-Python parser) and the same builder turns
its events into values and positions. Any failure on that path, and any text
where libyaml and PyYAML are known to read differently, is loaded again by
the pure-Python parser, whose results and wording are the reference.

A config asks for positions only to word an error, and may approve 10,000
sources, one ``- URL`` a line (or ``"URL",`` as JSON writes them): with
``positions_on_demand`` such runs of items are read by regular expressions,
the rest of the text by the parser, and positions come from loading the
whole text again when asked for (:func:`_collapse` says why the data are
the same).
"""

from __future__ import annotations

import functools
import re
from typing import Any

from citelint.model import Position
from citelint.reports.document import (
    DEPTH_MESSAGE,
    MAX_DEPTH,
    SURROGATE,
    SURROGATE_MESSAGE,
    Document,
    LineIndex,
    ParseFailure,
    placeholder_prefix,
    quoted_items,
    splice_runs,
)
from citelint.reports.pointers import join as pointer_join, tokens as pointer_tokens

_CORE_NULL = re.compile(r"null|Null|NULL|~|")
_CORE_BOOL = re.compile(r"true|True|TRUE|false|False|FALSE")
_CORE_INT = re.compile(r"[-+]?[0-9]+|0o[0-7]+|0x[0-9a-fA-F]+")
_CORE_FLOAT = re.compile(r"[-+]?(\.[0-9]+|[0-9]+(\.[0-9]*)?)([eE][-+]?[0-9]+)?|[-+]?\.(inf|Inf|INF)|\.nan|\.NaN|\.NAN")


#: The first characters a core-schema null, boolean, integer or float can have ("" is null).
_CORE_FIRST = frozenset("nN~tTfF+-.0123456789")


def _core_scalar(value: str) -> Any:
    """Resolve a plain scalar by the YAML 1.2 core schema (§10.3.2), never 1.1."""
    if value and value[0] not in _CORE_FIRST:
        return value  # most strings (a URL, a label) are decided by their first character
    if _CORE_NULL.fullmatch(value):
        return None
    if _CORE_BOOL.fullmatch(value):
        return value.lower() == "true"
    if _CORE_INT.fullmatch(value):
        if value.startswith(("0o", "0x")):
            return int(value[2:], 8 if value[1] == "o" else 16)
        return int(value)
    if _CORE_FLOAT.fullmatch(value):
        return float(value.replace("inf", "Inf").replace("INF", "Inf").replace(".Inf", "inf")
                     .replace(".nan", "nan").replace(".NaN", "nan").replace(".NAN", "nan"))
    return value


def load_yaml_text(text: str, *, typed: bool = False, positions_on_demand: bool = False) -> Document | ParseFailure:
    """Parse one YAML document strictly, recording positions for every pointer.

    Args:
        text: the whole document as text (a leading BOM already dropped by
            :func:`citelint.reports.loaders.decode_utf8`; any other is kept).
        typed: ``False`` (reports): every scalar is the string as written.
            ``True`` (configuration): plain scalars follow the YAML 1.2 core
            schema (§10.3.2): ``true``/``false``, integers, floats and
            ``null``; ``no``, ``on`` and dates stay strings.
        positions_on_demand: ``True`` (configuration, whose positions only
            an error message asks for): in a text of at least
            :data:`COLLAPSE_MIN_CHARS` characters, long runs of sequence
            items (a config's 10,000 ``sources``: ``- URL`` a line, or
            ``"URL",`` as JSON writes them) are read by regular expressions
            rather than event by event (:func:`_collapse`), and positions
            come from loading the whole text again on the first ``locate``. The data, the
            positions and every failure are those of ``False``.

    Returns:
        A :class:`~citelint.reports.document.Document` whose positions are 1-based
        lines and code-point columns (lines broken at ``\\n``, ``\\r\\n`` and
        ``\\r`` only), or a :class:`~citelint.reports.document.ParseFailure` (never
        raises) for a syntax error, a control character, a lone surrogate,
        an anchor, alias or explicit tag, a duplicate key, a non-scalar key,
        more than one document, nesting deeper than ``MAX_DEPTH`` or, when
        ``typed``, an integer with more digits than ``int()`` converts.
    """
    import yaml  # lazy: a JSON-only run never pays for it

    if positions_on_demand and len(text) >= COLLAPSE_MIN_CHARS:
        collapsed = _collapse(text)
        if collapsed is not None:
            short, runs = collapsed
            loaded = _load_text(short, typed, yaml)
            data = splice_runs(loaded.data, runs) if isinstance(loaded, Document) else None
            if data is not None:
                return _PositionsOnDemand(data, text, typed)
            # A failure, or a run that is not what it looked like (inside a
            # block scalar, a flow collection, a multi-line scalar): the
            # whole text, as written, gives the data, or the failure and its
            # position.
    return _load_text(text, typed, yaml)


def _load_text(text: str, typed: bool, yaml: Any) -> Document | ParseFailure:
    """:func:`load_yaml_text` of ``text`` with every position recorded."""
    if _libyaml_reads_alike(yaml, text):
        try:
            loaded: Document | ParseFailure | None = _load(text, typed, yaml, yaml.cyaml.CParser)
        except Exception:  # noqa: BLE001 - _Unsure, or a lone surrogate that cannot be handed to libyaml
            loaded = None
        if isinstance(loaded, Document):
            return loaded
        # A refusal, a syntax error or a construct libyaml reads differently:
        # PyYAML's wording and positions are the reference (messages and
        # golden files quote them), so the pure-Python parser loads it again.
        # Only an error path pays twice.
    return _load(text, typed, yaml, yaml.BaseLoader)


#: Characters a run item may hold (:func:`_collapse`), as a negated class (a
#: fraction of the cost of the same set listed by ranges): printable, as
#: both YAML readers define it, and neither white space nor a line break to
#: either parser (U+0085, U+2028 and U+2029 are breaks to YAML), no BOM
#: (libyaml reads one anywhere), no surrogate.
_NOT_ITEM_CHAR = "\x00-\x20\x7f-\x9f\u2028\u2029\ud800-\udfff\ufeff\ufffe\uffff"
#: Its first character: a letter, ``/ \ ^ _`` or non-ASCII, so never an
#: indicator (``- ? : , [ ] { } # & * ! | > ' " % @ ```) nor a character that
#: can start a core-schema number or null (``~ + - . 0-9``).
_NOT_ITEM_FIRST = _NOT_ITEM_CHAR + "!-.0-@\\[\\]`{-~"
#: One item line: ``- `` and the scalar, then the line break. A run is not
#: read (it is left to the parser) when a scalar ends in ``:`` (``- key:``
#: is a mapping) or is one of these words, the only non-strings a first
#: letter can still give: tested on the whole run at once, cheaper than
#: a lookahead and a lookbehind on every line.
_ITEM = f"- [^{_NOT_ITEM_FIRST}][^{_NOT_ITEM_CHAR}]*+\r?\n"
_CORE_WORDS = frozenset(("null", "Null", "NULL", "true", "True", "TRUE", "false", "False", "FALSE"))
#: Runs shorter than this are left to the parser: they would save nothing.
RUN_MIN = 16
#: Flow items (``"https://...",``, as JSON is written, one a line or many):
#: a double-quoted scalar holding no quote, no backslash (so no escape) and
#: nothing the readers refuse or break lines at, then its comma; spaces and
#: line breaks between them.
_NOT_QUOTED_CHAR = '"\\\\\x00-\x1f\x7f-\x9f\u2028\u2029\ud800-\udfff\ufeff\ufffe\uffff'
_FLOW_ITEM = f'"[^{_NOT_QUOTED_CHAR}]+",'
#: Runs: block items at one indentation (group 1), from the start of a line
#: after the first; flow items. Each pattern starts with a literal, which
#: the regular-expression engine finds at C speed (an alternation, or ``^``,
#: would make it try every position: 20 ms on a 400 KB line).
#: Compiled on first use (about 1 ms): a check whose config is small never compiles them.
_BLOCK_RUN = f"\n( *){_ITEM}(?:\\1{_ITEM}){{{RUN_MIN - 1},}}"
_FLOW_RUN = f"{_FLOW_ITEM}(?:[ \r\n]*{_FLOW_ITEM}){{{RUN_MIN - 1},}}"
#: Shorter texts are loaded whole: libyaml reads them in a fraction of a
#: millisecond, less than compiling the run patterns costs.
COLLAPSE_MIN_CHARS = 4096


@functools.cache
def _run_patterns() -> tuple[re.Pattern[str], re.Pattern[str]]:
    return re.compile(_BLOCK_RUN), re.compile(_FLOW_RUN)


def _collapse(text: str) -> tuple[str, dict[str, list[str]]] | None:
    """``text`` with each run of at least :data:`RUN_MIN` item lines replaced
    by one item line holding a placeholder, and each placeholder's values;
    None when ``text`` has no such run. A run is block items (``- `` and one
    plain scalar alone on its line, at one indentation; its last line stays
    as written) or flow items (``"..."`` and its comma, with spaces and line
    breaks between them; what follows the last comma stays as written).

    Why the data of ``text`` is the data of the short text with each
    placeholder spliced out (:func:`~citelint.reports.document.splice_runs`),
    whenever the short text loads and each placeholder is found, once, as an
    item of a sequence:
    each placeholder is a plain scalar, not written anywhere in ``text``, on
    its own line after ``- ``; found whole as a value, it was scanned as a
    block entry and a plain scalar in block context (in a flow collection
    ``- `` is an error, and a block scalar, a quoted or a multi-line plain
    scalar would have held the ``- `` too). Each item line of the run, read
    from the same scanner state, scans the same way: ``- `` is a block entry
    at the same column, the scalar holds no space and no line break (and a
    run with a ``:`` last is left as written), so it ends at the line's end,
    and the next line, at the same column, cannot continue it. The scanner is then back in the state it was
    in before the line, so the item lines give one scalar item each where
    the placeholder gave one, and the rest of the text scans and parses
    alike. The first character, and no value being a null or boolean word
    (such a run is left as written), make each value a string as written,
    by either schema.

    A flow item's placeholder (``"..."``, then ``,``) found whole as an item
    was scanned as one double-quoted scalar token (its value is written once,
    between two quotes) starting where the run did, so the scanner was
    between tokens there, in a flow sequence (in block context the comma is
    an error; in a flow mapping it would be a key). Each item of the run,
    from the same state, is a quoted scalar with no escape, so its value is
    its text and it is a string by either schema, ended by a flow entry that
    leaves the scanner and the parser as they were (spaces and line breaks
    between tokens are skipped; flow collections ignore indentation), so
    each gives one item where the placeholder gave one.

    Anything else (the placeholder inside another scalar, a failure) makes
    the caller load the whole text, whose data, positions and failures are
    the reference.
    """
    block_run, flow_run = _run_patterns()
    found = sorted([(m.start() + 1, m.end(), m.group(1)) for m in block_run.finditer(text)] +
                   [(m.start(), m.end(), None) for m in flow_run.finditer(text)])
    if not found:
        return None
    marker = placeholder_prefix(text)
    pieces: list[str] = []
    runs: dict[str, list[str]] = {}
    done = covered = 0
    for n, (start, end, indent) in enumerate(found):
        if start < covered:
            continue  # flow items inside a block item's value: the block run is read
        placeholder = f"{marker}{n}"
        if indent is None:  # flow items: each holds one "value",
            runs[placeholder] = quoted_items(text[start:end])
            pieces += [text[done:start], f'"{placeholder}",']
            done = covered = end
            continue
        last = text.rfind("\n", start, end - 1) + 1  # the run's last line stays as written
        lines = text[start:last]
        if "\r" in lines:
            lines = lines.replace("\r\n", "\n")  # an item holds no \r: each one ends a line
        # Each line is the indentation, "- " and the value, which holds no
        # space: every indentation-and-"- " is a line's start, and nothing else.
        values = lines.replace(indent + "- ", "").split("\n")[:-1]
        if ":\n" in lines or not _CORE_WORDS.isdisjoint(values):
            continue  # a mapping, a null or a boolean among them: the parser reads the run
        runs[placeholder] = values
        pieces += [text[done:start], indent, "- ", placeholder, "\n"]
        done, covered = last, end
    pieces.append(text[done:])
    return "".join(pieces), runs


class _PositionsOnDemand(Document):
    """A document whose data came from :func:`_collapse`'s short text: its
    positions come from loading the whole ``text`` on the first ``locate``
    (only an error message asks for one), so they are the positions
    :func:`load_yaml_text` gives without ``positions_on_demand``."""

    def __init__(self, data: Any, text: str, typed: bool):
        super().__init__(data)
        self._text: str | None = text
        self._typed = typed
        self._whole: Document | None = None

    def _positions(self) -> Document:
        if self._whole is None:
            import yaml

            assert self._text is not None
            whole = _load_text(self._text, self._typed, yaml)
            # Loads, by construction (see _collapse); a failure would leave positions at 1:1.
            self._whole = whole if isinstance(whole, Document) else Document(self.data)
            self._text = None
        return self._whole

    def locate(self, pointer: str) -> Position:
        """Position of the value at ``pointer``, from the whole text."""
        return self._positions().locate(pointer)

    def locate_key(self, pointer: str) -> Position:
        """Position of the key whose value is at ``pointer`` (or of the value), from the whole text."""
        return self._positions().locate_key(pointer)


def _libyaml_reads_alike(yaml: Any, text: str) -> bool:
    """Whether libyaml is available and reads ``text`` exactly as PyYAML does.

    Measured against PyYAML 6.0 on mutated documents (tests/test_yamldoc.py):
    libyaml skips a BOM at the start of every line (PyYAML only at the very
    start) and leaves a leading BOM out of its marks' index; it accepts tabs
    where PyYAML refuses them ("found character '\\t' that cannot start any
    token") and a comment with no space before it after a directive
    (``%YAML 1.2#``). Text with a BOM, a tab or a directive goes to the
    pure-Python parser; the builder bails out of the constructs it cannot
    vouch for (:class:`_Unsure`).
    """
    return (bool(getattr(yaml, "__with_libyaml__", False)) and "\ufeff" not in text and "\t" not in text
            and not ("%" in text and _DIRECTIVE.search(text)))


#: A ``%`` that starts a line, as either parser breaks lines: maybe a directive.
_DIRECTIVE = re.compile("(?:^|[\r\n\x85\u2028\u2029])%")


class _Unsure(Exception):
    """Raised on the libyaml path for a construct libyaml reads differently:
    an empty value in a flow collection (libyaml marks it at the next token,
    PyYAML after the ``:``), a ``?`` inside a plain scalar in a flow
    collection (it ends the scalar for PyYAML, a syntax error there), a block
    scalar header outside PyYAML's grammar (libyaml takes ``|+#``), and the
    non-specific tag ``!`` (an empty ``!`` value is plain for PyYAML only)."""


#: A block scalar header as PyYAML scans it (scan_block_scalar_indicators: chomping and one digit 1-9,
#: either order, then a space or a line break).
_BLOCK_HEADER = re.compile("[|>]([-+][1-9]?|[1-9][-+]?)?(?=[ \r\n\x85\u2028\u2029]|\\Z)")


def _load(text: str, typed: bool, yaml: Any, parser_class: Any) -> Document | ParseFailure:
    """Load ``text`` with ``parser_class`` (``yaml.BaseLoader`` or libyaml's
    ``yaml.cyaml.CParser``: both emit the same events, with marks whose
    ``index`` counts code points). Refusals and syntax errors are returned;
    anything else the parser or builder raises propagates."""
    values: dict[str, Any] = {}
    keys: dict[str, Any] = {}
    # PyYAML and libyaml also break lines at U+0085, U+2028 and U+2029;
    # editors and GitHub do not, so positions come from the marks' code-point
    # index, never from their line and column.
    index: list[LineIndex] = []  # built on the first position asked for: a valid config asks for none

    def at(mark: Any) -> tuple[int, int]:
        if not index:
            index.append(LineIndex(text))
        return index[0].position(mark.index)

    try:
        loader = parser_class(text)
    except yaml.reader.ReaderError as exc:
        # Raised before parsing: the reader refuses control characters outright.
        line, col = LineIndex(text).position(exc.position)
        return ParseFailure(line, col, f"character U+{exc.character:04X} is not allowed in YAML; remove it "
                                       "or write it as an escape inside a double-quoted string")
    try:
        vouch = None if parser_class is yaml.BaseLoader else text
        data = _build_stream(loader, yaml, typed, values, keys, at, vouch)
    except yaml.MarkedYAMLError as exc:
        mark = exc.problem_mark or exc.context_mark
        message = (exc.problem or exc.context or "invalid YAML").strip()
        if mark is None:
            return ParseFailure(1, 1, message)
        return ParseFailure(*at(mark), message)
    except yaml.YAMLError as exc:
        return ParseFailure(1, 1, f"invalid YAML: {exc}")
    except RecursionError:
        return ParseFailure(1, 1, DEPTH_MESSAGE)
    finally:
        loader.dispose()
    values.pop("\x00key", None)

    def to_pos(entry: Any) -> Position:
        if isinstance(entry, tuple):
            start, end = entry
            return Position(*at(start), *at(end))
        return Position(*at(entry))

    return Document(data, values, keys, to_pos)


def _build_stream(loader: Any, yaml: Any, typed: bool, values: dict[str, Any], keys: dict[str, Any],
                  at: Any, text: str | None) -> Any:
    """Build the one document in ``loader``'s event stream: its data, with
    ``values[pointer]`` = (start mark, end mark) of every value and
    ``keys[pointer]`` = start mark of the key holding it.

    Raises ``yaml.MarkedYAMLError`` for every refusal (DESIGN §2.3) and
    whatever the parser raises for a syntax error. ``at`` maps a mark to
    (line, column), for the duplicate key message. ``text`` is given for
    libyaml's events: then :class:`_Unsure` is raised where they would
    differ from PyYAML's.
    """
    fast = text is not None
    peek, get, check = loader.peek_event, loader.get_event, loader.check_event
    alias_event, scalar_event = yaml.AliasEvent, yaml.ScalarEvent
    sequence_start, sequence_end = yaml.SequenceStartEvent, yaml.SequenceEndEvent
    mapping_start, mapping_end = yaml.MappingStartEvent, yaml.MappingEndEvent

    def fail(mark: Any, message: str) -> None:
        raise yaml.MarkedYAMLError(problem=message, problem_mark=mark)

    def build(ptr: str, depth: int, flow: bool) -> Any:
        event = peek()
        kind = type(event)
        if kind is alias_event:
            fail(event.start_mark, "YAML aliases are not allowed in a report; write the value out")
        anchor = getattr(event, "anchor", None)
        if anchor is not None:
            fail(event.start_mark, f"YAML anchors are not allowed in a report (&{anchor}); remove it")
        tag = getattr(event, "tag", None)
        if tag is not None and tag != "!":
            fail(event.start_mark, f"explicit YAML tags are not allowed ({tag}); remove it")
        if depth > MAX_DEPTH:
            fail(event.start_mark, DEPTH_MESSAGE)
        if kind is scalar_event:
            if fast and (tag == "!" or (flow and not event.style and (not event.value or "?" in event.value))
                         or (event.style in ("|", ">")
                             and not _BLOCK_HEADER.match(text or "", event.start_mark.index))):  # text: fast
                raise _Unsure
            # libyaml itself refuses a surrogate escape, and text holding one
            # cannot be handed to it at all.
            if not fast and SURROGATE.search(event.value):
                fail(event.start_mark, SURROGATE_MESSAGE)
            get()
            values[ptr] = (event.start_mark, event.end_mark)
            # A plain scalar's style is None from PyYAML and "" from libyaml.
            plain = not event.style and event.implicit[0]
            if not (typed and plain):
                return event.value
            try:
                return _core_scalar(event.value)
            except ValueError:  # more digits than int() converts (CVE-2020-10735 limit)
                fail(event.start_mark, f"{'.'.join(pointer_tokens(ptr))}: the number {event.value[:20]}… has "
                                       f"{len(event.value)} digits, too many to be a sensible value")
        if kind is sequence_start:
            get()
            inner = flow or bool(event.flow_style)
            out: list[Any] = []
            while True:
                item = peek()
                kind = type(item)
                if kind is sequence_end:
                    break
                if (kind is scalar_event and item.anchor is None and item.tag is None and not item.style
                        and item.value and (not inner or "?" not in item.value) and depth < MAX_DEPTH
                        and (not typed or item.value[0] not in _CORE_FIRST)):
                    # The usual item (a source, a glob: a plain string) decided here, without a call
                    # per item; every other item, and any doubt, goes through build().
                    if not fast and SURROGATE.search(item.value):
                        fail(item.start_mark, SURROGATE_MESSAGE)
                    get()
                    values[f"{ptr}/{len(out)}"] = (item.start_mark, item.end_mark)
                    out.append(item.value)
                    continue
                out.append(build(pointer_join(ptr, len(out)), depth + 1, inner))
            end = get()
            values[ptr] = (event.start_mark, end.end_mark)
            return out
        if kind is mapping_start:
            get()
            inner = flow or bool(event.flow_style)
            mapping: dict[str, Any] = {}
            while not check(mapping_end):
                key_event = peek()
                if type(key_event) is not scalar_event:
                    if type(key_event) is alias_event:
                        fail(key_event.start_mark, "YAML aliases are not allowed in a report")
                    fail(key_event.start_mark, "mapping keys must be plain strings")
                key = build("\x00key", depth + 1, inner)
                if not isinstance(key, str):
                    key = key_event.value
                child = pointer_join(ptr, key)
                if key in mapping:
                    fl, fc = at(keys[child])
                    fail(key_event.start_mark, f"duplicate key {key!r} (first at {fl}:{fc}); keep one")
                keys[child] = key_event.start_mark
                mapping[key] = build(child, depth + 1, inner)
            end = get()
            values[ptr] = (event.start_mark, end.end_mark)
            return mapping
        fail(event.start_mark, f"unexpected YAML event {type(event).__name__}")
        return None  # unreachable

    loader.get_event()  # StreamStart
    if loader.check_event(yaml.StreamEndEvent):
        return None
    loader.get_event()  # DocumentStart
    data = build("", 1, False)
    loader.get_event()  # DocumentEnd
    if not loader.check_event(yaml.StreamEndEvent):
        extra = loader.peek_event()
        fail(extra.start_mark, "more than one YAML document; a report is one document")
    return data
