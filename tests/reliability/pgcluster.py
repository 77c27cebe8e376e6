"""A PostgreSQL cluster of the test's own, which the test may kill: ``initdb`` into a
temporary folder (as an unprivileged user when the test runs as root, which PostgreSQL
refuses to run as), on a free port of 127.0.0.1, its socket in that folder. Never the
machine's own server.

    async with pg_cluster() as cluster:   # skips the test without initdb
        cluster.url                        # postgresql://postgres@127.0.0.1:<port>/postgres
        await cluster.kill()               # SIGKILL the server and every backend
        await cluster.start()              # again, on the same data folder and port
"""

from __future__ import annotations

import asyncio
import contextlib
import glob
import os
import pwd
import shutil
import signal
import tempfile
import time
from collections.abc import AsyncIterator
from pathlib import Path

import pytest

from tests.e2e.botapi import free_port

INITDB_SKIP = (
    "initdb (PostgreSQL's server binaries) is needed to start a cluster of the test's own: "
    "install them (Debian/Ubuntu: apt-get install postgresql; they land in "
    "/usr/lib/postgresql/<version>/bin) or put initdb on PATH"
)


def server_bin() -> Path | None:
    """The folder of ``initdb`` and ``postgres``, or None when they are not installed."""
    found = shutil.which("initdb")
    candidates = [found] if found else []
    candidates += sorted(glob.glob("/usr/lib/postgresql/*/bin/initdb"), reverse=True)
    for initdb in candidates:
        folder = Path(os.path.realpath(initdb)).parent
        if (folder / "postgres").exists():
            return folder
    return None


def _runner() -> tuple[int, int] | None:
    """(uid, gid) to run the server as when this process is root (PostgreSQL refuses
    root); None: as ourselves."""
    if os.geteuid() != 0:
        return None
    nobody = pwd.getpwnam("nobody")
    return nobody.pw_uid, nobody.pw_gid


class Cluster:
    """One server on ``port``, its data in ``root/data``."""

    def __init__(self, bin_dir: Path, root: Path, port: int) -> None:
        self.bin_dir, self.root, self.port = bin_dir, root, port
        self.data = root / "data"
        self.log_path = root / "server.log"
        self.proc: asyncio.subprocess.Process | None = None
        self._as = _runner()

    @property
    def url(self) -> str:
        return f"postgresql://postgres@127.0.0.1:{self.port}/postgres"

    def _user_kwargs(self) -> dict[str, int]:
        return {} if self._as is None else {"user": self._as[0], "group": self._as[1]}

    async def init(self) -> None:
        if self._as is not None:
            os.chown(self.root, *self._as)
        proc = await asyncio.create_subprocess_exec(
            str(self.bin_dir / "initdb"),
            "-D",
            str(self.data),
            "-U",
            "postgres",
            "--auth=trust",
            "--no-sync",
            "-E",
            "UTF8",
            "--locale=C",
            stdout=asyncio.subprocess.PIPE,
            stderr=asyncio.subprocess.STDOUT,
            **self._user_kwargs(),  # type: ignore[arg-type]
        )
        out, _ = await asyncio.wait_for(proc.communicate(), 120)
        if proc.returncode != 0:
            raise AssertionError(f"initdb failed:\n{out.decode(errors='replace')}")

    async def start(self) -> None:
        """Start the server (again) and wait until it takes connections."""
        assert self.proc is None or self.proc.returncode is not None
        with self.log_path.open("ab") as log:
            self.proc = await asyncio.create_subprocess_exec(
                str(self.bin_dir / "postgres"),
                "-D",
                str(self.data),
                "-p",
                str(self.port),
                "-k",
                str(self.root),
                "-c",
                "listen_addresses=127.0.0.1",
                "-c",
                "max_connections=100",
                "-c",
                "fsync=off",  # a killed server loses nothing the OS holds; no power cut here
                stdout=log,
                stderr=asyncio.subprocess.STDOUT,
                start_new_session=True,  # its own process group: kill() ends every backend
                **self._user_kwargs(),  # type: ignore[arg-type]
            )
        await self._ready()

    async def _ready(self, timeout: float = 60.0) -> None:  # noqa: ASYNC109
        import psycopg

        deadline = time.monotonic() + timeout
        while True:
            assert self.proc is not None
            if self.proc.returncode is not None:
                raise AssertionError(f"the test's PostgreSQL stopped:\n{self.log()[-3000:]}")
            try:
                conn = await psycopg.AsyncConnection.connect(self.url, connect_timeout=2)
            except psycopg.OperationalError:
                if time.monotonic() > deadline:
                    raise AssertionError(
                        f"the test's PostgreSQL did not start:\n{self.log()[-3000:]}"
                    ) from None
                await asyncio.sleep(0.1)
                continue
            await conn.close()
            return

    async def kill(self) -> None:
        """SIGKILL the server and its backends (its process group), as a crash would."""
        assert self.proc is not None
        with contextlib.suppress(ProcessLookupError):
            os.killpg(self.proc.pid, signal.SIGKILL)
        await self.proc.wait()
        # the backends notice their postmaster's death (and were killed with it)
        await asyncio.sleep(0.2)

    async def stop(self) -> None:
        if self.proc is not None and self.proc.returncode is None:
            self.proc.send_signal(signal.SIGQUIT)  # immediate shutdown
            try:
                await asyncio.wait_for(self.proc.wait(), 15)
            except TimeoutError:
                await self.kill()

    def log(self) -> str:
        return self.log_path.read_text(errors="replace") if self.log_path.exists() else ""


@contextlib.asynccontextmanager
async def pg_cluster() -> AsyncIterator[Cluster]:
    """A running cluster of the test's own (skips the test when initdb is missing)."""
    bin_dir = server_bin()
    if bin_dir is None:
        pytest.skip(INITDB_SKIP)
    # not under pytest's tmp_path: its folders are root's own (0700), which the server's
    # unprivileged user cannot enter
    root = Path(tempfile.mkdtemp(prefix="benchboard-pg-"))
    cluster = Cluster(bin_dir, root, free_port())
    try:
        await cluster.init()
        await cluster.start()
        yield cluster
    finally:
        await cluster.stop()
        shutil.rmtree(root, ignore_errors=True)
