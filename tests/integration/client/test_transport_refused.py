"""A refused connection (nothing listens there) is tried again once, not with every retry."""

from __future__ import annotations

import pytest

from profnet_sheets import TransportError
from profnet_sheets.client.transport import Transport
from profnet_sheets.config import ApiKey, Settings
from profnet_sheets.spec import endpoint
from tests.integration.test_cli_stops import closed_port_url

pytestmark = pytest.mark.integration


def test_a_refused_connection_is_tried_twice_with_one_wait() -> None:
    settings = Settings.load(api_key="k", base_url=closed_port_url(), cache="memory", retries=4)
    transport = Transport(settings, str(settings.base_url))
    waits: list[float] = []
    transport.sleep = waits.append
    with pytest.raises(TransportError) as raised:
        transport.send(endpoint("get-company-details"), {"domain": "a.com"}, ApiKey("k"))
    transport.close()
    assert len(waits) == 1
    assert raised.value.details == "connect"
    assert not raised.value.may_have_been_charged
    assert "Tried 2 times" in str(raised.value)


def test_a_turn_whose_claim_cannot_be_asked_is_given_back() -> None:
    """The claim's store failing when the turn comes: the turn is not kept in flight."""
    settings = Settings.load(api_key="k", base_url=closed_port_url(), cache="memory")
    transport = Transport(settings, str(settings.base_url))

    def store_gone() -> bool:
        raise OSError("the claims file is gone")

    with pytest.raises(OSError, match="claims file"):
        transport.turn(endpoint("get-company-details"), store_gone)
    view = transport.pace.view()
    transport.close()
    assert (view.in_flight, view.calls) == (0, 0)


def test_a_retrys_wait_is_the_paces_stoppable_pause() -> None:
    settings = Settings.load(api_key="k", base_url=closed_port_url(), cache="memory")
    transport = Transport(settings, str(settings.base_url))
    assert transport.sleep == transport.pace.pause
    transport.close()
