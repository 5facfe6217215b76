"""JSON out of an LLM's reply, validated by a pydantic model, with repair rounds when it does not fit.

Finding the JSON is ours; repairing a found span is ours first, then json_repair's. Compared on the
replies small local models send (tests/llm/test_llm.py::REPLIES): json_repair alone got prose around a
kernel, a cuda fence before the JSON fence, truncated or mismatched brackets and replies with no JSON
wrong (it answers something for any text, e.g. '' or a list of the code's words); ours alone failed on
unquoted keys and /* */ or // comments in odd places. So: fences, <think> and the bracket scan pick
the closed spans; each span is parsed strictly (json, then json with Python words and trailing commas
fixed, then a Python literal); only when no span parses does json_repair get the longest few, and its
value counts only when it is the span's own kind (an object for {...}). A cut-off reply is still
refused, and schema validation stays strict whatever parsed."""

from __future__ import annotations

import ast
import json
import re
from collections.abc import Callable
from dataclasses import dataclass
from typing import Any

import json_repair
import pydantic

from ..errors import UserError
from .errors import MAX_REPLY_CHARS
from .prompts import echoed

# the info string is bounded and possessive, so a line of many ``` costs linear time, not quadratic
FENCE = re.compile(r"```[ \t]*+([\w+-]{0,40}+)[^\n]{0,200}+\n(.*?)(?:```|\Z)", re.S)
THINK = re.compile(r"<think>.*?(?:</think>|\Z)", re.S | re.I)
JSON_TAGS = ("", "json", "json5", "jsonc", "javascript", "js", "python", "py")
MAX_PROBLEMS = 8
EXCERPT = 1500  # a repair request quotes this much of the reply's head and of its tail
LIBRARY_TRIES = 3  # json_repair is slow on long odd text (seconds on 100 KB): only the longest spans


class ExtractError(ValueError):
    """No usable JSON in a reply; str() is a short reason."""


class StructuredReplyError(UserError):
    """A reply that does not fit the expected shape, even after repairs; `text` can be fixed by hand."""

    def __init__(self, text: str, problems: list[str]):
        super().__init__("the reply does not have the expected shape: " + "; ".join(problems))
        self.text = text
        self.problems = problems


@dataclass
class Structured:
    value: pydantic.BaseModel
    text: str
    repairs: int


def extract_json(text: str) -> object:
    """The reply's JSON value. Linear in the reply's length: each bracket span is matched once."""
    if len(text) > MAX_REPLY_CHARS:
        raise ExtractError(
            f"the reply is {len(text) // 1000} KB, over the {MAX_REPLY_CHARS // 1000} KB limit (refused)"
        )
    text = THINK.sub("", text)
    fences = list(FENCE.finditer(text))
    for m in reversed(fences):
        if m.group(1).lower() in JSON_TAGS:
            value = _parse(m.group(2).strip())
            if value is not _FAIL:
                return value
    prose = FENCE.sub(lambda m: m.group(0) if m.group(1).lower() in JSON_TAGS else "", text)
    best: tuple[int, Any] | object = _FAIL  # (length, value) of the longest span that parses
    cut_off = False
    # The longest span that parses wins: a code block's a[0] parses too, and a fence inside a
    # JSON string would be cut out of `prose`, so both texts are searched.
    for source in dict.fromkeys((prose, text)):
        for candidate in _bracketed(source):
            if candidate is None:
                cut_off = True
                continue
            value = _parse(candidate)
            if value is not _FAIL and (not isinstance(best, tuple) or len(candidate) > best[0]):
                best = (len(candidate), value)
    if best is _FAIL:
        best = _repaired(prose, text)
    if isinstance(best, tuple):
        return best[1]
    if not text.strip():
        raise ExtractError("the reply is empty")
    if cut_off:
        raise ExtractError("the JSON in the reply is not closed (was the reply cut off?)")
    if fences or "{" in text or "[" in text:
        raise ExtractError("the reply has no JSON that parses")
    raise ExtractError("the reply has no JSON object or list")


def parse_reply(
    text: str, model_cls: type[pydantic.BaseModel], normalize: Callable | None = None, check: Callable | None = None
):
    """The reply's JSON as a `model_cls` instance; StructuredReplyError says what is wrong. A reply that
    echoes the prompt's example values is wrong; so is one that `check(value)` finds problems in."""
    try:
        data = extract_json(text)
    except ExtractError as e:
        raise StructuredReplyError(text, [str(e)]) from None
    if normalize is not None:
        data = normalize(data)
    try:
        value = model_cls.model_validate(data)
    except pydantic.ValidationError as e:
        raise StructuredReplyError(text, _problems(e)) from None
    problems = echoed(data) + (list(check(value)) if check is not None else [])
    if problems:
        raise StructuredReplyError(text, problems[:MAX_PROBLEMS])
    return value


def ask_structured(
    client,
    purpose: str,
    messages: list[dict],
    model_cls: type[pydantic.BaseModel],
    max_repairs: int = 2,
    stream_to: Callable[[str], None] | None = None,
    normalize: Callable | None = None,
    check: Callable | None = None,
) -> Structured:
    """A repair round sends the first request again with an excerpt of the bad reply and its problems,
    so the conversation does not grow with each round; the final error names every round's problems."""
    first = list(messages)
    messages = first
    rounds: list[list[str]] = []
    while True:
        repairs = len(rounds)
        reply = client.complete(purpose if repairs == 0 else f"{purpose}:repair", messages, stream_to=stream_to)
        try:
            return Structured(parse_reply(reply.text, model_cls, normalize, check), reply.text, repairs)
        except StructuredReplyError as e:
            rounds.append(e.problems)
            if repairs >= max_repairs:
                if len(rounds) > 1:
                    e.problems = [f"reply {i}: {'; '.join(p)}" for i, p in enumerate(rounds, 1)]
                    e.args = ("the reply does not have the expected shape: " + " | ".join(e.problems),)
                raise
        messages = first + [
            {"role": "assistant", "content": excerpt(reply.text)},
            {
                "role": "user",
                "content": "That reply could not be used:\n"
                + "\n".join(f"- {p}" for p in rounds[-1])
                + "\nReply again with the corrected JSON only, in the shape asked for, with no other text.",
            },
        ]


def excerpt(text: str, size: int = EXCERPT) -> str:
    """The text when short; else its head and tail with how much was left out between them."""
    if len(text) <= 2 * size + 100:
        return text
    return f"{text[:size]}\n[... {len(text) - 2 * size} characters left out ...]\n{text[-size:]}"


def _problems(e: pydantic.ValidationError) -> list[str]:
    out = []
    for err in e.errors(include_url=False)[:MAX_PROBLEMS]:
        where = ".".join(str(p) for p in err["loc"]) or "top level"
        got = repr(err.get("input"))
        got = got if len(got) <= 60 else got[:57] + "..."
        out.append(f"{where}: {err['msg']} (got {got})" if err["type"] != "missing" else f"{where}: {err['msg']}")
    if e.error_count() > MAX_PROBLEMS:
        out.append(f"... and {e.error_count() - MAX_PROBLEMS} more")
    return out


_FAIL = object()


def _parse(s: str):
    """json, then json with Python literals and trailing commas fixed, then a Python literal."""
    for attempt in (
        lambda: json.loads(s, strict=False),
        lambda: json.loads(_clean(s, {"None": "null", "True": "true", "False": "false"}), strict=False),
        lambda: ast.literal_eval(_clean(s, {"null": "None", "true": "True", "false": "False"})),
    ):
        try:
            value = attempt()
        except (ValueError, SyntaxError, TypeError, RecursionError, MemoryError):
            continue
        if isinstance(value, (set, frozenset)):
            continue
        return _lists(value)
    return _FAIL


def _lists(value):
    """A Python literal's tuples as lists, at any depth (JSON has no tuples)."""
    if isinstance(value, (tuple, list)):
        return [_lists(v) for v in value]
    if isinstance(value, dict):
        return {k: _lists(v) for k, v in value.items()}
    return value


def _repaired(*sources: str):
    """(length, value) of the longest span that json_repair makes into a value of the span's own kind."""
    spans = sorted({c for source in dict.fromkeys(sources) for c in _bracketed(source) if c}, key=len, reverse=True)
    for candidate in spans[:LIBRARY_TRIES]:
        try:
            value = json_repair.repair_json(candidate, return_objects=True, skip_json_loads=True)
        except (ValueError, TypeError, RecursionError, IndexError):
            continue
        if isinstance(value, dict if candidate[0] == "{" else list) and value:
            return len(candidate), value
    return _FAIL


def _clean(s: str, words: dict[str, str]) -> str:
    """Outside string literals: swap bare words, drop trailing commas and // comments."""
    out, i, n = [], 0, len(s)
    while i < n:
        c = s[i]
        if c in "\"'":
            j = _string_end(s, i)
            out.append(s[i:j])
            i = j
        elif c == "/" and s.startswith("//", i):
            while i < n and s[i] != "\n":
                i += 1
        elif c == ",":
            j = i + 1
            while j < n and s[j] in " \t\r\n":
                j += 1
            if j >= n or s[j] not in "]}":
                out.append(c)
            i += 1
        elif c.isalpha() or c == "_":
            j = i
            while j < n and (s[j].isalnum() or s[j] == "_"):
                j += 1
            out.append(words.get(s[i:j], s[i:j]))
            i = j
        else:
            out.append(c)
            i += 1
    return "".join(out)


def _string_end(s: str, i: int) -> int:
    """Index just past the string literal that starts at s[i] (the end of s if it is not closed)."""
    quote, j = s[i], i + 1
    while j < len(s):
        if s[j] == "\\":
            j += 2
        elif s[j] == quote:
            return j + 1
        else:
            j += 1
    return len(s)


def _bracketed(text: str):
    """Each top-level {...} or [...] span, string-aware, in one pass; None for one that never closes
    (then the closed spans directly inside it stand in its place)."""
    stack: list[tuple[str, int, list]] = []  # (closer, start, (start, end) of the spans closed directly inside)
    spans: list = []
    i, n = 0, len(text)
    while i < n:
        c = text[i]
        if c in "\"'" and stack:
            i = _string_end(text, i)
            continue
        if c in "{[":
            stack.append(("}" if c == "{" else "]", i, []))
        elif c in "}]" and stack:
            closer, start, inner = stack.pop()
            if c != closer:  # everything open fails here
                spans += [None, *inner, *(s for frame in stack for s in frame[2])]
                stack = []
            else:
                (stack[-1][2] if stack else spans).append((start, i + 1))
        i += 1
    if stack:
        spans += [None, *(s for frame in stack for s in frame[2])]
    return [None if s is None else text[s[0] : s[1]] for s in spans]
