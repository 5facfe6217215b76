"""The review reads the code its macros make (issue 36, item 2): a keyword handed to a function-like
macro is flagged as the keyword, expansion is bounded (a 2**33-token bomb and a 10 000-deep chain are
refused quickly, flagged, and never compiled before approval), and macros that make nothing risky
are not flagged."""

import pytest

from kt_tui.kernel.review import review
from kt_tui.store import Store

from ..conftest import EXAMPLES
from ..engine.test_review_before_compile import compiles, one_prompt  # noqa: F401  (compiles is a fixture)

ORIGINAL = (EXAMPLES / "vector_add.cu").read_text()
BOMB = "#define A0 x x\n" + "".join(f"#define A{k} A{k - 1} A{k - 1}\n" for k in range(1, 34))


def _with(defines: str, statement: str) -> str:
    return defines + ORIGINAL.replace("if (i < n) {\n", "if (i < n) {\n" + statement + "\n")


def _kinds(code: str) -> set[str]:
    return {f.kind for f in review(ORIGINAL, code, "vector_add")}


@pytest.mark.parametrize(
    "defines,statement,kind",
    [
        ("#define A(x) x\n", 'A(asm) volatile("trap;");', "inline_asm"),
        ("#define A(x) x\n#define B A\n", 'B(__asm__)("trap;");', "inline_asm"),
        ("#define A(x, ...) x __VA_ARGS__\n", 'A(asm, volatile)("trap;");', "inline_asm"),
        ("#define CALL(f, a) f(a)\n", 'CALL(system, "ls");', "host_api"),
        ("#define A(x) x\n#define C A(\n", 'C asm) volatile("trap;");', "inline_asm"),
        ("#define P(a, b) a##b\n", 'P(as, m) volatile("trap;");', "inline_asm"),
        ("#define A(x) x\n#undef A\n#define A(x)\n", 'A(asm) volatile("trap;");', "inline_asm"),  # any definition
        ("#define M(p) p = (float *)malloc(4)\n", "float *q; M(q);", "host_api"),
    ],
)
def test_a_keyword_made_by_a_macro_is_flagged(defines, statement, kind):
    assert kind in _kinds(_with(defines, statement)), statement


def test_macros_that_make_nothing_risky_are_not_flagged():
    defines = "#define IDX(r, c, w) ((r) * (w) + (c))\n#define MAX(a, b) ((a) > (b) ? (a) : (b))\n"
    assert _kinds(_with(defines, "c[IDX(0, i, 1)] = MAX(a[i], b[i]);")) == set()


@pytest.mark.parametrize(
    "defines,statement",
    [
        (BOMB, "float z = A33;"),  # 2**34 tokens
        ("".join(f"#define A{k} A{k - 1}\n" for k in range(10_000, 0, -1)) + "#define A0 1\n", "int z = A10000;"),
        ("#define A(x) x\n", "int z = " + "A(" * 5000 + "1" + ")" * 5000 + ";"),
    ],
    ids=["bomb", "chain", "nested-arguments"],
)
def test_expansion_that_is_too_big_or_too_deep_is_flagged(defines, statement):
    flags = [f for f in review(ORIGINAL, _with(defines, statement), "vector_add") if f.kind == "macro_expansion"]
    assert flags and flags[0].line > 0 and "refused" in flags[0].message


def test_a_macro_bomb_is_not_compiled_before_approval(capsys, hermetic, compiles):
    code, out = one_prompt(capsys, hermetic, _with(BOMB, "float z = A33;"))
    gate = Store(hermetic / "sessions.db").gate(out["session"], "kernel:one-prompt").body
    assert "macro_expansion" in {f["kind"] for f in gate["flags"]}
    assert gate["compile"].get("deferred") and not [s for s in compiles if "A33" in s]
    assert out["steps"][-1]["state"] == "skipped"
