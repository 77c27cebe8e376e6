"""Everyday chat flows from a phone, against the real bot process: what a user meets
in private chats, groups and forum topics, with the inputs people really send."""

from __future__ import annotations

import asyncio
import json
from pathlib import Path

from .botkit import BOT, answers, bot_session, buttons, private_user, submission_id, text_of


async def test_a_score_whose_command_was_deleted_still_gets_its_card(tmp_path: Path) -> None:
    """Many groups run a bot that deletes every command at once: the card to
    ``/score`` still arrives (it cannot quote the deleted message), and its owner can
    use its buttons."""
    async with bot_session(tmp_path) as bot:
        user, _ = private_user(bot, 7101)
        group = bot.api.group_chat(-1007101, "Cleaned")
        text = f"/score@{BOT} #think\n" + "\n".join(answers(bot.key, correct=3))
        update = bot.api.make_text_update(group, user, text)
        bot.api.delete_message(update["message"])
        since = bot.api.mark()
        await bot.api.send_update(update)
        call = await bot.api.wait_for(
            lambda c: c["method"] == "sendMessage" and c["params"].get("chat_id") == group["id"],
            timeout=20,
            since=since,
        )
        assert call["ok"], call
        assert "Correct: 3" in text_of(call)
        sid = submission_id(text_of(call))
        answer = await bot.press(group, user, call, f"model:{sid}")
        assert "text" not in answer  # the prompt for the name, not "not yours"
        bot.check_clean(since=since + 1)


async def test_answers_in_a_forum_topic_stay_in_that_topic(tmp_path: Path) -> None:
    """A forum supergroup: whatever the bot answers to a message in a topic lands in
    that topic, never in "General" — the welcome to /start, the card, the prompt for
    the model name, the invalid lines, and a card whose command was deleted at once."""
    async with bot_session(tmp_path) as bot:
        api = bot.api
        user, _ = private_user(bot, 7201)
        forum = api.group_chat(-1007201, "Forum", forum=True)
        topic = 55

        def in_topic(call: dict) -> bool:
            return call["ok"] and call["result"].get("message_thread_id") == topic

        since = api.mark()
        start = await api.send_text(forum, user, "/start", thread=topic)
        welcome = await api.wait_call("sendMessage", chat_id=forum["id"], since=since, timeout=20)
        assert "/score" in text_of(welcome), welcome
        assert in_topic(welcome), f"/start ({start['message_id']}) answered outside its topic"

        text = "/score #think\n" + "\n".join([*answers(bot.key, correct=3), "1:x", "2:y"] * 4)
        card = await bot.say(forum, user, text, thread=topic)
        assert in_topic(card)
        sid = submission_id(text_of(card))
        since = api.mark()
        await bot.press(forum, user, card, f"model:{sid}")
        prompt = await api.wait_call("sendMessage", chat_id=forum["id"], since=since, timeout=20)
        assert in_topic(prompt)

        update = api.make_text_update(forum, user, text, thread=topic)
        api.delete_message(update["message"])
        since = api.mark()
        await api.send_update(update)
        orphan = await api.wait_call("sendMessage", chat_id=forum["id"], since=since, timeout=20)
        assert "Correct: 3" in text_of(orphan)
        assert in_topic(orphan)


async def test_a_utf16_file_from_windows_is_scored(tmp_path: Path) -> None:
    """``python run.py > out.txt`` in Windows PowerShell writes UTF-16 with a byte-order
    mark (Notepad's "Unicode" too): the file is read, not refused as binary."""
    async with bot_session(tmp_path) as bot:
        user, chat = private_user(bot, 7301)
        text = "model: gpt-x — é\r\n#think\r\n" + "\r\n".join(answers(bot.key, correct=4, wrong=1))
        for codec in ("utf-16", "utf-16-be"):
            body = text.encode(codec) if codec == "utf-16" else b"\xfe\xff" + text.encode(codec)
            sent = await bot.api.send_document(chat, user, body, "out.txt")
            reply = text_of(await bot.api.reply_to(sent, timeout=20))
            assert "Correct: 4" in reply and "Wrong: 1" in reply, reply
            assert "Model: gpt-x — é" in reply and "Mode: think" in reply


async def test_what_is_typed_when_the_model_name_is_asked_for(tmp_path: Path) -> None:
    """After the Model button: a one-line output is scored (not taken for a name), a
    ``model:`` line gives the name (its mode too), a mode word sets the mode and the
    bot asks again, and a name typed after the result was published is answered."""
    async with bot_session(tmp_path) as bot:
        api = bot.api
        user, chat = private_user(bot, 7401)
        card = await bot.say(chat, user, "\n".join(answers(bot.key, correct=3)))
        sid = submission_id(text_of(card))
        await bot.press(chat, user, card, f"model:{sid}")

        one_line = " ".join(answers(bot.key, correct=2))
        scored = text_of(await bot.say(chat, user, one_line))
        assert "Correct: 2" in scored and submission_id(scored) != sid
        assert "Model: not set" in text_of(bot.current(card))

        since = api.mark()
        said = text_of(await bot.say(chat, user, "think & tools"))
        assert "Mode set: think & tools" in said and f"#{sid}" in said, said
        shown = text_of(await bot.edited(card, since))
        assert "Mode: think & tools" in shown and "Model: not set" in shown

        since = api.mark()
        said = text_of(await bot.say(chat, user, "Model: GPT-6 Luna #think"))
        assert "Model set: GPT-6 Luna" in said, said
        shown = text_of(await bot.edited(card, since))
        assert "Model: GPT-6 Luna" in shown and "Mode: think\n" in shown

        await bot.press(chat, user, bot.current(card), f"model:{sid}")  # Change model
        await bot.press(chat, user, bot.current(card), f"pub:{sid}")
        said = text_of(await bot.say(chat, user, "another-name"))
        assert "published" in said and "went wrong" not in said, said
        assert "Model: GPT-6 Luna" in text_of(bot.current(card))


async def test_a_mode_typed_on_its_own_says_where_modes_are_chosen(tmp_path: Path) -> None:
    """A new user types the mode as a word: the answer says it is a mode and how to
    choose it (its tag), in their language; nothing is stored."""
    async with bot_session(tmp_path) as bot:
        user, chat = private_user(bot, 7501)
        for typed, tag in [
            ("think", "#think"),
            ("Think & Tools", "#think_tools"),
            ("thinking + tool use", "#think_tools"),
            ("#tools", "#tools"),
            ("non-thinking", "#default"),
        ]:
            said = text_of(await bot.say(chat, user, typed))
            assert f"“{typed}” is a mode" in said and tag in said, said
        fa_user, fa_chat = private_user(bot, 7502, lang="fa")
        said = text_of(await bot.say(fa_chat, fa_user, "تفکر و ابزار"))
        assert "یک حالت است" in said and "#think_tools" in said, said
        assert "I could not find" not in said
        said = text_of(await bot.say(chat, user, "/me"))
        assert "no submissions yet" in said


async def test_an_edited_score_command_in_a_group_is_answered(tmp_path: Path) -> None:
    """Someone fixes a typo in their ``/score`` message in a group: the bot says edits
    are not scored again (as in a private chat) instead of staying silent, and the
    card stands; other edited messages in the group get nothing."""
    async with bot_session(tmp_path) as bot:
        api = bot.api
        user, _ = private_user(bot, 7601)
        group = api.group_chat(-1007601, "Edits")
        sent = await api.send_text(group, user, f"/score #think\n1:{bot.key[1]}")
        card = await api.reply_to(sent, timeout=20)
        assert "Correct: 1" in text_of(card)
        since = api.mark()
        await api.edit_text(sent, f"/score #think\n1:{bot.key[1] % 4 + 1}")
        note = await api.wait_call("sendMessage", chat_id=group["id"], since=since, timeout=20)
        assert "not scored again" in text_of(note)
        assert "Correct: 1" in text_of(bot.current(card))
        chatter = await api.send_text(group, user, "nice")
        since = api.mark()
        await api.edit_text(chatter, "nice!")
        await bot.say(api.private_chat(user), user, "/help")  # handled after it, or with it
        await asyncio.sleep(0.5)
        assert [c for c in api.calls[since:] if c["params"].get("chat_id") == group["id"]] == []


async def test_score_in_reply_reads_the_replied_messages_own_tags(tmp_path: Path) -> None:
    """``/score`` in reply to a message that was itself a ``/score`` command, or to a
    file whose caption names the model and mode: the command's line and the caption are
    tags (no "invalid line 1: /score #think", no lost mode); the replier's own tags win."""
    async with bot_session(tmp_path) as bot:
        api = bot.api
        ann, _ = private_user(bot, 7701)
        bob, _ = private_user(bot, 7702)
        group = api.group_chat(-1007701, "Replies")
        body = "\n".join(answers(bot.key, correct=3))

        async def score_in_reply(command: str, to: dict) -> str:
            # the card quotes the output it scored, not the command
            since = api.mark()
            await api.send_text(group, bob, command, reply_to=to)
            call = await api.wait_call("sendMessage", chat_id=group["id"], since=since, timeout=20)
            return text_of(call)

        ann_msg = await api.send_text(group, ann, f"/score #think model: gpt-x\n{body}")
        await api.reply_to(ann_msg, timeout=20)
        card = await score_in_reply("/score", ann_msg)
        assert "Correct: 3" in card and "Every line was read." in card, card
        assert "Mode: think" in card and "Model: gpt-x" in card, card

        caption = "model: gpt-y #tools"
        doc = await api.send_document(group, ann, body.encode(), "run.txt", caption=caption)
        card = await score_in_reply("/score", doc)
        assert "Model: gpt-y" in card and "Mode: tools" in card, card
        card = await score_in_reply("/score #default", doc)
        assert "Model: gpt-y" in card and "Mode: default" in card, card


async def test_an_old_card_of_a_withdrawn_result_offers_publish_again(tmp_path: Path) -> None:
    """The card still shows Share after the result was withdrawn from /me: pressing it
    says to publish first, and the card is shown as it now stands, with Publish (it
    offered no way to do what it asked)."""
    async with bot_session(tmp_path) as bot:
        user, chat = private_user(bot, 7801)
        text = "#think\nmodel: m1\n" + "\n".join(answers(bot.key, correct=3))
        card = await bot.say(chat, user, text)
        sid = submission_id(text_of(card))
        await bot.press(chat, user, card, f"pub:{sid}")
        me = await bot.say(chat, user, "/me")
        since = bot.api.mark()
        await bot.press(chat, user, me, f"wd:{sid}:0")
        await bot.api.wait_call("editMessageReplyMarkup", since=since, timeout=20)
        await bot.press(chat, user, bot.current(me), f"wd:{sid}:0:yes")
        stale = bot.current(card)
        assert f"sh:{sid}" in buttons(stale)
        since = bot.api.mark()
        answer = await bot.press(chat, user, stale, f"sh:{sid}")
        assert "Publish this result first" in answer["text"]
        shown = await bot.edited(card, since)
        assert f"pub:{sid}" in buttons(shown) and f"sh:{sid}" not in buttons(shown)
        answer = await bot.press(chat, user, shown, f"pub:{sid}")
        assert f"Published #{sid}" in answer["text"]


async def test_the_bots_own_messages_sent_back_are_not_scored(tmp_path: Path) -> None:
    """A card forwarded back to the bot, a card posted through inline mode, the /natory
    message forwarded, ``/score`` in reply to the bot's card: none is a model's output
    (a card read as answers gave a "Ready to publish" result of its own lines); each
    gets one line saying so, and nothing is stored."""
    async with bot_session(tmp_path) as bot:
        api = bot.api
        user, chat = private_user(bot, 7901)
        body = "\n".join([*answers(bot.key, correct=3, wrong=2), "7:x", "Q9: 2"])
        card = await bot.say(chat, user, f"#think\nmodel: m\n{body}")
        natory = await bot.say(chat, user, "/natory")
        me = {k: v for k, v in api.me.items() if k in ("id", "is_bot", "first_name", "username")}
        for source in (card, natory):
            forwarded = api._new_user_message(chat, user, None)
            forwarded["text"] = text_of(source)
            forwarded["forward_origin"] = {"type": "user", "date": 1, "sender_user": me}
            since = api.mark()
            await api.send_raw_update("message", forwarded)
            said = await api.wait_call("sendMessage", chat_id=chat["id"], since=since, timeout=20)
            assert "my own messages" in text_of(said), text_of(said)
        via = api._new_user_message(chat, user, None)
        via["photo"] = [{"file_id": "x", "file_unique_id": "x", "width": 9, "height": 9}]
        via["caption"] = text_of(card)
        via["via_bot"] = me
        since = api.mark()
        await api.send_raw_update("message", via)
        said = await api.wait_call("sendMessage", chat_id=chat["id"], since=since, timeout=20)
        assert "my own messages" in text_of(said), text_of(said)

        group = api.group_chat(-1007901, "Own")
        sent = await api.send_text(group, user, f"/score {body.replace(chr(10), ' ')}")
        group_card = await api.reply_to(sent, timeout=20)
        said = text_of(await bot.say(group, user, "/score", reply_to=group_card))
        assert "my own messages" in said, said
        # a one-line message of the bot's, forwarded while the model name is asked for
        card_sid = submission_id(text_of(card))
        since = api.mark()
        await bot.press(chat, user, bot.current(card), f"model:{card_sid}")
        await api.wait_call("sendMessage", chat_id=chat["id"], since=since, timeout=20)
        forwarded = api._new_user_message(chat, user, None)
        forwarded["text"] = "Model set: m2"
        forwarded["forward_origin"] = {"type": "user", "date": 1, "sender_user": me}
        since = api.mark()
        await api.send_raw_update("message", forwarded)
        said = await api.wait_call("sendMessage", chat_id=chat["id"], since=since, timeout=20)
        assert "my own messages" in text_of(said), text_of(said)
        assert "Model: m\n" in text_of(bot.current(card))
        history = text_of(await bot.say(chat, user, "/me"))
        assert "Your submissions (2)" in history, history


async def test_a_zerobench_paste_with_nothing_read_cannot_be_published(tmp_path: Path) -> None:
    """``#zerobench`` on lines no format reads (``1: {7}``): the card says why nothing
    was read, and it offers no Publish (it was "Ready: press Publish" for a 0 % that
    said nothing of the model, and ranked); a JSON array of records is read."""
    key = tmp_path / "data" / "zerobench" / "key.json"
    key.parent.mkdir(parents=True)
    key.write_text(json.dumps({"1": "7", "2": "14"}))
    async with bot_session(tmp_path) as bot:
        user, chat = private_user(bot, 8001)
        card = await bot.say(chat, user, "#zerobench #think\nmodel: x\n1: {7}\n2: {14}")
        text = text_of(card)
        assert "could not tell the file's format" in text
        assert "Only a valid answer can be published." in text
        sid = submission_id(text)
        assert f"pub:{sid}" not in buttons(card)
        answer = await bot.press(chat, user, card, f"pub:{sid}", check_button=False)
        assert "cannot be published" in answer["text"]
        records = [{"question_id": "1", "response": "{7}"}, {"question_id": "2", "response": "{1}"}]
        text = text_of(await bot.say(chat, user, json.dumps(records)))
        assert "pass@1: 50.0% (1/2)" in text, text


async def test_a_link_cut_after_its_kind_says_it_is_not_available(tmp_path: Path) -> None:
    """``?start=c_`` (a link copied without its token) says the link is not available,
    as a wrong token does, instead of the plain welcome that ignored it."""
    async with bot_session(tmp_path) as bot:
        user, chat = private_user(bot, 8101)
        for payload, said in [
            ("r_", "this link is not available"),
            ("c_", "this challenge is not available"),
            ("g_", "this board link is not available"),
        ]:
            assert said in text_of(await bot.say(chat, user, f"/start {payload}"))
        assert "I score LLM benchmark outputs" in text_of(await bot.say(chat, user, "/start x_"))


async def test_a_file_named_after_its_model_is_read(tmp_path: Path) -> None:
    """A file without an extension whose name holds a dot (``gemini-2.5-pro``, ``gpt-4.1
    answers``) is a text file of no extension, not one of extension ``.5-pro``: read,
    where it was refused with "I read text files only"; a PDF is still refused."""
    async with bot_session(tmp_path) as bot:
        user, chat = private_user(bot, 8201)
        body = "\n".join(answers(bot.key, correct=2)).encode()
        for name in ("gemini-2.5-pro", "gpt-4.1 answers", "run.2026-12-05", "ANSWERS.TXT"):
            sent = await bot.api.send_document(chat, user, body, name, mime_type="")
            said = text_of(await bot.api.reply_to(sent, timeout=20))
            assert "Correct: 2" in said, (name, said)
        sent = await bot.api.send_document(chat, user, body, "run.pdf", mime_type="application/pdf")
        assert "I read text files only" in text_of(await bot.api.reply_to(sent, timeout=20))


async def test_a_chat_closed_to_the_bot_is_no_error(tmp_path: Path) -> None:
    """The bot kicked from a group, or muted there, or blocked by its user while their
    message was on its way: there is nobody to tell, so the bot logs a warning (no
    error with a traceback for the operator to chase) and goes on answering others."""
    async with bot_session(tmp_path) as bot:
        api = bot.api
        user, chat = private_user(bot, 8301)
        for status in ("kicked", "left", "restricted"):
            group = api.group_chat(-1008300 - len(status), f"Closed {status}")
            update = api.make_text_update(group, user, f"/score 1:{bot.key[1]}")
            api.set_member_status(group["id"], api.me["id"], status)
            since = api.mark()
            await api.send_update(update)
            await api.wait_for(
                lambda c, closed=group["id"]: c["params"].get("chat_id") == closed and not c["ok"],
                timeout=20,
                since=since,
            )
        update = api.make_text_update(chat, user, f"1:{bot.key[1]}")
        api.block_bot(user["id"])
        await api.send_update(update)
        await api.wait_for(
            lambda c: c["params"].get("chat_id") == chat["id"] and not c["ok"], timeout=20
        )
        api.block_bot(user["id"], blocked=False)
        assert "Correct: 1" in text_of(await bot.say(chat, user, f"1:{bot.key[1]}"))
        await asyncio.sleep(0.5)  # the failed updates' handling is over: check_log sees it


async def test_a_reply_to_a_card_names_its_model(tmp_path: Path) -> None:
    """The card asks for the model: replying to it with the name (or the mode) sets it,
    as the Model button's prompt does; a question, or an output, is not a name."""
    async with bot_session(tmp_path) as bot:
        api = bot.api
        user, chat = private_user(bot, 8401)
        card = await bot.say(chat, user, "\n".join(answers(bot.key, correct=3)))
        sid = submission_id(text_of(card))

        since = api.mark()
        said = text_of(await bot.say(chat, user, "GPT-6 Luna", reply_to=bot.current(card)))
        assert said == "Model set: GPT-6 Luna", said
        assert "Model: GPT-6 Luna" in text_of(await bot.edited(card, since))

        since = api.mark()
        said = text_of(await bot.say(chat, user, "Thinking & Tool Use", reply_to=bot.current(card)))
        assert said == "Mode set: think & tools", said
        shown = await bot.edited(card, since)
        assert "Mode: think & tools" in text_of(shown) and f"pub:{sid}" in buttons(shown)

        said = text_of(await bot.say(chat, user, "why -3?", reply_to=bot.current(card)))
        assert "I could not find anything to score" in said
        one_line = " ".join(answers(bot.key, correct=2))
        said = text_of(await bot.say(chat, user, one_line, reply_to=bot.current(card)))
        assert "Correct: 2" in said and submission_id(said) != sid
        assert "Model: GPT-6 Luna" in text_of(bot.current(card))

        await bot.press(chat, user, bot.current(card), f"pub:{sid}")
        said = text_of(await bot.say(chat, user, "other name", reply_to=bot.current(card)))
        assert "Model set" not in said


async def test_talk_in_reply_to_the_challenge_is_no_attempt(tmp_path: Path) -> None:
    """In a group, people reply "lol" or "nice one 🎉" to the bot's /natory message: that
    is talk, not an attempt (each got an "invalid expression" card and a stored
    submission); an expression in reply still is one. In a private chat such a reply
    is read as any text."""
    async with bot_session(tmp_path) as bot:
        api = bot.api
        user, chat = private_user(bot, 8501)
        group = api.group_chat(-1008501, "Talk")
        asked = await api.send_text(group, user, "/natory")
        challenge = (await api.reply_to(asked, timeout=20))["result"]
        for talk in ("lol", "nice one 🎉", "what is p_n?"):
            await api.send_text(group, user, talk, reply_to=challenge)
        attempt = await api.send_text(group, user, "8*(38+3)", reply_to=challenge)
        card = text_of(await api.reply_to(attempt, timeout=20))
        assert "Natory" in card and "Expression: 8*(38+3)" in card, card
        await asyncio.sleep(0.5)
        said = [text_of(c) for c in api.calls_of("sendMessage")]
        in_group = [c for c in api.calls_of("sendMessage") if c["params"]["chat_id"] == group["id"]]
        assert len(in_group) == 2, said  # /natory, and the card
        private = (await bot.say(chat, user, "/natory"))["result"]
        said = text_of(await bot.say(chat, user, "thanks!", reply_to=private))
        assert "I could not find anything to score" in said, said
        history = text_of(await bot.say(chat, user, "/me"))
        assert "Your submissions (1)" in history, history


async def test_in_a_group_the_name_asked_again_is_taken_in_reply(tmp_path: Path) -> None:
    """In a group, a mode word in reply to the "send the model name" prompt sets the
    mode and asks for the name again: a reply to that new question is the name (it was
    ignored, as only a reply to the first prompt counted)."""
    async with bot_session(tmp_path) as bot:
        api = bot.api
        user, _ = private_user(bot, 8601)
        group = api.group_chat(-1008601, "Names")
        card = await bot.say(group, user, "/score\n" + "\n".join(answers(bot.key, correct=3)))
        sid = submission_id(text_of(card))
        since = api.mark()
        await bot.press(group, user, card, f"model:{sid}")
        prompt = await api.wait_call("sendMessage", chat_id=group["id"], since=since, timeout=20)
        since = api.mark()
        again = await bot.say(group, user, "think", reply_to=prompt["result"])
        assert "Mode set: think" in text_of(again) and f"#{sid}" in text_of(again)
        assert "Mode: think" in text_of(await bot.edited(card, since))
        since = api.mark()
        said = await bot.say(group, user, "o5-high", reply_to=again["result"])
        assert "Model set: o5-high" in text_of(said), text_of(said)
        shown = text_of(await bot.edited(card, since))
        assert "Model: o5-high" in shown and "Mode: think" in shown


async def test_lang_takes_the_languages_as_people_name_them(tmp_path: Path) -> None:
    """``/lang فارسی``, ``/lang Persian``, ``/lang English``: the language is set (it was
    "Use /lang en or /lang fa" for anything but the codes)."""
    async with bot_session(tmp_path) as bot:
        user, chat = private_user(bot, 8701)
        for typed, lang_set in [
            ("فارسی", "زبان روی فارسی تنظیم شد."),
            ("English", "Language set to English."),
            ("Persian", "زبان روی فارسی تنظیم شد."),
            ("EN", "Language set to English."),
        ]:
            said = text_of(await bot.say(chat, user, f"/lang {typed}"))
            assert said == lang_set, (typed, said)
        assert "Use /lang en or /lang fa" in text_of(await bot.say(chat, user, "/lang de"))


async def test_score_alone_in_a_private_chat_says_no_command_is_needed(tmp_path: Path) -> None:
    """Someone new taps /score in the menu: in a private chat the answer is to paste the
    output (the group's "send /score with the output after it" told them of a command
    they do not need); in a group it stays the group's usage."""
    async with bot_session(tmp_path) as bot:
        user, chat = private_user(bot, 8801)
        said = text_of(await bot.say(chat, user, "/score"))
        assert "no command is needed" in said and "/score with" not in said, said
        fa_user, fa_chat = private_user(bot, 8802, lang="fa")
        assert "به دستوری نیاز نیست" in text_of(await bot.say(fa_chat, fa_user, "/score"))
        group = bot.api.group_chat(-1008801, "Usage")
        said = text_of(await bot.say(group, user, "/score"))
        assert "Send /score with the model's output after it" in said, said


async def test_an_unreadable_file_is_explained_in_the_readers_language(tmp_path: Path) -> None:
    """A Latin-1 file, or a binary one, sent by a Persian speaker: the whole answer is
    Persian (the reason was the scorer's English inside the Persian sentence), for a
    small file and for one large enough to be read in the worker process."""
    async with bot_session(tmp_path) as bot:
        user, chat = private_user(bot, 8901, lang="fa")
        latin = "modèle: café\n1:3\n".encode("latin-1")
        for body in (latin, b"1:3\n" * 20_000 + latin):
            sent = await bot.api.send_document(chat, user, body, "run.txt")
            said = text_of(await bot.api.reply_to(sent, timeout=30))
            assert "فایل متن UTF-8 معتبری نیست" in said and "not valid" not in said, said
        sent = await bot.api.send_document(chat, user, b"1:3\x00\x01", "run.txt")
        said = text_of(await bot.api.reply_to(sent, timeout=30))
        assert "دودویی" in said and "binary" not in said, said
        en_user, en_chat = private_user(bot, 8902)
        sent = await bot.api.send_document(en_chat, en_user, latin, "run.txt")
        said = text_of(await bot.api.reply_to(sent, timeout=30))
        assert "the file is not valid UTF-8 text (bad byte at offset 3)" in said, said


async def test_an_edited_reply_naming_a_cards_model_names_it_again(tmp_path: Path) -> None:
    """A typo in the model name sent in reply to the card, fixed by editing the reply:
    the name is set again (it answered that edits are not scored again)."""
    async with bot_session(tmp_path) as bot:
        api = bot.api
        user, chat = private_user(bot, 9001)
        card = await bot.say(chat, user, "\n".join(answers(bot.key, correct=3)))
        since = api.mark()
        named = await api.send_text(chat, user, "gtp-5", reply_to=bot.current(card))
        assert text_of(await api.reply_to(named, timeout=20)) == "Model set: gtp-5"
        assert "Model: gtp-5" in text_of(await bot.edited(card, since))
        since = api.mark()
        await api.edit_text(named, "gpt-5")
        said = await api.wait_call("sendMessage", chat_id=chat["id"], since=since, timeout=20)
        assert text_of(said) == "Model set: gpt-5", text_of(said)
        assert "Model: gpt-5" in text_of(await bot.edited(card, since))


async def test_the_slow_down_notice_of_a_forum_flood_goes_to_its_topic(tmp_path: Path) -> None:
    """Someone floods the bot from a forum topic: the one "slow down" notice goes to
    that topic, where they are, not to the forum's General topic."""
    async with bot_session(tmp_path) as bot:
        api = bot.api
        user, _ = private_user(bot, 9101)
        forum = api.group_chat(-1009101, "Busy forum", forum=True)
        for n in range(60):
            await api.send_text(forum, user, f"/score 1:{n % 4 + 1}", thread=77)
        notice = await api.wait_for(
            lambda c: c["method"] == "sendMessage" and "faster than I can answer" in text_of(c),
            timeout=60,
        )
        assert notice["result"].get("message_thread_id") == 77, notice["params"]


async def test_a_model_name_fixed_by_an_edit_is_taken(tmp_path: Path) -> None:
    """After the Model button, the name sent with a typo and fixed by editing the
    message: the card takes the fixed name (it answered that edits are not scored
    again, and kept the typo); once published, the edit is answered so."""
    async with bot_session(tmp_path) as bot:
        api = bot.api
        user, chat = private_user(bot, 9201)
        card = await bot.say(chat, user, "#think\n" + "\n".join(answers(bot.key, correct=3)))
        sid = submission_id(text_of(card))
        since = api.mark()
        await bot.press(chat, user, card, f"model:{sid}")
        prompt = await api.wait_call("sendMessage", chat_id=chat["id"], since=since, timeout=20)
        since = api.mark()
        named = await api.send_text(chat, user, "gtp-5", reply_to=prompt["result"])
        assert text_of(await api.reply_to(named, timeout=20)) == "Model set: gtp-5"
        assert "Model: gtp-5" in text_of(await bot.edited(card, since))
        since = api.mark()
        await api.edit_text(named, "gpt-5")
        said = await api.wait_call("sendMessage", chat_id=chat["id"], since=since, timeout=20)
        assert text_of(said) == "Model set: gpt-5", text_of(said)
        assert "Model: gpt-5" in text_of(await bot.edited(card, since))
        await bot.press(chat, user, bot.current(card), f"pub:{sid}")
        since = api.mark()
        await api.edit_text(named, "gpt-6")
        said = await api.wait_call("sendMessage", chat_id=chat["id"], since=since, timeout=20)
        assert "published" in text_of(said), text_of(said)
        assert "Model: gpt-5" in text_of(bot.current(card))
