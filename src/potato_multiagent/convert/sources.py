"""Reading converter inputs: JSON documents, JSON arrays, JSON Lines, Parquet tables and text logs.

Every message a converter gives names the file, the line and the field, so each item keeps where
it came from: the line of a JSON Lines record, the line where an element of a top-level JSON array
starts, line 1 for a file holding one JSON document or one text log, or ``row N`` of a Parquet file.
"""

from __future__ import annotations

import datetime as dt
import decimal
import importlib.util
import json
from dataclasses import dataclass
from pathlib import Path
from typing import Any, Callable, Dict, Iterable, Iterator, List, Optional, Sequence, Tuple, Union

from ..files import PathError, files_under, read_text

INPUT_SUFFIXES = (".json", ".jsonl", ".parquet")
"""What a folder stands for, in every format; a format that reads text logs adds its own (``TEXT_SUFFIXES``)."""
PARQUET_SUFFIX = ".parquet"
_WHITESPACE = " \t\r\n"
_DECODER = json.JSONDecoder()


class ConvertError(Exception):
    """An input that cannot be converted: the message names file, line and field."""

    def __init__(self, path: Path, line: Union[int, str, None], field: str, message: str):
        where = f"{path}:{line}" if line is not None else str(path)
        super().__init__(f"{where}: {field}: {message}")


@dataclass(frozen=True)
class Item:
    """One JSON value of an input file and where it starts."""

    value: Any
    path: Path
    line: Union[int, str]
    """The line where the item starts, or ``row N`` (1-based) of a Parquet file."""

    def error(self, field: str, message: str) -> ConvertError:
        return ConvertError(self.path, self.line, field, message)

    def require(self, field: str, kind: type, described: str) -> Any:
        """``value[field]`` when the item is an object and the field has type ``kind``."""
        if not isinstance(self.value, dict):
            raise self.error("item", f"expected a JSON object, found {json_kind(self.value)}")
        found = self.value.get(field)
        if not isinstance(found, kind) or isinstance(found, bool) and kind is not bool:
            shown = "nothing" if field not in self.value else json_kind(found)
            raise self.error(field, f"expected {described}, found {shown}")
        return found


@dataclass(frozen=True)
class Converted:
    """One record, its ground truth if the source has any, and the item it came from."""

    record: dict
    gold: Optional[dict]
    item: Item
    warnings: Tuple[str, ...] = ()
    """Things a task author should know about this record (``file:line: field: message``), for stderr."""
    layout: Optional[str] = None
    """For sources whose steps are cut out of text (MAST logs): the layout the text was split by
    (``ChatDev log``), or None when it was kept as one step (then ``warnings`` says why)."""
    fallback: Optional[str] = None
    """Why a text could not be split and is one step; ``init`` counts these in its survey."""
    locations: Optional[Dict[str, Optional[int]]] = None
    """Span formats: every span id of the trace -> the index of the step it lands on (its own, else
    its nearest ancestor's), so labels located by span id (TRAIL's) find their step."""


def each_item(items: List[Item], convert_one: Callable[[Item, int], Converted]) -> Iterator[Union[Converted, ConvertError]]:
    """``convert_one(item, position)`` for every item; a record that cannot be read is yielded as its error.

    So one bad record costs only itself: the caller decides whether it stops everything (``--strict``).
    """
    for position, item in enumerate(items, start=1):
        try:
            yield convert_one(item, position)
        except ConvertError as error:
            yield error


def json_kind(value: Any) -> str:
    """The JSON kind of a value with its article, for messages: ``a string``, ``an array``, ``null``."""
    if value is None:
        return "null"
    if isinstance(value, bool):
        return "a boolean"
    if isinstance(value, (int, float)):
        return "a number"
    if isinstance(value, str):
        return "a string"
    return "an array" if isinstance(value, list) else "an object"


def input_files(paths: Iterable[Path], text_suffixes: Sequence[str] = ()) -> List[Path]:
    """The files named, with a folder standing for its ``.json``/``.jsonl``/``.parquet`` files, and
    its text logs when the format reads them (``text_suffixes``), recursively and sorted."""
    files: List[Path] = []
    suffixes = INPUT_SUFFIXES + tuple(text_suffixes)
    for path in paths:
        if path.is_dir():
            found = files_under(path, suffixes)
            if not found:
                shown = ", ".join(suffixes[:-1]) + f" or {suffixes[-1]}"
                raise ConvertError(path, None, "input", f"the folder holds no {shown} file")
            files.extend(found)
        elif path.is_file():
            files.append(path)
        else:
            raise ConvertError(path, None, "input", "no such file or folder")
    return files


def read_items(path: Path, problems: Optional[List[ConvertError]] = None,
               text_suffixes: Sequence[str] = ()) -> List[Item]:
    """The items of one file: a JSON array's elements, one JSON document, JSON Lines records, the
    rows of a Parquet table, or, for a format that reads logs, a text file as one item (its text).

    Without ``problems`` the first unreadable part raises. With it, an unreadable JSON line is
    appended there and skipped, and a JSON array that breaks keeps the elements before the break.
    """
    if path.suffix.lower() == PARQUET_SUFFIX:
        return parquet_items(path)
    text = read_text(path, encoding="utf-8-sig")  # a file that cannot be read at all is a PathError: fatal
    if path.suffix.lower() in tuple(text_suffixes):
        if not text.strip(_WHITESPACE):
            raise ConvertError(path, None, "input", "the file is empty")
        return [Item(text, path, 1)]
    start = _skip_whitespace(text, 0)
    if start == len(text):
        raise ConvertError(path, None, "input", "the file is empty")
    if text[start] == "[":
        return collect(_array_items(text, start, path), problems)
    try:
        return [Item(json.loads(text), path, _line_of(text, start))]
    except json.JSONDecodeError as whole_error:
        if whole_error.msg != "Extra data":
            raise ConvertError(path, whole_error.lineno, "input", f"not valid JSON ({whole_error.msg})") from None
    if text[start:].split("\n", 1)[0].strip(_WHITESPACE) == "{":
        return collect(_documents(text, start, path), problems)
    return collect(_json_lines(text, path, problems is not None), problems)


def parquet_items(path: Path) -> List[Item]:
    """Each row of a Parquet table as a JSON object (``row N``), as Hugging Face serves most datasets.

    A cell holding JSON text of an object or a list (columns of JSON kept as strings, e.g. TRAIL's
    ``trace`` and ``labels``) is read as that JSON; times become ISO strings, bytes UTF-8 text. A
    null cell is a field the row does not have (a table has every column in every row).
    """
    if importlib.util.find_spec("pyarrow") is None:
        raise PathError(path, "reading Parquet needs pyarrow: pip install pyarrow")
    import pyarrow
    import pyarrow.parquet

    try:
        rows = pyarrow.parquet.read_table(path).to_pylist()
    except (pyarrow.ArrowException, OSError) as error:
        raise PathError(path, f"not a readable Parquet file ({error})") from None
    if not rows:
        raise ConvertError(path, None, "input", "the Parquet table has no rows")
    items = []
    for number, row in enumerate(rows, start=1):
        where = f"row {number}"
        items.append(Item({str(key): _json_cell(value, path, where, str(key)) for key, value in row.items()
                           if value is not None}, path, where))
    return items


def _json_cell(value: Any, path: Path, where: str, column: str) -> Any:
    """A Parquet cell as JSON: a column's JSON text of an object or a list is read as that JSON
    (only at the top: text inside a nested value stays text); nested values are converted."""
    if isinstance(value, (bytes, bytearray)):
        try:
            value = bytes(value).decode("utf-8")
        except UnicodeDecodeError:
            raise ConvertError(path, where, column, "holds binary data that is not UTF-8 text") from None
    if isinstance(value, str) and value.strip(_WHITESPACE)[:1] in ("{", "["):
        try:
            return json.loads(value)
        except ValueError:
            return value
    return _plain(value, path, where, column)


def _plain(value: Any, path: Path, where: str, column: str) -> Any:
    """Arrow's Python values as JSON values: times as ISO strings, bytes as UTF-8 text."""
    if isinstance(value, (bytes, bytearray)):
        try:
            return bytes(value).decode("utf-8")
        except UnicodeDecodeError:
            raise ConvertError(path, where, column, "holds binary data that is not UTF-8 text") from None
    if isinstance(value, (dt.datetime, dt.date, dt.time)):
        return value.isoformat()
    if isinstance(value, dt.timedelta):
        return value.total_seconds()
    if isinstance(value, decimal.Decimal):
        return float(value)
    if isinstance(value, dict):
        return {str(key): _plain(inner, path, where, column) for key, inner in value.items()}
    if isinstance(value, (list, tuple)):
        return [_plain(inner, path, where, column) for inner in value]
    return value


def collect(found: Iterator[Any], problems: Optional[List[ConvertError]]) -> List[Any]:
    """What ``found`` yields; a :class:`ConvertError` (yielded or raised) stops here, unless
    ``problems`` takes it: a yielded one is skipped and the rest read on, a raised one ends ``found``."""
    items: List[Any] = []
    try:
        for entry in found:
            if isinstance(entry, ConvertError):
                if problems is None:
                    raise entry
                problems.append(entry)
            else:
                items.append(entry)
    except ConvertError as error:
        if problems is None:
            raise
        problems.append(error)
    return items


def _documents(text: str, start: int, path: Path) -> Iterator[Item]:
    """JSON documents back to back, as OpenTelemetry's ``ConsoleSpanExporter`` prints spans by default
    (a first line that is only ``{`` cannot start JSON Lines)."""
    line_of = _LineCounter(text)
    position = start
    while position < len(text):
        try:
            value, end = _DECODER.raw_decode(text, position)
        except json.JSONDecodeError as error:
            raise ConvertError(path, error.lineno, "input", f"not valid JSON ({error.msg})") from None
        yield Item(value, path, line_of(position))
        position = _skip_whitespace(text, end)


def _array_items(text: str, start: int, path: Path) -> Iterator[Item]:
    line_of = _LineCounter(text)
    position = _skip_whitespace(text, start + 1)
    if position < len(text) and text[position] == "]":
        _expect_end(text, position + 1, path)
        return
    while True:
        try:
            value, end = _DECODER.raw_decode(text, position)
        except json.JSONDecodeError as error:
            raise ConvertError(path, error.lineno, "input", f"not valid JSON ({error.msg})") from None
        yield Item(value, path, line_of(position))
        position = _skip_whitespace(text, end)
        separator = text[position] if position < len(text) else ""
        if separator == "]":
            _expect_end(text, position + 1, path)
            return
        if separator != ",":
            raise ConvertError(path, line_of(position), "input", "not valid JSON (expected ',' or ']')")
        position = _skip_whitespace(text, position + 1)


def _json_lines(text: str, path: Path, read_on: bool) -> Iterator[Union[Item, ConvertError]]:
    for number, line in enumerate(text.split("\n"), start=1):
        if line.strip(_WHITESPACE):
            try:
                yield Item(json.loads(line), path, number)
            except json.JSONDecodeError as error:
                problem = ConvertError(path, number, "input", f"not a JSON line ({error.msg})")
                if not read_on:
                    raise problem from None
                yield problem


def _expect_end(text: str, position: int, path: Path) -> None:
    rest = _skip_whitespace(text, position)
    if rest != len(text):
        raise ConvertError(path, _line_of(text, rest), "input", "not valid JSON (text after the closing ']')")


def _skip_whitespace(text: str, position: int) -> int:
    while position < len(text) and text[position] in _WHITESPACE:
        position += 1
    return position


def _line_of(text: str, position: int) -> int:
    return text.count("\n", 0, position) + 1


class _LineCounter:
    """Line numbers of increasing positions in one text, counting each newline once."""

    def __init__(self, text: str):
        self.text, self.position, self.line = text, 0, 1

    def __call__(self, position: int) -> int:
        self.line += self.text.count("\n", self.position, position)
        self.position = position
        return self.line
