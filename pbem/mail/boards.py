"""Board pictures for email: the engine's SVG rasterised to PNG at twice its display size.

Mail clients drop SVG, so email carries PNG; twice the size keeps it sharp on high-density screens
while the HTML shows it at display size. Each (game, ply, viewer, language) is drawn once, by the
first email that shows it (:func:`pbem.services.notify.board_for`, which keeps the drawing and its
size), and rasterised once, here, at delivery: the words on a board (headers, scores) are in its
reader's language, and a seat the engine calls "Player 1" is named as the email's text names it
("Alice (Red)").

A game that ended off the board (resigned, forfeited on time, adjudicated) stops where the rules
still have someone to move; its last position is drawn as over (``render_svg(ending=...)`` with
that ending: "game over", not "Light to move"), a picture kept apart from the one drawn at that
ply while it ran.
"""

from __future__ import annotations

from typing import Any

from sqlalchemy import update
from sqlalchemy.exc import IntegrityError
from sqlmodel import Session, col, select

import engine
from engine import png as engine_png
from pbem.db import Database
from pbem.i18n import Reader
from pbem.models import BoardImage, GameRecord, GameStatus, Move
from pbem.positions import engine_game
from pbem.services.notify import board_labels, draw_board, drawn_ending, drawn_over, svg_size

SCALE = 2


def svg_to_png(svg: str) -> bytes:
    """The email picture of a board: a small palette PNG at ``SCALE`` (see engine.png)."""
    return engine_png.svg_to_png(svg, scale=SCALE)


def board_png(database: Database, game_id: int, ply: int, viewer: int,
              language: str = "en") -> bytes:
    """The PNG of the game after ``ply`` moves as ``viewer`` (-1: public) sees it, in
    ``language``, made once: rasterised from the drawing its first email kept, or, where none was
    kept (an email written before drawings were, or one about a position whose game then ended
    off the board), drawn here from the stored position.

    Rasterising happens outside any transaction so that SQLite writers are not held up by it.
    """
    with database.session() as session:
        row = session.get(GameRecord, game_id)
        if row is None:
            raise LookupError(f"no game {game_id}")
        game = engine_game(row)
        state = last = None
        over = False
        if row.status in (GameStatus.FINISHED, GameStatus.ABORTED) and ply == row.ply:
            # Whether it ended off the board here needs the position; only then is it read.
            last, state = _position(session, row, game, ply)
            over = drawn_over(row, ply, game, state)
        kept = session.exec(select(BoardImage).where(
            BoardImage.game_id == game_id, BoardImage.ply == ply, BoardImage.viewer == viewer,
            BoardImage.language == language, BoardImage.over == over,
        )).one_or_none()
        if kept is not None and kept.png is not None:
            return kept.png
        svg = kept.svg if kept is not None else None
        if svg is None:
            if state is None:
                last, state = _position(session, row, game, ply)
            reader = Reader(language)
            svg = draw_board(game, state, viewer, last.notation if last else None,
                             board_labels(session, game_id, game, state, reader), reader,
                             ending=drawn_ending(session, row, game, state, over))
    png = svg_to_png(svg)
    try:
        with database.write() as session:
            if kept is not None:  # the drawing is rasterised: the PNG is what is kept now
                session.execute(update(BoardImage).where(col(BoardImage.id) == kept.id)
                                .values(png=png, svg=None))
            else:
                width, height = svg_size(svg)
                session.add(BoardImage(game_id=game_id, ply=ply, viewer=viewer,
                                       language=language, over=over, png=png, width=width,
                                       height=height))
    except IntegrityError:
        pass  # another deliverer stored the same picture meanwhile
    return png


def _position(session: Session, row: GameRecord, game: engine.AnyGame, ply: int
              ) -> tuple[Move | None, Any]:
    """The move that led to ``ply`` (None at the start) and the position it left, as stored."""
    last = None
    if ply > 0:
        last = session.exec(select(Move).where(Move.game_id == row.id,
                                               Move.ply == ply - 1)).one()
    return last, game.decode(last.state_after if last else row.start_state)
