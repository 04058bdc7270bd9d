"""Boolean client flags take Go's strconv.ParseBool spellings and fail with kubectl's message."""

from __future__ import annotations

import argparse

import pytest

from svc.cli.flags import bool_flag


def test_bool_flag_takes_go_spellings() -> None:
    assert bool_flag("True") is True
    assert bool_flag("F") is False


def test_bool_flag_rejects_other_text_with_kubectl_message() -> None:
    with pytest.raises(argparse.ArgumentTypeError) as caught:
        bool_flag("tRUE")
    assert str(caught.value) == 'invalid argument "tRUE": strconv.ParseBool: parsing "tRUE": invalid syntax'
