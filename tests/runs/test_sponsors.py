"""What a sponsorship's invoice payload says, and when a checkout is refused (quickly,
without the database: Telegram waits 10 s)."""

from __future__ import annotations

from bot.core import runs, sponsors
from bot.runs import providers as prov
from tests.runs.fakeai import providers_toml

SPONSOR = '[sponsor.natory]\nstars = 50\nruns = 2\nmodels = ["local/m1"]\n'


def _runner() -> runs.Runner:
    return runs.Runner(prov.parse(providers_toml("http://127.0.0.1:9/v1", extra=SPONSOR)))


def test_a_payload_names_the_target_and_link_of_an_offered_sponsorship() -> None:
    asked = sponsors.read_payload(_runner(), "sp|natory|6256|https://a.example")
    assert asked is not None and (asked.benchmark, asked.target) == ("natory", 6256)
    assert asked.link == "https://a.example" and asked.sponsorship.runs == 2
    assert sponsors.read_payload(_runner(), "sp|primebench|1|") is None
    assert sponsors.read_payload(_runner(), "other") is None
    assert sponsors.read_payload(None, "sp|natory|6256|") is None
    # forged targets: digits int() refuses, more than the store's integers hold
    assert sponsors.read_payload(_runner(), "sp|natory|²|") is None
    assert sponsors.read_payload(_runner(), "sp|natory|" + "9" * 40 + "|") is None


def test_a_checkout_at_another_price_or_currency_is_refused() -> None:
    runner = _runner()
    assert sponsors.checkout_refusal(runner, "sp|natory|21|", "XTR", 50) is None
    assert sponsors.checkout_refusal(runner, "sp|natory|21|", "XTR", 49) == "sponsor_price_changed"
    assert sponsors.checkout_refusal(runner, "sp|natory|21|", "USD", 50) == "sponsor_price_changed"
    assert sponsors.checkout_refusal(runner, "sp|gone|21|", "XTR", 50) == "sponsor_gone"
