"""`svc-controller-manager`: the controller daemon. Its control loops are not implemented yet, so it
only answers `--help` and `--version`, and says so plainly for anything else."""

from __future__ import annotations

import sys

from svc import __version__

USAGE = """usage: svc-controller-manager [flags]

The controller daemon runs the core control loops against the svc API server.
No controllers are implemented in this release; the daemon cannot run yet.

flags:
  -h, --help     show this help and exit
  --version      print the version and exit
"""


def main(argv: list[str] | None = None) -> None:
    args = sys.argv[1:] if argv is None else argv
    if args and args[0] in ("-h", "--help"):
        print(USAGE, end="")
        return
    if args and args[0].startswith("--version"):
        print(f"svc-controller-manager v1.36.0+svc.{__version__}")
        return
    print("svc-controller-manager: no controllers are implemented in this release; see --help", file=sys.stderr)
    raise SystemExit(1)
