"""A first-guess launch spec from a kernel's signature, for the user to correct before anything runs."""

from __future__ import annotations

import re

from .source import Kernel
from .spec import DTYPES, Arg, Spec

_SIZE_NAMES = re.compile(r"^(n|N|size|len|length|num|count|n_?elements|num_?elements)$")


def draft_spec(kernel: Kernel, n: int = 1 << 20) -> Spec:
    """1-D guess: every pointer holds `n` elements, non-const pointers are outputs, int scalars are `n`."""
    args: list[Arg] = []
    for p in kernel.params:
        dtype = DTYPES.get(p.base_type, "float32")
        if p.is_pointer:
            is_out = "const" not in p.ctype.split("*")[0]
            args.append(Arg(name=p.name, type=dtype, size="n", init="zeros" if is_out else "random",
                            seed=len(args) + 1, output=is_out))
        elif dtype.startswith(("int", "uint")):
            value = "n" if _SIZE_NAMES.match(p.name) or not any(a.value == "n" for a in args) else 1
            args.append(Arg(name=p.name, type=dtype, init="constant", value=value))
        else:
            args.append(Arg(name=p.name, type=dtype, init="constant", value=1.0))
    if args and not any(a.output for a in args):
        for a in args:
            if a.is_array:
                a.output = True
                break
    return Spec(
        kernel=kernel.name, args=args, problem_size=["n"], sizes={"n": n},
        tune_params={"block_size_x": [32, 64, 128, 256, 512, 1024]}, defaults={"block_size_x": 256},
    )
