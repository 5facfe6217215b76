"""kt_tui.kernel.source: reading .cu files and finding their __global__ kernels."""

import pytest

from kt_tui.kernel.source import Kernel, Param, SourceError, find_kernels, pick_kernel, read_source


# -- read_source ---------------------------------------------------------------------------
def test_read_source_good_file(tmp_path):
    p = tmp_path / "k.cu"
    p.write_text("__global__ void k(float *x) {}\n", encoding="utf-8")
    assert read_source(p) == "__global__ void k(float *x) {}\n"
    assert read_source(str(p)) == "__global__ void k(float *x) {}\n"


def test_read_source_missing_file(tmp_path):
    p = tmp_path / "nope.cu"
    with pytest.raises(SourceError, match="no such file") as e:
        read_source(p)
    assert str(p) in str(e.value)


def test_read_source_directory(tmp_path):
    with pytest.raises(SourceError, match="is a directory") as e:
        read_source(tmp_path)
    assert str(tmp_path) in str(e.value)


def test_read_source_binary_file(tmp_path):
    p = tmp_path / "k.o"
    p.write_bytes(b"\x7fELF\x00\x00\x01__global__")
    with pytest.raises(SourceError, match="binary") as e:
        read_source(p)
    assert str(p) in str(e.value)


def test_read_source_not_utf8(tmp_path):
    p = tmp_path / "k.cu"
    p.write_bytes(b"\xff\xfe__global__")
    with pytest.raises(SourceError, match="not UTF-8") as e:
        read_source(p)
    msg = str(e.value)
    assert str(p) in msg and "byte 0" in msg


# -- find_kernels --------------------------------------------------------------------------
def test_find_kernels_ignores_comments():
    src = (
        "// __global__ void old_line(float *a)\n"
        "/* __global__ void old_block(float *a)\n"
        "   spans lines */\n"
        "__global__ void live(float *a, int n) { /* __global__ void inner(int x) */ }\n"
    )
    ks = find_kernels(src)
    assert [k.name for k in ks] == ["live"]
    assert ks[0].line == 4  # the block comment's newlines are kept


def test_find_kernels_line_numbers_and_order():
    src = "\n\n__global__ void first(int a) {}\n\n__global__ void second(int b) {}\n"
    ks = find_kernels(src)
    assert [(k.name, k.line) for k in ks] == [("first", 3), ("second", 5)]


def test_find_kernels_template():
    src = "template <int BS, typename T>\n__global__ void k(T *x, int n) {}\n__global__ void plain(int n) {}\n"
    ks = {k.name: k for k in find_kernels(src)}
    assert ks["k"].templated is True
    assert ks["plain"].templated is False
    assert [p.name for p in ks["k"].params] == ["x", "n"]


def test_find_kernels_extern_c():
    ks = find_kernels('extern "C" __global__ void scale(float *x, float a) {}\n')
    assert len(ks) == 1
    assert ks[0].name == "scale"
    assert [p.name for p in ks[0].params] == ["x", "a"]


def test_find_kernels_launch_bounds_before_name():
    for src in (
        "__global__ void __launch_bounds__(256) k(float *x, int n) {}",
        "__global__ void __launch_bounds__(256, 2) k(float *x, int n) {}",
        "__global__ __launch_bounds__(128) void k(float *x, int n) {}",
    ):
        ks = find_kernels(src)
        assert [k.name for k in ks] == ["k"], src
        assert [p.name for p in ks[0].params] == ["x", "n"], src


def test_find_kernels_restrict_params():
    (k,) = find_kernels("__global__ void k(float * __restrict__ out, const float* __restrict__ in, int n) {}")
    out, inp, n = k.params
    assert (out.name, out.is_pointer, out.base_type) == ("out", True, "float")
    assert (inp.name, inp.is_pointer, inp.base_type) == ("in", True, "float")
    assert "const" in inp.ctype and "__restrict__" in inp.ctype
    assert (n.name, n.is_pointer, n.base_type) == ("n", False, "int")


def test_find_kernels_array_params():
    (k,) = find_kernels("__global__ void k(float x[], int idx[16], unsigned int n) {}")
    x, idx, n = k.params
    assert x.name == "x" and x.is_pointer and x.base_type == "float"
    assert idx.name == "idx" and idx.is_pointer and idx.base_type == "int"
    assert n.name == "n" and not n.is_pointer and n.base_type == "unsigned int"


def test_find_kernels_declaration_and_definition_once():
    src = "__global__ void k(float *x, int n);\n\n__global__ void k(float *x, int n) { x[0] = n; }\n"
    ks = find_kernels(src)
    assert len(ks) == 1
    assert ks[0].name == "k" and ks[0].line == 1
    assert [p.name for p in ks[0].params] == ["x", "n"]


def test_find_kernels_declaration_with_unnamed_params():
    src = "__global__ void k(float*, int);\n__global__ void k(float *x, int n) { x[0] = n; }\n"
    ks = find_kernels(src)
    assert [k.name for k in ks] == ["k"]


def test_find_kernels_no_params_and_void():
    ks = find_kernels("__global__ void a() {}\n__global__ void b(void) {}\n")
    assert [(k.name, k.params) for k in ks] == [("a", ()), ("b", ())]


def test_find_kernels_none():
    assert find_kernels("__device__ float f(float x) { return x; }\n// __global__ void k()\n") == []


def test_find_kernels_unbalanced_parens():
    with pytest.raises(SourceError, match="unbalanced"):
        find_kernels("__global__ void k(float *x, int n\n")


# -- Param -----------------------------------------------------------------------------------
@pytest.mark.parametrize(
    "ctype,pointer,base",
    [
        ("float *", True, "float"),
        ("const float * __restrict__", True, "float"),
        ("const volatile unsigned int*", True, "unsigned int"),
        ("int", False, "int"),
        ("const double", False, "double"),
        ("float &", False, "float"),
    ],
)
def test_param_pointer_and_base_type(ctype, pointer, base):
    p = Param("x", ctype)
    assert p.is_pointer is pointer
    assert p.base_type == base


# -- pick_kernel -----------------------------------------------------------------------------
def _k(name):
    return Kernel(name, (Param("x", "float *"),), 1)


def test_pick_kernel_none():
    with pytest.raises(SourceError, match="no __global__ kernel") as e:
        pick_kernel([], None, "k.cu")
    assert "k.cu" in str(e.value)


def test_pick_kernel_single():
    k = _k("only")
    assert pick_kernel([k], None, "k.cu") is k
    assert pick_kernel([k], "only", "k.cu") is k


def test_pick_kernel_several_without_name():
    with pytest.raises(SourceError, match="several kernels") as e:
        pick_kernel([_k("alpha"), _k("beta")], None, "k.cu")
    assert "alpha" in str(e.value) and "beta" in str(e.value)


def test_pick_kernel_named():
    a, b = _k("alpha"), _k("beta")
    assert pick_kernel([a, b], "beta", "k.cu") is b
    assert pick_kernel([a, b], "alpha", "k.cu") is a


def test_pick_kernel_unknown_name():
    with pytest.raises(SourceError, match="no kernel named 'gamma'") as e:
        pick_kernel([_k("alpha"), _k("beta")], "gamma", "k.cu")
    assert "alpha, beta" in str(e.value)


def test_a_parameter_named_like_a_type_name_that_is_no_keyword_keeps_its_name():
    """`int half` is an int named half (it was read as an unnamed `int half`, and spec --check said ok
    with no argument for it); `half x` and an unnamed `const half` still read as before."""
    k = find_kernels("__global__ void f(float *a, int half, size_t size_t_n, __half h, const half) {}")[0]
    assert [(p.name, p.ctype) for p in k.params] == [
        ("a", "float *"),
        ("half", "int"),
        ("size_t_n", "size_t"),
        ("h", "__half"),
        ("", "const half"),
    ]
