"""Compile ahead: while the GPU measures one configuration, a thread pool compiles the next ones.

kernel_tuner compiles each configuration when it reaches it, one after another; NVRTC plus the
driver's PTX JIT are most of the time a configuration costs. For the nvcuda backend we compile
the upcoming kernel strings straight to a cubin for this GPU on worker threads (NVRTC is
thread-safe per program) and let kernel_tuner's compile step load that cubin instead. A compile
that fails ahead of time is simply done again the normal way, so errors read as they always do.
"""

from __future__ import annotations

import os
from concurrent.futures import Future, ThreadPoolExecutor

WINDOW = 24  # configurations compiled ahead of the one being measured


class Prefetcher:
    def __init__(self, runner):
        from cuda.bindings import driver, nvrtc  # noqa: F401 - fail here when the backend is not nvcuda

        self.runner = runner
        self.backend = runner.dev.dev
        self.pool = ThreadPoolExecutor(max_workers=max(1, min(8, (os.cpu_count() or 2) - 1)))
        self.ahead: dict[str, Future] = {}
        self.queued: set[tuple] = set()
        self.options = self._options()
        self.original = self.backend.compile
        self.backend.compile = self.compile

    @staticmethod
    def usable(runner) -> bool:
        backend = getattr(getattr(runner, "dev", None), "dev", None)
        return type(backend).__name__ == "CudaFunctions" and not getattr(runner, "simulation_mode", False)

    def _options(self) -> list[bytes]:
        from kernel_tuner.utils.nvcuda import find_cuda_home, to_valid_nvrtc_gpu_arch_cc

        opts = [o for o in self.backend.compiler_options if not o.startswith(("-arch", "--arch", "--gpu-architecture"))]
        if not any(o.startswith(("-std=", "--std=")) for o in opts):
            opts.append("--std=c++11")
        opts.append(f"--gpu-architecture=sm_{to_valid_nvrtc_gpu_arch_cc(self.backend.cc)}")
        home = find_cuda_home()
        if home:
            opts.append(f"-I{os.path.join(home, 'include')}")
        return [o.encode() for o in opts]

    def upcoming(self, params_list: list[dict]) -> None:
        """Queue these configurations (in the order they will run), at most WINDOW ahead."""
        dev, r = self.runner.dev, self.runner
        for params in params_list:
            key = tuple(params.values())
            if key in self.queued:
                continue
            if sum(not f.done() for f in self.ahead.values()) >= WINDOW:
                return
            self.queued.add(key)
            instance = dev.create_kernel_instance(r.kernel_source, r.kernel_options, params, False)
            if not hasattr(instance, "kernel_string") or instance.kernel_string in self.ahead:
                continue
            self.ahead[instance.kernel_string] = self.pool.submit(_cubin, instance.kernel_string, instance.name,
                                                                  self.options)

    def compile(self, instance):
        future = self.ahead.pop(instance.kernel_string, None)
        if future is None:
            return self.original(instance)
        try:
            cubin, lowered = future.result()
        except Exception:  # noqa: BLE001 - compiled again below, where kernel_tuner reports it as usual
            return self.original(instance)
        from cuda.bindings import driver

        b = self.backend
        import numpy as np
        err, b.current_module = driver.cuModuleLoadData(np.char.array(cubin))
        if err != driver.CUresult.CUDA_SUCCESS:
            return self.original(instance)
        err, b.func = driver.cuModuleGetFunction(b.current_module, lowered)
        if err != driver.CUresult.CUDA_SUCCESS:
            return self.original(instance)
        err, b.num_regs = driver.cuFuncGetAttribute(driver.CUfunction_attribute.CU_FUNC_ATTRIBUTE_NUM_REGS, b.func)
        return b.func

    def close(self) -> None:
        self.backend.compile = self.original
        self.pool.shutdown(wait=False, cancel_futures=True)


def _cubin(source: str, name: str, options: list[bytes]) -> tuple[bytes, bytes]:
    from cuda.bindings import nvrtc

    def check(result):
        err, *rest = result if isinstance(result, tuple) else (result,)
        if err != nvrtc.nvrtcResult.NVRTC_SUCCESS:
            raise RuntimeError(f"nvrtc: {err}")
        return rest[0] if len(rest) == 1 else rest

    program = check(nvrtc.nvrtcCreateProgram(source.encode(), b"kt_tui", 0, [], []))
    try:
        check(nvrtc.nvrtcAddNameExpression(program, name.encode()))
        check(nvrtc.nvrtcCompileProgram(program, len(options), options))
        size = check(nvrtc.nvrtcGetCUBINSize(program))
        buf = b" " * size
        check(nvrtc.nvrtcGetCUBIN(program, buf))
        lowered = check(nvrtc.nvrtcGetLoweredName(program, name.encode()))
        return buf, lowered
    finally:
        nvrtc.nvrtcDestroyProgram(program)
