"""SVG to PNG for boards: CairoSVG draws, Pillow writes a small palette PNG.

Turn emails are read on phones, so the picture must be small. A board is a few flat colours and
the antialiased edges between them, so a palette of a few dozen colours carries it at a quarter of
the size of a full-colour PNG, with no visible difference:

* every flat colour gets an entry of its own, however small its area, and keeps its exact value
  (a 4x4 block of pixels whose mean is one of its own pixels is flat);
* edge shades fill the rest of the palette, the most frequent first, spaced about 16 levels apart
  and kept off the flat colours: finer steps cost bytes on every row that crosses an edge and
  cannot be seen at this size;
* every pixel takes its nearest entry, without dithering (dither noise compresses badly);
* as few shades survive, cairo draws shapes with its fast antialiasing, and zlib works hardest
  only on the largest pictures.

>>> png = svg_to_png('<svg xmlns="http://www.w3.org/2000/svg" width="4" height="2">'
...                  '<rect width="4" height="2" fill="#ff0000"/></svg>', scale=1)
>>> Image.open(io.BytesIO(png)).size
(4, 2)
>>> Image.open(io.BytesIO(png)).convert("RGB").getpixel((3, 1))
(255, 0, 0)
"""

from __future__ import annotations

import io
import sys
from typing import Any, cast

from cairosvg.parser import Tree  # type: ignore[import-untyped]
from cairosvg.surface import PNGSurface, cairo  # type: ignore[import-untyped]
from PIL import Image, ImageChops

_Colour = tuple[int, int, int]
_Counts = list[tuple[int, _Colour]]

# zlib level 6 makes files some 8% smaller than level 5 and takes a third longer; that is worth it
# only on the largest boards (over a megapixel), the ones that would otherwise pass 40 KB.
_LARGE = 1 << 20
_RARE = 2  # a colour seen fewer times (on a sixteenth of the pixels) takes the nearest entry
_MAX_COLOURS = 1 << 16  # more colours than this is no board: Pillow's octree palette instead


def svg_to_png(svg: str, *, scale: float = 2.0, level: int | None = None) -> bytes:
    """Rasterise ``svg`` at ``scale`` pixels per SVG unit as a palette PNG.

    Transparent areas come out white. ``level`` is zlib's compression level (default: 5, or 6 for
    pictures over a megapixel).
    """
    return encode_png(render_rgb(svg, scale=scale), level=level)


def render_rgb(svg: str, *, scale: float = 2.0) -> Image.Image:
    """CairoSVG's drawing of ``svg`` as an RGB image, over white."""
    tree = Tree(bytestring=svg.encode())
    _fast_shapes(tree)
    # Drawing happens in the constructor; finish() frees the pixels, so copy them out first.
    surface = PNGSurface(tree, None, 96, scale=scale)
    context = surface.context
    context.reset_clip()
    context.set_operator(cairo.OPERATOR_DEST_OVER)  # white goes under what is drawn
    context.set_source_rgb(1, 1, 1)
    context.paint()
    image = surface.cairo
    image.flush()
    size, stride = (image.get_width(), image.get_height()), image.get_stride()
    # cairo's ARGB32 is native-endian and premultiplied; opaque now, so the alpha can go.
    raw_mode = "BGRX" if sys.byteorder == "little" else "XRGB"
    # frombytes copies the pixels; given cairo's buffer itself (no bytes() first), it is fast.
    rgb = Image.frombytes("RGB", size, image.get_data(), "raw", raw_mode, stride)
    surface.finish()
    return rgb


def _fast_shapes(node: Any) -> None:
    """Shapes that ask for no particular rendering get cairo's fast antialiasing (4x4 samples a
    pixel rather than 256 levels): the palette keeps only a few shades of each edge anyway, and
    it draws a tenth faster. Text keeps its antialiasing."""
    node.setdefault("shape-rendering", "optimizeSpeed")
    for child in node.children:
        _fast_shapes(child)


def encode_png(rgb: Image.Image, *, level: int | None = None) -> bytes:
    """``rgb`` as a palette PNG file."""
    if level is None:
        level = 6 if rgb.width * rgb.height > _LARGE else 5
    out = io.BytesIO()
    quantize(rgb).save(out, "PNG", compress_level=level)
    return out.getvalue()


def quantize(rgb: Image.Image) -> Image.Image:
    """``rgb`` in mode "P": every flat colour exact, a few shades for the edges between them."""
    counts, flats = _colours(rgb)
    if counts is None:
        return rgb.quantize(256, Image.Quantize.FASTOCTREE, dither=Image.Dither.NONE)
    palette: list[_Colour] = []
    slots: set[_Colour] = set()
    for colour in flats:
        if (slot := _slot(colour)) not in slots:
            slots.add(slot)
            palette.append(colour)
    del palette[256:]
    # Spacing by grid cells keeps this loop cheap: each colour chosen claims its cell of the RGB
    # cube and the 26 around it; a flat colour claims cells 8 levels a side (shades that close to
    # it are lost in it), a shade cells 16 a side (so shades keep about that far apart).
    near_flat = _claim(palette, 3)
    near_shade: set[int] = set()
    for count, (r, g, b) in sorted(counts, reverse=True):
        if len(palette) >= 256 or (count < _RARE and palette):
            break
        if _cell(r, g, b, 3) in near_flat or _cell(r, g, b, 4) in near_shade:
            continue
        palette.append((r, g, b))
        near_shade |= _claim([(r, g, b)], 4)
    # Pillow finds the nearest entry through a cache of 4x4x4 cells of the RGB cube, measuring
    # from a cell's corner; with every entry on a corner, each colour of the palette maps to
    # itself exactly. The corners serve the mapping only: the file gets the true colours.
    mapping = Image.new("P", (1, 1))
    mapping.putpalette([v for colour in palette for v in _slot(colour)])
    image = rgb.quantize(palette=mapping, dither=Image.Dither.NONE)
    # Pillow packs a palette of 16 colours or fewer into 4 bits a pixel, which deflate compresses
    # worse than whole bytes (repeats stop lining up); a 17th entry keeps a byte a pixel.
    palette += palette[-1:] * (17 - len(palette))
    image.putpalette([v for colour in palette for v in colour])
    return image


def _colours(rgb: Image.Image) -> tuple[_Counts | None, list[_Colour]]:
    """How often each colour is seen on one pixel of each 4x4 block (None: too many colours to
    count), and the colours that fill a whole block somewhere, those in the most blocks first.

    One pixel in 16 is enough to rank the edge shades, and it includes every flat colour.
    """
    width, height = rgb.size
    blocks = (max(1, width // 4), max(1, height // 4))
    box = (0, 0, min(width, blocks[0] * 4), min(height, blocks[1] * 4))
    pixels = rgb.resize(blocks, Image.Resampling.NEAREST, box)  # one pixel of each block
    counts = cast("_Counts | None", pixels.getcolors(_MAX_COLOURS))
    if counts is None or width < 4 or height < 4:
        return counts, []
    means = rgb.reduce(4, box)
    # A block whose mean equals one of its pixels is (but for rare coincidences) one colour.
    # Scaled by 255 and summed, any difference saturates: 0 where equal, 255 elsewhere.
    flat = ImageChops.invert(ImageChops.difference(means, pixels).convert("L", (255,) * 3 + (0,)))
    present = {colour for _, colour in counts}
    sentinel = next(c for c in ((0, g, b) for g in range(256) for b in range(256))
                    if c not in present)
    masked = Image.new("RGB", blocks, sentinel)
    masked.paste(means, mask=flat)
    found = cast("_Counts", masked.getcolors(blocks[0] * blocks[1]))
    return counts, [colour for _, colour in sorted(found, reverse=True) if colour != sentinel]


def _cell(r: int, g: int, b: int, shift: int) -> int:
    """The cell of side ``1 << shift`` of the RGB cube that holds a colour, as one number."""
    return (r >> shift) << 16 | (g >> shift) << 8 | b >> shift


def _claim(colours: list[_Colour], shift: int) -> set[int]:
    """The cells of side ``1 << shift`` that hold ``colours``, and the cells around them."""
    claimed: set[int] = set()
    for r, g, b in colours:
        cell = _cell(r, g, b, shift)
        claimed.update(cell + step for step in _AROUND)
    return claimed


# Steps from a cell to the 27 cells around it (itself included). A step off the edge of the
# cube borrows from or carries into the next coordinate, which makes a number that is no cell.
_AROUND = [(i << 16) + (j << 8) + k for i in (-1, 0, 1) for j in (-1, 0, 1) for k in (-1, 0, 1)]


def _slot(colour: _Colour) -> _Colour:
    """The corner of the cell of Pillow's palette cache (4x4x4) that holds ``colour``."""
    r, g, b = colour
    return r & 0xFC, g & 0xFC, b & 0xFC


