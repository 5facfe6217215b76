"""kernel/syntax.py, the one CUDA reader: the cases the choice between it and tree-sitter was decided on
(issue 15, item 5), read the same way by kernel discovery, the review, the parameter fixer and the
editors' colours."""

import tomllib
from pathlib import Path

import pytest

from kt_tui.kernel.params import apply_renames, check_params
from kt_tui.kernel.review import review
from kt_tui.kernel.source import SourceError, find_kernels
from kt_tui.kernel.syntax import code_text, dead_spans, highlights, strip_comments, tokens

from ..conftest import EXAMPLES

ROOT = Path(__file__).resolve().parents[2]
FIXTURES = Path(__file__).resolve().parents[1] / "fixtures" / "kernel_tuner_examples"
VECTOR_ADD = (EXAMPLES / "vector_add.cu").read_text()

# source -> [(kernel, parameter names, templated)]; a comment names what the regex reader answered
DISCOVERY = [
    ("template<typename T> __global__ void k(T* a) { a[0] = 0; }", [("k", ["a"], True)]),
    ("template <int B, typename T>\n__global__ void k(T* a, int n) {}", [("k", ["a", "n"], True)]),
    ('extern "C" __global__ void k(float* a) {}', [("k", ["a"], False)]),
    ('extern "C" {\n__global__ void k(float* a) {}\n}', [("k", ["a"], False)]),
    ("__global__ void __launch_bounds__(256, 2) k(float* a, int n) {}", [("k", ["a", "n"], False)]),
    # an explicit instantiation (the regex reader named it "float"; tree-sitter found no kernel)
    (
        "template __global__ void vector_add<float>(float*, float*, float*, int);",
        [("vector_add", ["", "", "", ""], False)],
    ),
    (
        "template<typename T> __global__ void vector_add(T* c, T* a, T* b, int n) {}\n"
        "template __global__ void vector_add<float>(float*, float*, float*, int);",
        [("vector_add", ["c", "a", "b", "n"], True)],
    ),
    # `#if 0` groups are not compiled (both other readers found "dead")
    ("#if 0\n__global__ void dead(float* a) {}\n#endif\n__global__ void live(float* a) {}", [("live", ["a"], False)]),
    (
        "#if 1\n__global__ void one(float* a) {}\n#else\n__global__ void other(float* a) {}\n#endif",
        [("one", ["a"], False)],
    ),
    (
        "#if 0\n#ifdef X\n#else\n#endif\n__global__ void dead(float* a) {}\n#else\n__global__ void live(float* a) {}\n"
        "#endif",
        [("live", ["a"], False)],
    ),
    (
        "#if 0\n__global__ void dead(float* a) {}\n#elif 1\n__global__ void live(float* a) {}\n#else\n"
        "__global__ void later(float* a) {}\n#endif",
        [("live", ["a"], False)],
    ),
    # a condition that is not the literal 0 may hold: both groups count
    (
        "#ifdef USE_A\n__global__ void a(float* x) {}\n#else\n__global__ void b(float* x) {}\n#endif",
        [("a", ["x"], False), ("b", ["x"], False)],
    ),
    ("#if 0 \\\n || 1\n__global__ void k(float* a) {}\n#endif", [("k", ["a"], False)]),
    ("#if 0 /* a comment */\n__global__ void dead(float* a) {}\n#endif", []),
    # macro bodies are not kernels (the regex reader found "name"; tree-sitter "KERNEL(k)")
    ("#define KERNEL(name) __global__ void name(float* a)\n__global__ void k(float* a) {}", [("k", ["a"], False)]),
    (
        "#define IDX(i, j) \\\n  ((i) * N + (j))\n__global__ void k(float* a) { a[IDX(1, 2)] = 0; }",
        [("k", ["a"], False)],
    ),
    # literals and comments (the regex reader found "fake" in the strings, nothing after a "/*" string)
    ('const char* s = "__global__ void fake(int x)";\n__global__ void k(float* a) {}', [("k", ["a"], False)]),
    ('const char* r = R"x(__global__ void fake() )x";\n__global__ void k(float* a) {}', [("k", ["a"], False)]),
    ('const char* r = R"(\n__global__ void fake(int x) {}\n)";\n__global__ void k(float* a) {}', [("k", ["a"], False)]),
    ('const char* s = "/*";\n__global__ void k(float* a) {}\nconst char* t = "*/";', [("k", ["a"], False)]),
    (
        "// __global__ void c(int x)\n/* __global__ void d(int y) */\n__global__ void k(float* a) {}",
        [("k", ["a"], False)],
    ),
    ('__global__ void k(float* a) { asm volatile("mov.u32 %0, %%laneid;" : "=r"(a[0])); }', [("k", ["a"], False)]),
    ('#include "__global__ void fake(int x).h"\n__global__ void k(float* a) {}', [("k", ["a"], False)]),
    # code still being typed (tree-sitter turned this into one ERROR node and lost both kernels)
    (
        "__global__ void k(float* a, int n) {\n  int i = threadIdx.x +\n  if (i < n) a[i] = \n}\n"
        "__global__ void k2(float* b) { }",
        [("k", ["a", "n"], False), ("k2", ["b"], False)],
    ),
    ("__global__ void k(float* a) {}\n/* still typing", [("k", ["a"], False)]),
    ('__global__ void k(float* a) { printf("abc\n}\n', [("k", ["a"], False)]),
]


@pytest.mark.parametrize("src, expected", DISCOVERY)
def test_kernel_discovery_reads_code_as_the_compiler_does(src, expected):
    found = [(k.name, [p.name for p in k.params], k.templated) for k in find_kernels(src)]
    assert found == expected


def test_blanked_code_keeps_line_numbers():
    src = '#if 0\n__global__ void dead(float* a) {}\n#endif\nconst char* s = "/*";\n__global__ void k(float* a) {}\n'
    assert find_kernels(src)[0].line == 5
    assert code_text(src).count("\n") == src.count("\n") and len(code_text(src)) == len(src)


def test_kernel_tuner_examples_are_read_whole():
    found = {p.name: [k.name for k in find_kernels(p.read_text())] for p in sorted(FIXTURES.glob("*.cu"))}
    assert found == {
        "convolution.cu": ["convolution_kernel", "convolution_naive"],
        "host_add.cu": ["add_kernel"],
        "matmul.cu": ["matmul_kernel"],
        "reduction.cu": ["sum_floats"],
        "stencil.cu": ["stencil_kernel"],
        "zeromeanfilter.cu": ["computeMeanVertically", "computeMeanHorizontally"],
    }


def test_every_prefix_of_a_kernel_reads_without_a_crash():
    """The editor lexes what the user is still typing: any prefix gives tokens, colours and kernels or
    a SourceError, never another exception."""
    src = (FIXTURES / "convolution.cu").read_text()
    for end in range(0, len(src), 7):
        part = src[:end]
        tokens(part)
        highlights(part)
        try:
            find_kernels(part)
        except SourceError:
            pass


def test_dead_spans_cover_the_skipped_groups_only():
    src = "a\n#if 0\nb\n#else\nc\n#endif\nd\n"
    ((start, end),) = dead_spans(src)
    assert src[start:end] == "#if 0\nb\n"


def test_strip_comments_leaves_comment_marks_inside_strings():
    src = 'printf("http://x"); int y; /* gone */'
    assert strip_comments(src) == 'printf("http://x"); int y;' + " " * 11


# -- the review reads the same code -----------------------------------------------------------
def kinds(flags):
    return sorted(f.kind for f in flags)


def test_a_string_holding_a_comment_start_hides_no_kernel_from_the_review():
    added = 'const char* s = "/*";\n__global__ void evil(float* p) { p[0] = 0; }\nconst char* t = "*/";\n'
    flags = review(VECTOR_ADD, VECTOR_ADD + added, "vector_add")
    assert any(f.kind == "extra_kernel" and "evil" in f.message for f in flags)


def test_the_kernel_inside_if_0_is_missing():
    flags = review(VECTOR_ADD, "#if 0\n" + VECTOR_ADD + "#endif\n", "vector_add")
    assert "missing_kernel" in kinds(flags)


def test_kernels_in_macro_bodies_and_if_0_groups_are_still_flagged():
    for added in (
        "#define K(name) __global__ void name(float* p)\nK(evil) {}\n",
        "#if 0\n__global__ void evil(float* p) {}\n#endif\n",
    ):
        flags = review(VECTOR_ADD, VECTOR_ADD + added, "vector_add")
        assert "extra_kernel" in kinds(flags), added


def test_the_review_does_not_flag_asm_or_printf_spelled_inside_strings():
    added = '__device__ const char* note = "asm(\\"trap;\\") printf(x) system(y)";\n'
    flags = review(VECTOR_ADD, VECTOR_ADD + added, "vector_add")
    assert not {"inline_asm", "printf", "host_api"} & set(kinds(flags))


# -- the parameter fixer reads the same code -------------------------------------------------
def test_a_multi_line_raw_string_is_not_renamed():
    src = '__global__ void k(float* a) {\n  const char* doc = R"(\nblocksize\n)";\n  a[threadIdx.x] = blocksize;\n}\n'
    report = check_params(src, {"block_size_x": [32, 64]})
    assert report.renames == {"blocksize": "block_size_x"}
    fixed = apply_renames(src, report.renames)
    assert 'R"(\nblocksize\n)"' in fixed and "a[threadIdx.x] = block_size_x;" in fixed


# -- the editors colour from the same lexer ----------------------------------------------------
def styles(src):
    return {
        (row, src.split("\n")[row].encode()[a:b].decode(), name) for row, a, b, name in highlights(src) if b is not None
    }


def test_highlights_keywords_types_and_calls_but_not_inside_comments_and_strings():
    src = '__global__ void k(float* a) { /* __global__ */ printf("__global__"); }'
    got = styles(src)
    assert (0, "__global__", "keyword") in got and (0, "float", "type.builtin") in got
    assert (0, "/* __global__ */", "comment") in got and (0, '"__global__"', "string") in got
    assert (0, "printf", "function.call") in got
    assert sum(1 for _, text, name in got if text == "__global__") == 1


def test_highlights_directives_multi_line_comments_and_utf8_columns():
    src = "#include <cstdio>\n/* é\nstill */ int x;"
    got = highlights(src)
    assert (0, 0, 1, "keyword") in got and (0, 1, 8, "keyword") in got
    assert (1, 0, None, "comment") in got and (2, 0, 8, "comment") in got
    assert (1, 0, None, "comment") in got
    assert (2, 9, 12, "type.builtin") in got
    assert styles("// é\nint x;") >= {(1, "int", "type.builtin")}


async def test_the_kernel_editor_colours_with_the_reader_and_follows_edits():
    from textual.app import App

    from kt_tui.ui.cuda_syntax import CudaArea
    from kt_tui.ui.editors import KernelEditScreen

    class Host(App):
        def on_mount(self):
            self.push_screen(
                KernelEditScreen("__global__ void k(float *x) { x[0] = 1.0f; }", {"block_size_x": [32]}, [])
            )

    app = Host()
    async with app.run_test() as pilot:
        await pilot.pause()
        area = app.screen.query_one("#edit-code", CudaArea)
        assert (0, 10, "keyword") in area._highlights[0]
        await pilot.press("/", "/")  # the whole line becomes a comment
        await pilot.pause()
        assert [name for _, _, name in area._highlights[0]] == ["comment"]
        await pilot.press("escape")


def test_tree_sitter_is_declared_and_read_only_by_the_draft_parser():
    deps = tomllib.loads((ROOT / "pyproject.toml").read_text())["project"]["dependencies"]
    assert sorted(d.split(">")[0] for d in deps if d.startswith("tree-sitter")) == ["tree-sitter", "tree-sitter-cuda"]
    users = [p.relative_to(ROOT).as_posix() for p in (ROOT / "kt_tui").rglob("*.py") if "tree_sitter" in p.read_text()]
    assert users == ["kt_tui/kernel/cuda_ast.py"]  # the lexer, review and colours stay on syntax.py


def test_an_enum_in_a_comment_declares_nothing():
    src = "/* enum { TILE_W = 4 }; typedef int WIDTH; */\n__global__ void k(float* a) { a[0] = TILE_W + WIDTH; }\n"
    assert check_params(src, {}).used_undeclared == ["TILE_W", "WIDTH"]


def test_a_skipped_group_is_coloured_as_a_comment():
    src = "#if 0\n__global__ void dead(float* a) {}\n#endif\n__global__ void live(float* a) {}"
    got = styles(src)
    assert (0, "if", "keyword") in got and (2, "endif", "keyword") in got
    assert (1, "__global__", "comment") in got and (3, "__global__", "keyword") in got
    assert not [x for x in got if x[0] == 1 and x[2] != "comment"]


async def test_the_spec_editor_shows_the_kernel_in_the_same_colours():
    from textual.app import App

    from kt_tui.kernel.source import Kernel
    from kt_tui.ui.cuda_syntax import CudaArea
    from kt_tui.ui.setup_screens import SpecEditScreen

    class Host(App):
        def on_mount(self):
            self.push_screen(
                SpecEditScreen(
                    'kernel = "k"\n', Path("k.cu.toml"), Kernel("k", (), 1), source="// k\n__global__ void k() {}\n"
                )
            )

    app = Host()
    async with app.run_test() as pilot:
        await pilot.pause()
        area = app.screen.query_one("#spec-source", CudaArea)
        assert area._highlights[0] == [(0, 4, "comment")] and (0, 10, "keyword") in area._highlights[1]


@pytest.mark.parametrize(
    "added, kind",
    [
        ('const char* s = R"(\n#include "/etc/passwd"\n)";\n', "include"),  # a raw string's line is read as one
        ('#if 0\n#include "/etc/passwd"\n#endif\n', "include"),
        ('#include /* a\n */ "/etc/passwd"\n', "include"),
        ('#define X 1 /* \\\n*/ \n#include "/etc/passwd"\n', "include"),
        ('#if 0\nasm("trap;");\n#endif\n', "inline_asm"),
        ('#if 0\n__device__ void f() { printf("x"); }\n#endif\n', "printf"),
    ],
)
def test_the_review_stays_conservative_where_discovery_skips_code(added, kind):
    """Kernel discovery skips `#if 0` groups and literals; the safety flags never do."""
    assert kind in kinds(review(VECTOR_ADD, VECTOR_ADD + added, "vector_add"))
