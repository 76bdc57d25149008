"""Board PNGs for email: small palette files that look like the full-colour drawing, edge to edge.

Email shows boards at scale 2 (pbem.mail.boards.SCALE), in the position a turn email shows
mid-game: 30 random plies from seed 1, drawn for seat 0 with the last move marked (the same
position bench/render.py measures).
"""

from __future__ import annotations

import io
import random
import re

import pytest
from PIL import Image, ImageChops, ImageFilter, ImageOps, ImageStat

from engine import GAMES, new_game
from engine.png import encode_png, quantize, render_rgb, svg_to_png

EMAIL_SCALE = 2
EMAIL_BUDGET = 40 * 1024  # bytes: turn emails are read on phones

# Fidelity of the palette picture to the full-colour drawing, in levels of 0-255 per channel.
MEAN_ERROR = 1.0  # averaged over every pixel and channel
FLAT_ERROR = 3  # anywhere inside a flat area (a 5x5 neighbourhood of one colour)


def mid_game_svg(game_id: str, **options: object) -> str:
    game = new_game(game_id, **options)
    rng = random.Random(1)
    state, last = game.start(seed=1), None
    for _ in range(30):
        if game.to_move(state) is None:
            break
        last = game.random_move(state, rng)
        state = game.play(state, last)
    return game.render_svg(state, viewer=0, last_move=last)


def decode(png: bytes) -> Image.Image:
    return Image.open(io.BytesIO(png)).convert("RGB")


def fidelity(picture: Image.Image, drawing: Image.Image) -> tuple[float, int]:
    """(mean error, worst error inside flat areas) of ``picture`` against ``drawing``."""
    error = ImageChops.difference(picture, drawing)
    mean = sum(ImageStat.Stat(error).mean) / 3
    flat = Image.new("L", drawing.size, 255)
    for channel in drawing.split():
        spread = ImageChops.difference(channel.filter(ImageFilter.MaxFilter(5)),
                                       channel.filter(ImageFilter.MinFilter(5)))
        flat = ImageChops.multiply(flat, spread.point(lambda v: 255 if v == 0 else 0))
    worst = 0
    for channel in error.split():
        low_high = ImageChops.multiply(channel, flat).getextrema()
        assert isinstance(low_high[1], int)  # single-band images give (low, high) ints
        worst = max(worst, low_high[1])
    return mean, worst


@pytest.fixture(scope="module", params=list(GAMES))
def email_board(request: pytest.FixtureRequest) -> tuple[str, Image.Image, bytes]:
    """(game id, full-colour drawing, email PNG) of each game's mid-game board."""
    svg = mid_game_svg(request.param)
    return request.param, render_rgb(svg, scale=EMAIL_SCALE), svg_to_png(svg, scale=EMAIL_SCALE)


def test_a_mid_game_board_fits_the_email_budget(
    email_board: tuple[str, Image.Image, bytes],
) -> None:
    game_id, _, png = email_board
    assert len(png) <= EMAIL_BUDGET, f"{game_id}: {len(png)} bytes"


def test_the_email_png_is_a_palette_image_of_the_drawing_size(
    email_board: tuple[str, Image.Image, bytes],
) -> None:
    _, drawing, png = email_board
    with Image.open(io.BytesIO(png)) as image:
        assert image.format == "PNG" and image.mode == "P"
        assert image.size == drawing.size


def test_the_palette_png_looks_like_the_full_colour_drawing(
    email_board: tuple[str, Image.Image, bytes],
) -> None:
    game_id, drawing, png = email_board
    mean, worst_flat = fidelity(decode(png), drawing)
    assert mean < MEAN_ERROR, f"{game_id}: mean error {mean:.2f}"
    assert worst_flat <= FLAT_ERROR, f"{game_id}: flat areas off by {worst_flat}"


def test_the_fidelity_check_catches_coarse_palettes_and_banding() -> None:
    drawing = render_rgb(mid_game_svg("stigmergy"), scale=EMAIL_SCALE)
    four_colours = drawing.quantize(4, Image.Quantize.MEDIANCUT, dither=Image.Dither.NONE)
    mean, worst_flat = fidelity(four_colours.convert("RGB"), drawing)
    assert mean >= MEAN_ERROR and worst_flat > FLAT_ERROR
    banded = ImageOps.posterize(drawing, 4)  # 16 levels a channel: flat colours shift
    assert fidelity(banded, drawing)[1] > FLAT_ERROR
    # ...while our own palette of the same drawing passes.
    mean, worst_flat = fidelity(quantize(drawing).convert("RGB"), drawing)
    assert mean < MEAN_ERROR and worst_flat <= FLAT_ERROR


def test_no_line_down_the_right_edge_or_along_the_bottom(
    email_board: tuple[str, Image.Image, bytes],
) -> None:
    game_id, _, png = email_board
    image = decode(png)
    width, height = image.size
    background = image.getpixel((0, 0))
    edges = [image.crop((width - 1, 0, width, height)), image.crop((0, height - 1, width, height))]
    for edge, name in zip(edges, ("right-most column", "bottom row"), strict=True):
        colours = {colour for _, colour in edge.getcolors(width + height) or []}
        assert colours == {background}, f"{game_id}: {name} has {colours - {background}}"


@pytest.mark.parametrize("game_id", list(GAMES))
def test_boards_are_a_whole_number_of_units_wide_and_high(game_id: str) -> None:
    # A fractional size leaves the last pixel column or row partly drawn at any scale.
    root = re.match(r"<svg [^>]*>", mid_game_svg(game_id))
    assert root is not None
    for side in ("width", "height"):
        found = re.search(rf' {side}="([^"]+)"', root[0])
        assert found is not None and float(found[1]).is_integer(), f"{game_id} {side}"


def test_transparent_areas_come_out_white() -> None:
    svg = ('<svg xmlns="http://www.w3.org/2000/svg" width="10.5" height="8">'
           '<rect x="2" y="2" width="4" height="4" fill="#102030"/></svg>')
    image = decode(svg_to_png(svg, scale=2))
    assert image.size == (21, 16)
    assert image.getpixel((0, 0)) == (255, 255, 255)
    assert image.getpixel((20, 15)) == (255, 255, 255)  # the half-covered last column too
    assert image.getpixel((8, 8)) == (0x10, 0x20, 0x30)


def test_flat_colours_come_out_exact_even_when_close_together() -> None:
    # Pillow's palette lookup is approximate: colours a few levels apart must still stay apart.
    colours = [(251, 250, 246), (247, 247, 242), (246, 243, 234), (243, 243, 238), (29, 29, 27)]
    image = stripes(colours)
    assert decode(encode_png(image)).tobytes() == image.tobytes()


def test_flat_colours_closer_than_the_palette_lookup_can_tell_merge_within_3_levels() -> None:
    image = stripes([(251, 250, 246), (248, 249, 244), (29, 29, 27)])
    worst_flat = fidelity(decode(encode_png(image)), image)[1]
    assert 0 < worst_flat <= FLAT_ERROR


def stripes(colours: list[tuple[int, int, int]]) -> Image.Image:
    image = Image.new("RGB", (40, 8 * len(colours)))
    for n, colour in enumerate(colours):
        image.paste(colour, (0, 8 * n, 40, 8 * n + 8))
    return image


def test_a_picture_of_too_many_colours_still_gets_a_palette() -> None:
    rng = random.Random(7)
    noise = Image.frombytes("RGB", (1100, 1100), rng.randbytes(1100 * 1100 * 3))
    image = quantize(noise)
    assert image.mode == "P" and len(image.getpalette() or []) <= 256 * 3


def test_the_scale_multiplies_the_drawing_size() -> None:
    png = svg_to_png('<svg xmlns="http://www.w3.org/2000/svg" width="3" height="5"/>', scale=3)
    assert Image.open(io.BytesIO(png)).size == (9, 15)
