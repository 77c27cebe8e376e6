"""Telegram Stars payments for :class:`tests.e2e.botapi.FakeBotAPI`: the bot sends an
invoice, the user pays, the bot answers the pre-checkout query, Telegram confirms with a
``successful_payment`` message, and the bot may refund.

The user side::

    invoice = await api.wait_call("sendInvoice", chat_id=chat["id"])
    query = await api.pre_checkout(user, invoice)        # the pre_checkout_query update
    answer = await api.pre_checkout_answer(query)        # the bot's answerPreCheckoutQuery
    paid = await api.pay(chat, user, invoice)            # successful_payment (after ok)
    api.refunds                                          # refundStarPayment calls' params

Telegram's rules kept: a Stars invoice has currency ``XTR``, exactly one price, a
positive whole amount, a payload of 1–128 bytes, a title of 1–32 and a description of
1–255 characters, and no provider token (or an empty one); a pre-checkout query is
answered once, with an ``error_message`` when ``ok`` is false; a payment is confirmed
only after its query was answered ok; a refund names a user and a charge that user paid,
once. The 10-second limit on answering is recorded (``answered_in``), not enforced.
"""

from __future__ import annotations

import itertools
import json
import time
from typing import Any

JSONDict = dict[str, Any]


class Payments:
    """Mixed into FakeBotAPI: Stars invoices, pre-checkout queries, payments, refunds."""

    def _payments_init(self) -> None:
        self._checkouts: dict[str, JSONDict] = {}
        self._checkout_counter = itertools.count(1)
        #: charge id -> the payment (user id, amount, refunded)
        self.charges: dict[str, JSONDict] = {}
        self.refunds: list[JSONDict] = []

    # ------------------------------------------------------------------ the user side

    def _invoice_of(self, call: JSONDict) -> JSONDict:
        return dict(call["params"])

    async def pre_checkout(self, user: JSONDict, invoice_call: JSONDict) -> JSONDict:
        """The user presses Pay on an invoice: the pre_checkout_query the bot receives."""
        invoice = self._invoice_of(invoice_call)
        query_id = f"pcq{next(self._checkout_counter)}"
        query = {
            "id": query_id,
            "from": user,
            "currency": invoice["currency"],
            "total_amount": int(invoice["prices"][0]["amount"]),
            "invoice_payload": invoice["payload"],
        }
        self._checkouts[query_id] = {"answered": None, "sent": time.monotonic(), "query": query}
        await self.send_raw_update("pre_checkout_query", query)  # type: ignore[attr-defined]
        return query

    async def pre_checkout_answer(self, query: JSONDict, timeout: float = 20.0) -> JSONDict:  # noqa: ASYNC109
        """The bot's answerPreCheckoutQuery for ``query``."""
        return await self.wait_for(  # type: ignore[attr-defined, no-any-return]
            lambda c: (
                c["method"] == "answerPreCheckoutQuery"
                and str(c["params"].get("pre_checkout_query_id")) == query["id"]
            ),
            timeout,
        )

    async def pay(self, chat: JSONDict, user: JSONDict, query: JSONDict) -> JSONDict:
        """Telegram confirms the payment of an answered-ok query: the user's message with
        ``successful_payment`` (returned)."""
        checkout = self._checkouts[query["id"]]
        if checkout["answered"] is not True:
            raise AssertionError("a payment is confirmed only after an ok pre-checkout answer")
        charge = f"stxCharge{query['id']}"
        self.charges[charge] = {
            "user_id": int(user["id"]), "amount": query["total_amount"], "refunded": False,
        }  # fmt: skip
        message = self._new_user_message(chat, user, None)  # type: ignore[attr-defined]
        message["successful_payment"] = {
            "currency": query["currency"],
            "total_amount": query["total_amount"],
            "invoice_payload": query["invoice_payload"],
            "telegram_payment_charge_id": charge,
            "provider_payment_charge_id": "",
        }
        update = self._new_update("message", message)  # type: ignore[attr-defined]
        await self._dispatch(update)  # type: ignore[attr-defined]
        return dict(message)

    # ------------------------------------------------------------------ the bot's methods

    def _m_send_invoice(self, p: JSONDict) -> JSONDict:
        from .botapi import ApiError

        def bad(detail: str) -> ApiError:
            return ApiError(400, f"Bad Request: {detail}")

        chat = self._sendable_chat(p)  # type: ignore[attr-defined]
        title, description = str(p.get("title") or ""), str(p.get("description") or "")
        payload = str(p.get("payload") or "")
        if not 1 <= len(title) <= 32:
            raise bad("invoice title must be 1-32 characters")
        if not 1 <= len(description) <= 255:
            raise bad("invoice description must be 1-255 characters")
        if not 1 <= len(payload.encode()) <= 128:
            raise bad("invoice payload must be 1-128 bytes")
        if p.get("currency") != "XTR":
            raise bad("a Stars invoice's currency must be XTR")
        if p.get("provider_token"):
            raise bad("a Stars invoice takes no provider token")
        prices = p.get("prices")
        if isinstance(prices, str):
            prices = json.loads(prices)
        if not isinstance(prices, list) or len(prices) != 1:
            raise bad("a Stars invoice has exactly one price")
        amount = prices[0].get("amount")
        if not isinstance(amount, int) or amount < 1:
            raise bad("a price's amount must be a positive whole number")
        p["prices"] = prices
        message = self._new_bot_message(chat, p)  # type: ignore[attr-defined]
        message["invoice"] = {
            "title": title, "description": description, "start_parameter": "",
            "currency": "XTR", "total_amount": amount,
        }  # fmt: skip
        return self._commit_bot_message(message)  # type: ignore[attr-defined, no-any-return]

    def _m_answer_pre_checkout_query(self, p: JSONDict) -> bool:
        from .botapi import ApiError

        query_id = str(p.get("pre_checkout_query_id") or "")
        checkout = self._checkouts.get(query_id)
        if checkout is None:
            raise ApiError(
                400,
                "Bad Request: query is too old and response timeout expired or query ID is invalid",
            )
        if checkout["answered"] is not None:
            raise ApiError(400, "Bad Request: query has already been answered")
        ok = p.get("ok")
        ok = ok in (True, "true", "True", 1)
        if not ok and not p.get("error_message"):
            raise ApiError(400, "Bad Request: error_message is required when ok is false")
        checkout["answered"] = ok
        checkout["answered_in"] = time.monotonic() - checkout["sent"]
        return True

    def _m_refund_star_payment(self, p: JSONDict) -> bool:
        from .botapi import ApiError

        charge = self.charges.get(str(p.get("telegram_payment_charge_id") or ""))
        if charge is None or charge["user_id"] != int(p.get("user_id") or 0):
            raise ApiError(400, "Bad Request: CHARGE_NOT_FOUND")
        if charge["refunded"]:
            raise ApiError(400, "Bad Request: CHARGE_ALREADY_REFUNDED")
        charge["refunded"] = True
        self.refunds.append(dict(p))
        return True

    def _payments_methods(self) -> dict[str, Any]:
        return {
            "sendInvoice": self._m_send_invoice,
            "answerPreCheckoutQuery": self._m_answer_pre_checkout_query,
            "refundStarPayment": self._m_refund_star_payment,
        }
