"""A run trace: what an agent (the device-side runtime) did, reported back so memory learns from it.

The runtime builds it, `/v1/traces` and `appmem import-run` validate it
(`ingest.run.validate_run`), the ingest worker stores it. A step whose outcome
is not "ok" becomes a failure on its edge; a "done" run is also a demonstration.
A run that replayed a stored task (its plan's `recalled.task_id`) names it in
`recalled_task`, and its outcome counts for that task (ingest/run.py). The field
is optional: an `appmem-run/1` trace written without it stays valid.

An agent that sees only pixels sends each side of a step as a screenshot (`before_png` / `after_png`: a PNG
or JPEG, base64) instead of a dump, and where it tapped (`tap`, in the before screenshot's pixels). The
ingest worker locates each screenshot among the app's remembered screens and takes the remembered element
under the tap point (ingest/run.py); the step then counts like any other, as the same contributor's vote.
"""
from __future__ import annotations

from typing import Literal

from pydantic import Field, model_validator

from appmem.contract.base import Strict

FORMAT = "appmem-run/1"
MAX_STEPS = 1000
OutcomeName = Literal["ok", "no_effect", "crash", "missed"]
# An app's versionName as apps write them ("2.4.1", "1.0-beta+45 (F-Droid)", an import's "sha256:…"): contributors'
# versions are shown to other users as claims (graph/version_claims.py), so no free text (an address, markup).
VERSION_PATTERN = r"^[\w][\w .+\-~:()/,]*$"
SCREENSHOT_BYTES = 12 * 1024 * 1024  # a phone's screenshot is well under 5 MB as PNG (1440×3200, busy content)
SCREENSHOT_MAX = 4 * -(-SCREENSHOT_BYTES // 3)  # its characters as base64
RunAction = Literal["tap", "long_tap", "input", "scroll", "back", "home", "enter", "start_app", "stop_app"]


class RunElement(Strict):
    text: str = Field("", max_length=5000, description="the element's text")
    content_desc: str = Field("", max_length=5000, description="its content description")
    resource_id: str = Field("", max_length=500, description="its resource id")
    class_name: str = Field("", max_length=500, description="its widget class")
    bounds: list[int] = Field(default_factory=lambda: [0, 0, 0, 0], min_length=4, max_length=4,
                              description="[left, top, right, bottom] in the `before` dump")


class RunStep(Strict):
    index: int = Field(ge=0, le=1_000_000, description="the step's position in the run")
    action: RunAction = Field(description="what the agent did")
    element: RunElement | None = Field(None, description="the element acted on, as in the `before` dump")
    input: str = Field("", max_length=5000, description="text typed")
    before_xml: str = Field("", description="uiautomator dump before the step (or `before_png`)")
    after_xml: str = Field("", description="uiautomator dump after the step (or `after_png`)")
    before_png: str | None = Field(None, min_length=1, max_length=SCREENSHOT_MAX,
                                   description="the screen before the step as a PNG or JPEG, base64, for an agent "
                                               "without a view tree (instead of `before_xml`)")
    after_png: str | None = Field(None, min_length=1, max_length=SCREENSHOT_MAX,
                                  description="the screen after the step as a PNG or JPEG, base64 (instead of "
                                              "`after_xml`)")
    tap: list[int] | None = Field(None, min_length=2, max_length=2,
                                  description="[x, y] the agent acted on, in the before screenshot's pixels "
                                              "(default: the centre of the element's bounds)")
    before_activity: str = Field("", max_length=500, description="foreground activity before (optional)")
    after_activity: str = Field("", max_length=500, description="foreground activity after (optional)")
    expected_screen: str | None = Field(None, max_length=200, description="the screen the plan meant to reach")
    reached_screen: str | None = Field(None, max_length=200, description="the screen the device reached")
    outcome: OutcomeName = Field("ok", description="ok, no_effect, crash or missed")

    @model_validator(mode="after")
    def _one_screen_each_side(self) -> "RunStep":
        for side in ("before", "after"):
            xml, png = getattr(self, f"{side}_xml"), getattr(self, f"{side}_png")
            if bool(xml) == (png is not None):
                raise ValueError(f"send one of {side}_xml (a dump) or {side}_png (a screenshot)")
        return self

    @property
    def from_pixels(self) -> bool:
        """Whether a side of the step is a screenshot."""
        return self.before_png is not None or self.after_png is not None


class RunTrace(Strict):
    format: Literal["appmem-run/1"] = Field(FORMAT, description="the trace format's version")
    task: str = Field(min_length=1, max_length=2000, description="the task run")
    package: str = Field(min_length=1, max_length=300, pattern=r"^[A-Za-z0-9_.]+$", description="the app")
    app_version: str = Field(min_length=1, max_length=200, pattern=VERSION_PATTERN,
                             description="the app's version on the device (its versionName: letters, digits, . + - ~ : ( ) / , and spaces)")
    device: str = Field(min_length=1, max_length=200, description="the device (or 'correction')")
    started: str = Field(max_length=64, description="ISO time the run started")
    ended: str = Field(max_length=64, description="ISO time it ended")
    status: Literal["done", "failed", "stopped"] = Field(description="done, failed or stopped")
    steps: list[RunStep] = Field(max_length=MAX_STEPS, description="the steps, in order")
    recalled_task: str | None = Field(None, pattern=r"^[0-9a-f]{8,64}$",
                                      description="the stored task the run's plan recalled (its `recalled.task_id`)")

    def shows_app(self) -> bool:
        """Whether a dump of the run shows its app (a view of `package`): a trace that never does says
        nothing of the app, and the importer refuses it (it would add an app nobody saw)."""
        attribute = f'package="{self.package}"'
        return any(attribute in step.before_xml or attribute in step.after_xml for step in self.steps)
