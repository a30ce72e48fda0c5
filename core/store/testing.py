"""A throwaway PostgreSQL server for the store's tests and benchmarks (never used by the product).

``TempPostgres`` runs Debian's ``initdb`` and ``pg_ctl`` on a temp directory and a free loopback
port, and stops the server by its PID. ``initdb`` refuses to run as root, so as root the cluster
is created and run as the ``postgres`` user (made by Debian's ``postgresql`` package) in a temp
directory that user owns; as anyone else, as that user.
"""

from __future__ import annotations

import contextlib
import os
import pwd
import shutil
import signal
import socket
import subprocess
import tempfile
import time
from collections.abc import Iterator
from pathlib import Path
from typing import Any

from core.processes import pid_alive

_DEBIAN_BINARIES = Path("/usr/lib/postgresql")
_CLUSTER_USER = "postgres"
_ROLE = "superbiz"


class PostgresUnavailable(RuntimeError):
    """This machine cannot run a throwaway PostgreSQL (binaries, user or driver missing)."""


def find_binaries() -> Path:
    """The folder holding ``initdb`` and ``pg_ctl``: ``SUPERBIZ_PG_BINDIR``, the newest Debian
    ``/usr/lib/postgresql/<version>/bin``, or the folder of an ``initdb`` on the PATH."""
    candidates: list[Path] = []
    if os.environ.get("SUPERBIZ_PG_BINDIR"):
        candidates.append(Path(os.environ["SUPERBIZ_PG_BINDIR"]))
    if _DEBIAN_BINARIES.is_dir():
        versions = [entry for entry in _DEBIAN_BINARIES.iterdir() if entry.name.isdigit()]
        candidates += [entry / "bin" for entry in sorted(versions, key=lambda e: -int(e.name))]
    on_path = shutil.which("initdb")
    if on_path:
        candidates.append(Path(on_path).parent)
    for folder in candidates:
        if (folder / "initdb").is_file() and (folder / "pg_ctl").is_file():
            return folder
    raise PostgresUnavailable("PostgreSQL server binaries (initdb, pg_ctl) not found; "
                              "install Debian's `postgresql` package")


def free_port() -> int:
    """A loopback port nobody listens on now (the OS picks it)."""
    with socket.socket(socket.AF_INET, socket.SOCK_STREAM) as probe:
        probe.bind(("127.0.0.1", 0))
        return int(probe.getsockname()[1])


def _driver_installed() -> bool:
    try:
        import psycopg  # noqa: F401
    except ImportError:
        return False
    return True


class TempPostgres:
    """One temp cluster: ``start()``, then ``new_database()`` per test, then ``stop()``."""

    def __init__(self) -> None:
        if not _driver_installed():
            raise PostgresUnavailable("the PostgreSQL driver is missing: "
                                      "pip install 'superbiz[postgres]'")
        self.bindir = find_binaries()
        self._as_user: dict[str, Any] = {}
        if os.geteuid() == 0:
            try:
                account = pwd.getpwnam(_CLUSTER_USER)
            except KeyError:
                raise PostgresUnavailable(f"running as root and there is no {_CLUSTER_USER!r} "
                                          "user to run the server as") from None
            self._as_user = {"user": account.pw_uid, "group": account.pw_gid,
                             "extra_groups": []}
            self._owner: tuple[int, int] | None = (account.pw_uid, account.pw_gid)
        else:
            self._owner = None
        # The server's user must reach its folder: as root, in /tmp (TMPDIR may be private).
        shared_tmp = "/tmp" if self._owner is not None and os.path.isdir("/tmp") else None
        self.folder = Path(tempfile.mkdtemp(prefix="superbiz-pg-", dir=shared_tmp))
        if self._owner is not None:
            os.chown(self.folder, *self._owner)
        self.data = self.folder / "data"
        self.port = 0
        self.pid: int | None = None
        self._databases = 0

    def _run(self, *command: str) -> str:
        environment = {"PATH": os.environ.get("PATH", "/usr/bin:/bin"), "LC_ALL": "C",
                       "HOME": str(self.folder)}
        completed = subprocess.run(
            [str(self.bindir / command[0]), *command[1:]], capture_output=True, text=True,
            env=environment, cwd=self.folder, timeout=120, check=False, **self._as_user)
        if completed.returncode != 0:
            raise PostgresUnavailable(f"{command[0]} failed ({completed.returncode}): "
                                      f"{completed.stderr.strip() or completed.stdout.strip()}")
        return str(completed.stdout)

    def start(self) -> TempPostgres:
        """initdb, then start the server on a free loopback port and wait until it accepts."""
        self._run("initdb", "-D", str(self.data), "-U", _ROLE, "--auth=trust", "-E", "UTF8",
                  "--no-locale", "--no-sync")
        self.port = free_port()
        # Only loopback TCP; the socket folder is ours; durability is not this server's job.
        options = (f"-c listen_addresses=127.0.0.1 -p {self.port} -k {self.folder} "
                   "-c fsync=off -c synchronous_commit=off -c full_page_writes=off "
                   "-c max_connections=60")
        self._run("pg_ctl", "start", "-D", str(self.data), "-w", "-t", "60",
                  "-l", str(self.folder / "server.log"), "-o", options)
        pid_file = (self.data / "postmaster.pid").read_text().split()
        self.pid = int(pid_file[0])
        return self

    def new_database(self) -> str:
        """A fresh empty database; returns its SQLAlchemy URL."""
        import psycopg

        self._databases += 1
        name = f"t{os.getpid()}_{self._databases}"
        with psycopg.connect(f"host=127.0.0.1 port={self.port} user={_ROLE} dbname=postgres",
                             autocommit=True) as connection:
            connection.execute(f'CREATE DATABASE "{name}" TEMPLATE template0')
        return f"postgresql+psycopg://{_ROLE}@127.0.0.1:{self.port}/{name}"

    def stop(self) -> None:
        """Stop the server by its PID (fast shutdown, then a kill if it lingers) and remove
        the temp folder."""
        if self.pid is not None:
            with contextlib.suppress(ProcessLookupError):
                os.kill(self.pid, signal.SIGINT)  # "fast" shutdown: end sessions, checkpoint
                deadline = time.monotonic() + 30
                while time.monotonic() < deadline and pid_alive(self.pid):  # pg_ctl's child: never our zombie
                    time.sleep(0.05)
                if pid_alive(self.pid):
                    os.kill(self.pid, signal.SIGKILL)
            self.pid = None
        shutil.rmtree(self.folder, ignore_errors=True)


@contextlib.contextmanager
def temp_postgres() -> Iterator[TempPostgres]:
    """A started ``TempPostgres``, stopped on exit."""
    server = TempPostgres()
    try:
        yield server.start()
    finally:
        server.stop()
