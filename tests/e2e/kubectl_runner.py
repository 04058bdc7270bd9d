"""Running a real kubectl binary against a test server."""

from __future__ import annotations

import os
import subprocess
from dataclasses import dataclass
from pathlib import Path


@dataclass
class Kubectl:
    binary: str
    kubeconfig: Path

    def run(
        self, *args: str, stdin: str | None = None, check: bool = True, env: dict[str, str] | None = None
    ) -> subprocess.CompletedProcess[str]:
        """`env`: variables set for this run on top of the test's environment."""
        result = subprocess.run(
            [self.binary, "--kubeconfig", str(self.kubeconfig), *args],
            input=stdin,
            capture_output=True,
            text=True,
            timeout=120,
            check=False,
            env={**os.environ, **env} if env else None,
        )
        if check and result.returncode != 0:
            raise AssertionError(
                f"kubectl {' '.join(args)} failed ({result.returncode}):\n{result.stderr}\n{result.stdout}"
            )
        return result
