"""A kernel version's identity besides its source: `Launch`, the launch part of a spec
(spec_model.Spec.launch), and the version id it gives a source."""

from __future__ import annotations

import hashlib
import json
from typing import Any

from pydantic import BaseModel, ConfigDict

_ARG_LAUNCH = ("name", "type", "size", "init", "value", "seed", "output")
_ARG_FILES = ("file", "low", "high", "copy_of", "function")  # in the identity only when given
_LAUNCH_SKIP = ("tune_params", "defaults", "timeout_s", "iterations", "verify_sizes", "metrics", "base_dir")


class Launch(BaseModel):
    """What makes a kernel version besides its source: the kernel's name, its arguments and how they
    are made, the launch geometry, compiler options and defines, and the data and code files the spec
    names (by their contents). Equal Launches of one source are one version."""

    model_config = ConfigDict(frozen=True)

    kernel: str
    args: tuple[dict[str, Any], ...]
    problem_size: tuple[str | int, ...]
    sizes: dict[str, int]
    grid_div_x: tuple[str, ...] | None
    grid_div_y: tuple[str, ...] | None
    grid_div_z: tuple[str, ...] | None
    block_size_names: tuple[str, ...] | None
    restrictions: tuple[str, ...]
    compiler_options: tuple[str, ...]
    defines: dict[str, str | int | float]
    defines_only: bool
    cmem_args: str | None
    reference: str | dict[str, Any] | None
    smem_size: str | int | None
    files: tuple[tuple[str, str], ...]  # (name, sha256 of its contents or "missing")

    @classmethod
    def of(cls, spec: dict[str, Any], files: list[tuple[str, str]]) -> Launch:
        """The launch part of a spec (Spec.to_dict()); `files`: (name, digest) of the files it names."""
        d = dict(spec)
        for k in (*_LAUNCH_SKIP, "verify", "verify_reason"):
            d.pop(k)
        d["args"] = tuple(
            {k: a[k] for k in _ARG_LAUNCH} | {k: a[k] for k in _ARG_FILES if a[k] is not None} for a in d["args"]
        )
        return cls.model_construct(**d, files=tuple(files))  # the spec's values, as they are

    def identity(self, legacy: bool = False) -> dict[str, Any]:
        """The dict the version id hashes; keys at their defaults are left out, so that older versions
        keep their ids (`legacy`: the dict of versions before restrictions counted)."""
        d = {k: getattr(self, k) for k in type(self).model_fields if k != "files"}
        d["args"] = [dict(a) for a in self.args]
        if legacy or not d["restrictions"]:
            d.pop("restrictions")
        for k in ("defines", "cmem_args", "reference", "smem_size"):
            if d[k] is None or d[k] == {}:
                d.pop(k)
        if not d["defines_only"]:
            d.pop("defines_only")
        return d

    def version_id(self, source: str, legacy: bool = False) -> str:
        h = hashlib.sha256(source.encode())
        h.update(json.dumps(self.identity(legacy), sort_keys=True, default=str).encode())
        for name, digest in self.files:  # data and code files: new contents, a new version
            h.update(f"{name}={digest}".encode())
        return h.hexdigest()[:16]
