"""Webhook updates spooled to disk while the database did not answer, left behind by a
process that stopped before it could admit them: the next start admits and answers
each once (a line repeated, or cut short by a crash, changes nothing), and the folder
is left empty."""

from __future__ import annotations

import json
from pathlib import Path

from tests.e2e.botapi import FakeBotAPI
from tests.e2e.botkit import KEY, answers
from tests.e2e.harness import running_bot
from tests.reliability.burst import SCORE


async def test_a_spool_left_behind_is_answered_once_at_start(tmp_path: Path) -> None:
    async with FakeBotAPI() as api:
        user = api.user(9501, "Spooled")
        chat = api.private_chat(user)
        updates = [
            api.make_text_update(
                chat, user, "\n".join([f"model: spooled-{n}", "#think", *answers(KEY, correct=8)])
            )
            for n in range(3)
        ]
        spool = tmp_path / "data" / "spool"
        spool.mkdir(parents=True)
        lines = [json.dumps(u) for u in updates]
        # the same update twice (spooled by two instances), and a line cut short
        (spool / "0a1b2c.jsonl").write_text("\n".join([*lines, lines[0], lines[1][:40]]) + "\n")
        async with running_bot(api, tmp_path, key=KEY):
            await api.wait_until(
                lambda: sum(SCORE in str(m.get("text")) for m in api.messages_in(chat["id"])) >= 3,
                30,
                what="the three spooled submissions answered",
            )
        cards = [
            str(m.get("text")) for m in api.messages_in(chat["id"]) if SCORE in str(m.get("text"))
        ]
        assert sorted(c.split("Model: ")[1].split("\n")[0] for c in cards) == [
            "spooled-0",
            "spooled-1",
            "spooled-2",
        ]
        assert list(spool.iterdir()) == []


async def test_while_postgres_is_down_an_instance_is_live_and_keeps_updates(
    tmp_path: Path,
) -> None:
    """Webhook mode, PostgreSQL killed: ``/healthz`` says 503 (the database), ``/livez``
    200 (what the load balancer checks: the instance still takes requests), and an
    update Telegram delivers is taken (200, spooled), then answered once it is back."""
    import aiohttp

    from tests.e2e.botapi import free_port
    from tests.e2e.harness import webhook_env
    from tests.reliability.pgcluster import pg_cluster

    port = free_port()
    async with pg_cluster() as cluster, FakeBotAPI() as api:
        env = {**webhook_env(port, "live"), "BENCHBOARD_DB": cluster.url}
        async with running_bot(api, tmp_path, key=KEY, env=env):
            await cluster.kill()
            async with aiohttp.ClientSession() as session:
                async with session.get(f"http://127.0.0.1:{port}/healthz") as r:
                    assert r.status == 503
                async with session.get(f"http://127.0.0.1:{port}/livez") as r:
                    assert r.status == 200
            user = api.user(9502, "Live")
            chat = api.private_chat(user)
            text = "\n".join(["model: live", "#think", *answers(KEY, correct=7)])
            await api.send_text(chat, user, text)
            assert api.webhook_deliveries[-1].status == 200, api.webhook_deliveries[-3:]
            await cluster.start()
            await api.wait_until(
                lambda: any(SCORE in str(m.get("text")) for m in api.messages_in(chat["id"])),
                60,
                what="the spooled submission answered",
            )
