"""Ranges and values read off an argument's name (kernel/draft_names.py), on kernels written here: each
category drafts its range and says the word it rests on; a range or value the code gave (a sign test, an
index, a root, a stencil step) beats the name; a name that means nothing, or a word that makes the value
signed, leaves the draft as it was; identifiers split into the words a reader reads; a 10,000-character
identifier and 5,000 parameters stay bounded work."""

from __future__ import annotations

from kt_tui.kernel import cuda_ast, draft_names
from kt_tui.kernel.draft_floats import FLOAT_SCALARS
from kt_tui.kernel.spec import Arg
from kt_tui.kernel.spec_model import random_bounds

from .test_draft_shapes import _draft

HEAD = """
__global__ void k({params}, const float *x, int n, float *y) {{
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i < 1 || i >= n - 1) return;
{body}
}}"""


def _arg(params: str, body: str, name: str):
    d = _draft(HEAD.format(params=params, body=body))
    arg = next(a for a in d.spec.args if a.name == name)
    return d, arg, [why for key, why in d.guesses if key == f"args.{name}"]


def _bare(monkeypatch, params: str, body: str):
    """The draft without the pass, and with it."""
    with_names = _draft(HEAD.format(params=params, body=body))
    monkeypatch.setattr(draft_names, "fit", lambda *a, **k: None)
    return _draft(HEAD.format(params=params, body=body)), with_names


def test_identifiers_split_into_words():
    assert draft_names.split("d_particleMass2") == ["d", "particle", "mass", "2"]
    assert draft_names.split("HTTPServerPort") == ["http", "server", "port"]
    assert draft_names.split("inv_sigma") == ["inv", "sigma"]
    assert draft_names.split("runningVar") == ["running", "var"]
    assert draft_names.split("__x__") == ["x"]


def test_the_head_word_after_prefixes_and_containers_decides():
    assert draft_names.meaning("d_mass_in", True)[0] == "mass"
    assert draft_names.meaning("particleMasses", True)[0] == "mass"
    assert draft_names.meaning("radii", True)[1].noun == "a radius"
    assert draft_names.meaning("h_probs", True)[1].category == "unit"
    assert draft_names.meaning("inv_sigma", True)[1].category == "positive"
    assert draft_names.meaning("mass_ratio", True) is None  # a ratio, not a mass
    assert draft_names.meaning("log_mass", True) is None  # log-domain: any sign
    assert draft_names.meaning("density_grad", True) is None
    assert draft_names.meaning("signed_dist", True) is None
    assert draft_names.meaning("volume", True) is None  # voxel data, of any sign
    assert draft_names.meaning("volume", False)[1].category == "positive"
    assert draft_names.meaning("random", True) is None  # random what: an adjective
    assert draft_names.meaning("vars", True) is None  # conserved variables, not variances
    assert draft_names.meaning("m", True) is None  # one letter says nothing
    assert draft_names.meaning("d", True) is None
    assert draft_names.meaning("dt", False)[1].category == "step"
    assert draft_names.meaning("dt", True) is None  # an array dt is a gradient as often as a step
    assert draft_names.meaning("alpha", True)[1].category == "unit"
    assert draft_names.meaning("alpha", False) is None  # a scalar alpha is a rate, a shape, a scale


def test_a_positive_quantity_is_drawn_above_0_and_says_its_word():
    _, arg, said = _arg("const float *mass", "    y[i] = mass[i] * x[i];", "mass")
    low, high = random_bounds(arg, {})
    assert 0 < low < high
    assert any("from the name `mass`" in w and "positive" in w for w in said)


def test_a_probability_is_drawn_in_0_1():
    _, arg, said = _arg("const float *d_probs", "    y[i] = d_probs[i] * x[i];", "d_probs")
    assert random_bounds(arg, {}) == (0.0, 1.0)
    assert any("`prob`" in w for w in said)


def test_an_int_count_array_is_drawn_from_0_without_becoming_an_index():
    _, arg, said = _arg("const int *counts", "    y[i] = (float)counts[i] * x[i];", "counts")
    low, high = random_bounds(arg, {})
    assert low == 0 and high > 1
    assert any("not negative" in w for w in said)


def test_a_made_up_tolerance_becomes_tiny():
    _, arg, said = _arg("float tol", "    y[i] = x[i] * tol;", "tol")
    assert arg.value == draft_names.TOLERANCE["float32"]
    assert any("from the name `tol`" in w for w in said)


def test_a_made_up_time_step_becomes_small():
    _, arg, said = _arg("float dt, const float *v", "    y[i] = x[i] + dt * v[i];", "dt")
    assert arg.value == draft_names.TIME_STEP
    assert any("from the name `dt`" in w and "small" in w for w in said)


def test_a_probability_that_divides_is_drawn_below_1():
    d, arg, said = _arg("float keep_prob", "    y[i] = x[i] / keep_prob;", "keep_prob")
    assert 0 < arg.value < 1 and arg.value in FLOAT_SCALARS
    assert any("[0, 1)" in w for w in said)


def test_a_sign_test_beats_the_name(monkeypatch):
    body = "    y[i] = density[i] < 0.f ? 0.f : density[i] * x[i];"
    bare, named = _bare(monkeypatch, "const float *density", body)
    assert named.spec.to_dict() == bare.spec.to_dict()


def test_an_index_array_named_as_a_count_keeps_its_index_range(monkeypatch):
    bare, named = _bare(monkeypatch, "const int *counts", "    y[i] = x[counts[i]];")
    assert named.spec.to_dict() == bare.spec.to_dict() and named.guesses == bare.guesses


def test_a_root_beats_the_name(monkeypatch):
    bare, named = _bare(monkeypatch, "const float *prob", "    y[i] = sqrtf(prob[i]) * x[i];")
    assert named.spec.to_dict() == bare.spec.to_dict() and named.guesses == bare.guesses


def test_a_stencil_step_beats_the_name_of_a_tolerance(monkeypatch):
    body = "    y[i] = x[i] + eps * (x[i - 1] - 2.f * x[i] + x[i + 1]);"
    bare, named = _bare(monkeypatch, "float eps", body)
    assert named.spec.to_dict() == bare.spec.to_dict() and named.guesses == bare.guesses
    assert next(a for a in named.spec.args if a.name == "eps").value not in draft_names.TOLERANCE.values()


def test_a_name_that_means_nothing_leaves_the_draft(monkeypatch):
    params = "const float *foo, const float *log_mass, const int *ids, float bar, float gain"
    body = "    y[i] = foo[i] * log_mass[i] * (float)ids[i] * x[i] * bar / gain;"
    bare, named = _bare(monkeypatch, params, body)
    assert named.spec.to_dict() == bare.spec.to_dict() and named.guesses == bare.guesses


def test_a_long_identifier_is_not_read():
    name = "mass_" * 2000  # 10,000 characters
    assert draft_names.split(name) == [] and draft_names.meaning(name, True) is None
    assert draft_names.split("a" * 10_000) == []


def test_five_thousand_parameters_take_one_reading_each(monkeypatch):
    args = [Arg(name=f"mass{k}", type="float32", size="n", init="random") for k in range(5000)]
    src = HEAD.format(params="const float *a", body="    y[i] = a[i];")
    d = _draft(src)
    d.spec.args = args
    calls = [0]
    meaning = draft_names.meaning

    def counted(name, array):
        calls[0] += 1
        return meaning(name, array)

    monkeypatch.setattr(draft_names, "meaning", counted)
    guesses: list[tuple[str, str]] = []
    draft_names.fit(d.spec, cuda_ast.parse(src).kernels["k"], {}, guesses)
    assert calls[0] == 5000 and len(guesses) == 5000
    assert all(a.init == "positive" for a in args)


def test_a_sign_test_through_a_local_or_an_absolute_value_beats_the_name(monkeypatch):
    body = "    float m = (float)mass[i];\n    y[i] = (m >= 0.0f ? x[i] : -x[i]) + fabsf(dist[i]);"
    bare, named = _bare(monkeypatch, "const float *mass, const float *dist", body)
    assert named.spec.to_dict() == bare.spec.to_dict() and named.guesses == bare.guesses
