"""A complex output is compared part by part: casting it to integers (as integer outputs are)
dropped the imaginary part and every fraction, so a wrong complex output passed."""

import numpy as np

from kt_tui.compare import compare


def test_a_wrong_imaginary_part_fails():
    ref = np.array([0.25 + 0.5j, 1.5 - 2.25j, 3 + 0j], np.complex64)
    out = ref.copy()
    out[1] = 1.5 + 2.25j
    v = compare("spectrum", ref, out, 1e-6, 1e-6)
    assert not v["ok"]
    assert v["first_bad"] == 1
    assert v["mismatches"] == 1
    assert v["max_abs_err"] == 4.5


def test_a_fraction_wrong_in_the_real_part_fails_and_equal_outputs_pass():
    ref = np.array([0.25 + 0.5j, 0.75 + 0j], np.complex128)
    assert compare("z", ref, ref.copy(), 1e-9, 0.0)["ok"]
    out = ref.copy()
    out[0] = 0.5 + 0.5j
    v = compare("z", ref, out, 1e-9, 0.0)
    assert not v["ok"] and v["first_bad"] == 0
