"""The deploy/ checks' toolkit: a Kustomize renderer for the subset deploy/k8s uses, the NATS
authorization block the ConfigMap must hold, and the flags each service's ``--help`` offers.

No Kustomize is on PyPI (the ``kustomize`` package there generates kustomization files from
Python; it does not render them), so the overlay is built here by reading kustomization.yaml:
``resources`` (files and directories holding a kustomization), ``namespace``, ``images``
(``newName`` / ``newTag``), ``replicas`` and ``patches`` (strategic-merge patches from files;
lists of named items, such as containers and env, merge by name). A key this renderer does not
know is an error, so the manifests cannot quietly use more than is checked.

``python -m tests.e2e.deploy._kit render DIR`` prints the rendered YAML (``make lint`` validates it
with kubernetes-validate); ``python -m tests.e2e.deploy._kit nats-authorization`` prints the
``authorization`` block deploy/k8s/base/nats.yaml must hold.
"""

from __future__ import annotations

import copy
import functools
import json
import subprocess
import sys
from pathlib import Path
from typing import Any

import yaml

from riverboat.natsauth import IDENTITIES, room_permissions

__all__ = [
    "ROOT",
    "help_text",
    "nats_authorization",
    "password_env",
    "render",
]

ROOT = Path(__file__).resolve().parents[3]
KNOWN_KEYS = {"apiVersion", "kind", "resources", "namespace", "images", "replicas", "patches"}
# Kinds that live in a namespace (everything deploy/k8s holds; checked, not assumed).
NAMESPACED = {
    "ConfigMap",
    "Deployment",
    "Job",
    "NetworkPolicy",
    "PodDisruptionBudget",
    "Secret",
    "Service",
    "StatefulSet",
}

Manifest = dict[str, Any]


class RenderError(ValueError):
    """A kustomization uses something this renderer does not support, or is inconsistent."""


def _load_all(path: Path) -> list[Manifest]:
    return [doc for doc in yaml.safe_load_all(path.read_text(encoding="utf-8")) if doc]


def render(directory: Path) -> list[Manifest]:
    """The manifests ``kubectl kustomize directory`` would produce (for this subset)."""
    kustomization = directory / "kustomization.yaml"
    spec = yaml.safe_load(kustomization.read_text(encoding="utf-8"))
    unknown = set(spec) - KNOWN_KEYS
    if unknown:
        raise RenderError(f"{kustomization}: unsupported keys {sorted(unknown)}")
    manifests: list[Manifest] = []
    for entry in spec.get("resources", []):
        path = directory / entry
        manifests += render(path) if path.is_dir() else _load_all(path)
    for patch in spec.get("patches", []):
        if set(patch) != {"path"}:
            raise RenderError(f"{kustomization}: only file patches ({{path: ...}}) are supported")
        for doc in _load_all(directory / patch["path"]):
            _apply_patch(manifests, doc, kustomization)
    for replica in spec.get("replicas", []):
        scalable = [m for m in manifests if m["kind"] in ("Deployment", "StatefulSet")]
        target = _find(scalable, None, replica["name"], kustomization)
        target["spec"]["replicas"] = replica["count"]
    for image in spec.get("images", []):
        _set_image(manifests, image)
    if "namespace" in spec:
        for manifest in manifests:
            if manifest["kind"] not in NAMESPACED:
                raise RenderError(f"{manifest['kind']} is not known to be namespaced")
            manifest.setdefault("metadata", {})["namespace"] = spec["namespace"]
    return manifests


def _find(manifests: list[Manifest], kind: str | None, name: str, where: Path) -> Manifest:
    found = [
        m
        for m in manifests
        if m["metadata"]["name"] == name and (kind is None or m["kind"] == kind)
    ]
    if len(found) != 1:
        raise RenderError(f"{where}: {kind or 'resource'} {name!r} matches {len(found)} resources")
    return found[0]


def _apply_patch(manifests: list[Manifest], patch: Manifest, where: Path) -> None:
    target = _find(manifests, patch["kind"], patch["metadata"]["name"], where)
    merged = _merge(target, patch)
    target.clear()
    target.update(merged)


def _merge(base: Any, patch: Any) -> Any:
    """Strategic merge, as far as these manifests need: maps merge key by key, lists of maps
    with a ``name`` merge item by item (new names are appended), other lists are replaced."""
    if isinstance(base, dict) and isinstance(patch, dict):
        out = dict(base)
        for key, value in patch.items():
            out[key] = _merge(base[key], value) if key in base else copy.deepcopy(value)
        return out
    if (
        isinstance(base, list)
        and isinstance(patch, list)
        and all(isinstance(i, dict) and "name" in i for i in (*base, *patch))
    ):
        items = [copy.deepcopy(i) for i in base]
        for item in patch:
            index = next((n for n, i in enumerate(items) if i["name"] == item["name"]), None)
            if index is None:
                items.append(copy.deepcopy(item))
            else:
                items[index] = _merge(items[index], item)
        return items
    return copy.deepcopy(patch)


def _set_image(manifests: list[Manifest], image: dict[str, str]) -> None:
    for manifest in manifests:
        pod = _pod_spec(manifest)
        if pod is None:
            continue
        for container in [*pod.get("initContainers", []), *pod["containers"]]:
            name, _, _ = container["image"].partition(":")
            if name == image["name"]:
                new = image.get("newName", name)
                container["image"] = f"{new}:{image['newTag']}" if "newTag" in image else new


def _pod_spec(manifest: Manifest) -> dict[str, Any] | None:
    if manifest["kind"] in ("Deployment", "StatefulSet", "Job"):
        spec: dict[str, Any] = manifest["spec"]["template"]["spec"]
        return spec
    return None


def pod_specs(manifests: list[Manifest]) -> list[tuple[str, dict[str, Any]]]:
    """``(workload name, pod spec)`` of every Deployment, StatefulSet and Job."""
    return [(m["metadata"]["name"], spec) for m in manifests if (spec := _pod_spec(m)) is not None]


def password_env(user: str) -> str:
    """The NATS pod's environment variable holding ``user``'s password."""
    return f"NATS_PASSWORD_{user.upper()}"


def nats_authorization() -> str:
    """The ``authorization`` block of the cluster's nats.conf: the room's users and their
    permissions (``riverboat.natsauth.room_permissions``), each password an environment
    variable of the NATS pod (from the ``riverboat-nats`` Secret), never in the ConfigMap."""
    permissions = room_permissions()

    def quoted(values: tuple[str, ...]) -> str:
        # Quoted: an unquoted $JS would read as a variable reference.
        return "[" + ", ".join(json.dumps(v) for v in values) + "]"

    lines = ["authorization {", "  users = ["]
    for user in IDENTITIES:
        perms = permissions[user]
        lines.append(
            f"    {{ user: {json.dumps(user)}, password: ${password_env(user)}, "
            f"permissions: {{ publish: {{ allow: {quoted(perms.publish)} }}, "
            f"subscribe: {{ allow: {quoted(perms.subscribe)} }} }} }}"
        )
    lines += ["  ]", "}"]
    return "\n".join(lines) + "\n"


@functools.cache
def help_text(*command: str) -> str:
    """``riverboat COMMAND... --help`` as the installed command prints it (once per command)."""
    done = subprocess.run(
        [sys.executable, "-m", "riverboat.cli", *command, "--help"],
        capture_output=True,
        text=True,
        check=True,
        timeout=60,
    )
    return done.stdout


def main(argv: list[str]) -> int:
    """``render DIR`` or ``nats-authorization``."""
    if argv[:1] == ["render"] and len(argv) == 2:
        sys.stdout.write(yaml.safe_dump_all(render(Path(argv[1])), sort_keys=False))
        return 0
    if argv == ["nats-authorization"]:
        sys.stdout.write(nats_authorization())
        return 0
    print("usage: python -m tests.e2e.deploy._kit render DIR | nats-authorization", file=sys.stderr)
    return 2


if __name__ == "__main__":
    raise SystemExit(main(sys.argv[1:]))
