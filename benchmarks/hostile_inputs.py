"""How long kt-tui's readers take on hostile kernel texts (issue 22 item 2, issue 36 item 2): each shape,
each reader, seconds on this machine. The readers are meant to be linear in the text; the quadratic
reader of issue 22 took 193 s on 20 000 blanks, a 10 000-deep macro chain 29 s to review, the template
head search 86 s. kernel_tuner reads no kernel text this way, so there is no figure of its to set beside.
tests/kernel/test_reader_is_linear.py runs the same shapes for their answers, without a clock.

usage: python benchmarks/hostile_inputs.py
"""

from __future__ import annotations

import random
import sys
import time
from collections.abc import Callable
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))

from kt_tui.files import KERNEL_MAX  # noqa: E402

VECTOR_ADD = (ROOT / "examples" / "vector_add.cu").read_text()
HEADS = 'const char *s = "' + "__global__ " * 30_000 + '";\n'  # each a head no `;` or `{` ends before k(
TEMPLATE_AFTER_HEADS = (
    HEADS
    + "template <typename T>\n__global__ void k(int n, T v, float *o) { if (n) o[0] = v.x; }\n"
    + "template __global__ void k<float4>(int, float4, float *);\n"
)
KERNEL_AFTER_HEADS = HEADS + "__global__ void k(float *o, int n) { int i = threadIdx.x; if (i < n) o[i] = 1.0f; }\n"


def four_megabytes() -> dict[str, str]:
    size = KERNEL_MAX - len(VECTOR_ADD) - 16
    rng = random.Random(22)
    return {
        "blanks": VECTOR_ADD + " " * size,
        "blanks before a non-ASCII letter": VECTOR_ADD + " " * (size - 1) + "é",
        "random bytes": bytes(rng.getrandbits(8) for _ in range(size)).decode("latin-1"),
        "unicode": "".join(rng.choice(" \té字\u00a0x(") for _ in range(size)),
    }


def shapes(n: int = 100_000) -> dict[str, str]:
    return {
        "a long line": VECTOR_ADD + "a " * n,
        "splices": VECTOR_ADD + "\\\n" * n,
        "a long word in a parameter list": VECTOR_ADD.replace("(", "(" + "a" * n + "!", 1),
        "a long word": VECTOR_ADD + "x" * n + "!",
        "blanks in a directive": VECTOR_ADD + "#define A" + " " * n + "b\n",
        "kernels in parameter lists": VECTOR_ADD + "__global__ k(" * (n // 10) + ")" * (n // 10),
        "heads without (": VECTOR_ADD + "__global__ " * (n // 10),
        "loops and printf": VECTOR_ADD + "for(a) printf(x);" * (n // 20),
        "unclosed brackets": VECTOR_ADD + "{([" * (n // 3),
        "a deep macro chain": "".join(f"#define A{k} A{k - 1}\n" for k in range(10_000, 0, -1))
        + "#define A0 asm\n"
        + VECTOR_ADD.replace("{", "{ A10000 volatile(1);", 1),
        "a macro bomb": "#define A0 x x\n"
        + "".join(f"#define A{k} A{k - 1} A{k - 1}\n" for k in range(1, 34))
        + VECTOR_ADD.replace("{", "{ A33;", 1),
        "nested macro arguments": "#define A(x) x\n" + VECTOR_ADD.replace("{", "{" + ("A(" * 150 + ")" * 150) * 600, 1),
    }


def stepped_kernels(n: int = 2000) -> dict[str, str]:
    """Kernels that step a pointer or divide sizes many times (the drafter's stepping and division rules)."""
    nested = "".join(f"for (int i{k} = 0; i{k} < n; i{k}++) {{ p += n; " for k in range(n // 10)) + "}" * (n // 10)
    divisions = (
        "int q = " + " / ".join(["w"] * n) + ";\n" + "".join(f"int q{k} = (w + {k}) / f + 1;\n" for k in range(n))
    )
    stepped = "".join("p += n; s += *p;\n" for _ in range(n))
    bodies = {
        "nested stepping loops": nested,
        "chains of divisions": divisions,
        "many steps": "for (int t = 0; t < n; t++) {\n" + stepped + "}\n",
    }
    return {
        what: "__global__ void k(const float *a, float *out, int n, int w, int f) {\n"
        "const float *p = a; float s = 0.0f;\n" + body + "out[0] = s;\n}\n"
        for what, body in bodies.items()
    }


def many_strides(n: int = 60) -> str:
    """A kernel with `n` stride parameters into one table (the drafter's layout warnings)."""
    params = ", ".join(f"long long s{k}" for k in range(n))
    body = "\n".join(f"    out[c] += tab[pick[c] * s{k} + c];" for k in range(n))
    return (
        f"__global__ void many(const float *tab, const int *pick, float *out, int cols, {params})\n{{\n"
        "    int c = blockIdx.x * blockDim.x + threadIdx.x;\n    if (c >= cols)\n        return;\n"
        f"{body}\n}}\n"
    )


# expressions whose value would take minutes and gigabytes: refused before they are computed
EXPRESSION_BOMBS = [
    "round(block_size_x, -300000000)",
    "round(5, -10**7)",
    "round(5, -(2**30))",
    "round(block_size_x, -block_size_x * 1000000)",
    "round(1.5, 10**9)",
    "int(1e308) * int(1e308)",
    "floor(1e300) + ceil(-1e300)",
    "max(" + ", ".join(["2**63"] * 40) + ")",
    "block_size_x * 2**62 * 2**62",
    "abs(-(2**63) * 4)",
]

# a spec field of examples/vector_add.cu.toml -> (its text, the same with an expression {e}, its name in messages)
BOMB_FIELDS = {
    "restrictions": ("restrictions = []", 'restrictions = ["{e} >= 0"]', "restrictions[0]"),
    "grid_div_x": ('grid_div_x = ["block_size_x"]', 'grid_div_x = ["{e}"]', "grid_div_x[0]"),
    "sizes": ("n = 16777216", 'n = 16777216\nm = "{e}"', "sizes.m"),
    "metrics": ('bytes = "3 * 4 * n"', 'bytes = "{e}"', "metrics.bytes"),
    "arg size": ('size = "n"\ninit = "random"\nseed = 1', 'size = "{e}"\ninit = "random"\nseed = 1', "(a).size"),
    "arg value": ('value = "n"', 'value = "{e}"', "(n).value"),
    "problem_size": ('problem_size = ["n"]', 'problem_size = ["{e}"]', "problem_size[0]"),
    "defines": ("iterations = 7", 'iterations = 7\n[defines]\nTILE = "{e}"', "defines.TILE"),
    "smem_size": ("iterations = 7", 'iterations = 7\nsmem_size = "{e}"', "smem_size"),
}


def bomb_spec(field: str) -> str:
    """examples/vector_add.cu.toml with a 10**300000000-sized round() in `field`."""
    old, new, _ = BOMB_FIELDS[field]
    sized = field in ("sizes", "defines", "metrics", "arg size", "arg value", "problem_size")
    bomb = "round(n, -300000000)" if sized else "round(block_size_x, -300000000)"
    text = (ROOT / "examples" / "vector_add.cu.toml").read_text()
    assert old in text, field
    return text.replace(old, new.format(e=bomb), 1)


def seconds(fn: Callable[[str], object], text: str) -> float:
    from kt_tui.kernel.source import SourceError

    start = time.perf_counter()
    try:
        fn(text)
    except SourceError:
        pass  # a refusal is an answer
    return time.perf_counter() - start


def main() -> None:
    from kt_tui.engine.backend import probe_order
    from kt_tui.kernel.draft import draft
    from kt_tui.kernel.draft_roles import template_params
    from kt_tui.kernel.review import review
    from kt_tui.kernel.source import find_kernels, kernel_alone, kernel_body
    from kt_tui.kernel.syntax import code_text, highlights, tokens

    def _review(text: str) -> object:
        return review(VECTOR_ADD, text, "vector_add")

    rows: list[tuple[str, str, float]] = []
    for what, text in four_megabytes().items():
        rows.append((f"4 MB of {what}", "tokens", seconds(tokens, text)))
    for what, text in shapes().items():
        for fn in (tokens, code_text, highlights, find_kernels, _review):
            rows.append((what, fn.__name__, seconds(fn, text)))
    rows.append(
        (
            "a template after 30 000 heads",
            "template_params",
            seconds(lambda t: template_params(t, "k"), TEMPLATE_AFTER_HEADS),
        )
    )
    rows.append(
        (
            "a template after 30 000 heads",
            "probe_order",
            seconds(lambda t: probe_order("auto", t, "k"), TEMPLATE_AFTER_HEADS),
        )
    )
    (k,) = find_kernels(KERNEL_AFTER_HEADS)
    for name, fn in (("kernel_body", kernel_body), ("kernel_alone", kernel_alone), ("draft", draft)):
        rows.append(
            (
                "a kernel after 30 000 heads",
                name,
                seconds(lambda t, f=fn: f(t, k) if f is not draft else f(k, t), KERNEL_AFTER_HEADS),
            )
        )
    rows += drafter_rows()
    print(f"{'input':<40} {'reader':<16} {'seconds':>8}")
    for what, name, took in rows:
        print(f"{what:<40} {name:<16} {took:>8.2f}")


def drafter_rows() -> list[tuple[str, str, float]]:
    """The drafter on stepped kernels and many strides, and `spec --check` on a bomb in each field."""
    import contextlib
    import io
    import tempfile

    from kt_tui import cli
    from kt_tui.kernel.draft import draft
    from kt_tui.kernel.draft_flags import layout_warnings
    from kt_tui.kernel.expr import ExprError, parse
    from kt_tui.kernel.source import find_kernels

    def value(text: str) -> None:
        try:
            parse(text, "restrictions[0]").value({"block_size_x": 256})
        except ExprError:
            pass  # the answer

    from kt_tui.gpu.env import is_secret

    rows = [(text[:40], "expression", seconds(value, text)) for text in EXPRESSION_BOMBS]
    rows.append(
        ("a 1 MB one-word setting", "is_secret", seconds(lambda t: is_secret("KT_TUI_MODEL", t), "m" * 1_000_000))
    )
    rows += [
        (what, "draft", seconds(lambda t: draft(find_kernels(t)[0], t), src)) for what, src in stepped_kernels().items()
    ]
    strides = many_strides()
    spec = draft(find_kernels(strides)[0], strides).spec
    for a in spec.args:
        if a.name.startswith("s"):
            a.value = 1
    rows.append(("60 strides", "layout_warnings", seconds(lambda t: layout_warnings(t, "many", spec), strides)))
    with tempfile.TemporaryDirectory() as tmp:
        for field in BOMB_FIELDS:
            path = Path(tmp, "bomb.toml")
            path.write_text(bomb_spec(field))
            args = ["spec", str(ROOT / "examples" / "vector_add.cu"), "--check", "--spec", str(path)]
            with contextlib.redirect_stderr(io.StringIO()), contextlib.redirect_stdout(io.StringIO()):
                rows.append((f"a round() bomb in {field}", "spec --check", seconds(lambda _, a=args: cli.main(a), "")))
    return rows


if __name__ == "__main__":
    main()
