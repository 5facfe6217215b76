"""lang="C" calls: kernel_tuner times a host function, which launches a CUDA kernel itself
(`name<<<grid, threads>>>(...)`). kt-tui tunes CUDA kernels, so the import offers the kernel that the
host function launches, when what that kernel is given can be read from the host function's own
parameters; otherwise it says which kernel that is and why it cannot be imported as-is."""

from __future__ import annotations

import re
from pathlib import Path

from ..kernel.source import SourceError, find_kernels, read_source, split_params
from .writes import functions

_LAUNCH = re.compile(r"\b([A-Za-z_]\w*)\s*(?:<[^<>;]*>)?\s*<<<([^;]*?)>>>\s*\(([^;]*)\)\s*;")
_COPY = re.compile(
    r"\bcudaMemcpy(?:Async)?\s*\(\s*([A-Za-z_]\w*)\s*,\s*([A-Za-z_]\w*)\s*,[^;]*cudaMemcpy(HostToDevice|DeviceToHost)"
)
_TO_SYMBOL = re.compile(r"\bcudaMemcpyToSymbol(?:Async)?\s*\(\s*([A-Za-z_]\w*)\s*,\s*([^,]+?)\s*,")


class NotLaunchable(Exception):
    pass


def _files(src: str, extra: list[Path]) -> list[tuple[str, str]]:
    out = [("the same file", src)]
    for f in extra:
        try:
            out.append((f.name, read_source(f)))
        except SourceError:
            continue
    return out


def launched_kernel(call: dict, src: str, extra: list[Path]) -> tuple[dict, str, list[str]]:
    """(the call for the launched CUDA kernel, its file's text, notes); NotLaunchable says why not."""
    host = call["kernel_name"]
    defs = functions(src).get(host)
    if not defs:
        raise NotLaunchable(f"the host function {host} is not in the first source file")
    fn = defs[-1]
    launches = _LAUNCH.findall(fn.body)
    if len(launches) != 1:
        raise NotLaunchable(
            f"the host function {host} launches {len(launches) or 'no'} CUDA kernels"
            + (f" ({', '.join(k for k, _, _ in launches)})" if launches else "")
            + ": kt-tui imports one"
        )
    name, _, args = launches[0]
    where = next(((f, text) for f, text in _files(src, extra) if any(k.name == name for k in find_kernels(text))), None)
    offer = f"the host function {host} launches the CUDA kernel {name}" + (f" ({where[0]})" if where else "")
    if where is None:
        raise NotLaunchable(f"{offer}, whose source is not among the files given")
    index = {p: i for i, p in enumerate(fn.params)}
    for to, frm, way in _COPY.findall(fn.body):  # cudaMemcpy(d_x, x, ..., HostToDevice): d_x stands for x
        device, host_param = (to, frm) if way == "HostToDevice" else (frm, to)
        if host_param in index:
            index.setdefault(device, index[host_param])
    mapped = []
    for a in split_params(args):
        a = re.sub(r"^\([^()]*\)\s*", "", a.strip())  # a cast
        if a not in index:
            raise NotLaunchable(
                f"{offer}, but passes it {a!r}, which is not one of {host}'s parameters: "
                f"write a spec for {name} (kt-tui spec FILE.cu)"
            )
        mapped.append(index[a])
    cmem = []
    for symbol, source in _TO_SYMBOL.findall(fn.body):
        if source.strip() not in index or "array" not in call["args"][index[source.strip()]]:
            raise NotLaunchable(
                f"{offer}, but fills {symbol} from {source.strip()!r}, which the host code computes: "
                f"write a spec for {name} (kt-tui spec FILE.cu)"
            )
        a = call["args"][index[source.strip()]]
        cmem.append([symbol, a["array"], [a["size"]]])
    new = dict(call, kernel_name=name, lang="CUDA", args=[call["args"][i] for i in mapped])
    answer = call.get("answer")
    if answer is not None:
        lost = [i for i, a in enumerate(answer) if a is not None and i not in mapped]
        if lost:
            raise NotLaunchable(
                f"{offer}, but the answer checks {host}'s argument {lost[0]}, which the kernel is not given"
            )
        new["answer"] = [answer[i] if i < len(answer) else None for i in mapped]
        new.pop("chained", None), new.pop("chained_from", None)
    if cmem:
        new["cmem_args"] = list(call.get("cmem_args") or []) + cmem
    notes = [
        f'lang="C": {offer}; that kernel is imported, with the arguments {host} gives it'
        + (f" and {', '.join(s for s, _, _ in cmem)} filled as it does" if cmem else "")
        + f"; kernel_tuner timed all of {host} (host code, copies), kt-tui times the kernel, on the grid "
        "kernel_tuner computes for the problem size"
    ]
    if where[1] is src:
        notes.append(
            f"the kernel file still holds {host}'s host code, which nvcc compiles (--backend pycuda) and "
            "NVRTC (cupy, nvcuda) does not: remove it for those backends"
        )
    return new, where[1], notes
