"""Human output carries text others wrote: no terminal control gets through it (appmem/output.py)."""
from __future__ import annotations

import argparse

from appmem.output import clean, emit


def test_clean_keeps_text_newlines_and_tabs_and_drops_every_control():
    assert clean("\x1b[1;31mRED\x1b[0m ok") == "RED ok"
    assert clean("a\x1b]0;title\x07b\x1b]8;;http://x\x1b\\link\x1b]8;;\x1b\\") == "ablink"
    assert clean("x\x9b2Jy\x1bcz\x1b") == "xyz"
    assert clean("tab\tnl\nz\r\x00\x08\x7f\x85") == "tab\tnl\nz"
    assert clean("é ü 日本 ✓ › «»") == "é ü 日本 ✓ › «»"


def test_emit_cleans_the_human_form_only(capsys):
    emit(argparse.Namespace(json=False), {"s": "\x1b[31mred"}, lambda p: p["s"])
    assert capsys.readouterr().out == "red\n"
    emit(argparse.Namespace(json=True), {"s": "\x1b[31mred"}, lambda p: p["s"])
    assert "\\u001b[31mred" in capsys.readouterr().out  # JSON escapes it: the data stays as stored
