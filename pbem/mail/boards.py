"""Board pictures for email: the engine's SVG rasterised to PNG at twice its display size.

Mail clients drop SVG, so email carries PNG; twice the size keeps it sharp on high-density screens
while the HTML shows it at display size. Each (game, ply, viewer, language) is rendered once and
kept: the words on a board (headers, scores) are in its reader's language, and a seat the engine
calls "Player 1" is named as the email's text names it ("Alice (Red)").

A game that ended off the board (resigned, forfeited on time, adjudicated) stops where the rules
still have someone to move; its last position is drawn as over (``render_svg(ending=...)`` with
that ending: "game over", not "Light to move"), a picture kept apart from the one drawn at that
ply while it ran.
"""

from __future__ import annotations

from xml.sax.saxutils import escape

from sqlalchemy.exc import IntegrityError
from sqlmodel import select

from engine import png as engine_png
from pbem.db import Database
from pbem.i18n import Reader, translations
from pbem.models import BoardImage, GameRecord, GameStatus, Move
from pbem.positions import engine_game
from pbem.services.common import players_of, seats_of, shown_names
from pbem.services.results import ending_of, labels_for, name_generic_seats

SCALE = 2


def svg_to_png(svg: str) -> bytes:
    """The email picture of a board: a small palette PNG at ``SCALE`` (see engine.png)."""
    return engine_png.svg_to_png(svg, scale=SCALE)


def board_png(database: Database, game_id: int, ply: int, viewer: int,
              language: str = "en") -> bytes:
    """The PNG of the game after ``ply`` moves as ``viewer`` (-1: public) sees it, in
    ``language``, made once.

    Rasterising happens outside any transaction so that SQLite writers are not held up by it.
    """
    with database.session() as session:
        row = session.get(GameRecord, game_id)
        if row is None:
            raise LookupError(f"no game {game_id}")
        last = None
        if ply > 0:
            last = session.exec(select(Move).where(Move.game_id == game_id,
                                                   Move.ply == ply - 1)).one()
        game = engine_game(row)
        state = game.decode(last.state_after if last else row.start_state)
        # ended off the board right here: the rules still have someone to move
        over = (row.status in (GameStatus.FINISHED, GameStatus.ABORTED) and ply == row.ply
                and game.to_move(state) is not None)
        cached = session.exec(select(BoardImage).where(
            BoardImage.game_id == game_id, BoardImage.ply == ply, BoardImage.viewer == viewer,
            BoardImage.language == language, BoardImage.over == over,
        )).one_or_none()
        if cached is not None:
            return cached.png
        seats = seats_of(session, game_id)
        players = players_of(session, seats)
        reader = Reader(language)
        labels = [escape(label) for label in labels_for(
            game, state, shown_names(seats, players, reader), reader)]
        ending = ending_of(row, seats, game, state) if over else None
    svg = game.render_svg(state, None if viewer < 0 else viewer, last.notation if last else None,
                          translator=translations(language), ending=ending)
    svg = name_generic_seats(svg, game.seat_names(state), labels, reader)
    png = svg_to_png(svg)
    try:
        with database.write() as session:
            session.add(BoardImage(game_id=game_id, ply=ply, viewer=viewer, language=language,
                                   over=over, png=png))
    except IntegrityError:
        pass  # another deliverer stored the same picture meanwhile
    return png
