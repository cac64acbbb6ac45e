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
