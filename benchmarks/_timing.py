"""Timing shared by the benchmark scripts (imported as `from _timing import best_times`)."""
import time

import torch


def best_times(fns: dict, rounds: int = 100, inner: int = 1) -> dict:
    """Best time of each function, run round-robin so that machine load hits all of them alike.
    With one torch thread the clock is this thread's CPU time, which does not count the time the OS gives to other
    processes (this machine is shared); with more threads it is wall time.
    `inner > 1` times that many back-to-back calls per sample (after one untimed call), so that each function is
    measured in its own steady state rather than in whatever cache state the previous function left behind."""
    clock = time.thread_time if torch.get_num_threads() == 1 else time.perf_counter
    best = {k: float("inf") for k in fns}
    with torch.no_grad():
        for f in fns.values(): f(); f()
        for _ in range(rounds):
            for k, f in fns.items():
                if inner > 1: f()
                t = clock()
                for _ in range(inner): f()
                best[k] = min(best[k], (clock() - t) / inner)
    return best
