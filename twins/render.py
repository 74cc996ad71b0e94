"""What a twin device shows: uiautomator XML dumps and PNG screenshots of a UIState.

The XML is the format `uiautomator dump` writes (one line, `<hierarchy
rotation="0">` of nested `<node>`s, invisible subtrees skipped, `index` = the
position among the parent's children). Attribute values are escaped so that any
text survives a parse exactly: markup characters and quotes become entities,
tab/newline/carriage return become character references (a parser would
otherwise normalise them to spaces), and characters XML 1.0 cannot carry are
dropped, as uiautomator does.

Screenshots are drawn with Pillow from the view tree: boxes for views, the
text or content description of leaves. They are not pixels of the real app.
"""
from __future__ import annotations

import io
import re

from PIL import Image, ImageDraw, ImageFont

from appmem.formats.ui import UIState, View

XML_HEADER = "<?xml version='1.0' encoding='UTF-8' standalone='yes' ?>"
_INVALID_XML = re.compile("[^\u0009\u000a\u000d\u0020-\ud7ff\ue000-\ufffd\U00010000-\U0010ffff]")
_ESCAPES = str.maketrans({"&": "&amp;", "<": "&lt;", ">": "&gt;", '"': "&quot;",
                          "\t": "&#9;", "\n": "&#10;", "\r": "&#13;"})
_BOOL_ATTRS = (("checkable", "checkable"), ("checked", "checked"), ("clickable", "clickable"),
               ("enabled", "enabled"), ("focusable", "focusable"), ("focused", "focused"),
               ("scrollable", "scrollable"), ("long-clickable", "long_clickable"),
               ("password", "password"), ("selected", "selected"))


def xml_attr(value: str) -> str:
    """Escape a string for a double-quoted XML attribute, losslessly for valid XML characters."""
    return _INVALID_XML.sub("", value).translate(_ESCAPES)


def hierarchy_xml(state: UIState, rotation: int = 0) -> str:
    """The uiautomator dump of a state."""
    by_index = {v.index: v for v in state.views}
    out: list[str] = [XML_HEADER, f'<hierarchy rotation="{rotation}">']

    def node(view: View, position: int) -> None:
        b = view.bounds
        out.append(
            f'<node index="{position}" text="{xml_attr(view.text)}" resource-id="{xml_attr(view.resource_id)}" '
            f'class="{xml_attr(view.class_name)}" package="{xml_attr(view.package or state.package)}" '
            f'content-desc="{xml_attr(view.content_desc)}" '
            + " ".join(f'{name}="{"true" if getattr(view, attr) else "false"}"' for name, attr in _BOOL_ATTRS)
            + f' bounds="[{b.left},{b.top}][{b.right},{b.bottom}]">'
        )
        for i, child in enumerate(view.children):
            c = by_index.get(child)
            if c is not None and c.visible:
                node(c, i)
        out.append("</node>")

    roots = [v for v in state.views if (v.parent < 0 or v.parent not in by_index) and v.visible]
    for i, root in enumerate(roots):
        node(root, i)
    out.append("</hierarchy>")
    return "".join(out)


_FONT_CACHE: dict[int, ImageFont.FreeTypeFont | ImageFont.ImageFont] = {}


def _font(size: int) -> ImageFont.FreeTypeFont | ImageFont.ImageFont:
    if size not in _FONT_CACHE:
        _FONT_CACHE[size] = ImageFont.load_default(size=size)
    return _FONT_CACHE[size]


def screenshot_png(state: UIState, width: int, height: int) -> bytes:
    """A PNG of the screen at its full size: background, view boxes, leaf labels."""
    image = Image.new("RGB", (width, height), (238, 238, 238))
    draw = ImageDraw.Draw(image)
    font = _font(max(12, width // 36))
    by_index = {v.index: v for v in state.views}

    def paint(view: View) -> None:
        b = view.bounds
        if b.area > 0:
            if view.clickable or view.editable or view.checkable:
                fill = (200, 220, 255) if not view.editable else (255, 255, 255)
                draw.rectangle((b.left, b.top, b.right - 1, b.bottom - 1), fill=fill, outline=(90, 110, 160))
            elif view.parent < 0:
                draw.rectangle((b.left, b.top, b.right - 1, b.bottom - 1), fill=(250, 250, 250))
            label = view.text or view.content_desc
            if label and not view.children:
                text = _INVALID_XML.sub("", label[:48]).replace("\n", " ")
                draw.text((b.left + 8, b.top + 6), text, fill=(20, 20, 20), font=font)
        for child in view.children:
            c = by_index.get(child)
            if c is not None and c.visible:
                paint(c)

    for root in (v for v in state.views if (v.parent < 0 or v.parent not in by_index) and v.visible):
        paint(root)
    buf = io.BytesIO()
    image.save(buf, format="PNG", compress_level=1)
    return buf.getvalue()
