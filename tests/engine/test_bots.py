"""The computer player (engine.bots): legal, deterministic, blind to hidden information, stronger
than random. Budgets are small so the file runs in seconds; bench/bots.py measures real levels."""

from __future__ import annotations

import io
import random
from dataclasses import replace
from typing import Any

import pytest

from engine import GAMES, new_game
from engine.base import Game, NumberRange, Search
from engine.bots import LEVELS, Bot, number_candidates
from engine.bots.mcts import Tree, expand_moves
from engine.cli import main, play
from engine.games.mosey.rules import Mosey
from engine.games.rifugio.search import determinize, unseen_tiles
from engine.games.rifugio.state import OVER
from engine.games.stigmergy.rules import KomiMove
from tests.engine.test_engine_contract import MAX_PLIES, SETTINGS

# Small boards keep the budgets small and the tests quick; every game id is covered.
SMALL: dict[str, dict[str, object]] = {"refugia": {"board": "2-3"}, "stigmergy": {"size": 5},
                                       "rifugio": {"players": 3}}
BUDGET = {"rifugio": 6, "stigmergy": 12}


def small(gid: str) -> Game[Any, Any]:
    return new_game(gid, **SMALL.get(gid, {}))


def bot_for(gid: str, seed: int = 1) -> Bot:
    return Bot.at("easy", seed=seed, playouts=BUDGET.get(gid, 24))


def random_position(game: Game[Any, Any], plies: int, seed: int) -> Any:
    state, rng = game.start(seed=seed), random.Random(seed)
    for _ in range(plies):
        after = game.play(state, game.random_move(state, rng))
        if game.to_move(after) is None:
            break  # keep a position with a move to make
        state = after
    return state


def legal(game: Game[Any, Any], state: Any, move: Any) -> bool:
    return game.why_illegal(state, move) is None and move in game.legal_moves(state)


@pytest.mark.parametrize("gid", list(GAMES))
def test_the_bot_plays_a_legal_move_at_the_start_and_in_mid_game(gid: str) -> None:
    game = small(gid)
    for state in (game.start(seed=4), random_position(game, 9, seed=4)):
        seat = game.to_move(state)
        assert seat is not None
        move, confidence = bot_for(gid).choose(game, state, seat)
        assert legal(game, state, move), f"{gid}: {move} is not legal"
        assert 0.0 <= confidence <= 1.0


@pytest.mark.parametrize(("gid", "options"), SETTINGS)
def test_every_move_of_a_whole_game_between_bots_is_legal_on_every_setting(
    gid: str, options: dict[str, object],
) -> None:
    """The bot plays every seat of a seeded game to its end (two playouts a move: the tree,
    numeric choices and Rifugio's determinizations all run; the budget only makes it weak)."""
    game = new_game(gid, **options)
    state = game.start(seed=11)
    bots = [Bot.at("easy", seed=seat, playouts=2) for seat in range(game.num_players)]
    for ply in range(MAX_PLIES):
        seat = game.to_move(state)
        if seat is None:
            break
        move, confidence = bots[seat].choose(game, state, seat)
        assert legal(game, state, move), f"{gid} {options}, ply {ply}: {move} is not legal"
        assert 0.0 <= confidence <= 1.0
        state = game.play(state, move)
    assert game.outcome(state) is not None, f"{gid} {options}: no end in {MAX_PLIES} plies"


@pytest.mark.parametrize("gid", ["mosey", "refugia", "stigmergy", "rifugio"])
def test_same_seed_and_budget_give_the_same_move(gid: str) -> None:
    game = small(gid)
    state = random_position(game, 5, seed=2)
    seat = game.to_move(state)
    assert seat is not None
    first = bot_for(gid, seed=3).choose(game, state, seat)
    assert bot_for(gid, seed=3).choose(game, state, seat) == first
    assert bot_for(gid, seed=3).choose(game, state, seat) == first


@pytest.mark.parametrize("gid", ["conflagration", "refugia", "stigmergy"])
def test_listing_a_nodes_moves_once_changes_no_statistic_of_the_tree(gid: str) -> None:
    # Without hidden information a node is one state, so the search keeps its moves; the tree
    # it grows must be the very one it grew when it listed them on every visit.
    game = small(gid)
    state = random_position(game, 4, seed=6)
    seat = game.to_move(state)
    assert seat is not None
    trees = []
    for fixed in (False, True):
        tree = Tree(game, seat, random.Random(9), exploration=0.7, fixed=fixed)
        tree.run(lambda rng: state, playouts=150)
        trees.append(tree.statistics())
    assert trees[0] == trees[1]
    assert sum(visits for _, visits, _ in trees[0]) == 150


def test_different_seeds_may_choose_differently() -> None:
    game = small("mosey")
    state = game.start()
    moves = {Bot.at("easy", seed=s, playouts=3).choose(game, state, 0)[0] for s in range(12)}
    assert len(moves) > 1


def test_levels_and_budgets() -> None:
    assert Bot.at("easy").playouts == LEVELS["easy"][0]
    assert Bot.at("normal") == Bot.at()
    strong = Bot.at("strong")
    assert strong.seconds == 5.0 and strong.playouts is None
    assert Bot.at("strong", playouts=99).seconds is None
    with pytest.raises(ValueError, match="unknown level"):
        Bot.at("grandmaster")
    with pytest.raises(ValueError, match="budget"):
        Bot("normal", playouts=None, seconds=None)


def test_a_time_budget_reads_the_clock_it_is_given() -> None:
    ticks = iter(range(1000))
    bot = replace(Bot.at("strong", seconds=5), clock=lambda: float(next(ticks)))
    game = small("mosey")
    move, _ = bot.choose(game, game.start(), 0)
    assert game.why_illegal(game.start(), move) is None
    assert next(ticks) == 6  # read at 0 for the deadline, then at 1-4 (go on) and 5 (stop)


def test_a_search_past_its_cutoff_stops_and_plays_its_best_move_so_far() -> None:
    game = small("mosey")
    ticks = iter(range(1_000_000))
    calls: list[int] = []

    def slow_clock() -> float:  # every reading is a second later: 10,000 playouts cannot fit
        calls.append(1)
        return float(next(ticks))

    bot = replace(Bot.at("normal", seed=1, playouts=10_000, cutoff=5), clock=slow_clock)
    move, _ = bot.choose(game, game.start(), 0)
    assert move in game.legal_moves(game.start())
    assert len(calls) <= 10  # stopped after about five iterations, not ten thousand
    unhurried = Bot.at("normal", seed=1, playouts=30, cutoff=60.0)  # the cutoff never bites
    assert unhurried.choose(game, game.start(), 0) == Bot.at("normal", seed=1, playouts=30
                                                             ).choose(game, game.start(), 0)


def test_the_bot_refuses_to_move_out_of_turn() -> None:
    game = small("mosey")
    with pytest.raises(ValueError, match="turn"):
        bot_for("mosey").choose(game, game.start(), 1)


# -- the game's Search: what the bot asks of a game besides its rules ------------------------


class NamesTheLastMove(Search[Any, Any, Any]):
    """A game's own special choice: always its last listed move, with a made-up confidence."""

    margin = True

    def special_move(self, state: Any, rng: random.Random,
                     playouts: int) -> tuple[Any, float] | None:
        return self.game.legal_moves(state)[-1], 0.25


class CustomMosey(Mosey):
    def search(self) -> Search[Any, Any, Any]:
        return NamesTheLastMove(self)


class HiddenMosey(Mosey):
    info = replace(Mosey.info, hidden_information=True)


def test_the_bot_takes_a_special_choice_from_the_games_search_whatever_the_game() -> None:
    game = CustomMosey(order=4)
    move, confidence = bot_for("mosey").choose(game, game.start(), 0)
    assert (move, confidence) == (game.legal_moves(game.start())[-1], 0.25)


def test_a_game_that_hides_information_needs_a_search_that_determinizes() -> None:
    game = HiddenMosey(order=4)
    assert not game.search().hidden
    with pytest.raises(NotImplementedError, match="cannot sample"):
        bot_for("mosey").choose(game, game.start(), 0)


def test_only_the_games_that_need_it_refine_their_search() -> None:
    searches = {gid: new_game(gid).search() for gid in GAMES}
    assert {gid for gid, s in searches.items() if s.hidden} == {"rifugio"}
    assert {gid for gid, s in searches.items() if s.margin} == {"stigmergy"}
    assert all(type(s) is Search for gid, s in searches.items()
               if gid not in ("rifugio", "stigmergy"))


# -- Rifugio: information sets -----------------------------------------------------------------


def rifugio_positions() -> list[Any]:
    game = small("rifugio")
    # The last one has feature cards, bears and hut cards hidden from the seat to move.
    return [random_position(game, plies, seed)
            for plies, seed in ((0, 1), (7, 2), (30, 3), (150, 6))]


def hide_differently(state: Any, seat: int, seed: int) -> Any:
    """The same position to ``seat``: another pile order, other cards for the other seats."""
    pile = list(state.pile)
    random.Random(seed).shuffle(pile)
    features, bears, huts = list(state.features), list(state.bears), list(state.hut_cards)
    for other in range(state.players):
        if other != seat:
            count = len(features[other]) + bears[other] + huts[other]
            features[other], bears[other], huts[other] = (), 0, count
    return replace(state, pile=tuple(pile), features=tuple(features), bears=tuple(bears),
                   hut_cards=tuple(huts))


def public_view(game: Game[Any, Any], state: Any, seat: int) -> Any:
    """What ``seat`` sees of ``state``, but the seed's commitment, which a determinization
    replaces."""
    seen = dict(game.view(state, seat))
    seen.pop("seed_sha256", None)
    return seen


def test_rifugio_determinizations_look_the_same_to_the_seat() -> None:
    game = small("rifugio")
    for state in rifugio_positions():
        seat = game.to_move(state)
        assert seat is not None and state.phase != OVER
        rng = random.Random(5)
        for _ in range(5):
            guess = determinize(state, seat, rng)
            assert public_view(game, guess, seat) == public_view(game, state, seat)
            assert sorted(guess.pile) == sorted(state.pile) == unseen_tiles(state)
            assert guess.seed != state.seed


def test_rifugio_determinizations_depend_only_on_the_view() -> None:
    game = small("rifugio")
    for state in rifugio_positions():
        seat = game.to_move(state)
        other = hide_differently(state, seat, seed=9)
        assert other.pile != state.pile
        assert public_view(game, other, seat) == public_view(game, state, seat)
        assert determinize(state, seat, random.Random(4)) == determinize(other, seat,
                                                                         random.Random(4))


def test_rifugio_bot_choice_does_not_depend_on_hidden_information() -> None:
    """Same view, different hidden pile (and other seats' cards): same move, same seed/budget."""
    game = small("rifugio")
    bot = Bot.at("easy", seed=11, playouts=8)
    for state in rifugio_positions():
        seat = game.to_move(state)
        other = hide_differently(state, seat, seed=21)
        assert other.pile != state.pile
        assert bot.choose(game, state, seat) == bot.choose(game, other, seat)


# -- Strength ----------------------------------------------------------------------------------


def test_the_bot_beats_random_at_mosey() -> None:
    """Ten seeded games on the smallest board, the bot on alternate seats with 30 playouts a
    move (bench/bots.py plays the real levels): it must win at least 8."""
    game = new_game("mosey", order=4)
    wins = 0
    for number in range(10):
        bot_seat, rng = number % 2, random.Random(number)
        bot = Bot.at("normal", seed=number, playouts=30)
        state = game.start()
        while (seat := game.to_move(state)) is not None:
            move = (bot.choose(game, state, seat)[0] if seat == bot_seat
                    else game.random_move(state, rng))
            state = game.play(state, move)
        outcome = game.outcome(state)
        assert outcome is not None
        wins += bot_seat in outcome.winners
    assert wins >= 8


def test_a_forced_move_under_a_time_budget_is_judged_on_normals_playouts() -> None:
    """With one legal move the bot only says how things look. Under a time budget that used to
    be 8 playouts, whose mean made a strong bot tell a player "This looks bad for me" on the
    first move of a Rifugio game it stood evenly in."""
    game = new_game("rifugio", players=3)
    state = game.start(seed="fd6672869eddd53c9caa5840c860c9a5")  # three rocks: only the blind

    def no_clock() -> float:
        raise AssertionError("a forced move needs no clock")

    assert len(game.legal_moves(state)) == 1
    strong = replace(Bot.at("strong", seed=4, seconds=5), clock=no_clock)
    assert strong.choose(game, state, 0) == Bot.at("normal", seed=4).choose(game, state, 0)


def test_a_few_lucky_playouts_do_not_make_the_bot_confident() -> None:
    """The confidence is drawn towards even by imaginary playouts: one playout, won or lost, is
    neither a sure win nor a sure loss (the service speaks from 0.8 and below 0.2); a decided
    game is (see the komi test below)."""
    game = new_game("mosey", order=4)
    state = game.start()
    confidences = {Bot.at("easy", seed=s, playouts=1).choose(game, state, 0)[1] for s in range(10)}
    assert len(confidences) == 2  # the one playout won or lost
    assert all(0.2 < c < 0.8 for c in confidences)


# -- Stigmergy: komi and sides -----------------------------------------------------------------


def test_stigmergy_bot_names_a_komi_in_the_legal_range() -> None:
    game = small("stigmergy")
    state = game.start()
    choice = game.number_range(state)
    assert choice is not None
    move, _ = Bot.at("easy", seed=2, playouts=30).choose(game, state, 0)
    assert isinstance(move, KomiMove)
    assert move.value in choice
    assert -3 <= move.value <= 5  # random playouts give Black about a point on size 5
    game.play(state, move)


def test_numeric_choices_expand_to_a_handful_of_candidates() -> None:
    assert number_candidates(NumberRange("komi", -62, 62)) == [
        -10, -7, -5, -3, -2, -1, 0, 1, 2, 3, 5, 7, 10]
    assert number_candidates(NumberRange("komi", 0, 2)) == [0, 1, 2]
    game = small("stigmergy")
    expanded = expand_moves(game, game.start())
    assert [key for key, _ in expanded] == [str(v) for v in number_candidates(
        NumberRange("komi", -game.komi_limit, game.komi_limit))]
    assert all(isinstance(move, KomiMove) for _, move in expanded)


@pytest.mark.parametrize(("komi", "wanted"), [(+40, "play-second"), (-40, "a Black stone")])
def test_stigmergy_bot_chooses_the_side_the_komi_favours(komi: int, wanted: str) -> None:
    """A komi bigger than the board decides the game: the bot takes the side it favours."""
    game = small("stigmergy")
    state = game.play(game.start(), str(komi))
    move, confidence = Bot.at("easy", seed=3, playouts=200).choose(game, state, 1)
    chose = "play-second" if str(move) == "play-second" else "a Black stone"
    assert chose == wanted
    assert confidence > 0.9


# -- The terminal ------------------------------------------------------------------------------


def test_the_terminal_plays_against_the_bot() -> None:
    game = small("mosey")
    lines: list[str] = []
    typed = iter(["G5xF4", "quit"])
    play(game, seed=1, computer_seats={1}, read=lambda prompt: next(typed), write=lines.append,
         bot=Bot.at("easy", playouts=10))
    assert any("(computer) plays" in line for line in lines)
    assert any("thinks its chances are" in line for line in lines)


def test_the_command_line_knows_the_bot_levels(monkeypatch: pytest.MonkeyPatch,
                                               capsys: pytest.CaptureFixture[str]) -> None:
    monkeypatch.setattr("sys.stdin", io.StringIO("G5xF4\nquit\n"))
    assert main(["play", "mosey", "--vs", "bot:easy", "--bot-playouts", "5", "--seed", "1"]) == 0
    assert "Dark (computer) plays" in capsys.readouterr().out
    with pytest.raises(SystemExit):
        main(["play", "mosey", "--vs", "bot:grandmaster"])
