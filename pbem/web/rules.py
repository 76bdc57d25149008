"""Rules pages: /rules lists the games, /rules/<game_id> explains one with pictures of its boards.

What a player needs is on the page: the catalogue's summary (written for players), the game's own
terms (pbem.web.terms), the start position of every board the game's first option offers, drawn
by the engine as inline SVG (no script: the site's CSP allows none), and the rules decisions of
docs/rules/<family>.md for whoever wants the fine print. That Markdown is ours, but it is still
rendered with raw HTML off and only safe link schemes, so the page can never carry markup the
CSP would have to stop. The files cite the code, the tests and the reference implementations for
contributors too; the page leaves that out (pbem.web.fine_print).
"""

from __future__ import annotations

from functools import cache

from flask import Blueprint, Flask, abort, render_template
from markdown_it import MarkdownIt
from markupsafe import Markup

import engine
from pbem.i18n import translations
from pbem.positions import shown_move
from pbem.resources import shipped
from pbem.services.common import shown_name
from pbem.services.notify import is_server_note, shown_note
from pbem.web.fine_print import for_players
from pbem.web.games import resign_title
from pbem.web.language import current_reader
from pbem.web.support import board_size
from pbem.web.terms import move_label, status_word, terms_for, words

bp = Blueprint("rules", __name__)

DOCS = shipped("docs/rules")
MAX_BOARDS = 12  # a picture per board choice; no game offers more, and pages stay light


def init_app(app: Flask) -> None:
    """Register the rules pages (called from pbem.create_app), and the resign page's wording:
    the resign view is another blueprint's, and its template names game and opponents."""
    app.register_blueprint(bp)
    app.jinja_env.globals["resign_title"] = resign_title
    app.jinja_env.globals["move_label"] = lambda move: move_label(move, reader=current_reader())
    # An engine's words (a game's name, summary, an option's name) in the page's language.
    app.jinja_env.filters["words"] = lambda text: words(current_reader(), text)
    app.jinja_env.filters["status_word"] = lambda status: status_word(status,
                                                                      reader=current_reader())
    app.jinja_env.filters["shown_move"] = lambda notation: shown_move(notation,
                                                                      reader=current_reader())
    # A player's name; a computer's in the page's language ("Computer (leicht)").
    app.jinja_env.filters["shown_name"] = lambda player: shown_name(player, current_reader())
    # A move's note; the server's own ("I expect to win") in the page's language.
    app.jinja_env.filters["shown_note"] = lambda move: shown_note(move, current_reader())
    # A board's own size, for its box's style (base.html's CSS reads it).
    app.jinja_env.filters["board_size"] = lambda svg: board_size(str(svg))
    # ``move is server_note``: a remark of the server's, not quoted as the player's words.
    app.jinja_env.tests["server_note"] = is_server_note


@cache
def _fine_print(family: str, language: str = "en") -> tuple[Markup, str] | None:
    """docs/rules/<language>/<family>.md (English: docs/rules/<family>.md) as safe HTML with the
    language it is in: English when that language has no such page yet; None when none."""
    path = DOCS / language / f"{family}.md"
    if language == "en" or not path.is_file():
        path, language = DOCS / f"{family}.md", "en"
    if not path.is_file():
        return None
    # "js-default": CommonMark with raw HTML off and javascript:/data: links refused. The
    # players' part only: the files also cite the code and the sources for contributors.
    text = for_players(path.read_text(encoding="utf-8"))
    html = MarkdownIt("js-default").enable("table").render(text)
    return Markup(html), language  # raw HTML is off: the renderer escaped every text


@cache
def _boards(game_id: str, language: str = "en"
            ) -> tuple[tuple[tuple[str, str] | None, Markup], ...]:
    """((option, choice) or None, start-position SVG) for each choice of the game's first
    option; one picture with the defaults when it has no options. The engine escapes every text
    it draws."""
    info = engine.GAMES[game_id]
    if not info.options:
        return ((None, _start_svg(game_id, {}, language)),)
    option = info.options[0]
    choices = getattr(option, "choices", None) or (option.default,)
    return tuple(((option.label, option.words(choice)),
                  _start_svg(game_id, {option.name: choice}, language))
                 for choice in list(choices)[:MAX_BOARDS])


def _start_svg(game_id: str, options: dict[str, object], language: str) -> Markup:
    game = engine.new_game(game_id, **options)
    # The engine escapes its texts.
    return Markup(game.render_svg(game.start(0), None, translator=translations(language)))


@bp.get("/rules")
def rules_index() -> str:
    return render_template("rules_index.html", games=engine.GAMES)


@bp.get("/rules/<game_id>")
def rules_page(game_id: str) -> str:
    info = engine.GAMES.get(game_id)
    if info is None:
        abort(404)
    reader = current_reader()
    return render_template(
        "rules.html", info=info, terms=terms_for(game_id, {}, reader=reader),
        options=[(words(reader, o.label), [words(reader, o.words(c)) for c in o.choices],
                  words(reader, o.words(o.default))) for o in info.options],
        boards=_boards(game_id, reader.language),
        fine_print=_fine_print(engine.family_of(game_id), reader.language),
        family=[(gid, words(reader, other.name)) for gid, other in engine.GAMES.items()
                if gid != game_id and engine.family_of(gid) == engine.family_of(game_id)])
