"""Forked workers: each does its part, results merge, a worker's exception reaches the parent, nothing is lost."""

from __future__ import annotations

import os
import time

import pytest

from designer.render import TemplateError
from designer.workers import Background, WorkerFailed, each_in_workers, in_workers


def test_every_part_runs_once_in_its_own_process() -> None:
    seen = in_workers(3, lambda worker, count: {str(worker): (count, os.getpid())})
    assert sorted(seen) == ["0", "1", "2"] and {count for count, _ in seen.values()} == {3}
    assert seen["0"][1] == os.getpid() and len({pid for _, pid in seen.values()}) == 3


def test_an_exception_in_a_child_is_raised_in_the_parent() -> None:
    def part(worker: int, count: int) -> dict[str, int]:
        if worker == 1:
            raise TemplateError("frr/bgp.j2:3", "ZeroDivisionError: integer division or modulo by zero")
        return {str(worker): worker}

    with pytest.raises(TemplateError) as caught:
        in_workers(2, part)
    assert caught.value.where == "frr/bgp.j2:3" and "ZeroDivisionError" in str(caught.value)


def test_a_child_that_dies_is_reported() -> None:
    def part(worker: int, count: int) -> dict[str, int]:
        if worker == 1:
            os._exit(9)
        return {}

    with pytest.raises(WorkerFailed, match="without a result"):
        in_workers(2, part)


def test_one_worker_forks_nothing() -> None:
    assert in_workers(1, lambda worker, count: {"pid": os.getpid()}) == {"pid": os.getpid()}


def test_background_runs_every_part_in_a_child_while_the_parent_goes_on() -> None:
    with Background(range(2), 2, lambda worker, count: {str(worker): os.getpid()}) as running:
        seen = running.results()
    assert sorted(seen) == ["0", "1"] and os.getpid() not in seen.values() and len(set(seen.values())) == 2


def test_background_children_are_ended_when_the_block_fails() -> None:
    def part(worker: int, count: int) -> dict[str, int]:
        time.sleep(60)
        return {}

    started = time.monotonic()
    with pytest.raises(RuntimeError, match="checks broke"), Background(range(2), 2, part) as running:
        pids = [pid for pid, _ in running.children]
        raise RuntimeError("checks broke")
    assert time.monotonic() - started < 30
    for pid in pids:
        with pytest.raises(ChildProcessError):
            os.waitpid(pid, os.WNOHANG)  # already reaped


def test_each_job_runs_once_whoever_takes_it() -> None:
    done = each_in_workers(3, 40, lambda job: (job * job, os.getpid()))
    assert sorted(done) == list(range(40)) and all(result == job * job for job, (result, _) in done.items())
    assert each_in_workers(1, 3, lambda job: -job) == {0: 0, 1: -1, 2: -2}


def test_a_long_job_does_not_hold_up_the_short_ones() -> None:
    def job(number: int) -> int:
        if number == 0:
            time.sleep(1.5)
        return os.getpid()

    started = time.monotonic()
    done = each_in_workers(2, 7, job)
    assert time.monotonic() - started < 1.5 + 3.0
    assert len({done[number] for number in range(1, 7)} - {done[0]}) == 1  # the other process took every short job
