"""Links and sharing use cases on a real store: result tokens only for published
results, payloads that open only what is visible, cards drawn off the event loop and
cached by what they show, challenges kept until answered."""

from __future__ import annotations

import asyncio
import subprocess
import sys
import threading
from pathlib import Path

import pytest

from bot.core import links, sharing
from bot.core.errors import UserError
from bot.core.services import Services
from bot.settings import Settings
from storage import Store
from tests.storage.helpers import Maker, answers


@pytest.fixture
async def services(store: Store, tmp_path: Path) -> Services:
    found = Services(settings=Settings(data_dir=tmp_path, fetch_on_start=False), store=store)
    found.bot_username = "benchboard_bot"
    return found


async def test_only_a_published_result_gets_a_token(
    services: Services, store: Store, make: Maker
) -> None:
    sub = await store.record_submission(make(answers(1, 2), user_id=5))
    with pytest.raises(UserError) as refused:
        await links.result_token(services, sub)
    assert refused.value.key == "not_shareable"
    published = await store.publish(sub.id)
    token = await links.result_token(services, published, created_by=5)
    assert await links.result_token(services, published) == token  # one live token
    opened = await links.open_result(services, token)
    assert opened is not None and opened.id == sub.id
    # the same token, once the result is withdrawn or hidden, opens nothing
    await store.withdraw(sub.id, 5)
    assert await links.open_result(services, token) is None
    await store.publish(sub.id)
    assert await links.open_result(services, token) is not None
    await store.hide(sub.id)
    assert await links.open_result(services, token) is None


async def test_payloads_are_prefixed_tokens_within_telegram_rules(
    services: Services, store: Store, make: Maker
) -> None:
    sub = await store.publish((await store.record_submission(make(answers(1)))).id)
    await store.upsert_chat(-100, type="supergroup", title="Lab")
    result = links.payload("result", await links.result_token(services, sub))
    challenge = links.payload("challenge", await links.challenge_token(services, sub, created_by=1))
    group = links.payload("group", await links.group_token(services, -100))
    for payload in (result, challenge, group):
        assert len(payload) <= 64 and payload.replace("_", "").replace("-", "").isalnum()
    opened = await links.open_payload(services, result)
    assert opened is not None and opened.kind == "result" and opened.submission is not None
    opened = await links.open_payload(services, challenge)
    assert opened is not None and opened.kind == "challenge"
    opened = await links.open_payload(services, group)
    assert opened is not None and opened.chat_id == -100
    # a token of one kind under another prefix, an unknown or a malformed one: nothing
    assert await links.open_payload(services, "c_" + result[2:]) is None
    assert await links.open_payload(services, "r_AAAAAAAAAAAAAAAA") is None
    assert await links.open_payload(services, "g_' OR 1=1 --") is None
    with pytest.raises(ValueError):
        await links.open_payload(services, "me")
    assert links.parse_payload("r_") is None and links.parse_payload("s12") is None


async def test_cards_are_drawn_in_the_render_thread(
    services: Services, store: Store, make: Maker
) -> None:
    sub = await store.publish((await store.record_submission(make(answers(1, 2)))).id)
    image = await sharing.result_card(services, sub, lang="en")
    assert image.file_id is None  # never uploaded
    loop_thread = threading.get_ident()
    seen: list[int] = []

    def where() -> int:
        seen.append(threading.get_ident())
        return seen[-1]

    await services.render.run(where)
    png = await sharing.draw(services, image)
    assert png.startswith(b"\x89PNG") and seen and seen[0] != loop_thread
    await sharing.uploaded(services, image, "AgAC-card")
    again = await sharing.result_card(services, sub, lang="en")
    assert again.key == image.key and again.file_id == "AgAC-card"
    # another theme or language is another image
    assert (await sharing.result_card(services, sub, lang="en", theme_="dark")).file_id is None
    assert (await sharing.result_card(services, sub, lang="fa")).key != image.key
    services.render.close()


async def test_a_rank_change_makes_a_new_card(
    services: Services, store: Store, make: Maker
) -> None:
    weak = await store.publish((await store.record_submission(make(answers(1), model="W"))).id)
    before = await sharing.result_card(services, weak, lang="en")
    right = [make.key.answers[q] for q in sorted(make.key.answers)]
    await store.publish((await store.record_submission(make(answers(*right), model="S"))).id)
    after = await sharing.result_card(services, weak, lang="en")
    assert isinstance(after.view, type(before.view))
    assert after.view.rank == before.view.rank + 1  # type: ignore[union-attr,operator]
    assert after.key != before.key


async def test_a_challenge_waits_for_a_result_of_its_benchmark(
    services: Services, store: Store, make: Maker
) -> None:
    sub = await store.publish((await store.record_submission(make(answers(1), model="Champ"))).id)
    challenge = sharing.challenge_of(sub)
    assert (challenge.benchmark, challenge.model) == ("primebench", "Champ")
    await sharing.accept(services, 42, challenge)
    assert await sharing.pending(services, 42) == challenge
    assert await sharing.pending(services, 43) is None
    plain = await store.record_submission(make(answers(1), user_id=42))
    assert not await sharing.answered(services, 42, plain, challenge)  # not through it: open
    assert await sharing.pending(services, 42) == challenge
    through = await store.record_submission(
        make(answers(1), user_id=42, extra={"challenge": challenge.extra()})
    )
    assert await sharing.answered(services, 42, through, challenge)
    assert await sharing.pending(services, 42) is None


async def test_a_challenge_opened_since_stays_open(
    services: Services, store: Store, make: Maker
) -> None:
    """Answering a challenge closes that one only: one opened meanwhile stays open."""
    first = sharing.challenge_of(
        await store.publish((await store.record_submission(make(answers(1), model="A"))).id)
    )
    second = sharing.challenge_of(
        await store.publish((await store.record_submission(make(answers(2), model="B"))).id)
    )
    await sharing.accept(services, 7, first)
    await sharing.accept(services, 7, second)  # opened while the first was pending
    through = await store.record_submission(
        make(answers(1), user_id=7, extra={"challenge": first.extra()})
    )
    assert await sharing.answered(services, 7, through, first)
    assert await sharing.pending(services, 7) == second
    assert await store.awaited_input("challenge", "7") is not None  # in the store itself


def test_starting_the_bot_loads_no_card_renderer() -> None:
    """The sharing modules import the drawing code only in the render thread."""
    code = (
        "import sys, bot.telegram.app, bot.core.sharing, bot.telegram.inline_handlers\n"
        "print('bot.render.cards' in sys.modules)"
    )
    shown = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True)
    assert shown.stdout.strip() == "False"


async def test_render_pool_runs_one_job_at_a_time() -> None:
    from bot.core.render_pool import RenderPool

    pool = RenderPool()
    threads = await asyncio.gather(*(pool.run(threading.get_ident) for _ in range(5)))
    assert len(set(threads)) == 1 and threads[0] != threading.get_ident()
    pool.close()
