"""The command line as a user meets it on a bad day: a server address without its
scheme, a file far over the server's limit, a sparse file of a gigabyte, a terminal
that cannot show Persian, Ctrl-C. Each is one true line (or the result), and the
documented exit code; never a traceback, never minutes of waiting."""

from __future__ import annotations

import time
from pathlib import Path

import pytest

from tests.cli.test_cli import run_cli

TOKEN = {"BENCHBOARD_API_TOKEN": "bb_" + "x" * 43}


@pytest.mark.parametrize("server", ["bot.example.com", "ftp://bot.example.com", "http://[::1"])
def test_a_server_address_that_is_no_http_address_is_bad_input(tmp_path: Path, server: str) -> None:
    """``--server bot.example.com`` was "cannot reach" and tried again for two minutes,
    then exit 1 as if the server were down."""
    (tmp_path / "run.txt").write_text("1:3\n")
    started = time.monotonic()
    done = run_cli(
        "submit", "run.txt", "--server", server, "--benchmark", "primebench", cwd=tmp_path,
        env=TOKEN,
    )  # fmt: skip
    err = done.stderr.decode()
    assert done.returncode == 2, err
    assert err == (
        "benchboard: --server must be an http(s) address such as https://bot.example.com, "
        f"not {server!r}\n"
    )
    assert time.monotonic() - started < 30


def test_a_file_over_the_servers_limit_is_refused_before_it_is_read(tmp_path: Path) -> None:
    """A gigabyte (sparse) file was read whole into memory, then sent: the server takes
    20 MB."""
    big = tmp_path / "run.txt"
    with big.open("wb") as f:
        f.truncate(2**30)
    done = run_cli(
        "submit", "run.txt", "--server", "http://127.0.0.1:9", "--benchmark", "primebench",
        "--wait", "0", cwd=tmp_path, env=TOKEN,
    )  # fmt: skip
    assert done.returncode == 2
    assert done.stderr.decode() == (
        "benchboard: run.txt is 1024.0 MB; the server takes at most 20 MB\n"
    )
    (tmp_path / "adir").mkdir()
    done = run_cli("submit", "adir", "--server", "http://127.0.0.1:9", cwd=tmp_path, env=TOKEN)
    assert done.returncode == 2
    assert done.stderr.decode() == "benchboard: adir is a directory, not a file\n"


def test_the_limit_is_the_servers() -> None:
    from bot.cli_submit import MAX_OUTPUT
    from bot.core.submit import MAX_DOWNLOAD

    assert MAX_OUTPUT == MAX_DOWNLOAD
