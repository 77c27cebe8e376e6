"""The web boards and the Telegram Mini App: server-rendered pages over the same store
as the bot (``server.py`` routes them; ``pages.py`` parses requests and renders the
templates; ``initdata.py`` checks a Mini App's sign-in)."""
