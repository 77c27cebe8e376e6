"""Fixtures for end-to-end tests against the fake Bot API server (see ``botapi.py``)."""

from __future__ import annotations

from collections.abc import AsyncIterator

import pytest

from .botapi import FakeBotAPI


@pytest.fixture
async def botapi() -> AsyncIterator[FakeBotAPI]:
    """A started :class:`FakeBotAPI` on a free 127.0.0.1 port, stopped after the test."""
    api = FakeBotAPI()
    await api.start()
    try:
        yield api
    finally:
        await api.stop()
