"""A screenshot → the UI model (`UIState` of `View`s), for agents that see only pixels.

Text comes from OCR (RapidOCR: PP-OCRv4 detection and recognition, ONNX models shipped inside its wheel,
loaded once per process by `ScreenReader`); widget boxes from the image's structure, after VisionTasker's
block division: the screen is cut into horizontal blocks at uniform rows (the gaps between a list's rows,
a toolbar's edge), and closed contours of the edge map give the boxes inside them (buttons, fields, cards,
icons). Each text line becomes a `pixels.Text` view under the smallest box that holds it; every view has
its box in the screenshot's own pixels, a confidence, and is marked `from_pixels`.

A light dialog over the dimmed screen it was opened on is found by its light (nothing behind the dimming
is bright): only what is inside it is read. What is not the app is left out too: the black frame a device's screencap pads its picture with, Android's
status bar (clock, icons: 24 dp) and its navigation bar (48 dp). A dp is the width over 360, the narrowest
common phone (a wider phone's bars are then read a little taller, which only drops a margin of the app).

Text detection runs on the app's area scaled to `ReaderOptions.detect_side` on its long side (RapidOCR's
own sizing is bypassed: for a phone's screenshot it always detects at 2000 pixels, whatever it is
asked); recognition reads each line from the full-resolution picture, cut to `line_ratio` times its
height (the start of a long line tells what it is; the rest would only widen every line recognised
with it). ONNX Runtime's threads do not spin while they wait: on two busy cores spinning doubled the CPU
time. `bench/pixels.py --scales` measures what the detection size costs and finds; its figures are in
docs/benchmarks.md ("Screenshots only").
"""
from __future__ import annotations

import os
import threading
from dataclasses import dataclass
from functools import lru_cache

import numpy as np

from appmem.formats.image import decode_image
from appmem.formats.ui import Bounds, UIState, View

TEXT_CLASS = "pixels.Text"
BLOCK_CLASS = "pixels.Block"
ROOT_CLASS = "pixels.Screen"
DP_WIDTH = 360  # dp across the narrowest common phone: a dp is width / DP_WIDTH pixels
STATUS_BAR_DP = 24
NAVIGATION_BAR_DP = 48
DARK = 16  # a row whose brightest pixel is below this is the screencap's black frame
UNIFORM_STD = 3.0  # a row whose pixels vary less than this is a gap between blocks
MIN_BOX_DP = 12  # smaller contours are glyphs and noise, not widgets
MAX_BOX_SHARE = 0.9  # a contour covering more of the screen is the screen itself
BRIGHT = 200  # a pixel this light in every channel is not behind a dialog's dimming
DIALOG_MAX = 0.8  # a light box covering more of the app's area is the screen itself
DIALOG_LIT = 0.3  # and a dialog's box is mostly light
EDGE_WIDTH = 540  # the edge map is computed at this width (widgets are large; speed)


@dataclass(frozen=True)
class ReaderOptions:
    """How a screenshot is read. `detect_side`: the long side, in pixels, that text detection scales the
    app's area to (measured by bench/pixels.py --scales); `line_ratio`: a line is recognised up to this many
    times its height from its start; `min_score`: OCR lines below it are dropped; `threads`: ONNX threads
    (0: the cores)."""

    detect_side: int = 640
    line_ratio: float = 8.0
    min_score: float = 0.5
    threads: int = 0


@dataclass(frozen=True)
class TextLine:
    box: Bounds
    text: str
    score: float


class ScreenReader:
    """OCR and block detection with the models loaded once; safe to share between threads (one read at a
    time: ONNX sessions use every core already)."""

    def __init__(self, options: ReaderOptions = ReaderOptions()):
        from rapidocr_onnxruntime import RapidOCR  # the models load here, from the wheel's own files
        from rapidocr_onnxruntime.main import DEFAULT_CFG_PATH
        from rapidocr_onnxruntime.utils import read_yaml, update_model_path

        self.options = options
        self._ocr = RapidOCR(use_cls=False, print_verbose=False)
        models = update_model_path(read_yaml(DEFAULT_CFG_PATH))
        threads = options.threads or os.cpu_count() or 1
        self._ocr.text_det.infer.session = quiet_session(models["Det"]["model_path"], threads)
        self._ocr.text_rec.session.session = quiet_session(models["Rec"]["model_path"], threads)
        self._lock = threading.Lock()

    def read(self, data: bytes, package: str, activity: str = "", where: str = "screenshot") -> UIState:
        """A PNG or JPEG screenshot's bytes as a screen of `package` (bad bytes: InputFormatError naming `where`)."""
        return self.read_pixels(decode_image(data, where), package, activity)

    def read_pixels(self, rgb: np.ndarray, package: str, activity: str = "") -> UIState:
        height, width = rgb.shape[:2]
        top, bottom = app_area(rgb)
        lines = self.text_lines(rgb, top, bottom)
        boxes = widget_boxes(rgb, top, bottom)
        dialog = dialog_box(rgb, top, bottom)
        if dialog is not None:  # what the dimmed screen behind a dialog shows is not the screen
            lines = [line for line in lines if dialog.contains(*line.box.center)]
            boxes = [(box, score) for box, score in boxes if dialog.contains(*box.center)] + [(dialog, 1.0)]
        return ui_state(package, activity, width, height, lines, boxes)

    def text_lines(self, rgb: np.ndarray, top: int, bottom: int) -> list[TextLine]:
        """The text lines of rows top..bottom (the app's area), in the screenshot's pixels."""
        bgr = np.ascontiguousarray(rgb[top:bottom, :, ::-1])
        with self._lock:
            quads = self.detect(bgr)
            if not len(quads):
                return []
            quads = self._ocr.sorted_boxes(quads)
            crops = self._ocr.get_crop_img_list(bgr, quads)
            longest = [max(1, round(c.shape[0] * self.options.line_ratio)) for c in crops]
            read, _ = self._ocr.text_rec([c[:, :most] for c, most in zip(crops, longest)])
        out = []
        for quad, crop, most, (text, score) in zip(quads, crops, longest, read):
            text = str(text).strip()
            if crop.shape[1] > most:  # cut: its last character may be half a glyph
                text = text[:-1].rstrip()
            xs, ys = quad[:, 0], quad[:, 1]
            if float(score) >= self.options.min_score and text:
                out.append(TextLine(Bounds(int(xs.min()), top + int(ys.min()), int(xs.max() + 0.5),
                                           top + int(ys.max() + 0.5)), text, round(float(score), 4)))
        return out

    def detect(self, bgr: np.ndarray) -> np.ndarray:
        """Text line quadrilaterals (n × 4 × 2, the picture's pixels), detected at `detect_side`."""
        import cv2
        from rapidocr_onnxruntime.ch_ppocr_det.utils import DetPreProcess

        det = self._ocr.text_det
        height, width = bgr.shape[:2]
        ratio = min(1.0, self.options.detect_side / max(height, width))
        h, w = (max(32, round(height * ratio / 32) * 32), max(32, round(width * ratio / 32) * 32))  # the net's stride
        small = cv2.resize(bgr, (w, h), interpolation=cv2.INTER_AREA)
        scores = det.infer(DetPreProcess(max(h, w), "max", det.mean, det.std)(small))[0]
        quads, _ = det.postprocess_op(scores, (h, w))
        quads = det.filter_tag_det_res(quads, (h, w))
        if not len(quads):
            return quads
        quads = quads.astype(np.float32)
        quads[..., 0] *= width / w
        quads[..., 1] *= height / h
        return quads


def quiet_session(model: str, threads: int):
    """An ONNX session of `model` on `threads` threads that sleep while they wait instead of spinning."""
    import onnxruntime as ort

    options = ort.SessionOptions()
    options.log_severity_level = 4
    options.enable_cpu_mem_arena = False
    options.graph_optimization_level = ort.GraphOptimizationLevel.ORT_ENABLE_ALL
    options.intra_op_num_threads, options.inter_op_num_threads = threads, 1
    options.add_session_config_entry("session.intra_op.allow_spinning", "0")
    return ort.InferenceSession(str(model), sess_options=options, providers=["CPUExecutionProvider"])


@lru_cache(maxsize=4)
def screen_reader(options: ReaderOptions = ReaderOptions()) -> ScreenReader:
    """The process's reader for these options: its models load on the first screenshot, once."""
    return ScreenReader(options)


def dp(width: int) -> float:
    return width / DP_WIDTH


def app_area(rgb: np.ndarray) -> tuple[int, int]:
    """The rows the app draws: below the status bar, above the navigation bar, inside the black frame."""
    height, width = rgb.shape[:2]
    lit = np.flatnonzero(rgb.max(axis=(1, 2)) >= DARK)
    shown = int(lit[-1]) + 1 if lit.size else height
    top = round(STATUS_BAR_DP * dp(width))
    bottom = max(top + 1, shown - round(NAVIGATION_BAR_DP * dp(width)))
    return top, bottom


def dialog_box(rgb: np.ndarray, top: int, bottom: int) -> Bounds | None:
    """The box of a light dialog over a dimmed screen: Android darkens what is behind a dialog, so no pixel
    outside it is bright. None when the bright pixels spread over the app's area (no dialog, or a dark one)."""
    bright = rgb[top:bottom].min(axis=2) >= BRIGHT
    rows, cols = np.flatnonzero(bright.any(axis=1)), np.flatnonzero(bright.any(axis=0))
    if not rows.size:
        return None
    box = Bounds(int(cols[0]), top + int(rows[0]), int(cols[-1]) + 1, top + int(rows[-1]) + 1)
    area = rgb.shape[1] * (bottom - top)
    lit = bright[box.top - top:box.bottom - top, box.left:box.right].mean()
    return box if box.area <= DIALOG_MAX * area and lit >= DIALOG_LIT else None


def widget_boxes(rgb: np.ndarray, top: int, bottom: int) -> list[tuple[Bounds, float]]:
    """Boxes of the app's area, with a confidence: horizontal blocks between uniform rows, and the closed
    contours of its edge map (how rectangular a contour is, is its confidence)."""
    import cv2

    gray = cv2.cvtColor(rgb[top:bottom], cv2.COLOR_RGB2GRAY)
    width = gray.shape[1]
    out = [(Bounds(0, top + a, width, top + b), 1.0) for a, b in row_blocks(gray)]
    scale = min(1.0, EDGE_WIDTH / width)
    small = cv2.resize(gray, None, fx=scale, fy=scale, interpolation=cv2.INTER_AREA) if scale < 1 else gray
    edges = cv2.dilate(cv2.Canny(small, 20, 60), np.ones((3, 3), np.uint8))
    contours, _ = cv2.findContours(edges, cv2.RETR_LIST, cv2.CHAIN_APPROX_SIMPLE)
    least = MIN_BOX_DP * dp(width) * scale
    area = small.shape[0] * small.shape[1]
    for contour in contours:
        x, y, w, h = cv2.boundingRect(contour)
        if w < least or h < least or w * h > MAX_BOX_SHARE * area:
            continue
        fill = min(1.0, cv2.contourArea(contour) / (w * h))
        box = Bounds(int(x / scale), top + int(y / scale), int((x + w) / scale), top + int((y + h) / scale))
        out.append((box, round(fill, 3)))
    return dedupe(out)


def row_blocks(gray: np.ndarray) -> list[tuple[int, int]]:
    """Runs of rows with content between uniform rows (VisionTasker's horizontal division)."""
    busy = gray.std(axis=1) >= UNIFORM_STD
    least = max(2, gray.shape[1] // 100)
    blocks, start = [], None
    for y, on in enumerate(np.append(busy, False)):
        if on and start is None:
            start = y
        elif not on and start is not None:
            if y - start >= least:
                blocks.append((start, y))
            start = None
    return blocks


def dedupe(boxes: list[tuple[Bounds, float]], same: float = 0.9) -> list[tuple[Bounds, float]]:
    """One box where several almost coincide (a contour's inner and outer edge), the surest kept."""
    kept: list[tuple[Bounds, float]] = []
    for box, score in sorted(boxes, key=lambda b: -b[1]):
        if all(overlap(box, k) < same for k, _ in kept):
            kept.append((box, score))
    return kept


def overlap(a: Bounds, b: Bounds) -> float:
    """Intersection over union."""
    inter = Bounds(max(a.left, b.left), max(a.top, b.top), min(a.right, b.right), min(a.bottom, b.bottom))
    if inter.right <= inter.left or inter.bottom <= inter.top:
        return 0.0
    return inter.area / (a.area + b.area - inter.area)


def ui_state(package: str, activity: str, width: int, height: int, lines: list[TextLine],
             boxes: list[tuple[Bounds, float]]) -> UIState:
    """The views: the screen, the boxes (largest first, each under the smallest box holding it), the text lines
    (each under the smallest box holding its centre), all `from_pixels`."""
    views = [View(index=0, parent=-1, children=[], class_name=ROOT_CLASS, package=package,
                  bounds=Bounds(0, 0, width, height), from_pixels=True)]
    for box, score in sorted(boxes, key=lambda b: (-b[0].area, b[0].top, b[0].left)):
        add(views, View(index=len(views), parent=0, children=[], class_name=BLOCK_CLASS, package=package,
                        bounds=box, confidence=score, from_pixels=True), holder(views, box))
    for line in sorted(lines, key=lambda t: (t.box.top, t.box.left)):
        add(views, View(index=len(views), parent=0, children=[], class_name=TEXT_CLASS, package=package,
                        text=line.text, bounds=line.box, confidence=line.score, from_pixels=True),
            holder(views, line.box))
    return UIState(package=package, activity=activity, views=views, width=width, height=height)


def holder(views: list[View], box: Bounds) -> int:
    """The smallest block view holding `box`'s centre and most of it (the screen when none)."""
    x, y = box.center
    best = 0
    for v in views[1:]:
        if v.class_name == BLOCK_CLASS and v.bounds.contains(x, y) and v.bounds.area >= box.area \
                and v.bounds.area < views[best].bounds.area:
            best = v.index
    return best


def add(views: list[View], view: View, parent: int) -> None:
    view.parent = parent
    views[parent].children.append(view.index)
    views.append(view)


def text_views(state: UIState) -> list[View]:
    """The text lines a screenshot showed."""
    return [v for v in state.views if v.class_name == TEXT_CLASS and v.text]


def normal(text: str) -> str:
    """A text as compared across OCR and dumps: lower case, letters and digits only."""
    return "".join(c for c in text.casefold() if c.isalnum())


def same_text(read: str, shown: str, least: float = 0.8) -> bool:
    """Whether an OCR line reads a view's text: equal once normalised, near-equal (OCR slips a character in
    LEAST), or one a start of the other (a screen cuts a long text off; a line holds a label and its value)."""
    from difflib import SequenceMatcher

    a, b = normal(read), normal(shown)
    if not a or not b:
        return False
    if a == b or (min(len(a), len(b)) >= 4 and (a.startswith(b) or b.startswith(a))):
        return True
    matcher = SequenceMatcher(None, a, b, autojunk=False)  # the cheap upper bounds first: most pairs fail them
    return matcher.real_quick_ratio() >= least and matcher.quick_ratio() >= least and matcher.ratio() >= least
