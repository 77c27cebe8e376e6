"""``benchboard web`` as its own process, for the tests that use it as a user would."""

from __future__ import annotations

import contextlib
import subprocess
import sys
import time
import urllib.request
from collections.abc import Iterator, Mapping
from pathlib import Path

from tests.e2e.botapi import free_port


@contextlib.contextmanager
def web_process(folder: Path, env: Mapping[str, str]) -> Iterator[str]:
    """``benchboard web`` started in ``folder`` with ``env`` (its output in
    ``folder/web.log``), once it serves; its base URL. Stopped on leaving."""
    port = free_port()
    log = (folder / "web.log").open("wb")
    process = subprocess.Popen(
        [sys.executable, "-m", "bot", "web", "--port", str(port)],
        cwd=folder,
        env=dict(env),
        stdout=log,
        stderr=subprocess.STDOUT,
    )
    base = f"http://127.0.0.1:{port}"
    try:
        deadline = time.monotonic() + 30
        while True:
            try:
                urllib.request.urlopen(base + "/static/style.css", timeout=1).close()
                break
            except OSError:
                if process.poll() is not None or time.monotonic() > deadline:
                    raise RuntimeError("benchboard web did not start") from None
                time.sleep(0.1)
        yield base
    finally:
        process.terminate()
        process.wait(timeout=10)
        log.close()
