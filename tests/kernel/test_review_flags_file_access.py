"""Every preprocessor spelling that reads or probes a file is flagged, and flagged code is not compiled
before approval (the hostile tester's i_trig, i_has and i_line cases among them)."""

import pytest

from kt_tui.kernel.review import review
from kt_tui.store import Store

from ..conftest import EXAMPLES
from ..engine.test_review_before_compile import compiles, one_prompt  # noqa: F401  (compiles is a fixture)

ORIGINAL = (EXAMPLES / "vector_add.cu").read_text()
SECRET = "/tmp/hostile/secret.txt"

SPELLINGS = [
    f'%:include "{SECRET}"',  # i_trig: the digraph of #
    f'%:  include "{SECRET}"',
    f'  %:include_next "{SECRET}"',
    f'#if __has_include("{SECRET}")\n#define X 1\n#endif',  # i_has: a file-existence oracle
    f'%:if __has_include_next("{SECRET}")\n%:endif',
    f"#if defined(__has_include) && __has_include(<{SECRET}>)\n#endif",
    f'#line 1 "{SECRET}"\n#error boom',  # i_line
    f'# 1 "{SECRET}"',
    f'_Pragma("GCC dependency \\"{SECRET}\\"")',
    f'#pragma GCC dependency "{SECRET}"',
    '#define P(x) _Pragma(#x)\nP(GCC dependency "/etc/passwd")',
    '#define H(a, b) a##b\n#if H(__has_, include)("/etc/passwd")\n#endif',
    '%:define H(a, b) a%:%:b\n%:if H(__ha, s_include)("/etc/passwd")\n%:endif',
    f'int z;\r#include "{SECRET}"',  # a lone CR ends a line for nvcc
    f'#include "{SECRET}" \\\n',
    f'const char *s = "/*";\n#include "{SECRET}"\n// */',  # a comment start inside a string hides nothing
    f'int xR = 0; const char *t = xR"(";\n#include "{SECRET}"\n//)";',
    f'#\f include "{SECRET}"',
    f'#inc\\  \nlude "{SECRET}"',
]


@pytest.mark.parametrize("added", SPELLINGS)
def test_every_spelling_that_reads_or_probes_a_file_is_flagged(added):
    flags = [f for f in review(ORIGINAL, added + "\n" + ORIGINAL, "vector_add") if f.kind == "include"]
    assert flags, added


@pytest.mark.parametrize("kept", ["#pragma unroll 4", '_Pragma("unroll")', "#line 20", "#include <cuda_fp16.h>"])
def test_harmless_or_unchanged_directives_are_not_path_flags(kept):
    flags = [f for f in review(kept + "\n" + ORIGINAL, kept + "\n" + ORIGINAL, "vector_add") if f.kind == "include"]
    assert flags == []


def test_the_line_of_a_digraph_include_is_its_line_in_the_source():
    code = 'int a;\n#define L \\\n  1\n%:include "/etc/passwd"\n' + ORIGINAL
    flags = [f for f in review(ORIGINAL, code, "vector_add") if f.kind == "include"]
    assert [f.line for f in flags] == [4]


@pytest.mark.parametrize("added", [SPELLINGS[0], SPELLINGS[4], SPELLINGS[7]])
def test_digraph_probe_and_line_spellings_are_not_compiled_before_approval(capsys, hermetic, compiles, added):
    code, out = one_prompt(capsys, hermetic, added + "\n" + ORIGINAL)
    gate = Store(hermetic / "sessions.db").gate(out["session"], "kernel:one-prompt").body
    assert gate["flags"] and gate["compile"].get("deferred")
    assert not [s for s in compiles if SECRET in s]
    assert out["steps"][-1]["state"] == "skipped"
