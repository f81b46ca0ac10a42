"""A batch worker analyses video after video with a decoder and the model on threads of their own; glibc gives
such threads arenas of their own and keeps what is freed in each, so the worker grew with every video
(benchmarks/batch_scaling.py --many). Its initializer caps the arenas (`few_malloc_arenas`)."""

from __future__ import annotations

import platform
import subprocess
import sys

import pytest

from coach.batch.task import MALLOC_ARENAS

pytestmark = pytest.mark.skipif(
    platform.system() != "Linux" or platform.libc_ver()[0] != "glibc", reason="glibc's malloc arenas"
)

_THREADS_ALLOCATE = """
import ctypes, sys, threading
import numpy as np
from coach.batch.task import worker_init
worker_init(None, 1, None, int(sys.argv[1]))
together = threading.Barrier(8)
def work():
    kept = [np.ones(4096 + i) for i in range(50)]  # 32 kB each: from the thread's arena, not mmap
    together.wait()  # all eight threads hold memory at once
threads = [threading.Thread(target=work) for _ in range(8)]
for t in threads: t.start()
for t in threads: t.join()
libc = ctypes.CDLL("libc.so.6")
libc.fopen.restype = ctypes.c_void_p
out = libc.fopen(sys.argv[2].encode(), b"w")
libc.malloc_info(0, ctypes.c_void_p(out))
libc.fclose(ctypes.c_void_p(out))
"""


def _arenas(tmp_path, arenas: int) -> int:
    """The malloc arenas a process with `arenas` set by worker_init has after eight threads allocated at once."""
    info = tmp_path / f"malloc_info_{arenas}.xml"
    subprocess.run([sys.executable, "-c", _THREADS_ALLOCATE, str(arenas), str(info)], check=True, timeout=120)
    return info.read_text().count("<heap nr=")


def test_a_batch_worker_keeps_to_a_few_malloc_arenas(tmp_path):
    assert _arenas(tmp_path, 0) > MALLOC_ARENAS  # glibc's default: an arena for each thread that allocates
    assert _arenas(tmp_path, MALLOC_ARENAS) <= MALLOC_ARENAS
