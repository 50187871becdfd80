"""Counting the pre-tokens of a corpus in chunks, in parallel worker processes.

`pretokenize.count_pretokens` counts one text in this process. For a large
corpus we cut it into chunks of a few megabytes (at the safe cuts of
`corpus_cuts`) and let worker processes count them at once; the counts of
the chunks simply add up, so the total is exactly the whole text's.

`count_corpus` does it all for `train_bpe`: it cuts a text or a file, counts
the chunks here or in worker processes, and adds up the counts.

A file is never read whole: the parent process reads small windows to place
the cuts, and each worker reads only its own chunk. Memory therefore stays
bounded by a few chunks per worker plus the table of distinct pre-tokens.

Counting is a map (count each chunk) and a sum (add the Counters), so any
`concurrent.futures.Executor` can do the map: by default a local
`ProcessPoolExecutor`, or one you pass, such as Dask's
`distributed.Client(...).get_executor()` for a cluster. What travels to a
worker is one task per chunk: for a file, only `(path, start, end, pattern,
special tokens)`, so every worker must be able to open that same path (shared
storage); for a text, the chunk's text itself (a few megabytes). Each worker
needs `bpe_course` installed, and sends back one Counter per chunk.

>>> text = "one two\\n<|eot|>two one\\n" * 3
>>> counts = count_corpus(text, GPT4_SPLIT_PATTERN, ["<|eot|>"], 1, 8)
>>> counts == count_pretokens(text, GPT4_SPLIT_PATTERN, ["<|eot|>"])
True
"""

from __future__ import annotations

import multiprocessing
import os
import sys
import threading
from collections import Counter, deque
from concurrent.futures import Executor, ProcessPoolExecutor
from concurrent.futures.process import BrokenProcessPool
from pathlib import Path
from typing import Iterable

from tqdm.auto import tqdm

from ..patterns import GPT4_SPLIT_PATTERN  # noqa: F401 (the doctest uses it)
from ..pretokenize import count_pretokens
from ..text import fix_surrogates
from .corpus_cuts import cut_points, file_cut_points

CHUNK_BYTES = 4_000_000    # target size of one chunk
# Below this size a corpus is counted in this process unless num_workers says
# otherwise: starting workers would cost more than it saves.
PARALLEL_MIN_BYTES = 2_000_000


def count_file_chunk(path, start: int, end: int, pattern: str, specials) -> Counter:
    """Count the pre-tokens of bytes [start, end) of a UTF-8 file (runs in a worker)."""
    with open(path, "rb") as f:
        f.seek(start)
        data = f.read(end - start)
    try:
        text = data.decode("utf-8")
    except UnicodeDecodeError as e:
        raise ValueError(f"{path} is not UTF-8 text: bad byte {data[e.start]:#04x} at "
                         f"offset {start + e.start}") from None
    return count_pretokens(text, pattern, specials)


def count_text_chunk(text: str, pattern: str, specials) -> Counter:
    return count_pretokens(text, pattern, specials)


class ProgressBar(tqdm):
    """tqdm without its monitor thread: a running thread would make forking unsafe."""
    monitor_interval = 0


def start_method() -> str:
    """'fork' where it is fast and safe (Linux, no other threads), else 'spawn'.

    Subtle: forking a process that runs other threads (a Jupyter kernel, a
    Rust library's thread pool) can deadlock the child, and macOS forbids it
    for system libraries; 'spawn' starts a fresh interpreter instead (slower,
    and a script that uses it needs an `if __name__ == "__main__":` guard).
    """
    if sys.platform == "linux" and os_threads() == 1:
        return "fork"
    return "spawn"


def os_threads() -> int:
    """The threads this process runs, counted by the operating system: threads that C code
    or `_thread` started are invisible to `threading.active_count()` (pytest-xdist's, for
    one), yet make `fork` just as unsafe (Python 3.12 warns about them)."""
    try:
        return len(os.listdir("/proc/self/task"))
    except OSError:
        return threading.active_count()


def run_tasks(fn, tasks: Iterable[tuple], num_workers: int, progress=None,
              executor: Executor | None = None) -> Counter:
    """Add up the Counters `fn(*task)` over all tasks, in `num_workers` processes (1: here),
    or on `executor` (any `concurrent.futures.Executor`; it is used, not shut down).

    Tasks are made lazily and at most two per worker are in flight, so the
    chunks of a big text are not all copied at once; results are added in
    task order, so the first bad chunk of a file is the one reported.
    """
    total: Counter = Counter()
    if executor is not None:
        return add_results(executor, fn, tasks, 2 * num_workers, total, progress)
    if num_workers <= 1:
        for task in tasks:
            total.update(fn(*task))
            progress is None or progress.update()
        return total
    context = multiprocessing.get_context(start_method())
    try:
        with ProcessPoolExecutor(num_workers, mp_context=context) as pool:
            return add_results(pool, fn, tasks, 2 * num_workers, total, progress)
    except BrokenProcessPool:
        raise RuntimeError(
            "a pre-tokenization worker process died before finishing (killed, or out "
            "of memory?). Try again with num_workers=1 to count in this process.") from None


def add_results(executor: Executor, fn, tasks: Iterable[tuple], in_flight: int,
                total: Counter, progress=None) -> Counter:
    """Submit `fn(*task)` for each task, at most `in_flight` at a time, adding up the
    Counters in task order: the map and the sum of counting."""
    pending: deque = deque()
    for task in tasks:
        pending.append(executor.submit(fn, *task))
        while len(pending) >= in_flight:
            total.update(pending.popleft().result())
            progress is None or progress.update()
    while pending:
        total.update(pending.popleft().result())
        progress is None or progress.update()
    return total


def count_corpus(input, pattern: str, specials: list[str], num_workers: int | None,
                 chunk_bytes: int, show: bool = False,
                 executor: Executor | None = None) -> Counter:
    """Count the pre-tokens of a file or a text, in chunks, maybe in parallel.

    `num_workers` local processes count the chunks; default: this machine's idle
    cores (`idle_cores`), and this process alone for a corpus under 2 MB. With an
    `executor`, `num_workers` is how many chunks it counts at once (twice as many are
    handed to it at a time); default: this machine's cores.
    """
    path = corpus_path(input)
    size = os.path.getsize(path) if path else len(input)
    if executor is not None and not callable(getattr(executor, "submit", None)):
        raise TypeError(f"executor must be a concurrent.futures.Executor (such as Dask's "
                        f"client.get_executor()), got {type(executor).__name__}")
    if num_workers is None:
        if executor is not None:
            num_workers = cores()
        else:
            num_workers = idle_cores() if size >= PARALLEL_MIN_BYTES else 1
    if not isinstance(num_workers, int) or num_workers < 1:
        raise ValueError(f"num_workers must be a positive int, got {num_workers!r}")
    if not isinstance(chunk_bytes, int) or chunk_bytes < 1:
        raise ValueError(f"chunk_bytes must be a positive int, got {chunk_bytes!r}")
    # About two chunks per worker for a corpus of a few chunks: all get work, and
    # fewer chunks mean fewer tables of counts to send back and add up.
    chunk = chunk_bytes if num_workers == 1 else min(chunk_bytes, -(-size // (2 * num_workers)))
    if path:
        cuts = file_cut_points(path, chunk, specials, pattern)
        tasks = ((path, a, b, pattern, specials) for a, b in zip(cuts, cuts[1:]))
        fn = count_file_chunk
    else:
        try:
            input.encode("utf-8")
        except UnicodeEncodeError:      # lone surrogates: do as RegexTokenizer.train does
            input = fix_surrogates(input)
        cuts = cut_points(input, chunk, specials, pattern)
        tasks = ((input[a:b], pattern, specials) for a, b in zip(cuts, cuts[1:]))
        fn = count_text_chunk
    with ProgressBar(total=len(cuts) - 1, desc="pre-tokenizing", unit="chunk",
                     disable=not show) as bar:
        return run_tasks(fn, tasks, min(num_workers, len(cuts) - 1), bar, executor)


def cores() -> int:
    """The cores this process may use (fewer than the machine has, in some containers)."""
    try:
        return len(os.sched_getaffinity(0))
    except AttributeError:              # macOS, Windows
        return os.cpu_count() or 1


def idle_cores() -> int:
    """The cores that no other process keeps busy right now, at least 1.

    Linux counts the processes ready to run at this moment (the fourth field of
    /proc/loadavg, "running/all"; this one included). Subtle: on a machine whose
    cores other work already keeps busy, worker processes cannot run at once, so
    they only add their cost (starting, pickling, caches); counting in fewer
    processes, or in this one alone, is then faster. Elsewhere: all the cores.

    >>> 1 <= idle_cores() <= cores()
    True
    """
    usable = cores()
    try:
        with open("/proc/loadavg") as f:
            running = int(f.read().split()[3].split("/")[0])
    except (OSError, ValueError, IndexError):
        return usable
    return max(1, min(usable, usable - (running - 1)))


def corpus_path(input) -> Path | None:
    """The file to read, or None when `input` is the text itself (see `train_bpe`)."""
    if isinstance(input, os.PathLike):
        path = Path(input)
        if not path.is_file():
            raise FileNotFoundError(f"no corpus file at {path}")
        return path
    if not isinstance(input, str):
        raise TypeError(f"input must be a path or a str of text, got {type(input).__name__}")
    if len(input) < 4096 and "\n" not in input and os.path.isfile(input):
        return Path(input)
    return None
