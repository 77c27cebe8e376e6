"""Users and chats, as Telegram reports them (updated on sight), and the /lang choice."""

from __future__ import annotations

from .base import StoreBase
from .models import Chat, User
from .values import dt, name_text, optional_name, optional_text, storable_text


class UserStore(StoreBase):
    async def upsert_user(
        self,
        user_id: int,
        *,
        first_name: str,
        last_name: str | None,
        username: str | None,
        language_code: str | None,
    ) -> str | None:
        """Store a user as Telegram reports it (updated on every sight); returns their
        /lang choice (None: none), read back by the same statement."""
        now = self._now_ms()
        async with self._writing(1) as s:
            row = await s.one(
                """INSERT INTO users (id, first_name, last_name, username, language_code,
                                      first_seen, last_seen)
                   VALUES (?, ?, ?, ?, ?, ?, ?)
                   ON CONFLICT (id) DO UPDATE SET
                       first_name = excluded.first_name, last_name = excluded.last_name,
                       username = excluded.username, language_code = excluded.language_code,
                       last_seen = excluded.last_seen
                   RETURNING chosen_language""",
                (
                    user_id,
                    name_text(first_name),
                    optional_name(last_name),
                    optional_text(username),
                    optional_text(language_code),
                    now,
                    now,
                ),
            )
        self._known_users.add(user_id)
        return None if row is None else row[0]

    async def upsert_chat(self, chat_id: int, *, type: str, title: str | None) -> None:
        """Store a chat as Telegram reports it (updated on every sight)."""
        now = self._now_ms()
        async with self._writing(1) as s:
            await s.execute(
                """INSERT INTO chats (id, type, title, first_seen, last_seen)
                   VALUES (?, ?, ?, ?, ?)
                   ON CONFLICT (id) DO UPDATE SET type = excluded.type,
                       title = excluded.title, last_seen = excluded.last_seen""",
                (chat_id, storable_text(type), optional_name(title), now, now),
            )
        self._known_chats.add(chat_id)

    async def set_user_language(self, user_id: int, lang: str | None) -> None:
        """Remember the /lang choice (None: follow Telegram's language_code)."""
        now = self._now_ms()
        async with self._db.write() as s:
            await s.execute(
                """INSERT INTO users (id, chosen_language, first_seen, last_seen)
                   VALUES (?, ?, ?, ?)
                   ON CONFLICT (id) DO UPDATE SET chosen_language = excluded.chosen_language""",
                (user_id, lang, now, now),
            )

    async def user_language(self, user_id: int) -> str | None:
        async with self._db.single() as s:
            row = await s.one("SELECT chosen_language FROM users WHERE id = ?", (user_id,))
        return None if row is None else row[0]

    async def get_user(self, user_id: int) -> User | None:
        async with self._db.single() as s:
            row = await s.one(
                """SELECT id, first_name, last_name, username, language_code, chosen_language,
                          first_seen, last_seen, public FROM users WHERE id = ?""",
                (user_id,),
            )
        if row is None:
            return None
        return User(
            row[0], row[1], row[2], row[3], row[4], row[5], dt(row[6]), dt(row[7]), bool(row[8])
        )

    async def set_user_public(self, user_id: int, public: bool) -> None:
        """The /public choice: whether the user's name shows on the web boards."""
        now = self._now_ms()
        async with self._db.write() as s:
            await s.execute(
                """INSERT INTO users (id, public, first_seen, last_seen) VALUES (?, ?, ?, ?)
                   ON CONFLICT (id) DO UPDATE SET public = excluded.public""",
                (user_id, int(public), now, now),
            )

    async def get_chat(self, chat_id: int) -> Chat | None:
        async with self._db.single() as s:
            row = await s.one(
                "SELECT id, type, title, first_seen, last_seen FROM chats WHERE id = ?",
                (chat_id,),
            )
        if row is None:
            return None
        return Chat(row[0], row[1], row[2], dt(row[3]), dt(row[4]))
