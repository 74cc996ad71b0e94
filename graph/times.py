"""Times, converted at the edge: every format a trace brings → one canonical UTC form.

Inputs come as DroidBot tags (`2023-10-19_025206`), DroidBot's `test_date`
(`2023-10-19 02:52:06`), ISO-8601 with `Z` or an offset, or Python datetimes.
Times without a zone are taken as UTC (DroidBot records none). Inside the
model a time is the canonical string `YYYY-MM-DDTHH:MM:SSZ`, which
sorts as it compares (whole seconds); the graph stores it as a Neo4j `datetime` by wrapping the
parameter in `datetime(...)` in Cypher. That wrapping is the form both servers
agree on: ArcadeDB drops the zone of a datetime sent as a Bolt parameter and
refuses `datetime()` of one, while `datetime($iso_string)` is a zoned UTC
datetime on Neo4j 5 and on ArcadeDB alike, and compares correctly on both.
"""
from __future__ import annotations

import re
from datetime import datetime, timezone

from appmem.errors import InputFormatError

_DROIDBOT_TAG = re.compile(r"^(\d{4})-(\d{2})-(\d{2})_(\d{2})(\d{2})(\d{2})$")


def utc_iso(value: object, where: str = "time") -> str:
    """`value` as the canonical UTC string; "" for an absent time (None, "")."""
    if value is None or value == "":
        return ""
    if isinstance(value, datetime):
        moment = value
    elif hasattr(value, "to_native"):  # neo4j.time.DateTime read back from the graph
        moment = value.to_native()
    elif isinstance(value, str):
        moment = _parse(value.strip(), where)
    else:
        raise InputFormatError(where, f"{value!r} is not a time")
    if moment.tzinfo is None:
        moment = moment.replace(tzinfo=timezone.utc)
    try:
        moment = moment.astimezone(timezone.utc)
    except OverflowError:  # year 1 east of UTC, or 9999 west of it: in range as written, not once in UTC
        raise InputFormatError(where, f"{value!r} is out of range once in UTC (years 1 to 9999)") from None
    # Whole seconds: one fixed width, so the strings sort as the times do.
    return moment.strftime("%Y-%m-%dT%H:%M:%SZ")


def _parse(text: str, where: str) -> datetime:
    tag = _DROIDBOT_TAG.match(text)
    if tag:
        return datetime(*(int(g) for g in tag.groups()))
    try:
        return datetime.fromisoformat(text.replace("Z", "+00:00").replace("z", "+00:00"))
    except ValueError:
        raise InputFormatError(where, f"{text!r} is not a time (expected ISO-8601, "
                                      f"'YYYY-MM-DD HH:MM:SS' or DroidBot's 'YYYY-MM-DD_HHMMSS')") from None


def now_iso() -> str:
    return utc_iso(datetime.now(timezone.utc))
