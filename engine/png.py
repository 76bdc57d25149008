"""SVG to PNG for boards, with CairoSVG drawing and a fast PNG encoder.

cairo's own PNG writer compresses at zlib's default level, which costs as much as drawing the board.
Boards have an opaque background and large flat areas, so the fastest zlib level loses little size
and saves most of the time.

>>> png = svg_to_png('<svg xmlns="http://www.w3.org/2000/svg" width="4" height="2">'
...                  '<rect width="4" height="2" fill="#ff0000"/></svg>', scale=1)
>>> png[:8] == b"\\x89PNG\\r\\n\\x1a\\n", png_size(png)
(True, (4, 2))
"""

from __future__ import annotations

import struct
import sys
import zlib

from cairosvg.parser import Tree  # type: ignore[import-untyped]
from cairosvg.surface import PNGSurface  # type: ignore[import-untyped]

_SIGNATURE = b"\x89PNG\r\n\x1a\n"


def svg_to_png(svg: str, *, scale: float = 2.0, level: int = 1) -> bytes:
    """Rasterise ``svg`` at ``scale`` pixels per SVG unit; transparent areas come out black."""
    # Drawing happens in the constructor; finish() frees the pixels, so copy them out first.
    surface = PNGSurface(Tree(bytestring=svg.encode()), None, 96, scale=scale)
    image = surface.cairo
    image.flush()
    width, height, stride = image.get_width(), image.get_height(), image.get_stride()
    data = bytes(image.get_data())
    surface.finish()
    return encode_rgb(_bgra_to_rgb_rows(data, width, height, stride), width, height, level)


def _bgra_to_rgb_rows(data: bytes, width: int, height: int, stride: int) -> bytes:
    """cairo's native-endian premultiplied ARGB32 to PNG RGB scanlines (each led by filter 0)."""
    if stride != width * 4:
        data = b"".join(data[y * stride: y * stride + width * 4] for y in range(height))
    little = sys.byteorder == "little"
    red, green, blue = (data[2::4], data[1::4], data[0::4]) if little else (
        data[1::4], data[2::4], data[3::4])
    rgb = bytearray(width * height * 3)
    rgb[0::3], rgb[1::3], rgb[2::3] = red, green, blue
    row = width * 3
    return b"".join(b"\x00" + rgb[y * row: (y + 1) * row] for y in range(height))


def encode_rgb(scanlines: bytes, width: int, height: int, level: int = 1) -> bytes:
    """A PNG file from filtered 8-bit RGB scanlines."""
    header = struct.pack(">IIBBBBB", width, height, 8, 2, 0, 0, 0)
    return b"".join((_SIGNATURE, _chunk(b"IHDR", header),
                     _chunk(b"IDAT", zlib.compress(scanlines, level)), _chunk(b"IEND", b"")))


def png_size(png: bytes) -> tuple[int, int]:
    """(width, height) of a PNG file's bytes."""
    if png[:8] != _SIGNATURE:
        raise ValueError("not a PNG file")
    width, height = struct.unpack(">II", png[16:24])
    return int(width), int(height)


def _chunk(kind: bytes, payload: bytes) -> bytes:
    crc = zlib.crc32(kind + payload) & 0xFFFFFFFF
    return struct.pack(">I", len(payload)) + kind + payload + struct.pack(">I", crc)
