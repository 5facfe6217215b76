"""Kernel text checked and normalised before anything reads it (issue 22, item 3): a leading UTF-8 BOM
is dropped (kernel_tuner puts its #defines first, and nvcc rejects a BOM after them); NUL and other
control characters (all but tab, newline, carriage return and form feed) are refused with their line,
because gcc's preprocessor skips a NUL that hides a directive from a reader of the raw text;
`folded()` gives the review the text after the preprocessor's first phases; and `compile_options()`
names the language every compile uses, C++17, in which those phases are the ones `folded()` does:
no trigraphs (issue 36, item 1: `// note ??/` splices the next line into the comment only in C++14)."""

from __future__ import annotations

import re

from ..errors import UserError

BOM = "\ufeff"
_CONTROL = re.compile(r"[\x00-\x08\x0b\x0e-\x1f\x7f\u202a-\u202e\u2066-\u2069]")
# the bidirectional embeddings, overrides and isolates: an editor or a terminal shows the code around
# them in another order than the compiler reads it ("Trojan Source"), so a reviewer reads other code
# The language standard of every compile of a kernel (the offline check, the GPU worker's backends,
# the checks, the sanitizer, an exported script): without it kernel_tuner's nvcuda and cupy backends
# ask NVRTC for C++11, where `??/` is a backslash. A spec may name C++17 or later (kernel/spec_keys.py).
STANDARD = "-std=c++17"


class KernelTextError(UserError, ValueError):
    """Kernel text that is refused; the message names where and the line."""


def control_character(text: str) -> tuple[int, str] | None:
    """(1-based line, description) of the first refused control character, or None."""
    m = _CONTROL.search(text)
    if m is None:
        return None
    if m[0] == "\0":
        name = "a NUL byte"
    elif m[0] >= "\u202a":
        name = f"the bidirectional control U+{ord(m[0]):04X} (it shows the code in another order than nvcc reads it)"
    else:
        name = f"the control character U+{ord(m[0]):04X}"
    return text.count("\n", 0, m.start()) + 1, name


def kernel_text(text: str, where: str = "kernel") -> str:
    """`text` without a leading BOM; KernelTextError when it holds a refused control character."""
    text = text.removeprefix(BOM)
    found = control_character(text)
    if found:
        line, name = found
        raise KernelTextError(
            f"{where}: line {line}: {name}; CUDA source must be plain text "
            "(of the control characters only tab, newline, carriage return and form feed are allowed)"
        )
    return text


def compile_options(options: list[str] | tuple[str, ...] | None) -> list[str]:
    """`options` with the language standard first unless they name one (C++17 or later)."""
    options = list(options or [])
    return options if any(o.startswith(("-std=", "--std=")) for o in options) else [STANDARD, *options]


def folded(text: str) -> str:
    """What the C++17 preprocessor reads after line splices and the `%:` digraph of `#` (`??/` is
    plain text: trigraphs are gone from C++17; a lone CR ends a line), with line numbers kept: a spliced line is joined and
    the newlines it lost follow it, so everything after it stays on its own line."""
    text = text.replace("\r\n", "\n").replace("\r", "\n")  # a lone CR ends a line for nvcc too
    out, pending, lines = [], 0, text.split("\n")
    for i, line in enumerate(lines):
        last = i == len(lines) - 1  # a backslash at the very end splices nothing
        kept = line.rstrip(" \t\f\v")
        if not last and kept.endswith("\\"):
            out.append(kept[:-1])
            pending += 1
        else:
            out.append(line + "\n" * pending + ("" if last else "\n"))
            pending = 0
    return "".join(out).replace("%:%:", "##").replace("%:", "#")


_QUALIFIERS = r"(?:__global__|void|__launch_bounds__\s*\([^;{}()]*\))"


def instantiations_wrapped(source: str, kernel: str) -> str:
    """`source` as kernel_tuner can wrap the template `kernel` ("name<T, 64>"): its wrapper turns the
    template's `__global__` into `__device__`, instantiates it itself and calls it from an `extern
    "C"` kernel, so an explicit instantiation in the file (`template __global__ void name<float>(float
    *, int);`, `extern template ...`, with `__launch_bounds__`, common in libraries) would redeclare it
    `__global__` or instantiate it twice, and nvcc refuses. Those statements are blanked with spaces
    (lines, columns and a macro's line continuations kept). So is a declaration of the template before
    its definition (`template <typename T> __global__ void name(T *, int);`): it would stay `__global__`
    beside a `__device__` definition, and kernel_tuner's pattern would read the parameters from the
    declaration to the definition. Anything else, and a kernel that is no template, is left as it is."""
    if "<" not in kernel:
        return source
    name = re.escape(kernel.split("<", 1)[0].strip())
    qualified = rf"(?=(?:{_QUALIFIERS}\s*)*?__global__)(?:{_QUALIFIERS}\s*)+\b{name}\s*"
    instantiation = rf"(?:\bextern\s+)?\btemplate\s+{qualified}(?:<[^;{{}}]*>)?\s*\([^;{{}}]*\)\s*;"
    declaration = rf"\btemplate\s*<[^;{{}}]*?>\s*{qualified}\([^;{{}}]*\)\s*;"
    blank = lambda m: _BLANK.sub(lambda c: c.group(1) or " ", m.group(0))  # noqa: E731
    return re.sub(declaration, blank, re.sub(instantiation, blank, source))


_BLANK = re.compile(r"(\\\n)|[^\n]")  # a line continuation kept, any other character but a newline a space
