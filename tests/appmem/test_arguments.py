"""The CLI's arguments (appmem/arguments.py): a value out of range is one line naming the option and the
value, exit 2, before the command starts anything (a server, a Celery worker, a device run)."""
from __future__ import annotations

import argparse
import subprocess
import sys

import pytest

from appmem.cli import build_parser, main
from tests.conftest import REPO

BAD = [  # argv, the option named, the value quoted
    (["serve", "--port", "70000"], "--port", "70000"),  # uvicorn bound another port and said 70000
    (["serve", "--port", "-5"], "--port", "-5"),
    (["serve", "--workers", "0"], "--workers", "0"),
    (["worker", "--queues", "x", "--concurrency", "-1"], "--concurrency", "-1"),  # a Celery traceback before
    (["worker", "--loglevel", "BOGUS"], "--loglevel", "BOGUS"),
    (["worker", "--queues", ""], "--queues", ""),
    (["worker", "--queues", "ingest,,explore"], "--queues", "ingest,,explore"),
    (["search", "about", "--k", "-1", "--json"], "--k", "-1"),  # answered hits, while the API says 422
    (["search", "", "--json"], "text", ""),  # so did an empty text
    (["plan", "", "--app", "calendar"], "TASK", ""),
    (["plan", "--task", "x", "--app", ""], "--app", ""),  # planned on an arbitrary app
    (["hints", "--task", "", "--app", "calendar", "--screen-xml", "x.xml"], "--task", ""),
    (["stats", "--app", ""], "--app", ""),
    (["plan", "open the settings", "--k", "0"], "--k", "0"),
    (["doc", "--app", "calendar", "--budget", "0"], "--budget", "0"),
    (["run", "--task", "t", "--serial", "s", "--max-steps", "-3"], "--max-steps", "-3"),
    (["run", "--task", "t", "--serial", "s", "--adb-port", "0"], "--adb-port", "0"),
    (["devices", "--adb-port", "65536"], "--adb-port", "65536"),
    (["crawl", "--twins", "x", "--budget", "0"], "--budget", "0"),
    (["crawl", "--twins", "x", "--seconds", "nan"], "--seconds", "nan"),
    (["keys", "create", "--name", "n", "--rate-limit", "-1"], "--rate-limit", "-1"),
    (["twins", "serve", "x", "--port", "70000"], "--port", "70000"),
]


@pytest.mark.parametrize("argv,option,value", BAD, ids=[" ".join(a) for a, _, _ in BAD])
def test_a_bad_value_is_one_line_naming_the_option_and_exit_2(argv, option, value, capsys):
    """In this process: the parser refuses before any handler runs (the one-line error of a real process, its
    exit status and empty stdout are checked by test_a_missing_argument_is_one_line_too)."""
    with pytest.raises(SystemExit) as exited:
        main(argv)
    done = capsys.readouterr()
    assert exited.value.code == 2 and done.out == "", done.err
    lines = done.err.strip().splitlines()
    assert len(lines) == 1 and lines[0].startswith(f"appmem: error: argument {option}: {value!r} "), done.err
    assert lines[0].endswith(f"see appmem {argv[0]}{' ' + argv[1] if argv[0] in ('keys', 'twins') else ''} --help")


def test_good_values_parse_to_what_the_commands_use():
    parser = build_parser()
    worker = parser.parse_args(["worker", "--queues", " ingest, explore ", "--loglevel", "debug", "--concurrency", "4"])
    assert (worker.queues, worker.loglevel, worker.concurrency) == ("ingest,explore", "DEBUG", 4)
    assert parser.parse_args(["serve", "--port", "65535"]).port == 65535
    assert parser.parse_args(["serve"]).workers is None  # APPMEM_WORKERS decides, 0 there: one per core
    assert parser.parse_args(["twins", "serve", "x", "--port", "0"]).port == 0  # a free port
    assert parser.parse_args(["keys", "create", "--name", "n", "--rate-limit", "0"]).rate_limit == 0  # the default
    assert parser.parse_args(["crawl", "--twins", "x", "--seconds", "0.5"]).seconds == 0.5


def test_a_missing_argument_is_one_line_too():
    done = subprocess.run([sys.executable, "-m", "appmem.cli", "run", "--serial", "s"], cwd=REPO, capture_output=True,
                          text=True, timeout=60)
    assert done.returncode == 2 and done.stdout == ""
    assert done.stderr.splitlines() == ["appmem: error: the following arguments are required: --task; "
                                        "see appmem run --help"]


def test_an_empty_screen_file_is_named_before_any_store_is_opened(tmp_path):
    """It was ignored: the plan went on from the app's entry as if no screen were given."""
    empty = tmp_path / "screen.xml"
    empty.write_text("  \n")
    done = subprocess.run([sys.executable, "-m", "appmem.cli", "locate", "--app", "calendar", "--screen-xml", str(empty)],
                          cwd=REPO, capture_output=True, text=True, timeout=60, env={"APPMEM_HOME": str(tmp_path / "home"),
                                                                                    "PATH": "/usr/bin:/bin"})
    assert done.returncode == 2 and done.stderr.strip().splitlines() == [
        f"appmem: error: {empty}: is empty: no screen to read"], done.stderr


def test_the_clis_text_bounds_are_the_apis():
    from appmem.arguments import app_name, task_text
    from appmem.contract.requests import APP_MAX, TASK_MAX

    for parse, limit in ((task_text, TASK_MAX), (app_name, APP_MAX)):
        assert parse("x" * limit) == "x" * limit
        with pytest.raises(argparse.ArgumentTypeError):
            parse("x" * (limit + 1))
