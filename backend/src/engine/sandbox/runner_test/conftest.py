"""Helpers for the runner's tests: fixture repositories written into tmp dirs, and the runner run
as the CLI it is (a subprocess with a clean environment, as the sandbox gives it)."""

from __future__ import annotations

import json
import os
import subprocess
import sys
import textwrap
from dataclasses import dataclass
from pathlib import Path

import pytest

RUNNER = Path(__file__).resolve().parent.parent / "runner.py"


@dataclass
class Result:
    code: int
    lines: list[dict]
    stderr: str

    def of(self, line_type: str) -> list[dict]:
        return [line for line in self.lines if line["type"] == line_type]

    def one(self, line_type: str) -> dict:
        found = self.of(line_type)
        assert len(found) == 1, f"expected one {line_type} line, got {len(found)}: {self.lines}\n{self.stderr}"
        return found[0]


def write_repo(root: Path, files: dict[str, str]) -> Path:
    for name, text in files.items():
        path = root / name
        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_text(textwrap.dedent(text).lstrip("\n"), encoding="utf-8")
    return root


def run_runner(*args: str, env: dict[str, str] | None = None, timeout: float = 120) -> Result:
    # A clean environment: nothing of the test machine's variables reaches the graph, except
    # PATH and HOME, as the sandbox passes only what it declares.
    clean = {"PATH": os.environ.get("PATH", "/usr/bin:/bin"), "HOME": os.environ.get("HOME", "/tmp")}
    clean.update(env or {})
    proc = subprocess.run(
        [sys.executable, str(RUNNER), *args],
        capture_output=True,
        text=True,
        env=clean,
        timeout=timeout,
        stdin=subprocess.DEVNULL,
    )
    lines = []
    for raw in proc.stdout.splitlines():
        # Every stdout line must be one JSON object: the protocol has nothing else.
        obj = json.loads(raw)
        assert isinstance(obj, dict) and "type" in obj, raw
        lines.append(obj)
    return Result(proc.returncode, lines, proc.stderr)


@pytest.fixture
def repo(tmp_path: Path):
    def make(files: dict[str, str]) -> Path:
        return write_repo(tmp_path / "repo", files)

    return make
