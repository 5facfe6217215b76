"""The compile pools (gpu/device/pools.py, gpu/device/sharedpool.py): NVRTC's compiles in processes
of their own, which start once per owner and die with it, and nvcc's on threads."""


def test_nvrtc_compiles_run_in_processes_of_their_own_and_nvcc_ones_on_threads():
    import os
    import time

    from kt_tui.gpu.device.pools import CompilePool

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

    from kt_tui.gpu.device.sharedpool import Server

    server = Server.__new__(Server)
    reader, writer = mp.Pipe(duplex=False)
    writer.close()
    server.reader = reader
    assert server.wait(timeout=1) is False


def test_a_gpu_workers_own_compile_processes_serve_every_job_of_its_session():
    import os
    import time

    from kt_tui.gpu.device import pools

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

    from kt_tui.gpu.device.pools import CompilePool

    pool = CompilePool(100_000)  # KT_TUI_PREFETCH_WORKERS=100000: not a hundred thousand processes
    try:
        assert 1 <= pool.size <= len(os.sched_getaffinity(0))
        assert CompilePool(8, cores=[3, 4]).size == 2
    finally:
        pool.shutdown()


def test_a_compile_process_started_by_a_thread_that_ended_keeps_compiling():
    """ProcessPoolExecutor starts a process on whichever thread submits when none is idle, and the
    compile server's threads end with their connections: the process must outlive that thread
    (it was killed with it, the pool broke, and every compile after it ran on the server's threads)."""
    import multiprocessing as mp
    import os
    import threading
    from concurrent.futures import ProcessPoolExecutor

    from kt_tui.gpu.device.pools import _child_setup

    from ..helpers import compile_pid

    pool = ProcessPoolExecutor(
        1, mp_context=mp.get_context("spawn"), initializer=_child_setup, initargs=(None, os.getpid())
    )
    try:
        got: list = []
        first = threading.Thread(target=lambda: got.append(pool.submit(compile_pid).result(timeout=60)))
        first.start()  # the pool has no process yet: this thread starts it
        first.join()
        assert got and got[0] != os.getpid()
        for _ in range(3):  # the thread is gone; its process serves on
            assert pool.submit(compile_pid).result(timeout=30) == got[0]
    finally:
        pool.shutdown(cancel_futures=True)


def test_the_compile_server_starts_its_processes_when_the_app_picks_nvrtc():
    """They take a second to start (the first compiles of a session ran on the server's threads
    meanwhile): they start when the app picks nvcuda (GpuPool.prepare), before the first compile."""
    import os
    import time

    from kt_tui.gpu.device.sharedpool import Plan, Server
    from kt_tui.gpu.supervise import children

    cores = sorted(os.sched_getaffinity(0))
    server = Server(Plan(len(cores), [], cores[-1:], 1))
    try:
        assert server.wait()
        time.sleep(1)
        assert not _compilers(children(server.proc.pid))  # pycuda's compiles need none
        server.start_processes()
        deadline = time.monotonic() + 60
        while time.monotonic() < deadline and not _compilers(children(server.proc.pid)):
            time.sleep(0.1)
        assert _compilers(children(server.proc.pid))  # nothing was asked of it yet
    finally:
        server.close()


def _compilers(pids: list[int]) -> list[int]:
    """Those of `pids` that are a process pool's workers (not multiprocessing's resource tracker)."""
    out = []
    for pid in pids:
        try:
            with open(f"/proc/{pid}/cmdline", "rb") as f:
                cmd = f.read()
        except OSError:
            continue
        if b"spawn_main" in cmd and b"resource_tracker" not in cmd:
            out.append(pid)
    return out


def test_a_compile_two_workers_ask_the_server_for_runs_once(tmp_path):
    """Half of a share handed over (gpu/dealing.py): the worker that takes it asks for compiles the
    other asked for already; the server waits on those. One that failed is compiled again."""
    import os
    from concurrent.futures import wait

    from kt_tui.gpu.device.sharedpool import Plan, Server, SharedPool

    from ..helpers import counted_compile

    cores = sorted(os.sched_getaffinity(0))
    server = Server(Plan(len(cores), [], cores[-1:], 2))
    try:
        assert server.wait()
        giver, taker = (SharedPool(server.address, server.authkey, 4) for _ in range(2))
        log = str(tmp_path / "calls")
        asked = [giver.submit(counted_compile, log, "a", 0.3), taker.submit(counted_compile, log, "a", 0.3)]
        asked += [taker.submit(counted_compile, log, "b", 0.0)]
        wait(asked, timeout=30)
        assert [f.result() for f in asked] == ["cubin of a", "cubin of a", "cubin of b"]
        assert giver.submit(counted_compile, log, "a", 0.3).result() == "cubin of a"  # done: kept
        with open(log) as f:
            assert sorted(f.read().split()) == ["a", "b"]
        for _ in range(2):  # one after the other: the second is asked once the first has failed
            assert isinstance(giver.submit(counted_compile, log, "fail", 0.0).exception(timeout=30), RuntimeError)
        with open(log) as f:
            assert f.read().split().count("fail") == 2
        giver.shutdown()
        taker.shutdown()
    finally:
        server.close()


def test_the_servers_memory_of_compiles_is_bounded_in_count_and_bytes():
    from concurrent.futures import ThreadPoolExecutor

    from kt_tui.gpu.device.sharedpool import Recent

    recent = Recent()
    recent.KEEP, recent.KEEP_BYTES = 3, 1000
    with ThreadPoolExecutor(2) as pool:
        for i in range(6):
            recent.submit(pool, bytes, (10,)).result()  # the same ask: kept once
            recent.submit(pool, str, (i,)).result()
        assert len(recent.futures) <= 3 and list(recent.sizes.values()).count(10) <= 1
        recent.KEEP = 100
        for i in range(20):
            recent.submit(pool, bytes, (300 + i,)).result()  # 300 bytes and more each
        assert sum(recent.sizes.values()) <= 1000 and len(recent.futures) <= 4


def test_a_compile_the_server_cancelled_is_compiled_again_when_asked():
    import threading
    from concurrent.futures import ThreadPoolExecutor

    from kt_tui.gpu.device.sharedpool import Recent

    recent, hold = Recent(), threading.Event()
    with ThreadPoolExecutor(1) as pool:
        pool.submit(hold.wait, 10)  # the one thread is busy: the next ask waits in the queue
        queued = recent.submit(pool, bytes, (4,))
        assert queued.cancel()
        hold.set()
        assert recent.submit(pool, bytes, (4,)).result(timeout=10) == bytes(4)
