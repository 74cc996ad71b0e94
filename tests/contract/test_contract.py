"""The contract: the docs' contract page is the models' fields, and the plan JSON keeps what the DroidTask scorer reads."""
from __future__ import annotations

from pathlib import Path

import pytest
from pydantic import ValidationError

from appmem import contract
from appmem.contract.doc import render, section

PAGE = Path(__file__).resolve().parents[2] / "docs" / "contract.md"


def test_the_docs_contract_page_is_the_models():
    """The site renders the tables from the models at build time (tools/docs/hooks.py); the committed page holds
    the same text, so it reads right where the markdown is shown as it is."""
    assert section(PAGE.read_text(encoding="utf-8")) == render(), \
        "docs/contract.md is out of date: paste the output of `python -m appmem.contract.doc` between its markers"


def test_the_contract_imports_nothing_of_appmem_but_itself():
    import ast

    for path in Path(contract.__file__).parent.glob("*.py"):
        if path.name == "client.py":  # the HTTP client: httpx and appmem's error tree, nothing of the memory
            continue
        tree = ast.parse(path.read_text())
        names = {n.module or "" for n in ast.walk(tree) if isinstance(n, ast.ImportFrom)}
        names |= {a.name for n in ast.walk(tree) if isinstance(n, ast.Import) for a in n.names}
        roots = {".".join(name.split(".")[:2]) if name.startswith("appmem.") else name.split(".")[0] for name in names}
        assert roots <= {"__future__", "appmem.contract", "pydantic", "typing", "types", "re"}, (path.name, roots)


def plan_json() -> dict:
    element = {"id": "e1", "text": "Yearly view", "content_desc": "", "label": "Yearly view",
               "class_name": "android.widget.Button", "resource_id": "", "bounds": [0, 0, 10, 10],
               "locators": ["//*[@text='Yearly view']"], "html": "<button>Yearly view</button>"}
    return {"task": "t", "package": "p", "source": "memory", "route": "found", "llm_calls": 0,
            "start": {"screen_id": "s", "match": "entry", "score": 1.0},
            "steps": [{"action": "tap", "package": "p", "element": element, "input": "", "slot": None,
                       "screen_id": "s", "to_screen": "s2", "risky": False, "confidence": 0.9, "stale": False}],
            "alternatives": []}


def test_a_plan_keeps_what_the_droidtask_scorer_reads():
    dumped = contract.Plan.model_validate(plan_json()).model_dump(mode="json")
    step = dumped["steps"][0]
    assert step["action"] == "tap" and step["input"] == "" and dumped["llm_calls"] == 0
    assert {"text", "content_desc", "label", "html"} <= set(step["element"])


def test_the_service_and_the_client_answer_the_same_methods():
    import inspect

    from appmem.agent.service import Service
    from appmem.contract.client import ApiClient

    for method in ("plan", "locate", "hints", "doc", "search", "close"):
        wanted = list(inspect.signature(getattr(contract.MemoryBackend, method)).parameters)
        for backend in (Service, ApiClient):
            assert list(inspect.signature(getattr(backend, method)).parameters) == wanted, (backend, method)


def test_a_field_the_contract_lacks_is_refused():
    with pytest.raises(ValidationError, match="surprise"):
        contract.Plan.model_validate({**plan_json(), "surprise": 1})


def test_a_version_is_a_version_name_and_a_trace_must_show_its_app():
    """The runtime reports what the device says; a version that is not a version name goes as "unknown"
    (the API refuses free text there: it is shown to other keys); whether a dump shows its package
    (the importer refuses a trace of an app memory does not hold that shows none)."""
    from appmem.runtime.trace import run_trace

    dump = '<hierarchy><node package="org.example.app" text="Hi" bounds="[0,0][10,10]"/></hierarchy>'
    step = {"index": 0, "action": "back", "element": None, "input": "", "before_xml": dump, "after_xml": dump,
            "before_activity": "", "after_activity": "", "expected_screen": None, "reached_screen": None,
            "outcome": "ok"}
    for reported, sent in (("2.4.1 (F-Droid)", "2.4.1 (F-Droid)"), ("ann@example.org", "unknown"),
                           ("1.0\n<b>", "unknown"), ("", "unknown")):
        trace = run_trace([step], "go back", "org.example.app", reported, "phone", "2026-01-01T00:00:00Z", "done", None)
        assert trace.app_version == sent and trace.shows_app()
    other = run_trace([step], "go back", "org.example.other", "1.0", "phone", "2026-01-01T00:00:00Z", "done", None)
    assert not other.shows_app()
