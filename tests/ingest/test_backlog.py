"""The retry timing of contributions through a store outage (ingest/backlog.py) and its settings."""
from __future__ import annotations

import pytest

from appmem.errors import ConfigError
from appmem.ingest.backlog import FIRST_DELAY_S, retry_delay
from appmem.settings import Settings

WEEK = 7 * 24 * 3600


def test_the_delay_doubles_with_every_retry_up_to_its_maximum():
    delays = [retry_delay(n, 0, WEEK, 600, jitter=lambda: 0.0) for n in range(14)]
    assert delays[:4] == [FIRST_DELAY_S, 2 * FIRST_DELAY_S, 4 * FIRST_DELAY_S, 8 * FIRST_DELAY_S]
    assert delays[-1] == 600 and all(a <= b for a, b in zip(delays, delays[1:]))


def test_jitter_takes_at_most_half_the_delay_off():
    assert retry_delay(20, 0, WEEK, 600, jitter=lambda: 0.999) == pytest.approx(300.3, abs=0.1)


def test_a_contribution_is_retried_until_its_maximum_age_then_held():
    assert retry_delay(1000, WEEK - 601, WEEK, 600, jitter=lambda: 0.0) == 600
    assert retry_delay(1000, WEEK - 599, WEEK, 600, jitter=lambda: 0.0) is None
    assert retry_delay(0, 0, 0.5, 600, jitter=lambda: 0.0) is None  # a first wait past the age: held at once


def test_a_week_of_outage_is_retried_for_a_week_in_a_bounded_number_of_tries():
    age, retries = 0.0, 0
    while (delay := retry_delay(retries, age, WEEK, 600, jitter=lambda: 0.0)) is not None:
        age, retries = age + delay, retries + 1
    assert WEEK - 600 <= age <= WEEK and retries < WEEK / 600 + 20


def test_the_retry_settings_default_to_a_week_and_ten_minutes_and_are_checked(tmp_path):
    settings = Settings.from_env({"APPMEM_HOME": str(tmp_path)})
    assert (settings.ingest_retry_max_age_s, settings.ingest_retry_max_delay_s) == (WEEK, 600)
    assert Settings.from_env({"APPMEM_HOME": str(tmp_path), "APPMEM_INGEST_RETRY_MAX_AGE_S": "20",
                              "APPMEM_INGEST_RETRY_MAX_DELAY_S": "2"}).ingest_retry_max_delay_s == 2
    with pytest.raises(ConfigError, match="APPMEM_INGEST_RETRY_MAX_DELAY_S must be between 1 and 3000"):
        Settings.from_env({"APPMEM_HOME": str(tmp_path), "APPMEM_INGEST_RETRY_MAX_DELAY_S": "4000"})
    with pytest.raises(ConfigError, match="APPMEM_INGEST_RETRY_MAX_AGE_S must be an integer"):
        Settings.from_env({"APPMEM_HOME": str(tmp_path), "APPMEM_INGEST_RETRY_MAX_AGE_S": "a week"})
