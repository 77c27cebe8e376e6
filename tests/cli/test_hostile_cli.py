"""The command line as a user meets it on a bad day: a server address without its
scheme, a file far over the server's limit, a sparse file of a gigabyte, a terminal
that cannot show Persian, Ctrl-C. Each is one true line (or the result), and the
documented exit code; never a traceback, never minutes of waiting."""

from __future__ import annotations

import json
import os
import signal
import subprocess
import sys
import time
from pathlib import Path

import pytest

from tests.cli.test_cli import _env, run_cli

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


PERSIAN = {"PYTHONIOENCODING": "ascii"}  # as a terminal in a Latin-1 or ASCII locale


def test_a_terminal_that_cannot_show_persian_gets_escapes_not_a_traceback(
    tmp_path: Path,
) -> None:
    """An invalid line in Persian digits (the hint's bullet too) ended ``score`` with a
    UnicodeEncodeError where stdout is not UTF-8; ``--json`` is valid JSON there too."""
    (tmp_path / "A.txt").write_text("".join(f"{q}:{q % 4 + 1}\n" for q in range(1, 11)))
    (tmp_path / "out.txt").write_text("1:2\n۲:۳\n3:😀\n")
    done = run_cli("score", "out.txt", "--key", "A.txt", cwd=tmp_path, env=PERSIAN)
    assert done.returncode == 0, done.stderr.decode()
    out = done.stdout.decode("ascii")
    assert "line 2: \\u06f2:\\u06f3" in out and "line 3: 3:\\U0001f600" in out
    done = run_cli("score", "out.txt", "--key", "A.txt", "--json", cwd=tmp_path, env=PERSIAN)
    assert done.returncode == 0, done.stderr.decode()
    data = json.loads(done.stdout.decode("ascii"))
    assert data["invalid_lines"] == [{"line": 2, "text": "۲:۳"}, {"line": 3, "text": "3:😀"}]
    # a file's name in a message, on stderr
    done = run_cli("score", "نبود.txt", "--key", "A.txt", cwd=tmp_path, env=PERSIAN)
    assert done.returncode == 2
    assert (
        done.stderr.decode("ascii")
        == "benchboard: no such file: \\u0646\\u0628\\u0648\\u062f.txt\n"
    )


def test_a_prompt_is_its_bytes_whatever_the_terminal(tmp_path: Path) -> None:
    """``prompt`` is byte-exact: a Persian prompt was a UnicodeEncodeError where stdout
    is not UTF-8 (and a text stream would write Windows line ends)."""
    prompt = "به پرسش‌ها پاسخ دهید.\nخروجی فقط Q:O باشد.\n"
    (tmp_path / "tinymcq.toml").write_text(
        'name = "tinymcq"\ntitle = "TinyMCQ"\nkind = "choice"\noptions = 4\n'
        "points = { right = 1, wrong = -1, none = 0 }\n"
        f'prompt = """{prompt}"""\nkey = """\n1:3\n2:1\n"""\n',
        encoding="utf-8",
    )
    done = run_cli("benchmark", "add", "tinymcq.toml", cwd=tmp_path)
    assert done.returncode == 0, done.stderr.decode()
    done = run_cli("prompt", "tinymcq", cwd=tmp_path, env=PERSIAN)
    assert done.returncode == 0, done.stderr.decode()
    assert done.stdout == prompt.encode("utf-8")


#: The console script (``from bot.cli import main; sys.exit(main())``), with Ctrl-C
#: pressed at one moment: when the module named first starts to be imported.
CTRL_C_AT = """
import importlib.abc, os, signal, sys

AT = sys.argv[1]

class CtrlC(importlib.abc.MetaPathFinder):
    def find_spec(self, name, path, target=None):
        if name == AT:
            os.kill(os.getpid(), signal.SIGINT)
        return None

sys.meta_path.insert(0, CtrlC())
signal.signal(signal.SIGINT, signal.default_int_handler)  # as in a terminal
sys.argv[:] = ["benchboard", *sys.argv[2:]]
from bot.cli import main
sys.exit(main())
"""


@pytest.mark.parametrize(
    ("module", "args"),
    [
        # while the command's modules load: the scorer's package
        ("scoring", ["score", "out.txt", "--key", "A.txt"]),
        # while the parser is built (a command's parser imports its module)
        ("bot.cli_submit", ["submit", "out.txt", "--server", "http://127.0.0.1:9"]),
        # while scoring
        ("scoring.primebench.scorer", ["score", "out.txt", "--key", "A.txt"]),
    ],
)
def test_ctrl_c_at_any_moment_is_no_traceback(tmp_path: Path, module: str, args: list[str]) -> None:
    """Ctrl-C before ``main`` ran its ``try`` (the imports, building the parser) ended
    with a KeyboardInterrupt traceback; it ends as Ctrl-C does (130 in a shell: killed
    by SIGINT, or the exit code 130), saying nothing."""
    (tmp_path / "A.txt").write_text("1:3\n")
    (tmp_path / "out.txt").write_text("1:3\n")
    done = subprocess.run(
        [sys.executable, "-c", CTRL_C_AT, module, *args],
        cwd=tmp_path,
        env=_env(tmp_path, TOKEN),
        capture_output=True,
        timeout=60,
    )
    assert done.returncode in (130, -signal.SIGINT), done.stderr.decode()
    assert done.stderr == b"" and done.stdout == b""


#: Runs the command and prints its exit code, stderr and peak memory (KiB): the memory
#: of a grandchild, so that what this test process ran before does not count.
PEAK = """
import json, resource, subprocess, sys
stdin = open(sys.argv[1], "rb") if sys.argv[1] else None
done = subprocess.run(sys.argv[2:], stdin=stdin, capture_output=True)
peak = resource.getrusage(resource.RUSAGE_CHILDREN).ru_maxrss
print(json.dumps([done.returncode, done.stderr.decode(), peak]))
"""


@pytest.mark.parametrize("stdin", [False, True], ids=["file", "stdin"])
def test_a_sparse_gigabyte_is_refused_without_reading_it_whole(tmp_path: Path, stdin: bool) -> None:
    """A 1 GB sparse file (answers, then a hole of NUL bytes) was read whole into
    memory (1 GB) before it was called binary."""
    (tmp_path / "A.txt").write_text("1:3\n")
    sparse = tmp_path / "out.txt"
    with sparse.open("wb") as f:
        f.write(b"1:3\n2:4\n")
        f.truncate(2**30)
    source = "-" if stdin else "out.txt"
    command = [sys.executable, "-m", "bot", "score", source, "--key", "A.txt"]
    done = subprocess.run(
        [sys.executable, "-c", PEAK, str(sparse) if stdin else "", *command],
        cwd=tmp_path,
        env=_env(tmp_path),
        capture_output=True,
        timeout=120,
    )
    code, err, peak = json.loads(done.stdout)
    assert code == 2
    assert err == "benchboard: this looks like a binary file (it contains NUL bytes), not text\n"
    assert peak < 200 * 1024, f"{peak} KiB"


def test_utf16_text_is_read_as_utf8_is(tmp_path: Path) -> None:
    """A UTF-16 file (Notepad's "Unicode", PowerShell's ``>``) was "a binary file"; it
    scores as the same text in UTF-8 does, from a file and from stdin, larger than one
    chunk of the reading too. UTF-16 holding a NUL character is still binary."""
    (tmp_path / "A.txt").write_text("1:3\n2:4\n")
    text = "1:3\n2:4\n" + "x\n" * 3_000_000  # over 4 MB as UTF-16: read in chunks
    (tmp_path / "out8.txt").write_bytes(text.encode())
    (tmp_path / "out.txt").write_bytes(text.encode("utf-16"))
    want = run_cli("score", "out8.txt", "--key", "A.txt", "--json", cwd=tmp_path)
    assert want.returncode == 0, want.stderr
    for args, stdin in ((["out.txt"], None), (["-"], (tmp_path / "out.txt").read_bytes())):
        done = run_cli("score", *args, "--key", "A.txt", "--json", cwd=tmp_path, stdin=stdin)
        assert done.returncode == 0, done.stderr
        assert json.loads(done.stdout) == json.loads(want.stdout)
    (tmp_path / "nul.txt").write_bytes("1:3\n\x00\n".encode("utf-16"))
    done = run_cli("score", "nul.txt", "--key", "A.txt", cwd=tmp_path)
    assert done.returncode == 2
    assert "binary" in done.stderr.decode()


def test_version_and_python_m_bot_cli(tmp_path: Path) -> None:
    """``benchboard --version`` was "the following arguments are required: COMMAND";
    ``python -m bot.cli …`` did nothing at all, exit 0."""
    from importlib.metadata import version

    done = run_cli("--version", cwd=tmp_path)
    assert done.returncode == 0, done.stderr.decode()
    assert done.stdout.decode() == f"benchboard {version('benchboard')}\n"
    (tmp_path / "A.txt").write_text("1:3\n")
    done = subprocess.run(
        [sys.executable, "-m", "bot.cli", "score", "-", "--key", "A.txt", "--json"],
        cwd=tmp_path,
        env=_env(tmp_path),
        input=b"1:3\n",
        capture_output=True,
        timeout=60,
    )
    assert done.returncode == 0, done.stderr.decode()
    assert json.loads(done.stdout)["final_score"] == 1


def test_verify_takes_the_base64_key_and_refuses_what_is_no_record(tmp_path: Path) -> None:
    """``--key`` with the base64 itself (the README: "or its base64") was "no such key
    file"; a directory was "no such file"; a gigabyte file was read whole."""
    from cryptography.hazmat.primitives.asymmetric.ed25519 import Ed25519PrivateKey

    from bot.core import signing

    key = Ed25519PrivateKey.generate()
    record = {"benchmark": "primebench", "model": "m", "mode": "think", "score": 3.0}
    (tmp_path / "r.json").write_text(json.dumps(signing.sign(record, key)))
    given = signing.public_json(key)["public_key"]
    done = run_cli("verify", "r.json", "--key", given, cwd=tmp_path)
    assert done.returncode == 0, done.stderr.decode()
    assert done.stdout.decode() == (
        "valid: r.json (primebench m think, score 3) signed by the key given\n"
    )
    other = signing.public_json(Ed25519PrivateKey.generate())["public_key"]
    done = run_cli("verify", "r.json", "--key", other, cwd=tmp_path)
    assert done.returncode == 1 and done.stderr.decode().startswith("NOT VALID: r.json: ")
    (tmp_path / "adir").mkdir()
    with (tmp_path / "big.json").open("wb") as f:
        f.truncate(2**30)
    for name, said in (
        ("adir", "adir is a directory, not a file"),
        ("big.json", "big.json: not a signed result (over 4 MB)"),
    ):
        done = run_cli("verify", name, "--key", given, cwd=tmp_path)
        assert done.returncode == 2
        assert done.stderr.decode() == f"benchboard: {said}\n"


def test_stdin_closed_is_one_line(tmp_path: Path) -> None:
    """``benchboard score - <&-`` ended with an AttributeError traceback."""
    (tmp_path / "A.txt").write_text("1:3\n")
    for args in (["score", "-", "--key", "A.txt"], ["score", "-", "-b", "natory", "--target", "1"]):
        done = subprocess.run(
            [sys.executable, "-m", "bot", *args],
            cwd=tmp_path,
            env=_env(tmp_path),
            capture_output=True,
            stdin=subprocess.DEVNULL,
            timeout=60,
            preexec_fn=lambda: os.close(0),
        )
        assert done.returncode == 2
        assert done.stderr.decode() == "benchboard: - reads stdin, and stdin is closed\n"


@pytest.mark.parametrize(
    "args",
    [
        ["score", "out.txt", "--key", "big.txt"],
        ["data", "load", "primebench", "--key", "big.txt"],
        ["data", "load", "primebench", "--key", "out.txt", "--questions", "big.txt"],
    ],
    ids=["score --key", "data load --key", "data load --questions"],
)
def test_a_sparse_key_file_is_refused_by_name_without_reading_it_whole(
    tmp_path: Path, args: list[str]
) -> None:
    (tmp_path / "out.txt").write_text("1:3\n")
    with (tmp_path / "big.txt").open("wb") as f:
        f.write(b"1:3\n")
        f.truncate(2**30)
    command = [sys.executable, "-m", "bot", *args]
    done = subprocess.run(
        [sys.executable, "-c", PEAK, "", *command],
        cwd=tmp_path,
        env=_env(tmp_path),
        capture_output=True,
        timeout=120,
    )
    code, err, peak = json.loads(done.stdout)
    assert code == 2
    said = "this looks like a binary file (it contains NUL bytes), not text"
    assert err == f"benchboard: bad file big.txt: {said}\n"
    assert peak < 200 * 1024, f"{peak} KiB"


@pytest.mark.parametrize("after", ["", "\n", "\n\n  \n"])
def test_a_natory_expression_longer_than_the_tail_is_too_long_not_absent(
    tmp_path: Path, after: str
) -> None:
    """One line of a million characters (``1+1+…``) was "there is no expression", and
    no invalid line, when a line break ended it (the reader keeps the last 64 KB from a
    line start, and there was none in them); without one, it was 65,536 characters
    long (the 64 KB read)."""
    (tmp_path / "long.txt").write_text("1+" * 500_000 + "1" + after)
    done = run_cli("score", "long.txt", "-b", "natory", "--target", "1", "--json", cwd=tmp_path)
    assert done.returncode == 0, done.stderr.decode()
    data = json.loads(done.stdout)
    assert data["error"] == "the expression is 1,000,001 characters long; the limit is 1,000"
    done = run_cli("score", "long.txt", "-b", "natory", "--target", "1", cwd=tmp_path)
    assert "\nInvalid lines (1):\n  line 1: " in done.stdout.decode()


@pytest.mark.parametrize(
    "url", ["mysql://u:secret@h/db", "sqlite:///bb.sqlite3", "postgresq://u@h/db"]
)
def test_a_database_url_of_another_kind_is_refused(tmp_path: Path, url: str) -> None:
    """``BENCHBOARD_DB=mysql://…`` (or a mistyped ``postgresq://``) made an SQLite file
    named ``mysql:`` in the working folder and used it."""
    (tmp_path / "out.txt").write_text("1:3\n")
    done = run_cli("score", "out.txt", cwd=tmp_path, env={"BENCHBOARD_DB": url})
    assert done.returncode == 2
    assert done.stderr.decode() == (
        "benchboard: BENCHBOARD_DB: is a URL but not postgresql://: give PostgreSQL as "
        "postgresql://USER:PASSWORD@HOST:5432/DBNAME, or SQLite as a file's path\n"
    )
    assert sorted(p.name for p in tmp_path.iterdir()) == ["out.txt"]


def test_a_data_folder_that_cannot_be_written_is_one_line(tmp_path: Path) -> None:
    """``data load`` into a data folder that is a file ended with NotADirectoryError's
    traceback."""
    (tmp_path / "A.txt").write_text("".join(f"{q}:{q % 4 + 1}\n" for q in range(1, 105)))
    (tmp_path / "folder").write_text("a file, not a folder\n")
    env = {"BENCHBOARD_DATA_DIR": str(tmp_path / "folder")}
    done = run_cli("data", "load", "primebench", "--key", "A.txt", cwd=tmp_path, env=env)
    assert done.returncode == 2
    assert done.stderr.decode() == (
        f"benchboard: cannot write {tmp_path}/folder/primebench/A.txt: Not a directory\n"
    )


def test_db_port_refuses_a_url_of_another_database(tmp_path: Path) -> None:
    """``db port --to mysql://u:pw@h/db`` made the folders ``mysql:/u:pw@h`` (the
    password in a file name) and an SQLite file ``db``, and said "ported to
    mysql://u:***@h/db: verified"; ``--from`` such a URL printed its password."""
    source = tmp_path / "src.sqlite3"
    done = run_cli("db", "backup", str(source), cwd=tmp_path)
    assert done.returncode == 0, done.stderr.decode()
    before = sorted(p.name for p in tmp_path.iterdir())
    for option, args in (
        ("--to", ["--from", str(source), "--to", "mysql://u:pw@h/db"]),
        ("--from", ["--from", "mysql://u:pw@h/db", "--to", str(tmp_path / "copy.sqlite3")]),
    ):
        done = run_cli("db", "port", *args, cwd=tmp_path)
        assert done.returncode == 2
        assert done.stderr.decode() == (
            f"benchboard: not ported: {option} mysql://u:***@h/db is a URL but not "
            "postgresql://: give an SQLite file's path or a postgresql:// URL\n"
        )
    assert sorted(p.name for p in tmp_path.iterdir()) == before
