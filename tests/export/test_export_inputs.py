"""The inputs of an export are written a piece at a time with the values kt-tui's runs used."""

from __future__ import annotations

import zipfile
from types import SimpleNamespace

import numpy as np

from kt_tui.export.inputs import pieces, write_inputs
from kt_tui.kernel.inputs import make_args
from kt_tui.kernel.spec import parse_spec

ARGS = [
    ("out", "float32", "random", "output = true"),
    ("a", "float32", "normal", "seed = 7"),
    ("b", "float64", "uniform", "low = -3.5\nhigh = 9"),
    ("c", "float32", "positive", ""),
    ("d", "int32", "random", "low = -5\nhigh = 1000000"),
    ("e", "uint8", "random", ""),
    ("f", "int64", "positive", "seed = 3"),
    ("g", "float32", "zeros", ""),
    ("h", "float64", "ones", ""),
    ("i", "int32", "range", ""),
    ("j", "float32", "constant", "value = 2.5"),
    ("k", "float32", "poison", ""),
    ("l", "int32", "poison", ""),
    ("m", "float64", "copy", 'copy_of = "b"'),
    ("o", "int16", "copy", 'copy_of = "d"'),
]
SIZE = 1003  # not a multiple of the piece sizes below


def spec():
    text = f'kernel = "k"\nproblem_size = ["n"]\n[sizes]\nn = {SIZE}\n[tune_params]\nblock_size_x = [32]\n'
    for name, dtype, init, extra in ARGS:
        text += f'[[args]]\nname = "{name}"\ntype = "{dtype}"\nsize = "n"\ninit = "{init}"\n{extra}\n'
    text += '[[args]]\nname = "n"\ntype = "int32"\nvalue = "n"\n'
    return parse_spec(text)


def test_every_generated_kind_in_pieces_is_the_array_kt_tui_makes():
    s = spec()
    made = make_args(s)
    by_name = {a.name: a for a in s.args}
    for piece in (7, 64, 1 << 20):
        for a, want in zip(s.args, made):
            got = pieces(a, dict(s.sizes), by_name, {}, piece)
            if not a.is_array:
                assert got is None
                continue
            assert got is not None, a.name
            dtype, n, parts = got
            value = np.concatenate(list(parts))
            assert dtype == want.dtype and n == len(want) and value.dtype == want.dtype, a.name
            assert np.array_equal(value, want, equal_nan=True), (a.name, piece)


def test_the_written_npz_holds_the_made_arguments_and_the_stored_reference(tmp_path):
    s = spec()
    ref_file = tmp_path / "ref.npy"
    answer = np.arange(SIZE, dtype=np.float32) * 0.5
    np.save(ref_file, answer)
    mapped = np.load(ref_file, mmap_mode="r")
    b = SimpleNamespace(
        spec=s,
        original={"id": "v0"},
        data=SimpleNamespace(reference=lambda vid: {"out": mapped, "j": answer[:5]} if vid == "v0" else None),
    )
    path = write_inputs(b, tmp_path / "k.inputs.npz", piece=10)
    made = make_args(s)
    with np.load(path) as z:
        for i, want in enumerate(made):
            assert np.array_equal(z[f"arg{i}"], np.asarray(want), equal_nan=True), s.args[i].name
            assert z[f"arg{i}"].dtype == np.asarray(want).dtype
        assert np.array_equal(z["answer0"], answer) and z["answer0"].dtype == np.float32
        assert "answer10" not in z.files  # j is an input, not an output
    with zipfile.ZipFile(path) as zf:
        assert all(info.compress_type == zipfile.ZIP_STORED for info in zf.infolist())


def test_writing_big_inputs_holds_a_piece_of_an_array_not_the_array(tmp_path, monkeypatch):
    import tracemalloc

    from kt_tui.kernel import inputs

    monkeypatch.setattr(inputs, "CHUNK", 1 << 18)  # random arrays are drawn in parts of this many elements

    n = 1 << 22  # 16 MB of float32 each; made whole, one random array alone takes 48 MB on its way
    text = f'kernel = "k"\nproblem_size = ["n"]\n[sizes]\nn = {n}\n[tune_params]\nblock_size_x = [32]\n'
    for name, init in (("c", "poison"), ("a", "random"), ("b", "uniform")):
        text += f'[[args]]\nname = "{name}"\ntype = "float32"\nsize = "n"\ninit = "{init}"\n'
    text += 'output = true\n[[args]]\nname = "d"\ntype = "float32"\nsize = "n"\ninit = "copy"\ncopy_of = "a"\n'
    s = parse_spec(text)
    b = SimpleNamespace(spec=s, original={"id": "v0"}, data=SimpleNamespace(reference=lambda vid: None))
    tracemalloc.start()
    try:
        write_inputs(b, tmp_path / "k.inputs.npz")
        peak = tracemalloc.get_traced_memory()[1]
    finally:
        tracemalloc.stop()
    assert peak < 4 * n / 2, peak
    with np.load(tmp_path / "k.inputs.npz") as z:
        assert [z[f"arg{i}"].shape for i in range(4)] == [(n,)] * 4
        assert np.array_equal(z["arg3"], z["arg1"])
