"""Starts the real orchestrator bridge (tests/bridge/bridge-fixture-server.ts) as a child and talks to it."""

from __future__ import annotations

import json
import os
import subprocess
import tempfile

REPO_ROOT = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
FIXTURE = os.path.join("tests", "bridge", "bridge-fixture-server.ts")


class FixtureBridge:
    def __init__(self, *arguments: str, directory: str | None = None):
        self._temporary = None if directory else tempfile.TemporaryDirectory(prefix="openclaw-bridge-")
        self.directory = directory or self._temporary.name
        self.process = subprocess.Popen(
            ["node", "--import", "tsx/esm", FIXTURE, "--dir", self.directory, *arguments],
            cwd=REPO_ROOT,
            stdin=subprocess.PIPE,
            stdout=subprocess.PIPE,
            text=True,
        )
        line = self.process.stdout.readline()
        if not line:
            raise RuntimeError("bridge fixture server exited before printing its address")
        self.info = json.loads(line)
        self.url = self.info["url"]
        self.token = self.info["token"]

    def command(self, text: str) -> dict:
        self.process.stdin.write(text + "\n")
        self.process.stdin.flush()
        return json.loads(self.process.stdout.readline())

    def environment(self) -> None:
        os.environ["OPENCLAW_RL_BRIDGE"] = self.url
        os.environ["OPENCLAW_RL_BRIDGE_TOKEN"] = self.token

    def close(self) -> None:
        if self.process.poll() is None:
            self.process.stdin.close()
            try:
                self.process.wait(timeout=10)
            except subprocess.TimeoutExpired:
                self.process.kill()
                self.process.wait()
        if self.process.stdout:
            self.process.stdout.close()
        if self._temporary:
            self._temporary.cleanup()
