"""LLM mode against a local OpenAI-compatible HTTP server started here (the one fake allowed):
schema-valid replies built from the prompt, caching, retries on 500, 429 and timeouts, invalid JSON,
replies that are no chat completion, a server that trickles its reply, one that echoes the API key."""
from __future__ import annotations

import contextlib
import dataclasses
import json
import logging
import sqlite3
import time
from http.server import BaseHTTPRequestHandler

import openai
import pytest

from appmem.errors import ConfigError, TransientError
from appmem.graph.model import Element
from appmem.ingest.droidbot import read_recording, recording_trace
from appmem.ingest.pipeline import ingest_trace
from appmem.semantic.contexts import ScreenContext
from appmem.semantic.embedder import Embedder
from appmem.semantic.llm import CACHE_FILE, LLMSummarizer, SummaryCache, forget_summaries
from appmem.semantic.llmclient import MAX_REPLY_BYTES
from appmem.semantic.pipeline import summarize
from appmem.semantic.vectors import VectorStore, open_qdrant
from tests.conftest import DROIDBOT
from tests.llm_server import reply_json, serve

KEY = "sk-test-0123456789abcdef"


class FakeLLM:
    """Behaviour script: a list of 'ok' | '500' | 'slow' | 'invalid' | 'partial' | 'no_risk' (valid, every element
    called safe) | '429' (Retry-After: 1) | '401-echo' | '500-echo' (the body quotes the Authorization header) |
    'html' (200, text/html) | 'no-choices' | 'odd-usage' | 'huge' (200, over MAX_REPLY_BYTES) | 'trickle'
    (headers, then a space every 0.25 s for 10 s before the reply), one per request (then 'ok'). `times`: when
    each request came. A request naming a screen of `refuse` gets '401-echo' whatever the script says; `decorate` is put
    around every summary and simulated task (a model's stray terminal escapes)."""

    def __init__(self):
        self.script: list[str] = []
        self.refuse: set[str] = set()
        self.decorate = ("", "")
        self.requests = 0
        self.times: list[float] = []
        server = self

        class Handler(BaseHTTPRequestHandler):
            def log_message(self, *args):
                pass

            def do_POST(self):
                body = json.loads(self.rfile.read(int(self.headers["Content-Length"])))
                server.requests += 1
                server.times.append(time.monotonic())
                mode = server.script.pop(0) if server.script else "ok"
                prompt = json.loads(body["messages"][-1]["content"])
                if server.refuse & {s["screen_id"] for s in prompt["screens"]}:
                    mode = "401-echo"
                if mode in ("500", "429", "401-echo", "500-echo"):
                    status = int(mode[:3])
                    self.send_response(status)
                    if status == 429:
                        self.send_header("Retry-After", "1")
                    self.end_headers()
                    said = f" (you sent {self.headers['Authorization']})" if mode.endswith("echo") else ""
                    self.wfile.write(json.dumps({"error": {"message": f"boom{said}"}}).encode())
                    return
                if mode in ("html", "huge"):
                    page = b"<html><body>Bad gateway</body></html>" if mode == "html" \
                        else b'{"choices": "' + b"x" * MAX_REPLY_BYTES + b'"}'
                    self.send_response(200)
                    self.send_header("Content-Type", "text/html" if mode == "html" else "application/json")
                    self.send_header("Content-Length", str(len(page)))
                    self.end_headers()
                    self.wfile.write(page)
                    return
                if mode == "slow":
                    time.sleep(1.5)
                before, after = server.decorate
                screens = [{"screen_id": s["screen_id"], "summary": f"{before}LLM summary of {s['title']}{after}",
                            "subtasks": [{"name": "do_it", "description": "do it", "parameters": [],
                                          "elements": [e["id"] for e in s["elements"]]}],
                            "elements": [{"element_id": e["id"], "simulated_task": f"{before}LLM: {e['label']}{after}",
                                          "risky": "delete" in e["label"].lower() and mode != "no_risk",
                                          "parameter": {"name": "text", "description": "what to type"}
                                          if e["role"] == "input" else None} for e in s["elements"]]}
                           for s in prompt["screens"]]
                if mode == "partial":
                    screens = screens[:-1]
                content = "this is not json {" if mode == "invalid" else json.dumps({"screens": screens})
                reply = {"id": "x", "object": "chat.completion", "created": 0, "model": body["model"],
                         "choices": [{"index": 0, "finish_reason": "stop",
                                      "message": {"role": "assistant", "content": content}}],
                         "usage": {"prompt_tokens": 100, "completion_tokens": 50, "total_tokens": 150}}
                if mode == "no-choices":
                    reply["choices"] = []
                if mode == "odd-usage":
                    reply["usage"] = {"prompt_tokens": "many", "completion_tokens": None}
                data = json.dumps(reply).encode()
                reply_json(self, data, trickle=mode == "trickle")

        self.httpd, self.url = serve(Handler)


@pytest.fixture(scope="module")
def fake():
    server = FakeLLM()
    yield server
    server.httpd.shutdown()


@pytest.fixture
def client(fake):
    fake.script.clear()
    c = openai.OpenAI(base_url=fake.url, api_key="test", timeout=1.0, max_retries=0)
    yield c
    c.close()


def contexts(n: int = 3, tag: str = "") -> list[ScreenContext]:
    out = []
    for i in range(n):
        sid = f"s{i}{tag}"
        out.append(ScreenContext(sid, "com.app", "1", "com.app.Main", f"Screen {i}", [
            Element(f"{sid}-a", sid, class_name="android.widget.Button", text="Delete all", flags=["clickable"]),
            Element(f"{sid}-b", sid, class_name="android.widget.EditText", resource_id="com.app:id/title",
                    flags=["editable"]),
        ]))
    return out


def summarizer(client, tmp_path, **kw) -> LLMSummarizer:
    return LLMSummarizer(client, "test-model", SummaryCache(tmp_path / "cache.sqlite"), batch_elements=4,
                         price_in_per_mtok=1.0, price_out_per_mtok=2.0, backoff_s=0.01, **kw)


def test_batched_validated_and_cached(fake, client, tmp_path):
    s = summarizer(client, tmp_path)
    before = fake.requests
    out = s.summarize(contexts(3))
    assert fake.requests - before == 2, "4 elements per request: 2 screens, then 1"
    assert [o.summary for o in out] == ["LLM summary of Screen 0", "LLM summary of Screen 1", "LLM summary of Screen 2"]
    assert out[0].elements[0].risky and out[0].elements[1].parameter.name == "text"
    assert (s.stats.calls, s.stats.prompt_tokens, s.stats.completion_tokens) == (2, 200, 100)
    assert s.stats.cost == pytest.approx((200 * 1.0 + 100 * 2.0) / 1e6)
    again = summarizer(client, tmp_path)  # a new run, same cache file
    before = fake.requests
    assert again.summarize(contexts(3)) == out
    assert fake.requests == before and again.stats.calls == 0 and again.stats.cached == 3


def test_a_purge_forgets_the_cached_summaries_of_its_apps_and_no_others(fake, client, tmp_path):
    """Summaries of two apps' screens cached in `<home>/llm_cache.sqlite`; forgetting one app (a purge of a
    key that reported it) deletes its screens' summaries (and any of no known app), which the next run asks
    the model for again, while the other app's are still answered from the cache."""
    mine = contexts(2, "m")
    others = [dataclasses.replace(c, package="com.other") for c in contexts(1, "o")]
    first = LLMSummarizer(client, "test-model", SummaryCache(tmp_path / CACHE_FILE), batch_elements=4)
    first.summarize(mine + others)
    first.cache.close()
    with contextlib.closing(sqlite3.connect(tmp_path / CACHE_FILE)) as db, db:  # cached before apps were kept
        db.execute("INSERT INTO summaries (key, body) VALUES ('legacy', '{}')")
    assert forget_summaries(tmp_path, ["com.app"]) == 3
    assert forget_summaries(tmp_path, ["com.app"]) == 0 and forget_summaries(tmp_path / "nothing", ["com.app"]) == 0
    again = LLMSummarizer(client, "test-model", SummaryCache(tmp_path / CACHE_FILE), batch_elements=4)
    before = fake.requests
    assert [s.summary for s in again.summarize(mine + others)] == [
        "LLM summary of Screen 0", "LLM summary of Screen 1", "LLM summary of Screen 0"]
    assert again.stats.cached == 1 and fake.requests - before == 1  # the two forgotten screens: one request


def test_retries_transient_errors_then_succeeds(fake, client, tmp_path, caplog):
    s = summarizer(client, tmp_path)
    fake.script[:] = ["500", "slow", "ok"]
    with caplog.at_level(logging.WARNING, logger="appmem.semantic.llm"):
        out = s.summarize(contexts(1, "r"))
    assert out[0].summary == "LLM summary of Screen 0"
    assert s.stats.calls == 3
    assert sum("Retrying" in r.message for r in caplog.records) == 2


def test_retries_are_bounded(fake, client, tmp_path):
    s = summarizer(client, tmp_path, attempts=3)
    fake.script[:] = ["500"] * 5
    with pytest.raises(TransientError):
        s.summarize(contexts(1, "b"))
    assert s.stats.calls == 3
    fake.script.clear()


def test_invalid_json_falls_back_to_deterministic(fake, client, tmp_path, caplog):
    s = summarizer(client, tmp_path)
    fake.script[:] = ["invalid"]
    with caplog.at_level(logging.WARNING, logger="appmem.semantic.llm"):
        out = s.summarize(contexts(2, "i"))
    assert s.stats.calls == 1 and s.stats.fallbacks == 2
    assert not out[0].summary.startswith("LLM") and out[0].elements[0].simulated_task
    assert any("not valid summary JSON" in r.message for r in caplog.records)
    # nothing invalid was cached: the next run asks again
    s2 = summarizer(client, tmp_path)
    assert s2.summarize(contexts(2, "i"))[0].summary.startswith("LLM")


def test_a_model_cannot_call_safe_what_the_vocabulary_calls_risky(fake, client, tmp_path):
    """"Delete all" stays risky when the model's valid reply says it is not (the runtime would then tap it
    without a confirmation), also when the reply comes back from the cache."""
    fake.script[:] = ["no_risk"]
    out = summarizer(client, tmp_path).summarize(contexts(1, "n"))
    assert out[0].summary.startswith("LLM") and [e.risky for e in out[0].elements] == [True, False]
    cached = summarizer(client, tmp_path)
    assert [e.risky for e in cached.summarize(contexts(1, "n"))[0].elements] == [True, False]
    assert cached.stats.cached == 1


def test_partial_reply_falls_back_for_the_missing_screen(fake, client, tmp_path):
    s = summarizer(client, tmp_path)
    s.batch_elements = 100
    fake.script[:] = ["partial"]
    out = s.summarize(contexts(2, "p"))
    assert out[0].summary.startswith("LLM") and not out[1].summary.startswith("LLM")
    assert s.stats.fallbacks == 1


def test_screens_the_fallback_summarised_are_asked_again_on_the_next_run(fake, client, empty_graph, settings,
                                                                         tmp_path):
    """A run whose replies were all garbage stores deterministic summaries; the next run with the LLM asks it
    again for those screens (their hash says the fallback made them), instead of calling them unchanged."""
    ingest_trace(empty_graph, recording_trace(read_recording(DROIDBOT / "anupam.acrylic")), 200)
    embedder = Embedder(settings.home, threads=2)
    qdrant = open_qdrant(type(settings)(**{**settings.__dict__, "home": tmp_path}))
    vectors = VectorStore(qdrant, embedder.dim)
    try:
        fake.script[:] = ["invalid"] * 200
        first = summarize(empty_graph, vectors, embedder, summarizer(client, tmp_path), "anupam.acrylic")
        assert first.screens_done > 0 and first.llm["fallbacks"] == first.screens_done
        fake.script.clear()
        asked = fake.requests
        again = summarize(empty_graph, vectors, embedder, summarizer(client, tmp_path), "anupam.acrylic")
        assert again.screens_done == first.screens_done and again.llm["fallbacks"] == 0 and fake.requests > asked
        screens = empty_graph.read("semantic_screens", packages=["anupam.acrylic"])
        summaries = [empty_graph.read("serve_screen", screen_id=r["id"], package=r["package"])[0]["summary"]
                     for r in screens]
        assert summaries and all(s.startswith("LLM summary") for s in summaries)
    finally:
        qdrant.close()


def test_a_reply_that_is_no_chat_completion_falls_back_with_a_warning(fake, client, tmp_path, caplog):
    """A 200 with an HTML page, with no choices, or over the size cap: the deterministic summaries,
    never a traceback; usage the server leaves out or garbles counts 0."""
    s = summarizer(client, tmp_path)
    s.batch_elements = 100
    for i, mode in enumerate(("html", "no-choices", "huge")):
        fake.script[:] = [mode]
        with caplog.at_level(logging.WARNING, logger="appmem.semantic.llm"):
            out = s.summarize(contexts(2, f"m{i}"))
        assert not any(o.summary.startswith("LLM") for o in out) and out[0].elements[0].simulated_task
        assert "not a chat completion" in caplog.records[-1].message
    assert (s.stats.calls, s.stats.fallbacks, s.stats.prompt_tokens) == (3, 6, 0)
    fake.script[:] = ["odd-usage"]
    assert s.summarize(contexts(1, "u"))[0].summary.startswith("LLM")
    assert (s.stats.prompt_tokens, s.stats.completion_tokens, s.stats.cost) == (0, 0, 0)


def test_the_timeout_bounds_the_whole_call_not_each_read(fake, client, tmp_path):
    """A server that sends its headers and then a byte every 0.25 s for 10 s is cut off at the 1 s timeout
    (each read alone is quick), as a timeout: transient, retried, then TransientError."""
    s = summarizer(client, tmp_path, attempts=2)
    fake.script[:] = ["trickle", "trickle"]
    before = len(fake.times)
    with pytest.raises(TransientError, match="timed out"):
        s.summarize(contexts(1, "t"))
    first, second = fake.times[before:before + 2]
    assert second - first < 5 and s.stats.calls == 2  # without a deadline on the whole call: the 10 s trickle


def test_retry_after_is_honoured(fake, client, tmp_path):
    """429 with Retry-After: 1: the next try waits that second, not the 0.01 s backoff."""
    s = summarizer(client, tmp_path)
    fake.script[:] = ["429", "ok"]
    before = len(fake.times)
    assert s.summarize(contexts(1, "429"))[0].summary.startswith("LLM")
    first, second = fake.times[before:before + 2]
    assert second - first >= 0.95 and s.stats.calls == 2


def test_the_api_key_never_reaches_an_error_or_a_log(fake, tmp_path, caplog):
    """A server that quotes the Authorization header in its 500 and 401 bodies: the retries' warnings and
    the ConfigError name the status, not the key."""
    keyed = openai.OpenAI(base_url=fake.url, api_key=KEY, timeout=1.0, max_retries=0)
    try:
        s = summarizer(keyed, tmp_path)
        fake.script[:] = ["500-echo", "401-echo"]
        with caplog.at_level(logging.WARNING, logger="appmem.semantic.llm"), pytest.raises(ConfigError) as refused:
            s.summarize(contexts(1, "k"))
    finally:
        keyed.close()
    assert "401" in str(refused.value) and "[API key]" in str(refused.value)
    assert KEY not in str(refused.value) and refused.value.__cause__ is None
    logged = "\n".join(r.getMessage() for r in caplog.records)
    assert "Retrying" in logged and "500" in logged and KEY not in logged
