"""An untrusted screenshot's bytes → its pixels, decoded safely: PNG or JPEG only, bounded in bytes and in
pixels before anything is decoded (a decompression bomb's header already names its size), and any broken
file (truncated, not an image) an `InputFormatError` naming what is wrong."""
from __future__ import annotations

import base64
import binascii
import io
import warnings

import numpy as np
from PIL import Image, UnidentifiedImageError

from appmem.contract.run import SCREENSHOT_BYTES as MAX_BYTES, SCREENSHOT_MAX as BASE64_MAX
from appmem.errors import InputFormatError

MAX_PIXELS = 4096 * 4096  # a tablet's screen fits with room; 100k×100k (a bomb) does not
MIN_SIDE = 64  # less than a status bar's height: not a screen
FORMATS = ("PNG", "JPEG")


def from_base64(text: str, where: str = "screenshot") -> bytes:
    """A screenshot sent as base64 (standard alphabet, padded; whitespace ignored) → its bytes."""
    text = "".join(text.split())
    if len(text) > BASE64_MAX:
        raise InputFormatError(where, f"{len(text)} base64 characters: a screenshot is at most {MAX_BYTES} bytes")
    try:
        return base64.b64decode(text, validate=True)
    except (binascii.Error, ValueError) as exc:
        raise InputFormatError(where, f"not base64: {exc}") from None


def decode_image(data: bytes, where: str = "screenshot") -> np.ndarray:
    """The screenshot's pixels as an RGB array (height × width × 3, uint8)."""
    if not data:
        raise InputFormatError(where, "empty: send a PNG or JPEG screenshot")
    if len(data) > MAX_BYTES:
        raise InputFormatError(where, f"{len(data)} bytes: a screenshot is at most {MAX_BYTES} bytes")
    try:
        with warnings.catch_warnings():
            warnings.simplefilter("error", Image.DecompressionBombWarning)
            image = Image.open(io.BytesIO(data), formats=FORMATS)
            width, height = image.size
            _check_size(width, height, where)
            image.load()
            pixels = np.asarray(image.convert("RGB"))
    except InputFormatError:
        raise
    except UnidentifiedImageError:
        raise InputFormatError(where, "not a PNG or JPEG image") from None
    except (Image.DecompressionBombError, Image.DecompressionBombWarning):
        raise InputFormatError(where, f"more than {MAX_PIXELS} pixels: not a phone's screenshot") from None
    except (OSError, SyntaxError, ValueError, EOFError) as exc:  # what PIL raises for a broken file
        raise InputFormatError(where, f"broken or truncated image: {exc}") from None
    return pixels


def _check_size(width: int, height: int, where: str) -> None:
    if width * height > MAX_PIXELS:
        raise InputFormatError(where, f"{width}×{height} pixels: more than {MAX_PIXELS}, not a phone's screenshot")
    if min(width, height) < MIN_SIDE:
        raise InputFormatError(where, f"{width}×{height} pixels: too small to be a screen (under {MIN_SIDE} a side)")
