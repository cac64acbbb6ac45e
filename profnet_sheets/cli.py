"""The `profnet-sheets` command line: a thin layer over the library."""

from __future__ import annotations

import json
import sys
import time

import click

from profnet_sheets import Client, ProfnetError, Settings, save_config
from profnet_sheets.sandbox import DEFAULT_KEY, SandboxConfig, serve_forever


@click.group(context_settings={"help_option_names": ["-h", "--help"]})
@click.version_option(package_name="profnet-sheets")
def main() -> None:
    """Professional-network data for Excel and Jupyter, with a local sandbox of the service."""


@main.command()
@click.option("--host", default="127.0.0.1", show_default=True, help="Address to listen on.")
@click.option("--port", default=8765, show_default=True, help="Port to listen on (0: a free one).")
@click.option(
    "--api-key",
    "api_keys",
    multiple=True,
    help=f"An API key the sandbox accepts (repeatable). Default: {DEFAULT_KEY}.",
)
@click.option("--credits", default=100_000, show_default=True, help="Starting balance per key.")
@click.option("--seed", default=0, show_default=True, help="Seed of the synthetic world.")
@click.option("--latency-ms", default=0.0, show_default=True, help="Added latency per call.")
@click.option(
    "--latency-jitter-ms", default=0.0, show_default=True, help="Random extra latency, 0 to this."
)
@click.option(
    "--job-seconds", default=5.0, show_default=True, help="Time a search takes to complete."
)
@click.option(
    "--fail-rate", default=0.0, show_default=True, help="Share of calls answering 500/503."
)
@click.option(
    "--throttle-rate", default=0.0, show_default=True, help="Share of calls answering 429."
)
@click.option(
    "--drop-rate", default=0.0, show_default=True, help="Share of connections cut mid-response."
)
@click.option(
    "--geocode-timeout-rate", default=0.0, show_default=True, help="Share of geocode 500 timeouts."
)
@click.option(
    "--job-fail-rate", default=0.0, show_default=True, help="Share of searches that fail."
)
@click.option(
    "--rate-limit", type=float, default=None, help="Requests per second per key before 429."
)
@click.option("--retry-after", default=1, show_default=True, help="Retry-After seconds on 429.")
@click.option(
    "--db",
    type=click.Path(dir_okay=False),
    default=None,
    help="SQLite file for jobs, credits and usage (default: in memory).",
)
def sandbox(
    host: str,
    port: int,
    api_keys: tuple[str, ...],
    credits: int,
    seed: int,
    latency_ms: float,
    latency_jitter_ms: float,
    job_seconds: float,
    fail_rate: float,
    throttle_rate: float,
    drop_rate: float,
    geocode_timeout_rate: float,
    job_fail_rate: float,
    rate_limit: float | None,
    retry_after: int,
    db: str | None,
) -> None:
    """Run the sandbox of the service in the foreground (Ctrl-C stops it)."""
    for name, rate in (
        ("--fail-rate", fail_rate),
        ("--throttle-rate", throttle_rate),
        ("--drop-rate", drop_rate),
        ("--geocode-timeout-rate", geocode_timeout_rate),
        ("--job-fail-rate", job_fail_rate),
    ):
        if not 0 <= rate <= 1:
            raise click.BadParameter(f"{rate} is not a share between 0 and 1.", param_hint=name)
    config = SandboxConfig(
        host=host,
        port=port,
        api_keys=api_keys or (DEFAULT_KEY,),
        credits=credits,
        seed=seed,
        latency_ms=latency_ms,
        latency_jitter_ms=latency_jitter_ms,
        job_seconds=job_seconds,
        fail_rate=fail_rate,
        throttle_rate=throttle_rate,
        drop_rate=drop_rate,
        geocode_timeout_rate=geocode_timeout_rate,
        job_fail_rate=job_fail_rate,
        rate_limit=rate_limit,
        retry_after=retry_after,
        db=db,
    )
    click.echo(
        f"profnet-sheets sandbox: synthetic data on http://{host}:{port} "
        f"(keys: {', '.join(config.api_keys)}; {credits} credits each; seed {seed}). "
        f"OpenAPI at /openapi.json.",
        err=True,
    )
    serve_forever(config)


@main.command()
@click.option("--api-key", default=None, help="Your API key for the real service.")
@click.option("--base-url", default=None, help="The base URL of the service.")
@click.option("--cache", default=None, help="Cache: a directory, redis://..., memory or off.")
@click.option("--budget", type=int, default=None, help="Credits a client may spend (a guard).")
@click.option("--path", "config_path", default=None, help="Config file (default: yours).")
def config(
    api_key: str | None,
    base_url: str | None,
    cache: str | None,
    budget: int | None,
    config_path: str | None,
) -> None:
    """Keep settings in your config file (readable by you only); with no option, show them."""
    values = {"api_key": api_key, "base_url": base_url, "cache": cache, "budget": budget}
    if any(value is not None for value in values.values()):
        path = save_config(values, config_path)
        click.echo(f"Saved to {path} (permissions 0600).", err=True)
    settings = _load(config_path)
    click.echo(f"api_key:  {settings.api_key!r}")
    click.echo(f"base_url: {settings.base_url or '(none: the embedded sandbox)'}")
    click.echo(f"cache:    {settings.cache or settings.cache_dir}")
    click.echo(f"budget:   {settings.budget if settings.budget is not None else '(none)'}")


def _load(config_path: str | None) -> Settings:
    try:
        return Settings.load(config_path=config_path)
    except ProfnetError as error:
        raise click.ClickException(str(error)) from None


@main.command()
@click.option("--domain", default="profnet-demo.com", show_default=True, help="Domain to look up.")
def demo(domain: str) -> None:
    """Look a company up through the client (the embedded sandbox when no key is set)."""
    started = time.perf_counter()
    try:
        with Client() as client:
            company = client.get_company_details(domain=domain)
            spent = client.ledger.total()
    except ProfnetError as error:
        raise click.ClickException(str(error)) from None
    json.dump(company, sys.stdout, indent=2)
    click.echo()
    click.echo(
        f"Looked up {domain} in {time.perf_counter() - started:.2f} s; "
        f"credits spent so far: {spent}.",
        err=True,
    )
