"""The typed context: handlers reach the services as ``context.services``.

``app.open_services`` creates one :class:`~bot.core.services.Services` and puts it in
``bot_data``; :class:`BotContext` is the Application's context type.
"""

from __future__ import annotations

from typing import Any

from telegram.ext import Application, CallbackContext

from ..core.services import Services
from .http import BenchBot

SERVICES = "services"


class BotContext(CallbackContext[BenchBot, dict[Any, Any], dict[Any, Any], dict[Any, Any]]):
    """CallbackContext with a typed accessor for the services."""

    @property
    def services(self) -> Services:
        services = self.bot_data.get(SERVICES)
        if not isinstance(services, Services):
            raise RuntimeError("services are not initialised (app.open_services has not run)")
        return services


BotApp = Application[BenchBot, BotContext, dict[Any, Any], dict[Any, Any], dict[Any, Any], Any]
