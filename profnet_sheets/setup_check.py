"""The setup check: free calls that say whether the service answers and takes the key, and how.

A search's status is free (spec section 8, and no profile can price it), so the check asks the
status of a search that does not exist, with the key and without it. The service's 404
`not_found` with the key and its 401 without (section 5: every call needs a key) mean the base
URL is the service's and the key came in the right header and was accepted; the same answer
both ways means the base URL is not the service's. A 401 with the key means it was refused: a
service that answers the key as it answers no key at all did not see it (the header's name is
wrong: its words name the header it reads, or say a key is missing); one that answers otherwise
saw the key and refused it (or wants a header of its own, which its words name). Nothing is
cached, nothing is charged, nothing is recorded.
"""

from __future__ import annotations

import re
import time
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import requests

from profnet_sheets.client.account import service_name
from profnet_sheets.client.call import PATH_PROBE as PROBE
from profnet_sheets.client.call import UNKNOWN_SEARCH, Sent
from profnet_sheets.client.embedded import SANDBOX_KEY, embedded_base_url
from profnet_sheets.client.shared_redis import open_redis
from profnet_sheets.client.store import answers_place
from profnet_sheets.client.transport import Transport, is_loopback
from profnet_sheets.config import ApiKey, Settings, unwritable_place
from profnet_sheets.errors import ServiceError, TeamCacheUnreachable, TransportError
from profnet_sheets.redact import masked, masked_url
from profnet_sheets.spec import ENDPOINTS
from profnet_sheets.spec.profile import DEFAULT_NETWORK_HOSTS, LITE_ORIGIN
from profnet_sheets.words import command

_SECRET_WORDS = re.compile(r"key|token|secret|auth|sign|pass|cookie", re.IGNORECASE)
_NAMED_HEADER = re.compile(r"\b([A-Za-z0-9]+(?:-[A-Za-z0-9]+)+)\s+header\b")
_NO_KEY = re.compile(r"missing|no (api )?key|not (provided|present|found)|required", re.I)


@dataclass
class CheckReport:
    """What the check found: `ok` only when the service answered and took the key. `problem`
    is one line that says what to change; `lines()` the whole report."""

    service: str
    profile: list[str]
    prices: list[tuple[str, bool]]  # (line, whether the profile changed the spec's price)
    reachable: bool = False
    latency_ms: float | None = None
    key_accepted: bool | None = None  # None: not known (the service did not get that far)
    problem: str | None = None
    notes: list[str] = field(default_factory=list)
    credits: int = 0  # what the check cost: a search's status is free
    lite: bool | None = None  # whether it lets xlwings Lite call it (CORS); None: not known
    lite_origin: str = LITE_ORIGIN  # the origin Lite runs from (the add-in's, or your team's)
    cache: str | None = None  # a team's Redis cache: whether it answered (None: not one)
    unasked: str | None = None  # why the service was not asked at all (`no API key`)

    @property
    def ok(self) -> bool:
        return self.reachable and bool(self.key_accepted) and self.problem is None

    def result_lines(self) -> list[str]:
        """Reachability, latency, the key, the cost, and the verdict."""
        if self.reachable:
            reached = f"yes ({self.latency_ms:.0f} ms)" if self.latency_ms is not None else "yes"
        else:
            reached = "no" if self.unasked is None else f"not asked ({self.unasked})"
        why_not = self.unasked or (
            "the key was refused" if self.key_accepted is False else "no service found"
        )
        key = {True: "accepted", False: "refused", None: "not known"}[self.key_accepted]
        verdict = "OK: ready" if self.ok else f"NOT READY: {self.problem}"
        return [
            f"reachable:   {reached}",
            f"key:         {key}",
            *([f"cache:       {self.cache}"] if self.cache is not None else []),
            f"spent:       {self.credits} credits (a search's status is free)",
            f"lite:        {_lite_said(self.lite, self.lite_origin)}"
            if self.key_accepted
            else f"lite:        not asked: {why_not}",
            *(f"note:        {note}" for note in self.notes),
            verdict,
        ]

    def lines(self, *, every_price: bool = True) -> list[str]:
        """The whole report: the service and profile, the prices (or only those the profile
        changed), the results."""
        shown = [line for line, changed in self.prices if every_price or changed]
        head = (
            "prices:" if every_price else "prices:      the spec's" + (", except:" if shown else "")
        )
        return [
            f"service:     {self.service}",
            *self.profile,
            head,
            *(f"  {line}" for line in shown),
            *self.result_lines(),
        ]


def check_setup(settings: Settings, lite_origin: str = LITE_ORIGIN) -> CheckReport:
    """Check `settings` against their service with free calls only (see the module's doc);
    `lite_origin`: the web origin xlwings Lite runs from (yours, when your team hosts it)."""
    profile = settings.profile
    report = CheckReport(_service(settings), _profile_lines(settings), _price_lines(settings))
    report.lite_origin = lite_origin
    if settings.uses_sandbox:
        base_url, key = embedded_base_url(settings), ApiKey(SANDBOX_KEY)
    elif settings.base_url is None:
        report.problem = (
            "no base URL of the service: set base_url (PROFNET_BASE_URL, or "
            f"`{command('config --base-url ...')}`) to the address your provider gives"
        )
        report.unasked = "no base URL"
        return report
    elif settings.api_key is None:
        report.problem = (
            f"no API key: set api_key (PROFNET_API_KEY, or `{command('config --api-key ...')}`)"
        )
        report.unasked = "no API key"
        return report
    else:
        base_url, key = settings.base_url, settings.api_key
        if settings.network_hosts == DEFAULT_NETWORK_HOSTS:
            report.notes.append(
                f"the network's host is {DEFAULT_NETWORK_HOSTS[0]}, the sandbox's: set "
                "network_hosts (PROFNET_NETWORK_HOSTS) to the host of the page URLs you use"
            )
        if not base_url.lower().startswith("https://") and not is_loopback(base_url):
            report.notes.append(
                "the base URL is http://, not https://: the API key and your data would cross "
                "the network unencrypted; use the https:// address your provider gives"
            )
    quick = settings.with_changes(
        retries=0,
        timeout=min(settings.timeout, 20.0),
        deadline=min(settings.deadline, 20.0),
        connect_timeout=min(settings.connect_timeout, 10.0),
    )
    transport = Transport(quick, base_url)
    try:
        _probe(transport, key, profile.key_header, report)
        if report.reachable and report.key_accepted:  # the service's path, not any server's
            report.lite = _lets_lite_call(transport, profile.key_header, lite_origin)
    finally:
        transport.close()
    _check_team_cache(quick, report)
    _check_cache_on_disk(settings, report)
    return report


def _check_cache_on_disk(settings: Settings, report: CheckReport) -> None:
    """The cache file, where it is or will be made (in the folder named, or the one named),
    can be kept: a cache's SQLite file this user may write (not a user's own database, nor a
    file of other bytes) in a folder it may write in, as every command needs."""
    service = "sandbox" if settings.uses_sandbox else service_name(settings.base_url or "")
    place = answers_place(settings, service)
    if not isinstance(place, Path):  # memory, or a Redis (checked above)
        return
    why = unwritable_place(str(place))
    if why is None:
        return
    report.cache = f"{place}: not usable"
    report.problem = report.problem or (
        f"the cache cannot be kept at {place}: {why}. Every command refuses until it is "
        f"changed (`{command('config --cache ...')}`, or PROFNET_CACHE)"
    )


def _check_team_cache(settings: Settings, report: CheckReport) -> None:
    """A team's Redis cache answers a PING (every paying command refuses without it)."""
    where = settings.cache
    if where is None or "://" not in where:
        return
    shown = masked_url(where)
    try:
        connection = open_redis(where, settings)
    except TeamCacheUnreachable as error:
        report.cache = f"the team's Redis {shown}: not reachable"
        report.problem = report.problem or f"{error} Every paying command refuses until then."
        return
    try:
        kept = _keeps_its_data(connection)
    finally:
        connection.close()
    report.cache = f"the team's Redis {shown}: reachable" + (
        ""
        if kept is not False
        else "; it keeps nothing across a restart (no appendonly, no save): a restart forgets "
        "the answers paid for (paid again) and the team's spend (counted again from each "
        "machine's ledger at its next paid call). Turn on its persistence (appendonly yes)"
    )


def _keeps_its_data(connection: Any) -> bool | None:
    """Whether a Redis keeps its data across a restart (an append-only file, or snapshots);
    None when it does not say (CONFIG refused, as managed services do)."""
    import redis

    try:
        said = {**connection.config_get("appendonly"), **connection.config_get("save")}
    except redis.RedisError:
        return None
    text = {_text(name): _text(value) for name, value in said.items()}
    if "appendonly" not in text or "save" not in text:
        return None
    return text["appendonly"] == "yes" or bool(text["save"].strip())


def _text(value: bytes | str) -> str:
    return value.decode() if isinstance(value, bytes) else str(value)


def _probe(transport: Transport, key: ApiKey, header: str, report: CheckReport) -> None:
    """The free calls, and what their answers say."""
    payload = {"request_id": UNKNOWN_SEARCH}
    started = time.perf_counter()
    try:
        sent = transport.send(PROBE, payload, key)
    except TransportError as error:
        what = {
            "connect": "could not connect",
            "read": "the connection was cut",
            "timeout": "no answer in time",
        }.get(str(error.details), "no answer")
        slow = (
            f", or raise PROFNET_TIMEOUT for a slow service (the check waited "
            f"{transport.settings.timeout:g} s)"
            if str(error.details) == "timeout"
            else ", or its scheme (an https:// URL to a server that speaks only http fails so)"
            if str(error.details) == "connect" and transport.base_url.lower().startswith("https")
            else ""
        )
        report.problem = (
            f"{masked_url(transport.base_url)} is unreachable ({what}): check base_url "
            f"(PROFNET_BASE_URL), and the network or proxy (HTTPS_PROXY){slow}"
        )
        return
    except ServiceError as error:  # a redirect: never followed with the key
        report.reachable = True
        report.problem = f"{error.message.split(': ', 1)[-1]}"
        return
    report.reachable = True
    report.latency_ms = (time.perf_counter() - started) * 1000
    said = _words(sent)
    try:
        without = _words(transport.send(PROBE, payload, None))
    except (TransportError, ServiceError):  # lost on the way back: not known
        without = (0, "")
    if _is_answer(sent) and without[0] in (0, 401, 403):
        report.key_accepted = True
    elif _is_answer(sent):
        report.problem = (
            f"{masked_url(transport.base_url)} answers alike with and without a key "
            f"(HTTP {without[0]}), which the service's {PROBE.path} never does: check the "
            "path of base_url (PROFNET_BASE_URL), such as a version or gateway prefix"
        )
    elif sent.status in (401, 403):
        report.key_accepted = False
        report.problem = _refusal(header, said, without)
    else:
        report.problem = _other_answer(masked_url(transport.base_url), sent.status, said)
    if sent.status in (402, 429):  # the key was known: its account is what stops it
        report.key_accepted = True


def _lite_said(allowed: bool | None, origin: str) -> str:
    if allowed is None:
        return "not known: the service did not answer a CORS preflight"
    if allowed:
        return f"allowed: the service lets xlwings Lite ({origin}) send the key header (CORS)"
    return (
        f"not allowed: the service does not let xlwings Lite ({origin}) call it (CORS), so "
        "the formulas cannot run there; see docs/excel.md"
    )


def _lets_lite_call(transport: Transport, header: str, lite_origin: str) -> bool | None:
    """Whether the service lets xlwings Lite's origin call it with the key header, as a
    browser asks first: an OPTIONS preflight, free (no key, no parameters; nothing is done).
    None when it did not answer."""
    asked = {
        "Origin": lite_origin,
        "Access-Control-Request-Method": PROBE.method,
        "Access-Control-Request-Headers": header.lower(),
        **dict.fromkeys(transport.session.headers, None),  # a browser sends none of these
    }
    try:
        answer = transport.session.options(
            transport.base_url + PROBE.path,
            headers=asked,
            allow_redirects=False,
            timeout=(transport.settings.connect_timeout, transport.settings.timeout),
        )
    except requests.RequestException:
        return None
    origin = answer.headers.get("Access-Control-Allow-Origin", "").strip()
    headers = answer.headers.get("Access-Control-Allow-Headers", "")
    allowed = {name.strip().lower() for name in headers.split(",")}
    return answer.ok and origin in (lite_origin, "*") and bool({header.lower(), "*"} & allowed)


def _is_answer(sent: Sent) -> bool:
    """The service's own answer to the status of an unknown search: its 404 `not_found` (a
    200 with a status, from a service that answers so, is as good)."""
    body = sent.body if isinstance(sent.body, dict) else {}
    if sent.status == 404:
        return body.get("message") == "not_found"
    return sent.status == 200 and "status" in body


def _words(sent: Sent) -> tuple[int, str]:
    """What an answer says, to compare two answers: its status and its words (a key quoted
    back is masked by the transport; a URL's credentials here)."""
    body = sent.body
    if isinstance(body, dict):
        text = " ".join(str(body.get(name, "")) for name in ("message", "details", "error"))
    else:
        text = sent.text
    return sent.status, " ".join(masked(text).split())[:300]


def _refusal(header: str, said: tuple[int, str], without: tuple[int, str]) -> str:
    """What to change, from how the service answered the key and no key at all."""
    quoted = f'it said "{said[1][:160]}"' if said[1] else f"HTTP {said[0]}"
    named = [name for name in _NAMED_HEADER.findall(said[1]) if name.lower() != header.lower()]
    if said == without and (named or _NO_KEY.search(said[1])):
        wanted = named[0] if named else "the header your provider names"
        return (
            f"the service did not see a key in the {header} header ({quoted}): set key_header "
            f"(PROFNET_KEY_HEADER) to {wanted}"
        )
    if said != without and named:
        return (
            f"the service wants the header {named[0]} ({quoted}): add it with the value your "
            "provider gives to headers (PROFNET_HEADERS)"
        )
    if said != without:
        return (
            f"the service refused the API key sent in {header} ({quoted}): check api_key "
            f"(PROFNET_API_KEY, or `{command('config --api-key ...')}`)"
        )
    return (
        f"the service refused the call ({quoted}) as it refuses a call without a key: check "
        f"api_key (PROFNET_API_KEY) and key_header ({header}, PROFNET_KEY_HEADER)"
    )


def _other_answer(base_url: str, status: int, said: tuple[int, str]) -> str:
    """What to change after an answer that is neither the service's 404 nor a refusal."""
    words = f': "{said[1][:160]}"' if said[1] else ""
    if status == 404:
        return (
            f"{base_url} answers, but not as the service does (HTTP 404{words}): check the "
            "path of base_url (PROFNET_BASE_URL), such as a version or gateway prefix"
        )
    if status in (402, 429):
        return (
            f"the service took the key but will not answer now (HTTP {status}{words}): top up "
            "the account or wait for its rate limit, then check again"
        )
    if status >= 500:
        return f"the service failed (HTTP {status}{words}): try the check again later"
    return (
        f"the service answered HTTP {status}{words}: check base_url (PROFNET_BASE_URL) "
        "and the profile's headers (PROFNET_HEADERS)"
    )


def _service(settings: Settings) -> str:
    if settings.uses_sandbox:
        return "the embedded sandbox (synthetic data, nothing paid: no API key is configured)"
    return masked(settings.base_url) if settings.base_url else "(no base URL)"


def _profile_lines(settings: Settings) -> list[str]:
    """The service profile in use, the key masked (and extra headers that may be secret)."""
    if settings.uses_sandbox:
        key = "the embedded sandbox's own"
    elif settings.api_key is None:
        key = "(none)"
    else:
        key = f"set (fingerprint {settings.api_key.fingerprint}; the key itself is never shown)"
    headers = ", ".join(
        f"{name}: {'***' if _SECRET_WORDS.search(name) else value}"
        for name, value in settings.headers.items()
    )
    return [
        f"api key:     {key}",
        f"key header:  {settings.key_header}",
        f"headers:     {headers or '(none)'}",
        f"network:     {', '.join(settings.network_hosts)}",
    ]


def _price_lines(settings: Settings) -> list[tuple[str, bool]]:
    """The price of every endpoint that costs something, as the client will count it, and
    whether the profile changed it."""
    prices = settings.prices
    changed = prices.changed()
    width = max(len(ep.name) for ep in ENDPOINTS)
    return [
        (f"{ep.name:{width}}  {settings.profile.describe(ep)}", ep.name in changed)
        for ep in ENDPOINTS
        if prices.price(ep).kind != "free"
    ]
