"""Share one job among forked processes that each do their part and report a small result (no text shipped).

A forked child sees the parent's design as it is (nothing is pickled on the way in); it sends back only what
its part returns (a few hashes), pickled through a pipe, or the exception it raised, which the parent raises
again. ``in_workers`` has the parent do part 0 itself (on a machine with one core, or for one worker, nothing is
forked); ``Background`` runs every part in a child while the parent does other work.
"""

from __future__ import annotations

import contextlib
import functools
import os
import pickle
import signal
import traceback
from collections.abc import Callable, Iterable
from typing import Any


class WorkerFailed(Exception):
    """A worker process died without reporting a result (killed, or out of memory)."""


def in_workers(count: int, part: Callable[[int, int], dict[Any, Any]]) -> dict[Any, Any]:
    """``part(worker, count)`` for every worker from 0 to ``count - 1``, run in parallel; their results merged."""
    if count <= 1 or not hasattr(os, "fork"):
        return part(0, 1)
    with Background(range(1, count), count, part) as others:
        merged = part(0, count)
        merged.update(others.results())
    return merged


def each_in_workers(count: int, jobs: int, do: Callable[[int], Any]) -> dict[int, Any]:
    """``do(job)`` for every job from 0 to ``jobs - 1``, shared among ``count`` processes (the parent is one): each
    takes the next job nobody has taken as soon as it is free, so a long job does not hold up a share of short ones.
    Returns each job's result by job; the jobs are claimed in order through a pipe, two bytes a job."""
    if count <= 1 or jobs <= 1 or not hasattr(os, "fork"):
        return {job: do(job) for job in range(jobs)}
    reader, writer = os.pipe()
    os.write(writer, b"".join(job.to_bytes(2, "big") for job in range(jobs)))  # far below a pipe's buffer
    os.close(writer)

    def claimed(_worker: int, _count: int) -> dict[int, Any]:
        return {job: do(job) for job in iter(lambda: int.from_bytes(os.read(reader, 2) or b"\xff\xff", "big"), 0xFFFF)}

    try:
        return in_workers(count, claimed)
    finally:
        os.close(reader)


class Background:
    """``part(worker, count)`` for each of ``workers``, each in a forked child, while the parent goes on;
    :meth:`results` waits for them. Without ``os.fork``, or with ``fork`` False (one core: nothing to gain), the
    parts run in the parent when their results are asked for. Used as a context manager, children still running
    when the block raises are ended (SIGTERM) and reaped."""

    def __init__(
        self, workers: Iterable[int], count: int, part: Callable[[int, int], dict[str, Any]], fork: bool = True
    ):
        self.children: list[tuple[int, int]] = []
        self.later: list[int] = []
        self.count, self.part = count, part
        for worker in workers:
            if not fork or not hasattr(os, "fork"):
                self.later.append(worker)
                continue
            reader, writer = os.pipe()
            pid = os.fork()
            if pid == 0:  # the child: do one part, report, and leave without running the parent's clean-ups
                os.close(reader)
                os._exit(_report(writer, functools.partial(part, worker, count)))
            os.close(writer)
            self.children.append((pid, reader))

    def results(self) -> dict[str, Any]:
        """Every part's result merged, once each child has exited; a child's exception is raised here."""
        children, self.children = self.children, []
        outcomes = [_collect(pid, reader) for pid, reader in children]
        merged: dict[str, Any] = {}
        for worker in self.later:
            merged.update(self.part(worker, self.count))
        for outcome in outcomes:
            if isinstance(outcome, BaseException):
                raise outcome
            merged.update(outcome)
        return merged

    def __enter__(self) -> Background:
        return self

    def __exit__(self, *_: object) -> None:
        children, self.children = self.children, []
        for pid, reader in children:  # results() was not reached: the block failed
            with contextlib.suppress(ProcessLookupError):
                os.kill(pid, signal.SIGTERM)
            os.waitpid(pid, 0)
            os.close(reader)


def _report(writer: int, work: Callable[[], dict[str, Any]]) -> int:
    """Run ``work`` and write its pickled result (or exception) to ``writer``; the child's exit status."""
    try:
        outcome: object = work()
        status = 0
    except BaseException as error:  # everything goes back to the parent, which decides
        status = 1
        try:
            pickle.dumps(error)
            outcome = error
        except Exception:
            outcome = WorkerFailed("".join(traceback.format_exception(error)))
    with os.fdopen(writer, "wb") as pipe:
        pickle.dump(outcome, pipe)
    return status


def _collect(pid: int, reader: int) -> dict[str, Any] | BaseException:
    """What the child ``pid`` reported through ``reader``, after it exited."""
    with os.fdopen(reader, "rb") as pipe:
        data = pipe.read()
    _, status = os.waitpid(pid, 0)
    if not data:
        return WorkerFailed(f"a worker process ended without a result (wait status {status})")
    outcome: dict[str, Any] | BaseException = pickle.loads(data)
    return outcome
