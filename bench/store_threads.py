"""Benchmark the SQLite answer store under threads: 2,000 cold get+save from 16 threads.

Each key is read (a miss) then saved, as a cold call does. Measured three ways in one run:
the store as it is (a backend lent to each thread at work), the same store one thread at a
time for the whole process (a lock around every call: how it was before issue 23), and one
thread doing every key (no contention at all). The ratios are what the change is judged by;
the load is printed, since 16 threads on a shared 2-core machine move with it.
"""

from __future__ import annotations

import contextlib
import threading
import time
from collections.abc import Callable
from concurrent.futures import ThreadPoolExecutor
from dataclasses import dataclass

import requests
from harness import (
    ENDPOINT,
    HEADERS,
    Report,
    exit_on_sigterm,
    fresh_dir,
    load_average,
    machine_line,
    make_parser,
    sandbox_process,
)

from profnet_sheets.client.keys import CallKey
from profnet_sheets.client.store import AnswerStore
from profnet_sheets.config import Settings

KEYS = 2_000
THREADS = 16


@dataclass
class Run:
    """One way of running KEYS cold get+save."""

    wall_s: float
    cpu_s: float
    reading_s: float  # summed over the threads: time in get
    saving_s: float  # summed over the threads: time in save


def run(answer: requests.Response, threads: int, one_at_a_time: bool, keys: int) -> Run:
    """`keys` distinct keys read then saved from `threads` threads, in a new cache file."""
    with fresh_dir("store") as folder:
        settings = Settings.load(environ={}, cache=str(folder), cache_dir=folder)
        store = AnswerStore(settings, "bench")
        whole_process: contextlib.AbstractContextManager[object] = (
            threading.Lock() if one_at_a_time else contextlib.nullcontext()
        )
        reading = [0.0] * keys
        saving = [0.0] * keys

        def cold(number: int) -> None:
            key = CallKey("bench", "", ENDPOINT, f'{{"domain":"d{number}.io"}}')
            started = time.perf_counter()
            with whole_process:
                found = store.get(key)
            read = time.perf_counter()
            with whole_process:
                store.save(key, answer, 3600)
            reading[number], saving[number] = read - started, time.perf_counter() - read
            assert found is None

        wall, cpu = time.perf_counter(), time.process_time()
        with ThreadPoolExecutor(threads) as pool:
            list(pool.map(cold, range(keys)))
        done = Run(time.perf_counter() - wall, time.process_time() - cpu, sum(reading), sum(saving))
        store.close()
    return done


def show(name: str, measured: Run) -> None:
    Report.info(
        f"{name}: wall",
        measured.wall_s,
        "s",
        f"; CPU {measured.cpu_s:.2f} s; summed over the threads: {measured.reading_s:.1f} s "
        f"in get, {measured.saving_s:.1f} s in save",
    )


def main() -> None:
    parser = make_parser(__doc__, f"{KEYS // 4} keys instead of {KEYS}")
    arguments = parser.parse_args()
    exit_on_sigterm()
    keys = KEYS // 4 if arguments.quick else KEYS
    print(machine_line("requests-cache", load=True))
    with sandbox_process(arguments.port) as server:
        answer = requests.get(
            f"{server.base_url}/{ENDPOINT}", params={"domain": "store.io"}, headers=HEADERS,
            timeout=30,
        )  # fmt: skip
        answer.raise_for_status()
    ways: dict[str, Callable[[], Run]] = {
        "one thread": lambda: run(answer, 1, False, keys),
        f"{THREADS} threads, one at a time for the process (before)": lambda: run(
            answer, THREADS, True, keys
        ),
        f"{THREADS} threads, a backend each (now)": lambda: run(answer, THREADS, False, keys),
    }
    measured = {name: way() for name, way in ways.items()}
    for name, result in measured.items():
        show(name, result)
    serial, before, now = measured.values()
    print(f"ratios (now/before): wall {now.wall_s / before.wall_s:.2f}, "
          f"CPU {now.cpu_s / before.cpu_s:.2f}, "
          f"time in get {now.reading_s / before.reading_s:.2f}; "
          f"now/one thread: wall {now.wall_s / serial.wall_s:.2f}")  # fmt: skip
    Report().finish([], last_line=f"load after: {load_average()}")


if __name__ == "__main__":
    main()
