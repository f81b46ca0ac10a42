"""Where the tasks run: a local process pool, or a Ray cluster. Both keep a bounded number of tasks in flight and
hand each result to `collect` in the parent."""

from __future__ import annotations

import contextlib
import os

from ..errors import CoachError
from .options import BatchOptions
from .progress import ProgressLine
from .task import Job, VideoProgress, _ray_task, analyse_task, worker_init


def _run_pool(jobs, opts: BatchOptions, workers: int, collect, crashed, bar: ProgressLine, task) -> None:
    """Local processes. A worker that dies (a segfault in a native decoder, the OOM killer) breaks the pool:
    the videos it was running are retried one at a time at the end, and one that kills its worker alone is
    reported as failed — the rest of the batch goes on."""
    import multiprocessing as mp
    from concurrent.futures import FIRST_COMPLETED, ProcessPoolExecutor, wait
    from concurrent.futures.process import BrokenProcessPool

    task = task or analyse_task
    ctx = mp.get_context("spawn")
    queue = ctx.Queue()
    limit = max(1, workers * opts.in_flight_per_worker)
    jobs = iter(jobs)
    retry: list[Job] = []  # videos whose worker died while they ran: each is tried again alone, at the end

    def new_pool(n: int) -> ProcessPoolExecutor:
        return ProcessPoolExecutor(
            max_workers=n,
            mp_context=ctx,
            initializer=worker_init,
            initargs=(queue, opts.threads_per_worker, os.getpid()),
        )

    def drain() -> None:
        while True:
            try:
                msg: VideoProgress = queue.get_nowait()
            except Exception:
                return
            j = running_jobs.get(msg.key)
            if j is not None:
                bar.update(msg.key, j.size, msg.covered_s, msg.total_s)

    pool = new_pool(workers)
    pending: dict = {}
    running_jobs: dict[int, Job] = {}
    normal_done = False

    def submit(job: Job) -> None:
        pending[pool.submit(task, job)] = job
        running_jobs[job.key] = job

    def fill() -> None:
        nonlocal normal_done
        while not normal_done and len(pending) < limit:
            job = next(jobs, None)
            if job is None:
                normal_done = True
                break
            submit(job)
        if normal_done and not pending and retry:
            submit(retry.pop(0))  # a suspect, alone: if the pool breaks now, it was this video

    def lost(job: Job) -> None:
        running_jobs.pop(job.key, None)
        if job.attempts:  # it already ran alone
            crashed(job, "the worker analysing it died (a crash in a native library, or out of memory)")
        else:
            job.attempts += 1
            retry.append(job)

    try:
        while True:
            fill()
            if not pending:
                break
            bar.in_flight = len(pending)
            done, _ = wait(pending, timeout=0.3, return_when=FIRST_COMPLETED)
            drain()
            bar.draw()
            broken = False
            for fut in done:
                job = pending.pop(fut)
                try:
                    res = fut.result()
                except BrokenProcessPool:
                    broken = True
                    lost(job)
                    continue
                except Exception as e:  # a task that raised although it should not: report, carry on
                    running_jobs.pop(job.key, None)
                    crashed(job, f"{type(e).__name__}: {e}".splitlines()[0])
                    continue
                running_jobs.pop(job.key, None)
                collect(job, res)
            if broken:
                for fut in list(pending):  # the rest of the broken pool's work
                    lost(pending.pop(fut))
                pool.shutdown(wait=False, cancel_futures=True)
                pool = new_pool(workers)
    except BaseException:
        _kill_pool(pool)
        raise
    finally:
        pool.shutdown(wait=True, cancel_futures=True)
        queue.close()
        queue.join_thread()


def _kill_pool(pool) -> None:
    """Stop the workers now (Ctrl-C): a running video would otherwise be finished first."""
    procs = list((getattr(pool, "_processes", None) or {}).values())
    pool.shutdown(wait=False, cancel_futures=True)
    for p in procs:
        with contextlib.suppress(Exception):
            p.terminate()


def _run_ray(jobs, opts: BatchOptions, workers: int, collect, crashed, bar: ProgressLine, task) -> None:
    """The same task on a Ray cluster (`pip install .[ray]`). Joins `opts.address` ("auto", "ray://…") or
    a Ray instance this process already started; otherwise starts a local one with `workers` CPUs. The video
    paths must be readable at the same absolute path on every node (shared storage); results come back here
    and the parent writes the store, as with local processes."""
    try:
        import ray
    except ImportError:
        raise CoachError(None, "--engine ray needs Ray: pip install 'shejing-coach[ray]'") from None
    started = False
    if not ray.is_initialized():
        kw = {"address": opts.address} if opts.address else {"num_cpus": workers, "include_dashboard": False}
        try:
            ray.init(log_to_driver=False, **kw)
        except (ConnectionError, RuntimeError, ValueError) as e:
            raise CoachError(opts.address, f"cannot connect to the Ray cluster ({e})") from None
        started = True
    remote = ray.remote(num_cpus=opts.threads_per_worker, max_retries=1)(task or _ray_task)
    cluster_cpus = int(ray.cluster_resources().get("CPU", workers))
    limit = max(1, cluster_cpus * opts.in_flight_per_worker)
    jobs = iter(jobs)
    pending: dict = {}
    exhausted = False
    try:
        while True:
            while not exhausted and len(pending) < limit:
                job = next(jobs, None)
                if job is None:
                    exhausted = True
                    break
                pending[remote.remote(job)] = job
            if not pending:
                break
            bar.in_flight = len(pending)
            ready, _ = ray.wait(list(pending), num_returns=1, timeout=0.5)
            bar.draw()
            for ref in ready:
                job = pending.pop(ref)
                try:
                    res = ray.get(ref)
                except Exception as e:  # the worker died, or the task could not run there
                    crashed(job, f"Ray task failed: {type(e).__name__}: {str(e).splitlines()[0] if str(e) else ''}")
                    continue
                collect(job, res)
    except BaseException:
        for ref in pending:
            with contextlib.suppress(Exception):
                ray.cancel(ref, force=True)
        raise
    finally:
        if started:
            ray.shutdown()
