"""deploy/k8s validated offline: every rendered manifest against the Kubernetes schemas
(kubernetes-validate, strict), every flag and RIVERBOAT_* variable a container is given against
what the service really accepts, the contracts the probes and scraping rely on, and the NATS
configuration against nats-server itself."""

from __future__ import annotations

import copy
import importlib
import os
import re
import subprocess
from pathlib import Path
from typing import Any

import kubernetes_validate
import pytest
import yaml

from riverboat.cli.app import PASSTHROUGH, build_parser
from riverboat.natsauth import IDENTITIES
from riverboat.natsserver import find_nats_server
from tests.e2e.deploy._kit import (
    ROOT,
    help_text,
    nats_authorization,
    password_env,
    pod_specs,
    render,
)

K8S = ROOT / "deploy" / "k8s"
KUBERNETES = "1.30.0"  # the oldest release the manifests claim (gRPC probes are GA since 1.27)
OVERLAYS = [K8S / "base", K8S / "overlays" / "production"]
SERVICES = {"lobby": 50051, "table": 50052, "dealer": 50053, "settlement": 50054}


@pytest.fixture(scope="module", params=OVERLAYS, ids=lambda p: p.name)
def rendered(request: pytest.FixtureRequest) -> list[dict[str, Any]]:
    directory: Path = request.param
    return render(directory)


@pytest.fixture(scope="module")
def production() -> list[dict[str, Any]]:
    return render(K8S / "overlays" / "production")


def _by(manifests: list[dict[str, Any]], kind: str) -> dict[str, dict[str, Any]]:
    return {m["metadata"]["name"]: m for m in manifests if m["kind"] == kind}


def _riverboat_containers(manifests: list[dict[str, Any]]) -> list[tuple[str, dict[str, Any]]]:
    return [
        (name, container)
        for name, pod in pod_specs(manifests)
        for container in pod["containers"]
        if container["image"].partition(":")[0].rsplit("/", 1)[-1] == "riverboat"
    ]


def test_every_manifest_is_valid_kubernetes(rendered: list[dict[str, Any]]) -> None:
    for manifest in rendered:
        kubernetes_validate.validate(manifest, KUBERNETES, strict=True)
    examples = list(yaml.safe_load_all((K8S / "secrets.example.yaml").read_text()))
    for manifest in examples:
        kubernetes_validate.validate(manifest, KUBERNETES, strict=True)


def test_the_validation_bites() -> None:
    """A number where Kubernetes wants a string (the mistake it caught in --replicas 3)."""
    dealer = copy.deepcopy(_by(render(K8S / "base"), "Deployment")["dealer"])
    dealer["spec"]["template"]["spec"]["containers"][0]["args"].append(3)
    with pytest.raises(kubernetes_validate.ValidationError):
        kubernetes_validate.validate(dealer, KUBERNETES, strict=True)


def _parse(args: list[str]) -> None:
    """Parse ``args`` as ``riverboat ARGS...`` does (argparse exits 2 on anything unknown)."""
    module = PASSTHROUGH.get((args[0], args[1]))
    if module is not None:
        importlib.import_module(module).parse(args[2:])
    else:
        build_parser().parse_args(args)


def test_every_flag_is_one_the_service_accepts(rendered: list[dict[str, Any]]) -> None:
    seen = set()
    for workload, container in _riverboat_containers(rendered):
        args = container["args"]
        _parse(args)  # the real parser: an unknown flag or a bad value fails here
        helptext = help_text(*args[:2])  # and the help the operator reads names each one
        for flag in (a for a in args if a.startswith("--")):
            assert re.search(rf"{re.escape(flag)}\b", helptext), (workload, flag)
        seen.add(tuple(args[:2]))
    assert {("settlement", "migrate")} | {(s, "serve") for s in SERVICES} == seen


def _source_text() -> str:
    files = [*(ROOT / "libs").rglob("*.py"), *(ROOT / "services").rglob("*.py")]
    return "\n".join(f.read_text(encoding="utf-8") for f in files)


def test_every_environment_variable_is_one_the_code_reads(rendered: list[dict[str, Any]]) -> None:
    source = _source_text()
    for workload, container in _riverboat_containers(rendered):
        for variable in container.get("env", []):
            name = variable["name"]
            if "fieldRef" in variable.get("valueFrom", {}):
                continue  # the pod's own fields, for $(VAR) references (POD_IP)
            assert name.startswith("RIVERBOAT_"), (workload, name)
            assert f'"{name}"' in source, (workload, name)


def test_services_probes_resources_budgets_and_scraping(rendered: list[dict[str, Any]]) -> None:
    deployments = _by(rendered, "Deployment")
    services = _by(rendered, "Service")
    budgets = _by(rendered, "PodDisruptionBudget")
    assert set(SERVICES) <= set(deployments)
    assert deployments["table"]["spec"]["replicas"] >= 2
    # The hand-over on SIGTERM (up to 30 s per hand in play) plus the RPC grace fit in the
    # grace period Kubernetes gives before it kills the pod.
    table_pod = deployments["table"]["spec"]["template"]["spec"]
    assert table_pod["terminationGracePeriodSeconds"] >= 30 + 5 + 10
    for name, port in SERVICES.items():
        pod = deployments[name]["spec"]["template"]
        (container,) = pod["spec"]["containers"]
        assert f"0.0.0.0:{port}" in container["args"]
        # Readiness: the overall health (""), NOT_SERVING while NATS is gone; liveness: the
        # name "liveness", SERVING while the process runs, so a NATS outage restarts nothing.
        assert container["readinessProbe"]["grpc"] == {"port": port}
        assert container["startupProbe"]["grpc"] == {"port": port}
        assert container["livenessProbe"]["grpc"] == {"port": port, "service": "liveness"}
        resources = container["resources"]
        assert {"cpu", "memory"} <= set(resources["requests"]) and "memory" in resources["limits"]
        # Metrics: --metrics-address on the port the annotations and the Service name.
        metrics = container["args"][container["args"].index("--metrics-address") + 1]
        annotations = pod["metadata"]["annotations"]
        assert annotations["prometheus.io/scrape"] == "true"
        assert metrics == f"0.0.0.0:{annotations['prometheus.io/port']}"
        ports = {p["name"]: p["containerPort"] for p in container["ports"]}
        assert ports == {"grpc": port, "metrics": int(annotations["prometheus.io/port"])}
        labels = pod["metadata"]["labels"]
        for selector in (services[name]["spec"]["selector"],):
            assert selector.items() <= labels.items()
        assert budgets[name]["spec"]["selector"]["matchLabels"].items() <= labels.items()
        assert pod["spec"]["securityContext"]["runAsNonRoot"] is True
        # Streams R3: every service that takes a replica count is given 3.
        if "--replicas" in help_text(*container["args"][:2]):
            assert container["args"][container["args"].index("--replicas") + 1] == "3", name


def test_secrets_are_referenced_never_inlined(rendered: list[dict[str, Any]]) -> None:
    assert not [m for m in rendered if m["kind"] == "Secret"]  # the operator creates them
    examples = {
        m["metadata"]["name"]: set(m["stringData"])
        for m in yaml.safe_load_all((K8S / "secrets.example.yaml").read_text())
    }
    values = [
        value
        for m in yaml.safe_load_all((K8S / "secrets.example.yaml").read_text())
        for value in m["stringData"].values()
    ]
    assert not any(values)  # no placeholder value to apply by mistake
    for workload, pod in pod_specs(rendered):
        for container in pod["containers"]:
            for variable in container.get("env", []):
                if "valueFrom" not in variable:
                    assert variable["name"] not in ("RIVERBOAT_TOKEN_KEY", "RIVERBOAT_DEALER_KEY")
                    continue
                ref = variable["valueFrom"].get("secretKeyRef")
                if ref is not None:
                    assert ref["key"] in examples[ref["name"]], (workload, ref)
                    assert not ref.get("optional", False), (workload, ref)


def test_production_runs_the_registry_image(production: list[dict[str, Any]]) -> None:
    images = {c["image"] for _, c in _riverboat_containers(production)}
    assert images == {"registry.example.com/riverboat:0.1.0"}
    assert {m["metadata"]["namespace"] for m in production} == {"riverboat"}
    assert _by(production, "Deployment")["table"]["spec"]["replicas"] == 3


def _nats_conf(manifests: list[dict[str, Any]]) -> str:
    text: str = _by(manifests, "ConfigMap")["nats-config"]["data"]["nats.conf"]
    return text


def test_nats_is_a_three_node_jetstream_cluster(rendered: list[dict[str, Any]]) -> None:
    nats = _by(rendered, "StatefulSet")["nats"]
    assert nats["spec"]["replicas"] == 3 and nats["spec"]["volumeClaimTemplates"]
    headless = _by(rendered, "Service")[nats["spec"]["serviceName"]]
    assert headless["spec"]["clusterIP"] == "None"
    routes = re.findall(r"nats://([\w.-]+):6222", _nats_conf(rendered))
    assert routes == [f"nats-{n}.{headless['metadata']['name']}" for n in range(3)]
    assert "sync_interval: always" in _nats_conf(rendered)
    assert _by(rendered, "PodDisruptionBudget")["nats"]["spec"]["maxUnavailable"] == 1
    # The routes carry no credentials: only NATS nodes may reach them.
    policy = _by(rendered, "NetworkPolicy")["nats"]["spec"]
    (routes_rule,) = [r for r in policy["ingress"] if r["ports"] == [{"port": 6222}]]
    assert routes_rule["from"] == [
        {"podSelector": {"matchLabels": nats["spec"]["selector"]["matchLabels"]}}
    ]


def test_nats_users_are_the_rooms_identities(rendered: list[dict[str, Any]]) -> None:
    """The ConfigMap's users and permissions are riverboat.natsauth's (regenerate the block with
    ``python -m tests.e2e.deploy._kit nats-authorization`` when they change)."""
    assert nats_authorization() in _nats_conf(rendered)
    env = {
        e["name"]: e["valueFrom"]["secretKeyRef"]
        for e in _by(rendered, "StatefulSet")["nats"]["spec"]["template"]["spec"]["containers"][0][
            "env"
        ]
        if "secretKeyRef" in e.get("valueFrom", {})
    }
    assert env == {password_env(u): {"name": "riverboat-nats", "key": u} for u in IDENTITIES}
    for _workload, container in _riverboat_containers(rendered):
        if "--nats-user" in container["args"]:
            user = container["args"][container["args"].index("--nats-user") + 1]
            refs = {
                e["name"]: e["valueFrom"]["secretKeyRef"]
                for e in container["env"]
                if "secretKeyRef" in e.get("valueFrom", {})
            }
            assert refs["RIVERBOAT_NATS_PASSWORD"] == {"name": "riverboat-nats", "key": user}


def test_nats_server_accepts_the_configuration_and_needs_every_password(
    tmp_path: Path, production: list[dict[str, Any]]
) -> None:
    conf = tmp_path / "nats.conf"
    conf.write_text(_nats_conf(production))
    passwords = {password_env(u): f"pw-{u}" for u in IDENTITIES}
    base = {**os.environ, "POD_NAME": "nats-0"}

    def check(env: dict[str, str]) -> subprocess.CompletedProcess[str]:
        return subprocess.run(
            [str(find_nats_server()), "-t", "-c", str(conf)],
            env=env,
            capture_output=True,
            text=True,
            timeout=30,
            check=False,
        )

    ok = check({**base, **passwords})
    assert ok.returncode == 0, ok.stderr
    missing = check({**base, **{k: v for k, v in passwords.items() if "DEALER" not in k}})
    assert missing.returncode != 0 and password_env("dealer") in missing.stderr
