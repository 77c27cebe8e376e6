"""The deployment files: what they run exists, every setting is documented, the unit verifies."""

from __future__ import annotations

import re
import shutil
import subprocess
import sys
from pathlib import Path

import pytest

from bot.settings import PREFIX, Settings

DEPLOY = Path(__file__).resolve().parents[2] / "deploy"


def test_env_example_lists_every_setting() -> None:
    text = (DEPLOY / ".env.example").read_text()
    documented = set(re.findall(rf"^#?({PREFIX}[A-Z_]+)=", text, re.MULTILINE))
    expected = {PREFIX + name.upper() for name in Settings.model_fields}
    # the download addresses are documented per benchmark (BENCHBOARD_<NAME>_URL), not
    # as the JSON of source_urls
    per_benchmark = {PREFIX + name.upper() + "_URL" for name in ("primebench", "zerobench")}
    assert documented == expected - {PREFIX + "SOURCE_URLS"} | per_benchmark


def test_dockerfile_runs_commands_that_exist(tmp_path: Path) -> None:
    dockerfile = (DEPLOY / "Dockerfile").read_text()
    assert 'CMD ["benchboard", "run"]' in dockerfile
    assert 'CMD ["benchboard", "health"]' in dockerfile
    assert re.search(r"^USER benchboard$", dockerfile, re.MULTILINE)
    env = {"BENCHBOARD_DATA_DIR": str(tmp_path), "PATH": "/usr/bin:/bin"}

    def benchboard(command: str) -> subprocess.CompletedProcess[bytes]:
        return subprocess.run(
            [sys.executable, "-m", "bot", command],
            capture_output=True,
            env=env,
            cwd=Path(__file__).resolve().parents[2],
            timeout=60,
        )

    health = benchboard("health")
    # a fresh volume: the database opens, the key is not there yet -> unhealthy (1)
    assert health.returncode == 1
    assert b"database ok" in health.stdout and b"key missing" in health.stdout
    run = benchboard("run")
    assert run.returncode == 2
    assert b"BENCHBOARD_TOKEN is not set" in run.stderr


def test_compose_files_use_the_dockerfile_and_a_volume() -> None:
    for name in ("compose.yaml", "compose.webhook.yaml"):
        text = (DEPLOY / name).read_text()
        assert "dockerfile: deploy/Dockerfile" in text
        assert "benchboard-data:/data" in text
    assert "reverse_proxy /telegram benchboard:8443" in (DEPLOY / "Caddyfile").read_text()


def test_the_scaled_compose_file_runs_two_instances_on_postgresql() -> None:
    text = (DEPLOY / "compose.scale.yaml").read_text()
    assert "dockerfile: deploy/Dockerfile" in text and "image: postgres:15" in text
    assert "BENCHBOARD_DB: postgresql://" in text
    assert 'BENCHBOARD_WEBHOOK_REGISTER: "false"' in text
    assert "benchboard webhook set" in text
    for instance in ("bot1", "bot2"):
        assert f"\n  {instance}:\n" in text
    caddy = (DEPLOY / "Caddyfile.scale").read_text()
    assert "reverse_proxy bot1:8443 bot2:8443" in caddy and "health_uri /livez" in caddy


@pytest.mark.skipif(shutil.which("systemd-analyze") is None, reason="no systemd-analyze here")
def test_systemd_unit_verifies(tmp_path: Path) -> None:
    unit = (DEPLOY / "benchboard.service").read_text()
    for option in (
        "NoNewPrivileges=yes",
        "ProtectSystem=strict",
        "Restart=on-failure",
        "User=benchboard",
    ):
        assert option in unit
    # verify with ExecStart pointing at a binary that exists on this machine
    (tmp_path / "benchboard.service").write_text(
        unit.replace("/opt/benchboard/bin/benchboard run", f"{sys.executable} -m bot run")
    )
    result = subprocess.run(
        ["systemd-analyze", "verify", str(tmp_path / "benchboard.service")],
        capture_output=True,
        text=True,
        timeout=60,
    )
    problems = [
        line
        for line in (result.stdout + result.stderr).splitlines()
        if "benchboard.service" in line
    ]
    assert problems == []
