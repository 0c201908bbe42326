"""Share one job among forked processes that each do their part and report a small result (no text shipped).

A forked child sees the parent's design as it is (nothing is pickled on the way in); it sends back only what
its part returns (a few hashes), pickled through a pipe, or the exception it raised, which the parent raises
again. The parent does part 0 itself. On a machine with one core, or for one worker, nothing is forked.
"""

from __future__ import annotations

import os
import pickle
import traceback
from collections.abc import Callable
from typing import Any


class WorkerFailed(Exception):
    """A worker process died without reporting a result (killed, or out of memory)."""


def in_workers(count: int, part: Callable[[int, int], dict[str, Any]]) -> dict[str, Any]:
    """``part(worker, count)`` for every worker from 0 to ``count - 1``, run in parallel; their results merged."""
    if count <= 1 or not hasattr(os, "fork"):
        return part(0, 1)
    children = []
    for worker in range(1, count):
        reader, writer = os.pipe()
        pid = os.fork()
        if pid == 0:  # the child: do one part, report, and leave without running the parent's clean-ups
            os.close(reader)
            os._exit(_report(writer, lambda worker=worker: part(worker, count)))
        os.close(writer)
        children.append((pid, reader))
    try:
        merged = part(0, count)
    finally:
        results = [_collect(pid, reader) for pid, reader in children]
    for result in results:
        if isinstance(result, BaseException):
            raise result
        merged.update(result)
    return merged


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


def _collect(pid: int, reader: int) -> object:
    """What the child ``pid`` reported through ``reader``, after it exited."""
    with os.fdopen(reader, "rb") as pipe:
        data = pipe.read()
    _, status = os.waitpid(pid, 0)
    if not data:
        return WorkerFailed(f"a worker process ended without a result (wait status {status})")
    return pickle.loads(data)
