"""The compile pools (gpu/worker/pools.py, gpu/worker/sharedpool.py): NVRTC's compiles in processes
of their own, which start once per owner and die with it, and nvcc's on threads."""


def test_nvrtc_compiles_run_in_processes_of_their_own_and_nvcc_ones_on_threads():
    import os
    import time

    from kt_tui.gpu.worker.pools import CompilePool

    from ..helpers import compile_pid

    pool = CompilePool(2)
    try:
        assert pool.submit(os.getpid).result() == os.getpid()  # nvcc's: a thread that waits for nvcc
        first = pool.submit(compile_pid).result()  # while the processes start: a thread here
        deadline = time.monotonic() + 60
        while (pid := pool.submit(compile_pid).result()) == os.getpid() and time.monotonic() < deadline:
            time.sleep(0.05)
        assert first == os.getpid() and pid != os.getpid()
        assert pool.submit(os.getpid).result() == os.getpid()
    finally:
        pool.shutdown()


def test_the_compile_processes_die_with_the_process_that_made_them_killed_or_not():
    import multiprocessing as mp
    import os
    import signal
    import time

    from ..helpers import pool_children

    ctx = mp.get_context("spawn")
    queue = ctx.Queue()
    owner = ctx.Process(target=pool_children, args=(queue,))
    owner.start()
    try:
        children = queue.get(timeout=60)
        assert children and all(_alive(p) for p in children)
        os.kill(owner.pid, signal.SIGKILL)  # as the app kills the compile server, or a user kills the app
        owner.join(10)
        deadline = time.monotonic() + 10
        while any(_alive(p) for p in children) and time.monotonic() < deadline:
            time.sleep(0.1)
        assert not any(_alive(p) for p in children)  # no orphan holds the GPU host's cores or the app's stderr
    finally:
        owner.kill()


def _alive(pid: int) -> bool:
    try:
        with open(f"/proc/{pid}/stat") as f:
            return f.read().split(")")[-1].split()[0] != "Z"
    except OSError:
        return False


def test_a_compile_server_that_died_before_listening_is_said_not_up():
    import multiprocessing as mp

    from kt_tui.gpu.worker.sharedpool import Server

    server = Server.__new__(Server)
    reader, writer = mp.Pipe(duplex=False)
    writer.close()
    server.reader = reader
    assert server.wait(timeout=1) is False


def test_a_gpu_workers_own_compile_processes_serve_every_job_of_its_session():
    import os
    import time

    from kt_tui.gpu.worker import pools

    from ..helpers import compile_pid

    first, second = pools.own_pool(2), pools.own_pool(2)
    try:
        assert first.pool is second.pool  # one pool for the worker's life: its processes start once
        deadline = time.monotonic() + 60
        while first.submit(compile_pid).result() == os.getpid() and time.monotonic() < deadline:
            time.sleep(0.05)
        slow = [first.submit(time.sleep, 0.2) for _ in range(8)]
        first.shutdown(wait=True, cancel_futures=True)  # one job ends: its queued calls go, the pool stays
        assert any(f.cancelled() for f in slow) and all(f.done() for f in slow)
        assert second.submit(compile_pid).result() != os.getpid()
    finally:
        second.shutdown()
        pools._OWN.pop(2).shutdown()


def test_a_pool_asked_for_more_processes_than_cores_starts_no_more_than_the_cores():
    import os

    from kt_tui.gpu.worker.pools import CompilePool

    pool = CompilePool(100_000)  # KT_TUI_PREFETCH_WORKERS=100000: not a hundred thousand processes
    try:
        assert 1 <= pool.size <= len(os.sched_getaffinity(0))
        assert CompilePool(8, cores=[3, 4]).size == 2
    finally:
        pool.shutdown()
