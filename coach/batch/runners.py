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
    _PoolRun(jobs, opts, workers, collect, crashed, bar, task or analyse_task).run()


class _PoolRun:
    """One batch on a local process pool: the jobs in flight, the videos to retry alone, the pool itself
    (replaced when a dying worker breaks it) and the workers' progress queue."""

    def __init__(self, jobs, opts: BatchOptions, workers: int, collect, crashed, bar: ProgressLine, task) -> None:
        import multiprocessing as mp

        self._ctx = mp.get_context("spawn")
        self._queue = self._ctx.Queue()
        self._opts, self._workers, self._task = opts, workers, task
        self._collect, self._crashed, self._bar = collect, crashed, bar
        self._limit = max(1, workers * opts.in_flight_per_worker)
        self._jobs = iter(jobs)
        self._retry: list[Job] = []  # videos whose worker died while they ran: each is tried again alone, at the end
        self._pending: dict = {}  # future -> job
        self._running: dict[int, Job] = {}  # job key -> job, for the progress messages
        self._all_submitted = False
        self._pool = self._new_pool()

    def run(self) -> None:
        from concurrent.futures import FIRST_COMPLETED, wait

        try:
            while True:
                self._fill()
                if not self._pending:
                    break
                self._bar.in_flight = len(self._pending)
                done, _ = wait(self._pending, timeout=0.3, return_when=FIRST_COMPLETED)
                self._drain()
                self._bar.draw()
                if self._finish(done):
                    self._replace_broken_pool()
        except BaseException:
            _kill_pool(self._pool)
            raise
        finally:
            self._pool.shutdown(wait=True, cancel_futures=True)
            self._queue.close()
            self._queue.join_thread()

    def _new_pool(self):
        from concurrent.futures import ProcessPoolExecutor

        return ProcessPoolExecutor(
            max_workers=self._workers,
            mp_context=self._ctx,
            initializer=worker_init,
            initargs=(self._queue, self._opts.threads_per_worker, os.getpid()),
        )

    def _drain(self) -> None:
        """Hand the workers' progress messages to the progress line."""
        while True:
            try:
                msg: VideoProgress = self._queue.get_nowait()
            except Exception:
                return
            job = self._running.get(msg.key)
            if job is not None:
                self._bar.update(msg.key, job.size, msg.covered_s, msg.total_s)

    def _submit(self, job: Job) -> None:
        self._pending[self._pool.submit(self._task, job)] = job
        self._running[job.key] = job

    def _fill(self) -> None:
        while not self._all_submitted and len(self._pending) < self._limit:
            job = next(self._jobs, None)
            if job is None:
                self._all_submitted = True
                break
            self._submit(job)
        if self._all_submitted and not self._pending and self._retry:
            self._submit(self._retry.pop(0))  # a suspect, alone: if the pool breaks now, it was this video

    def _finish(self, done) -> bool:
        """Collect the finished futures; True when one of them found the pool broken."""
        from concurrent.futures.process import BrokenProcessPool

        broken = False
        for fut in done:
            job = self._pending.pop(fut)
            try:
                res = fut.result()
            except BrokenProcessPool:
                broken = True
                self._lost(job)
                continue
            except Exception as e:  # a task that raised although it should not: report, carry on
                self._running.pop(job.key, None)
                self._crashed(job, f"{type(e).__name__}: {e}".splitlines()[0])
                continue
            self._running.pop(job.key, None)
            self._collect(job, res)
        return broken

    def _lost(self, job: Job) -> None:
        self._running.pop(job.key, None)
        if job.attempts:  # it already ran alone
            self._crashed(job, "the worker analysing it died (a crash in a native library, or out of memory)")
        else:
            job.attempts += 1
            self._retry.append(job)

    def _replace_broken_pool(self) -> None:
        for fut in list(self._pending):  # the rest of the broken pool's work
            self._lost(self._pending.pop(fut))
        self._pool.shutdown(wait=False, cancel_futures=True)
        self._pool = self._new_pool()


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
