"""/proc readings the bench takes of the server from outside."""

import os

from bench.procfs import open_fds


def test_open_fds_counts_a_newly_opened_descriptor(tmp_path) -> None:
    before = open_fds(os.getpid())
    with (tmp_path / "f").open("w"):
        assert open_fds(os.getpid()) == before + 1
