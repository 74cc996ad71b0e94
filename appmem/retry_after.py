"""Reading an HTTP Retry-After header: delta-seconds or an HTTP date (RFC 9110 §10.2.3), as servers and the
proxies in front of them send it; clamped, so that a hostile or wrong value never stalls a client long."""
from __future__ import annotations

import math
import time
from email.utils import parsedate_to_datetime


def retry_after_s(value: str | None, cap: float, default: float = 0.0) -> float:
    """The seconds `value` asks a client to wait, within [0, cap]; `default` when it is absent or nonsense."""
    if not value:
        return default
    try:
        seconds = float(value)
    except ValueError:
        try:
            seconds = parsedate_to_datetime(value).timestamp() - time.time()
        except (TypeError, ValueError, IndexError, OverflowError):  # neither a number nor a date
            return default
    if math.isnan(seconds):
        return default
    return min(max(seconds, 0.0), cap)
