"""NATS over TLS: a nats-server given certificates made here (``cryptography``), and the
services' shared settings (``--nats-ca``, ``--nats-cert``, ``--nats-key``) reaching it."""

from __future__ import annotations

import datetime
import ipaddress
import os
import subprocess
import sys
import time
from collections.abc import Iterator
from pathlib import Path

import nats
import pytest
from cryptography import x509
from cryptography.hazmat.primitives import hashes, serialization
from cryptography.hazmat.primitives.asymmetric import ec
from cryptography.x509.oid import ExtendedKeyUsageOID, NameOID

from riverboat.natsserver import NatsServer, ServerTls
from riverboat.services.common.config import ServiceConfig
from riverboat.services.dealer.config import DealerConfig
from riverboat.services.dealer.server import build_parser as dealer_parser
from riverboat.services.launcher import free_port, wait_serving
from riverboat.services.lobby.__main__ import parse as lobby_parse
from riverboat.services.lobby.config import LobbyConfig
from riverboat.services.settlement.config import SettlementConfig
from riverboat.services.settlement.server import build_parser as settlement_parser
from riverboat.services.table.__main__ import parse as table_parse
from riverboat.services.table.config import TableConfig

pytestmark = pytest.mark.timeout(60)


def _name(common: str) -> x509.Name:
    return x509.Name([x509.NameAttribute(NameOID.COMMON_NAME, common)])


def _write_key(path: Path, key: ec.EllipticCurvePrivateKey) -> None:
    path.write_bytes(
        key.private_bytes(
            serialization.Encoding.PEM,
            serialization.PrivateFormat.PKCS8,
            serialization.NoEncryption(),
        )
    )


def _issue(
    directory: Path,
    name: str,
    ca: tuple[x509.Certificate, ec.EllipticCurvePrivateKey] | None,
    usage: x509.ObjectIdentifier | None,
) -> tuple[x509.Certificate, ec.EllipticCurvePrivateKey]:
    """A key and certificate ``<name>.pem``/``<name>.key`` (self-signed CA when ``ca`` is None)."""
    key = ec.generate_private_key(ec.SECP256R1())
    now = datetime.datetime.now(datetime.UTC)
    issuer_cert, issuer_key = ca if ca is not None else (None, key)
    builder = (
        x509.CertificateBuilder()
        .subject_name(_name(f"riverboat test {name}"))
        .issuer_name(issuer_cert.subject if issuer_cert else _name(f"riverboat test {name}"))
        .public_key(key.public_key())
        .serial_number(x509.random_serial_number())
        .not_valid_before(now - datetime.timedelta(minutes=5))
        .not_valid_after(now + datetime.timedelta(days=1))
        .add_extension(x509.BasicConstraints(ca=ca is None, path_length=None), critical=True)
    )
    if usage is not None:
        builder = builder.add_extension(x509.ExtendedKeyUsage([usage]), critical=False)
    if usage == ExtendedKeyUsageOID.SERVER_AUTH:
        builder = builder.add_extension(
            x509.SubjectAlternativeName(
                [x509.DNSName("localhost"), x509.IPAddress(ipaddress.ip_address("127.0.0.1"))]
            ),
            critical=False,
        )
    cert = builder.sign(issuer_key, hashes.SHA256())
    (directory / f"{name}.pem").write_bytes(cert.public_bytes(serialization.Encoding.PEM))
    _write_key(directory / f"{name}.key", key)
    return cert, key


@pytest.fixture(scope="module")
def pki(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """ca.pem, server.pem/.key (127.0.0.1), client.pem/.key, and other-ca.pem (a stranger)."""
    directory = tmp_path_factory.mktemp("pki")
    ca = _issue(directory, "ca", None, None)
    _issue(directory, "server", ca, ExtendedKeyUsageOID.SERVER_AUTH)
    _issue(directory, "client", ca, ExtendedKeyUsageOID.CLIENT_AUTH)
    _issue(directory, "other-ca", None, None)
    return directory


@pytest.fixture(scope="module")
def tls_server(pki: Path, tmp_path_factory: pytest.TempPathFactory) -> Iterator[NatsServer]:
    """A JetStream server that speaks only TLS and requires a client certificate of our CA."""
    tls = ServerTls(
        cert_file=pki / "server.pem",
        key_file=pki / "server.key",
        ca_file=pki / "ca.pem",
        verify=True,
    )
    server = NatsServer(tmp_path_factory.mktemp("tls-store"), port=0, tls=tls)
    server.start()
    try:
        yield server
    finally:
        server.close()


def _flags(server: NatsServer, pki: Path, *, cert: bool = True, ca: str = "ca.pem") -> list[str]:
    flags = ["--nats", server.url, "--nats-ca", str(pki / ca)]
    if cert:
        flags += ["--nats-cert", str(pki / "client.pem"), "--nats-key", str(pki / "client.key")]
    return flags


def _configs(argv: list[str]) -> dict[str, ServiceConfig]:
    return {
        "dealer": DealerConfig.from_namespace(dealer_parser().parse_args(argv), {}),
        "settlement": SettlementConfig.from_namespace(settlement_parser().parse_args(argv), {}),
        "table": TableConfig.from_namespace(table_parse(argv), {}),
        "lobby": LobbyConfig.from_namespace(lobby_parse(argv), {}),
    }


async def _jetstream_answers(config: ServiceConfig) -> bool:
    nc = await nats.connect(
        **config.nats.connect_options(), connect_timeout=2, allow_reconnect=False
    )
    try:
        return (await nc.jetstream().account_info()) is not None
    finally:
        await nc.close()


async def test_every_service_reaches_nats_over_tls_with_its_certificate(
    tls_server: NatsServer, pki: Path
) -> None:
    assert tls_server.url.startswith("tls://")
    for name, config in _configs(_flags(tls_server, pki)).items():
        assert config.nats_tls.enabled, name
        assert await _jetstream_answers(config), name


@pytest.mark.parametrize(
    ("cert", "ca"),
    [(False, "ca.pem"), (True, "other-ca.pem")],
    ids=["no-client-certificate", "server-signed-by-a-stranger"],
)
async def test_without_the_right_certificates_there_is_no_connection(
    tls_server: NatsServer, pki: Path, cert: bool, ca: str
) -> None:
    config = _configs(_flags(tls_server, pki, cert=cert, ca=ca))["table"]
    with pytest.raises(Exception):  # noqa: B017 (TLS or "no servers available")
        await _jetstream_answers(config)


def test_a_dealer_process_over_tls_becomes_serving(
    tls_server: NatsServer, pki: Path, tmp_path: Path
) -> None:
    address = f"127.0.0.1:{free_port()}"
    env = {k: v for k, v in os.environ.items() if not k.startswith("RIVERBOAT_")}
    env["RIVERBOAT_TOKEN_KEY"] = os.environ["RIVERBOAT_TOKEN_KEY"]
    # The NATS TLS settings through the environment this time (flags were tested above).
    env.update(
        RIVERBOAT_NATS_URL=tls_server.url,
        RIVERBOAT_NATS_CA=str(pki / "ca.pem"),
        RIVERBOAT_NATS_CERT=str(pki / "client.pem"),
        RIVERBOAT_NATS_KEY=str(pki / "client.key"),
    )
    args = [sys.executable, "-m", "riverboat.services.dealer", "--address", address]
    args += ["--dev-key-file", "dealer.key", "--log-format", "json", "--grace", "1"]
    log = tmp_path / "dealer.log"
    with log.open("wb") as out:
        process = subprocess.Popen(args, cwd=tmp_path, env=env, stdout=out, stderr=out)
    try:
        wait_serving(address, timeout=30, process=process)
    except TimeoutError as exc:
        raise AssertionError(f"{exc}\n{log.read_text()[-2000:]}") from None
    finally:
        process.terminate()
        deadline = time.monotonic() + 10
        while process.poll() is None and time.monotonic() < deadline:
            time.sleep(0.05)
        if process.poll() is None:
            process.kill()
        process.wait()


def test_the_auditors_tool_reads_nats_over_tls(tls_server: NatsServer, pki: Path) -> None:
    """``riverboat audit`` takes the same TLS flags; without them it cannot connect."""
    command = [sys.executable, "-m", "riverboat.cli", "audit", "--no-progress"]
    env = {k: v for k, v in os.environ.items() if not k.startswith("RIVERBOAT_")}
    plain = subprocess.run(
        [*command, "--nats", tls_server.url, "--nats-ca", str(pki / "ca.pem")],
        capture_output=True,
        text=True,
        env=env,
        timeout=60,
        check=False,
    )
    assert "cannot connect" in plain.stderr, plain.stderr
    with_cert = subprocess.run(
        [*command, *_flags(tls_server, pki)],
        capture_output=True,
        text=True,
        env=env,
        timeout=60,
        check=False,
    )
    assert with_cert.returncode == 0, with_cert.stderr
    assert "RESULT: OK" in with_cert.stdout, with_cert.stdout  # empty streams verify
