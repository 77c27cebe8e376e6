"""Submitting, straight through ``bot.core.submit`` on a real store: the text is read,
scored against the stored key and recorded with its result; bad input is refused with
the message the user gets, and nothing is stored."""

from __future__ import annotations

import asyncio
from pathlib import Path

import pytest

from bot.core import api, submissions, submit
from bot.core.errors import UserError
from bot.core.services import Services
from bot.render import i18n
from bot.settings import Settings
from scoring import registry
from storage import Store, Visibility

from .conftest import BOTH, KEY, engine_free
from .usecases import Submitter, answer_text, points

ENGINES = BOTH
PRIME = registry.get("primebench")


class Upload:
    """A document as Telegram announces it, and its bytes."""

    def __init__(self, name: str | None, data: bytes, size: int | None = None) -> None:
        self.file_name = name
        self.file_size = len(data) if size is None else size
        self.data = data
        self.downloads = 0

    async def download(self) -> bytes:
        self.downloads += 1
        return self.data

    async def download_to(self, path: Path) -> None:
        self.downloads += 1
        await asyncio.to_thread(path.write_bytes, self.data)


async def test_a_submission_is_stored_with_its_scored_result(
    services: Services, store: Store
) -> None:
    text = "Here you go:\nmodel: GPT X\n#think\n" + answer_text(50, 4, mode=None)
    sub, result = await submit.submit(services, text=text, user_id=7, chat_id=-100, message_id=3)
    assert result is not None and result.primary == points(50, 4) == 38.0
    stored = await store.get_submission(sub.id)
    assert sub.created and stored is not None
    assert (stored.user_id, stored.chat_id, stored.message_id) == (7, -100, 3)
    assert (stored.benchmark, stored.model, stored.mode) == ("primebench", "GPT X", "think")
    assert stored.visibility is Visibility.PRIVATE
    assert stored.score == 38.0 and stored.fingerprint == result.fingerprint
    assert (stored.record["correct"], stored.record["wrong"]) == (50, 4)
    assert stored.record["unanswered"] == len(KEY) - 54
    assert stored.key_version_id == services.keys["primebench"].version.id
    assert stored.scorer_version == PRIME.scorer_version
    # the stored text is the one scored: the tag lines blanked, the line numbers kept
    raw = await store.raw_text(sub.id)
    assert raw.splitlines()[1:3] == ["", ""] and raw.splitlines()[3] == f"1:{KEY[1]}"
    assert PRIME.score(raw, services.keys["primebench"].key).primary == 38.0
    # the card rebuilt from the store shows the same result
    shown = await submissions.card(services, stored)
    assert shown.result.primary == 38.0 and shown.left_today == (3, 3)


async def test_a_repeated_delivery_is_stored_once(services: Services, store: Store) -> None:
    text = answer_text(10, model="M")
    first, result = await submit.submit(services, text=text, user_id=1, chat_id=-5, message_id=9)
    again, none = await submit.submit(services, text=text, user_id=1, chat_id=-5, message_id=9)
    assert result is not None and none is None
    assert again.id == first.id and not again.created
    assert await store.count_history(1) == 1
    other, _ = await submit.submit(services, text=text, user_id=1, chat_id=-5, message_id=10)
    assert other.id != first.id and await store.count_history(1) == 2


@engine_free
async def test_scoring_someone_elses_output_names_both(services: Services, store: Store) -> None:
    await store.upsert_user(5, username="ada", first_name="Ada", last_name=None, language_code=None)
    await store.upsert_user(6, username=None, first_name="Bob", last_name="B", language_code=None)
    sub, _ = await submit.submit(
        services, text=answer_text(3, model="M"), user_id=5, chat_id=-1, message_id=1, asked_by=6
    )
    assert sub.extra[submissions.ASKED_BY] == 6 and submissions.asked_by_id(sub) == 6
    shown = await submissions.card(services, sub)
    assert (shown.author, shown.asked_by) == ("Ada (@ada)", "Bob B")
    own, _ = await submit.submit(
        services, text=answer_text(3, model="M"), user_id=5, chat_id=-1, message_id=2, asked_by=5
    )
    assert submissions.ASKED_BY not in own.extra
    assert (await submissions.card(services, own)).author is None


@engine_free
@pytest.mark.parametrize(
    ("text", "key"),
    [
        ("hello, what is this bot?", "not_submission"),
        ("#primebench\nmodel: M\n#think", "empty"),
        ("#thnk\n1:2\n2:3", "unknown_tag"),
        ("#primebench mode: sideways\n1:2", "unknown_mode_tag"),
        ("benchmark: primebnch\n1:2", "unknown_benchmark_tag"),
        ("", "empty"),
    ],
)
async def test_bad_input_is_refused_and_nothing_is_stored(
    services: Services, store: Store, text: str, key: str
) -> None:
    with pytest.raises(UserError) as refused:
        await submit.submit(services, text=text, user_id=1, chat_id=-1, message_id=1)
    assert refused.value.key == key
    assert await store.count_history(1) == 0


@engine_free
@pytest.mark.parametrize("field", api.OPTION_FIELDS)
async def test_a_refused_field_is_told_in_every_language(
    services: Services, store: Store, field: str
) -> None:
    refusals = set()
    for user_id, benchmark in enumerate(registry.all_benchmarks(), start=1):
        text = f"#{benchmark.tags[0]}\nmodel: M\n{field}: 0x\n1:1\n7*8"
        try:
            await submit.submit(services, text=text, user_id=user_id, chat_id=-1, message_id=1)
        except UserError as refused:
            refusals.add(refused.key)
            for lang in i18n.LANGUAGES:  # every refusal can be told
                told = i18n.t(lang, refused.key, **refused.values)
                assert refused.key != f"bad_{field}" or "0x" in told
            assert await store.count_history(user_id) == 0
    assert f"bad_{field}" in refusals


@engine_free
async def test_a_bad_tag_names_what_is_valid(services: Services) -> None:
    with pytest.raises(UserError) as refused:
        await submit.submit(services, text="#thnk\n1:2", user_id=1, chat_id=-1, message_id=1)
    assert refused.value.key == "unknown_tag"
    said = {lang: i18n.t(lang, refused.value.key, **refused.value.values) for lang in ("en", "fa")}
    for told in said.values():  # in either language, what was not known and what is
        assert "#thnk" in told and "#think" in told and "#primebench" in told
    assert said["en"].startswith("unknown tag #thnk: modes are")
    assert "برچسب ناشناخته" in said["fa"] and "unknown" not in said["fa"]


@engine_free
async def test_without_a_key_nothing_is_scored(store: Store, tmp_path: Path) -> None:
    bare = Services(settings=Settings(data_dir=tmp_path, fetch_on_start=False), store=store)
    with pytest.raises(UserError) as refused:
        await submit.submit(bare, text=answer_text(5), user_id=1, chat_id=-1, message_id=1)
    assert refused.value.key == "no_key" and refused.value.values == {
        "benchmark": "PrimeBench",
        "name": "primebench",
    }
    assert await store.count_history(1) == 0


@engine_free
async def test_an_uploaded_file_scores_as_its_text(services: Services, store: Store) -> None:
    text = answer_text(20, 1, model="Doc Model")
    upload = Upload("answers.TXT", text.encode())
    sub, result = await submit.submit(
        services, text=None, upload=upload, user_id=2, chat_id=-1, message_id=1
    )
    assert result is not None and result.primary == points(20, 1)
    assert sub.model == "Doc Model" and sub.score == 17.0
    with_bom = Upload("a.md", b"\xef\xbb\xbf" + text.replace("\n", "\r\n").encode())
    again, _ = await submit.submit(
        services, text=None, upload=with_bom, user_id=2, chat_id=-1, message_id=2
    )
    assert again.score == 17.0 and again.fingerprint == sub.fingerprint


@engine_free
@pytest.mark.parametrize(
    ("upload", "key"),
    [
        (Upload("answers.pdf", b"1:2"), "bad_extension"),
        (Upload("answers", b"1:2", size=21 * 1024 * 1024), "too_big"),
        (Upload("answers.txt", b"1:2\n\xff\xfe2:3"), "bad_encoding"),
        (Upload("answers.txt", b"1:2\x00\x00"), "bad_encoding"),
    ],
)
async def test_a_bad_upload_is_refused(
    services: Services, store: Store, upload: Upload, key: str
) -> None:
    with pytest.raises(UserError) as refused:
        await submit.submit(services, text=None, upload=upload, user_id=1, chat_id=-1, message_id=1)
    assert refused.value.key == key
    if key in ("bad_extension", "too_big"):
        assert upload.downloads == 0  # refused from what Telegram announced
    if key == "too_big":
        assert refused.value.values == {"size": "21.0", "limit": 20}
    assert await store.count_history(1) == 0


@engine_free
async def test_a_result_through_a_challenge_keeps_it(services: Services) -> None:
    post = Submitter(services)
    champion = await post.published(30, model="Champ", user_id=1)
    opened = ("primebench", {"submission_id": champion.id, "score": "30", "model": "Champ"})
    sub, _ = await submit.submit(
        services, text=answer_text(31, model="Rival"), user_id=2, chat_id=-1, message_id=50,
        challenge=opened,
    )  # fmt: skip
    assert sub.extra["challenge"] == opened[1]
    # a challenge of another benchmark is not what this result answers
    other, _ = await submit.submit(
        services, text=answer_text(31, model="Rival"), user_id=2, chat_id=-1, message_id=51,
        challenge=("zerobench", {"submission_id": champion.id}),
    )  # fmt: skip
    assert "challenge" not in other.extra


async def test_a_large_text_and_file_are_stored_as_a_small_one(
    services: Services, store: Store
) -> None:
    """Past the offload size the text is read, scored and packed by the worker's code
    (here in this process: the services have no worker), and the store keeps the same
    text and result as for a small one."""
    filler = "\n".join(f"thinking out loud, step {i}" for i in range(3000))
    text = answer_text(40, 2, model="Verbose") + "\n" + filler
    assert len(text.encode()) >= submit.POOL_THRESHOLD
    sub, result = await submit.submit(services, text=text, user_id=1, chat_id=-1, message_id=1)
    assert result is not None and sub.score == points(40, 2)
    assert sub.record["invalid_line_count"] == 3000 and sub.model == "Verbose"
    raw = await store.raw_text(sub.id)
    assert raw.splitlines()[2:] == text.splitlines()[2:] and raw.splitlines()[:2] == ["", ""]
    upload = Upload("long.txt", text.encode())
    from_file, _ = await submit.submit(
        services, text=None, upload=upload, user_id=1, chat_id=-1, message_id=2
    )
    assert (from_file.score, from_file.fingerprint) == (sub.score, sub.fingerprint)
    assert await store.raw_text(from_file.id) == raw


def test_a_size_just_over_the_limit_is_not_shown_as_the_limit() -> None:
    with pytest.raises(UserError) as refused:
        submit.check_size(20 * 1024 * 1024 + 1)
    assert refused.value.values["size"] == "20.1"
