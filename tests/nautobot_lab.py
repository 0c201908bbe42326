"""A real Nautobot for the sync tests: its own PostgreSQL cluster and Redis server (Debian's packages) in a
temporary folder, Nautobot (PyPI ``nautobot``, with the ``nautobot_bgp_models`` app) migrated once and served by
``nautobot-server runserver`` on a free 127.0.0.1 port, and an API token for a superuser.

Migrating an empty database takes minutes on two cores, so the lab starts from a snapshot (:func:`snapshot_path`):
the database as Nautobot's own migrations left it for the installed versions (made by
``python -m tests.nautobot_lab --snapshot``). Django's migration plan is still read against it and any migration it
lacks is applied, so a snapshot that does not match the installed packages costs time, never correctness; without
one for these versions it migrates.

Everything runs on ports and in folders of its own, so other test runs on the machine (another PostgreSQL,
another Redis) are left alone; :meth:`NautobotLab.stop` ends exactly the processes it started."""

from __future__ import annotations

import contextlib
import json
import os
import pwd
import shutil
import signal
import socket
import subprocess
import sys
import tempfile
import threading
import time
import urllib.request
from dataclasses import dataclass, field
from importlib.metadata import version
from pathlib import Path

import pytest

POSTGRES_BIN = sorted(Path("/usr/lib/postgresql").glob("*/bin"))
POSTGRES_USER = "postgres"
"""PostgreSQL refuses to run as root: its server runs as Debian's ``postgres`` account."""
SPEED = ("-c", "listen_addresses=127.0.0.1", "-c", "fsync=off", "-c", "synchronous_commit=off")
"""A throwaway database: only 127.0.0.1, and no waiting for the disk."""


def snapshot_path() -> Path:
    """A migrated Nautobot database (``pg_dump --format=custom``) of the installed versions (pyproject's extras pin
    them); read only once Nautobot is known to be installed (:func:`missing`), so that collecting the tests needs
    none of it."""
    return (
        Path(__file__).parent
        / "vendor"
        / "nautobot"
        / f"nautobot-{version('nautobot')}-bgp-models-{version('nautobot-bgp-models')}.dump"
    )


EARLY: pytest.StashKey[EarlyLab] = pytest.StashKey()
"""Where tests/conftest.py keeps the lab it started early, in the run's stash."""
TOKEN = "0123456789abcdef0123456789abcdef01234567"
CONFIG = """\
from nautobot.core.settings import *  # noqa: F403

ALLOWED_HOSTS = ["127.0.0.1"]
SECRET_KEY = "designer-tests-only-{secret}"
PLUGINS = ["nautobot_bgp_models"]
INSTALLATION_METRICS_ENABLED = False
MAX_PAGE_SIZE = 0
"""


def missing() -> str | None:
    """What a laptop must install before the Nautobot tests run, or None when everything is there."""
    needs = []
    if not POSTGRES_BIN or shutil.which("redis-server") is None:
        needs.append("Debian's postgresql and redis-server (apt-get install postgresql redis-server)")
    if shutil.which("nautobot-server", path=str(Path(sys.executable).parent)) is None:
        needs.append("Nautobot with its BGP Models app (pip install -e '.[nautobot]')")
    if os.geteuid() != 0:
        needs.append("root (PostgreSQL's server runs as the postgres account)")
    return "; ".join(needs) or None


def free_port() -> int:
    """A TCP port nothing listens on at 127.0.0.1 now."""
    with socket.socket() as probe:
        probe.bind(("127.0.0.1", 0))
        return probe.getsockname()[1]


@dataclass
class NautobotLab:
    """The running Nautobot: its URL and a superuser's API token. ``workers``: served as in production, by
    ``nautobot-server start`` (uWSGI) with that many processes, instead of by one ``runserver`` process."""

    folder: Path
    url: str = ""
    token: str = TOKEN
    workers: int = 0
    database_port: int = 0
    processes: list[subprocess.Popen[bytes]] = field(default_factory=list)

    def start(self, snapshot: bool = True) -> NautobotLab:
        """Start PostgreSQL and Redis, load the installed versions' snapshot (:func:`snapshot_path`) when asked and
        there is one, migrate what it lacks (everything without one: minutes), make the token and serve the API."""
        database = self.folder / "postgres"
        database.mkdir()
        account = pwd.getpwnam(POSTGRES_USER)
        os.chown(self.folder, account.pw_uid, account.pw_gid)
        os.chown(database, account.pw_uid, account.pw_gid)
        binaries = POSTGRES_BIN[-1]
        self._run([str(binaries / "initdb"), "-D", str(database), "-A", "trust", "-U", "nautobot"], user=POSTGRES_USER)
        pg_port, redis_port, web_port = free_port(), free_port(), free_port()
        self.database_port = pg_port
        self._spawn(
            [str(binaries / "postgres"), "-D", str(database), "-p", str(pg_port), "-k", str(database), *SPEED],
            "postgres.log",
            user=POSTGRES_USER,
        )
        self._spawn(
            ["redis-server", "--port", str(redis_port), "--bind", "127.0.0.1", "--save", "", "--appendonly", "no"],
            "redis.log",
        )
        self._wait_for_port(pg_port, 60)
        self._run(
            [str(binaries / "createdb"), "-h", "127.0.0.1", "-p", str(pg_port), "-U", "nautobot", "nautobot"],
            user=POSTGRES_USER,
        )
        config = self.folder / "nautobot_config.py"
        config.write_text(CONFIG.format(secret=os.urandom(16).hex()))
        self.environment = {
            **os.environ,
            "NAUTOBOT_CONFIG": str(config),
            "NAUTOBOT_ROOT": str(self.folder / "root"),
            "NAUTOBOT_DB_HOST": "127.0.0.1",
            "NAUTOBOT_DB_PORT": str(pg_port),
            "NAUTOBOT_DB_NAME": "nautobot",
            "NAUTOBOT_DB_USER": "nautobot",
            "NAUTOBOT_REDIS_HOST": "127.0.0.1",
            "NAUTOBOT_REDIS_PORT": str(redis_port),
        }
        dump = snapshot_path() if snapshot else None
        if dump is not None and dump.exists():
            client = ["-h", "127.0.0.1", "-p", str(pg_port), "-U", "nautobot"]
            self._run([str(binaries / "pg_restore"), *client, "--no-owner", "-d", "nautobot", str(dump)])
        server = str(Path(sys.executable).parent / "nautobot-server")
        self._run([server, "nbshell", "--command", _SETUP_SCRIPT.format(token=self.token)], env=self.environment)
        uwsgi = [f"--http=127.0.0.1:{web_port}", "--http-timeout=900", f"--processes={self.workers}", "--master"]
        serve = (
            ["start", *uwsgi, "--disable-logging"]  # uWSGI's router drops a request after 60 s unless told otherwise
            if self.workers
            else ["runserver", "--noreload", "--nothreading", "--skip-checks", f"127.0.0.1:{web_port}"]
        )
        self._spawn([server, *serve], "nautobot.log", env=self.environment)
        self.url = f"http://127.0.0.1:{web_port}"
        self._wait_for_api(180)
        self._build_graphql_schema()
        return self

    def dump(self, path: Path) -> None:
        """Write the lab's database to ``path`` (``pg_dump``'s compressed custom format), its API tokens left out."""
        client = ["-h", "127.0.0.1", "-p", str(self.database_port), "-U", "nautobot"]
        dump = [str(POSTGRES_BIN[-1] / "pg_dump"), *client, "--format=custom", "--no-owner"]
        self._run([*dump, "--exclude-table-data=users_token", "-f", str(path), "nautobot"])

    def stop(self) -> None:
        """End the processes this lab started, newest first, and delete its folder."""
        for process in reversed(self.processes):
            with contextlib.suppress(ProcessLookupError):
                process.send_signal(signal.SIGINT)  # PostgreSQL's fast shutdown; the others stop on it too
            try:
                process.wait(30)
            except subprocess.TimeoutExpired:
                process.kill()
                process.wait()
        self.processes.clear()
        shutil.rmtree(self.folder, ignore_errors=True)

    def _run(self, command: list[str], env: dict[str, str] | None = None, user: str | None = None) -> None:
        """Run ``command`` to its end (listed among the lab's processes meanwhile, so :meth:`stop` ends it too)."""
        with (self.folder / "commands.log").open("ab") as output:
            process = subprocess.Popen(
                command, env=env, cwd=self.folder, stdout=output, stderr=subprocess.STDOUT, user=user
            )
            self.processes.append(process)
            code = process.wait()
        if code:
            log = (self.folder / "commands.log").read_text(errors="replace")[-3000:]
            raise RuntimeError(f"{' '.join(command[:6])} failed ({code}):\n{log}")

    def _spawn(self, command: list[str], log: str, env: dict[str, str] | None = None, user: str | None = None) -> None:
        with (self.folder / log).open("wb") as output:
            self.processes.append(
                subprocess.Popen(command, env=env, cwd=self.folder, stdout=output, stderr=subprocess.STDOUT, user=user)
            )

    def _wait_for_port(self, port: int, seconds: float) -> None:
        deadline = time.monotonic() + seconds
        while time.monotonic() < deadline:
            with contextlib.suppress(OSError), socket.create_connection(("127.0.0.1", port), timeout=1):
                return
            time.sleep(0.2)
        raise RuntimeError(f"nothing listens on 127.0.0.1:{port} after {seconds} s")

    def _wait_for_api(self, seconds: float) -> None:
        deadline = time.monotonic() + seconds
        request = urllib.request.Request(f"{self.url}/api/status/", headers={"Authorization": f"Token {self.token}"})
        while time.monotonic() < deadline:
            with contextlib.suppress(OSError), urllib.request.urlopen(request, timeout=5):
                return
            time.sleep(0.5)
        raise RuntimeError(f"Nautobot at {self.url} did not answer in {seconds} s: see {self.folder}/nautobot.log")

    def _build_graphql_schema(self) -> None:
        """One GraphQL read, so that Nautobot builds its GraphQL schema (seconds, on the first read of each process)
        while the lab starts rather than in the first sync that reads interfaces. With uWSGI, each process builds
        its own on its first read."""
        request = urllib.request.Request(
            f"{self.url}/api/graphql/",
            data=json.dumps({"query": "{ __typename }"}).encode(),
            headers={"Authorization": f"Token {self.token}", "Content-Type": "application/json"},
        )
        with urllib.request.urlopen(request, timeout=180) as answer:
            answer.read()


_SETUP_SCRIPT = """
from django.core.management import call_command
from django.db import connection
from django.db.migrations.executor import MigrationExecutor
executor = MigrationExecutor(connection)
if executor.migration_plan(executor.loader.graph.leaf_nodes()):
    call_command("migrate", interactive=False)
from nautobot.users.models import Token, User
user, _ = User.objects.get_or_create(username="designer-tests", defaults={{"is_superuser": True, "is_staff": True}})
Token.objects.get_or_create(user=user, key="{token}")
"""


def start_lab(workers: int = 0) -> NautobotLab:
    """A started :class:`NautobotLab` in a new temporary folder (``workers``: uWSGI processes serving it)."""
    return NautobotLab(Path(tempfile.mkdtemp(prefix="designer-nautobot-")), workers=workers).start()


class EarlyLab:
    """A lab started in a thread as soon as a test run knows it will need one (migrating takes minutes, which the
    tests before it then cover); :meth:`wait` returns it, started, or raises what stopped it."""

    def __init__(self) -> None:
        self.lab = NautobotLab(Path(tempfile.mkdtemp(prefix="designer-nautobot-")))
        self.error: BaseException | None = None
        self.thread = threading.Thread(target=self._start, name="nautobot-lab", daemon=True)
        self.thread.start()

    def _start(self) -> None:
        try:
            self.lab.start()
        except BaseException as error:  # handed to the test that waits for the lab
            self.error = error

    def wait(self) -> NautobotLab:
        self.thread.join()
        if self.error is not None:
            raise self.error
        return self.lab

    def stop(self) -> None:
        """End whatever the lab started, finished or not."""
        self.lab.stop()
        self.thread.join(60)


if __name__ == "__main__" and sys.argv[1:] == ["--snapshot"]:  # migrate an empty database and keep it
    lab = NautobotLab(Path(tempfile.mkdtemp(prefix="designer-nautobot-"))).start(snapshot=False)
    try:
        made = snapshot_path()
        made.parent.mkdir(exist_ok=True)
        lab.dump(made)
        print(made, flush=True)
    finally:
        lab.stop()
elif __name__ == "__main__":  # a lab to try things against by hand: prints its URL and token, runs until SIGTERM
    signal.signal(signal.SIGTERM, lambda *_: sys.exit(0))  # then the lab stops (a background job ignores SIGINT)
    lab = start_lab()
    print(lab.url, lab.token, lab.folder, flush=True)
    try:
        while True:
            time.sleep(3600)
    finally:
        lab.stop()
