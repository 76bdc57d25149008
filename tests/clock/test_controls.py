"""Time controls and clock arithmetic: named cases from concrete instants, then properties."""

from __future__ import annotations

import json
from datetime import UTC, date, datetime, timedelta
from typing import Any
from zoneinfo import ZoneInfo

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from pbem.clock.controls import (
    Absence,
    BadAbsence,
    BadTimeControl,
    Fischer,
    NaiveDatetime,
    OutOfTime,
    PerMove,
    Reminder,
    TimeControl,
    TimeControlError,
    UnknownTimeZone,
    check_absence,
    clock_running,
    counted_time,
    days_in_year,
    deadline_after,
    local_date,
    parse_duration,
    parse_time_control,
    reminder_times,
    time_control_from_dict,
)

H = timedelta(hours=1)
D = timedelta(days=1)
AMS = "Europe/Amsterdam"


def utc(year: int, month: int, day: int, hour: int = 0, minute: int = 0) -> datetime:
    return datetime(year, month, day, hour, minute, tzinfo=UTC)


def local(zone: str, year: int, month: int, day: int, hour: int = 0) -> datetime:
    """A wall-clock time in ``zone``, as the UTC instant it is."""
    return datetime(year, month, day, hour, tzinfo=ZoneInfo(zone)).astimezone(UTC)


# --- text and dict forms ---------------------------------------------------------------------


@pytest.mark.parametrize(
    ("text", "expected"),
    [
        ("3d", PerMove(3 * D)),
        ("36h", PerMove(36 * H)),
        ("1d12h", PerMove(36 * H)),
        ("90m", PerMove(timedelta(minutes=90))),
        (" 2 Days 4 hours per move ", PerMove(2 * D + 4 * H)),
        ("3d, weekends off", PerMove(3 * D, weekends_off=True)),
        ("fischer", Fischer()),
        ("fischer 48h+24h max 96h", Fischer(48 * H, 24 * H, 96 * H)),
        ("Fischer 1d + 12h max 3d weekends off", Fischer(D, 12 * H, 3 * D, weekends_off=True)),
        ("fischer 2d+0m max 2d", Fischer(2 * D, timedelta(0), 2 * D)),
    ],
)
def test_parse_time_control(text: str, expected: TimeControl) -> None:
    assert parse_time_control(text) == expected


@pytest.mark.parametrize(
    ("control", "text"),
    [
        (PerMove(), "3d"),
        (PerMove(36 * H), "1d12h"),
        (PerMove(timedelta(minutes=90), weekends_off=True), "1h30m weekends off"),
        (Fischer(), "fischer 2d+1d max 4d"),
        (Fischer(D, timedelta(0), D, weekends_off=True), "fischer 1d+0m max 1d weekends off"),
    ],
)
def test_str_is_the_canonical_text(control: TimeControl, text: str) -> None:
    assert str(control) == text
    assert parse_time_control(text) == control


def test_defaults_are_three_days_per_move_and_abstract_plays_fischer() -> None:
    assert PerMove().per_move == 3 * D
    assert (Fischer().initial, Fischer().increment, Fischer().maximum) == (48 * H, 24 * H, 96 * H)


@pytest.mark.parametrize(
    ("text", "message"),
    [
        ("", "not a time control"),
        ("3", "not a time control"),
        ("3x", "not a time control"),
        ("12h1d", "not a time control"),
        ("-3d", "not a time control"),
        ("3d weekends", "not a time control"),
        ("weekends off", "not a time control"),
        ("0d", "more than zero"),
        ("400d", "more than a year"),
        ("99999999999999d", "far too long"),
        ("fischer 48h+24h", "write a Fischer clock as"),
        ("fischer 48h max 96h", "write a Fischer clock as"),
        ("fischer 48h+24h max soon", "not a duration"),
        ("fischer 96h+24h max 48h", "less than the initial time"),
    ],
)
def test_bad_time_controls_are_refused_with_a_reason(text: str, message: str) -> None:
    with pytest.raises(BadTimeControl, match=message) as caught:
        parse_time_control(text)
    assert isinstance(caught.value, ValueError)


def test_durations_must_be_whole_minutes_and_typed() -> None:
    with pytest.raises(BadTimeControl, match="whole minutes"):
        PerMove(timedelta(seconds=90))
    with pytest.raises(BadTimeControl, match="timedelta"):
        PerMove(3)  # type: ignore[arg-type]
    with pytest.raises(BadTimeControl, match="True or False"):
        Fischer(weekends_off="yes")  # type: ignore[arg-type]
    assert parse_duration("1 hour 5 mins") == timedelta(minutes=65)


def test_dict_form_is_json_safe_and_round_trips() -> None:
    for control in (PerMove(), PerMove(90 * timedelta(minutes=1), True), Fischer()):
        stored = json.loads(json.dumps(control.to_dict()))
        assert time_control_from_dict(stored) == control
    assert PerMove().to_dict() == {
        "kind": "per_move",
        "per_move_seconds": 259200,
        "weekends_off": False,
    }


@pytest.mark.parametrize(
    "data",
    [
        {"kind": "hourglass", "seconds": 60},
        {"kind": "per_move", "weekends_off": False},
        {"kind": "per_move", "per_move_seconds": 60, "weekends_off": False, "extra": 1},
        {"kind": "per_move", "per_move_seconds": 60.5, "weekends_off": False},
        {"kind": "per_move", "per_move_seconds": True, "weekends_off": False},
        {"kind": "per_move", "per_move_seconds": 60, "weekends_off": "no"},
        {"kind": "per_move", "per_move_seconds": -60, "weekends_off": False},
        {"kind": "fischer", "initial_seconds": 60, "increment_seconds": 60, "weekends_off": False},
        [],
    ],
)
def test_bad_stored_time_controls_are_refused(data: Any) -> None:
    with pytest.raises(BadTimeControl):
        time_control_from_dict(data)


# --- clock arithmetic ------------------------------------------------------------------------


def test_a_weekend_across_the_october_change_in_amsterdam_is_49_hours() -> None:
    saturday, monday = local(AMS, 2024, 10, 26), local(AMS, 2024, 10, 28)
    assert (saturday, monday) == (utc(2024, 10, 25, 22), utc(2024, 10, 27, 23))
    assert monday - saturday == 49 * H
    assert counted_time(saturday, monday, zone=AMS, weekends_off=True) == timedelta(0)
    friday_21 = utc(2024, 10, 25, 21)  # 23:00 in Amsterdam
    assert counted_time(friday_21, utc(2024, 10, 28, 0), zone=AMS, weekends_off=True) == 2 * H
    assert deadline_after(friday_21, 90 * timedelta(minutes=1), zone=AMS, weekends_off=True) == (
        utc(2024, 10, 27, 23, 30)
    )


def test_a_weekend_across_the_march_change_in_amsterdam_is_47_hours() -> None:
    saturday, monday = local(AMS, 2025, 3, 29), local(AMS, 2025, 3, 31)
    assert monday - saturday == 47 * H
    assert counted_time(saturday - H, monday + H, zone=AMS, weekends_off=True) == 2 * H


def test_a_day_whose_midnight_is_skipped_still_pauses_all_of_it() -> None:
    # Santiago jumped from 00:00 to 01:00 on Sunday 8 September 2024: that day had 23 hours.
    zone, sunday = "America/Santiago", Absence(date(2024, 9, 8), date(2024, 9, 8))
    start, end = utc(2024, 9, 7, 12), utc(2024, 9, 9, 12)
    assert counted_time(start, end, zone=zone, absences=[sunday]) == 48 * H - 23 * H
    assert counted_time(utc(2024, 9, 7), utc(2024, 9, 10), zone=zone, weekends_off=True) == (
        72 * H - 47 * H
    )


def test_weekends_are_in_the_players_zone_not_utc() -> None:
    # 19:00 UTC on a Friday is already Saturday in Kolkata (+05:30) but still Friday in New York.
    friday_evening = utc(2025, 1, 3, 19)
    assert not clock_running(friday_evening, zone="Asia/Kolkata", weekends_off=True)
    assert clock_running(friday_evening, zone="America/New_York", weekends_off=True)
    assert clock_running(friday_evening, zone="Asia/Kolkata", weekends_off=False)
    # Kolkata's weekend runs from Friday 18:30 to Sunday 18:30 UTC.
    assert counted_time(
        utc(2025, 1, 3, 18), utc(2025, 1, 5, 19), zone="Asia/Kolkata", weekends_off=True
    ) == timedelta(hours=1)


def test_without_pauses_counted_time_is_real_time_even_across_dst() -> None:
    start, end = local(AMS, 2024, 10, 26, 12), local(AMS, 2024, 10, 27, 12)
    assert counted_time(start, end, zone=AMS) == 25 * H
    assert deadline_after(start, 25 * H, zone=AMS) == end


def test_absences_are_whole_local_days_both_ends_included() -> None:
    zone = "Australia/Adelaide"
    tuesday_wednesday = Absence(date(2025, 6, 3), date(2025, 6, 4))
    monday, thursday = local(zone, 2025, 6, 2), local(zone, 2025, 6, 5)
    assert counted_time(monday, thursday, zone=zone, absences=[tuesday_wednesday]) == D
    assert deadline_after(monday + 12 * H, 13 * H, zone=zone, absences=[tuesday_wednesday]) == (
        thursday + H
    )


def test_absence_next_to_a_weekend_makes_one_long_pause() -> None:
    week_off = Absence(date(2025, 1, 6), date(2025, 1, 10))  # Monday to Friday
    friday_noon = utc(2025, 1, 3, 12)
    deadline = deadline_after(friday_noon, 13 * H, weekends_off=True, absences=[week_off])
    assert deadline == utc(2025, 1, 13, 1)
    assert not clock_running(utc(2025, 1, 8), weekends_off=True, absences=[week_off])


def test_overlapping_and_nested_absences_pause_each_day_once() -> None:
    away = [
        Absence(date(2025, 3, 3), date(2025, 3, 12)),
        Absence(date(2025, 3, 4), date(2025, 3, 5)),  # inside the first
        Absence(date(2025, 3, 10), date(2025, 3, 14)),  # overlapping its end
    ]
    start = utc(2025, 3, 1)
    assert counted_time(start, utc(2025, 3, 20), absences=away) == 19 * D - 12 * D
    assert deadline_after(start, 3 * D, absences=away) == utc(2025, 3, 16)
    assert days_in_year(away, 2025) == 12


def test_a_turn_that_starts_during_a_pause_starts_counting_after_it() -> None:
    saturday_noon = utc(2025, 1, 4, 12)
    assert deadline_after(saturday_noon, H, weekends_off=True) == utc(2025, 1, 6, 1)
    assert counted_time(saturday_noon, utc(2025, 1, 6), weekends_off=True) == timedelta(0)


def test_the_deadline_is_the_first_instant_the_budget_is_used() -> None:
    friday_noon = utc(2025, 1, 3, 12)
    assert deadline_after(friday_noon, 12 * H, weekends_off=True) == utc(2025, 1, 4)
    assert deadline_after(utc(2025, 1, 4, 12), timedelta(0), weekends_off=True) == (
        utc(2025, 1, 4, 12)
    )


def test_fifty_years_of_weekends_are_counted_exactly() -> None:
    # Day-by-day stepping keeps this fast; a minute-by-minute loop would not finish.
    monday, fifty_years_on = utc(2000, 1, 3), utc(2050, 1, 3)
    weeks = (fifty_years_on - monday) // (7 * D)
    assert fifty_years_on.weekday() == 0
    assert counted_time(monday, fifty_years_on, weekends_off=True) == weeks * 5 * D
    assert deadline_after(monday, weeks * 5 * D, weekends_off=True) == utc(2050, 1, 1)


def test_local_date_is_the_players_today() -> None:
    assert local_date(utc(2025, 1, 1, 20), "Asia/Kolkata") == date(2025, 1, 2)
    assert local_date(utc(2025, 1, 1, 20), "America/New_York") == date(2025, 1, 1)


def test_clock_functions_refuse_bad_input() -> None:
    naive = datetime(2025, 1, 1, 12)
    with pytest.raises(NaiveDatetime, match="start must be timezone-aware"):
        counted_time(naive, utc(2025, 1, 2))
    with pytest.raises(NaiveDatetime):
        deadline_after(naive, H)
    with pytest.raises(TimeControlError, match="before start"):
        counted_time(utc(2025, 1, 2), utc(2025, 1, 1))
    with pytest.raises(TimeControlError, match="zero or more"):
        deadline_after(utc(2025, 1, 1), -H)
    with pytest.raises(UnknownTimeZone, match="Mars/Base"):
        counted_time(utc(2025, 1, 1), utc(2025, 1, 2), zone="Mars/Base")
    with pytest.raises(BadAbsence, match="before it starts"):
        Absence(date(2025, 1, 2), date(2025, 1, 1))
    with pytest.raises(BadAbsence, match="must be a date"):
        Absence(datetime(2025, 1, 1, tzinfo=UTC), date(2025, 1, 2))
    with pytest.raises(UnknownTimeZone):
        deadline_after(utc(2025, 1, 1), timedelta(0), zone="Europe/Atlantis")
    with pytest.raises(BadAbsence, match="expected an Absence"):
        counted_time(utc(2025, 1, 1), utc(2025, 1, 2), absences=[("2025-01-01", "2025-01-02")])  # type: ignore[list-item]


# --- turns -----------------------------------------------------------------------------------


def test_per_move_deadline_is_three_days_of_running_clock() -> None:
    start = utc(2025, 1, 6, 9)
    assert PerMove().deadline(start) == utc(2025, 1, 9, 9)
    weekends = PerMove(weekends_off=True)
    assert weekends.deadline(utc(2025, 1, 9, 9)) == utc(2025, 1, 14, 9)
    assert weekends.deadline(utc(2025, 1, 9, 9), 4 * D) == utc(2025, 1, 15, 9)  # extended by a day


def test_per_move_bank_is_the_same_every_turn() -> None:
    start = utc(2025, 1, 6, 9)
    assert PerMove().bank_after_move(start, start + 70 * H) == 3 * D


def test_fischer_bank_after_a_move_gains_the_increment_up_to_the_maximum() -> None:
    clock, start = Fischer(), utc(2025, 1, 6, 9)
    assert clock.bank_after_move(start, start + 10 * H, 48 * H) == 62 * H
    assert clock.bank_after_move(start, start + H, 48 * H) == 71 * H
    assert clock.bank_after_move(start, start + H, 90 * H) == 96 * H
    assert clock.deadline(start, 62 * H) == start + 62 * H


def test_fischer_on_weekends_off_charges_only_weekdays_in_the_players_zone() -> None:
    clock = Fischer(weekends_off=True)
    friday_18, monday_06 = local(AMS, 2025, 1, 10, 18), local(AMS, 2025, 1, 13, 6)
    assert clock.remaining(friday_18, monday_06, 48 * H, zone=AMS) == 36 * H
    assert clock.bank_after_move(friday_18, monday_06, 48 * H, zone=AMS) == 60 * H
    assert clock.deadline(friday_18, 6 * H, zone=AMS) == local(AMS, 2025, 1, 11)


def test_a_clock_that_runs_out_shows_zero_then_negative_and_refuses_the_move() -> None:
    clock, start = Fischer(), utc(2025, 1, 6, 9)
    deadline = clock.deadline(start, 5 * H)
    assert clock.remaining(start, deadline - H, 5 * H) == H
    assert clock.remaining(start, deadline, 5 * H) == timedelta(0)
    assert clock.remaining(start, deadline + 2 * H, 5 * H) == -2 * H
    tiny = timedelta(microseconds=1)
    assert clock.bank_after_move(start, deadline - tiny, 5 * H) == 24 * H + tiny
    with pytest.raises(OutOfTime, match="0m late"):
        clock.bank_after_move(start, deadline, 5 * H)
    with pytest.raises(OutOfTime, match="2h late"):
        clock.bank_after_move(start, deadline + 2 * H, 5 * H)


def test_absences_stop_the_turn_clock() -> None:
    away = [Absence(date(2025, 1, 7), date(2025, 1, 8))]
    start = utc(2025, 1, 6, 9)
    assert PerMove().deadline(start, absences=away) == utc(2025, 1, 11, 9)


# --- reminders -------------------------------------------------------------------------------


def test_default_reminders_are_24_and_2_hours_before_the_deadline() -> None:
    start, deadline = utc(2025, 1, 6, 9), utc(2025, 1, 9, 9)
    assert reminder_times(deadline, start) == [
        Reminder(utc(2025, 1, 8, 9), 24 * H),
        Reminder(utc(2025, 1, 9, 7), 2 * H),
    ]


def test_reminders_already_past_at_turn_start_are_skipped() -> None:
    deadline = utc(2025, 1, 9, 9)
    assert reminder_times(deadline, deadline - H) == []
    assert [r.before for r in reminder_times(deadline, deadline - 3 * H)] == [2 * H]
    # Due exactly as the turn begins: the turn's own email already says it.
    assert [r.before for r in reminder_times(deadline, deadline - 24 * H)] == [2 * H]


def test_reminders_count_wall_time_even_over_a_stopped_clock() -> None:
    friday_noon = utc(2025, 1, 10, 12)
    deadline = PerMove(D, weekends_off=True).deadline(friday_noon)
    assert deadline == utc(2025, 1, 13, 12)
    assert [r.at for r in reminder_times(deadline, friday_noon)] == [
        utc(2025, 1, 12, 12),
        utc(2025, 1, 13, 10),
    ]


def test_reminder_offsets_are_configurable_and_checked() -> None:
    deadline, start = utc(2025, 1, 9, 9), utc(2025, 1, 1)
    custom = reminder_times(deadline, start, [2 * D, H, H])
    assert [r.at for r in custom] == [utc(2025, 1, 7, 9), utc(2025, 1, 9, 8)]
    with pytest.raises(BadTimeControl, match="positive"):
        reminder_times(deadline, start, [timedelta(0)])
    with pytest.raises(NaiveDatetime):
        reminder_times(datetime(2025, 1, 9), start)


# --- vacation allowance ----------------------------------------------------------------------

TODAY = date(2025, 6, 1)


def test_an_absence_within_the_allowance_fits() -> None:
    taken = [Absence(date(2025, 7, 1), date(2025, 7, 20))]
    assert check_absence(date(2025, 8, 1), date(2025, 8, 10), taken, today=TODAY)
    assert check_absence(date(2025, 8, 1), date(2025, 8, 10), taken, today=TODAY).ok
    refused = check_absence(date(2025, 8, 1), date(2025, 8, 11), taken, today=TODAY)
    assert not refused
    assert refused.reason == (
        "this absence needs 11 days in 2025, but only 10 of your 30 vacation days for 2025 are left"
    )


def test_the_allowance_is_split_across_calendar_years() -> None:
    taken = [Absence(date(2025, 2, 1), date(2025, 2, 25))]  # 25 days of 2025
    assert check_absence(date(2025, 12, 27), date(2026, 1, 10), taken, today=TODAY)
    refused = check_absence(date(2025, 12, 26), date(2026, 1, 10), taken, today=TODAY)
    assert "6 days in 2025" in refused.reason
    # 40 days over New Year fit when no year gets more than 30 of them.
    assert check_absence(date(2025, 12, 2), date(2026, 1, 10), [], today=TODAY)
    assert (
        "31 days in 2025"
        in check_absence(date(2025, 12, 1), date(2026, 1, 9), [], today=TODAY).reason
    )


def test_absences_may_not_overlap_but_may_touch() -> None:
    taken = [Absence(date(2025, 7, 1), date(2025, 7, 5))]
    refused = check_absence(date(2025, 7, 5), date(2025, 7, 8), taken, today=TODAY)
    assert refused.reason == "it overlaps your absence 2025-07-01..2025-07-05"
    assert check_absence(date(2025, 7, 6), date(2025, 7, 8), taken, today=TODAY)


def test_absences_must_run_forward_from_today() -> None:
    backwards = check_absence(date(2025, 7, 8), date(2025, 7, 6), [], today=TODAY)
    assert backwards.reason == "the absence ends (2025-07-06) before it starts (2025-07-08)"
    past = check_absence(date(2025, 5, 31), date(2025, 6, 2), [], today=TODAY)
    assert "starts in the past" in past.reason
    assert check_absence(TODAY, date(2025, 6, 2), [], today=TODAY)


def test_no_allowance_means_no_absences() -> None:
    refused = check_absence(date(2025, 7, 1), date(2025, 7, 1), [], today=TODAY, allowance_days=0)
    assert refused.reason == "vacations are not allowed here"


def test_days_in_year_counts_overlapping_days_once() -> None:
    absences = [
        Absence(date(2025, 1, 1), date(2025, 1, 10)),
        Absence(date(2025, 1, 5), date(2025, 1, 12)),
    ]
    assert days_in_year(absences, 2025) == 12
    assert days_in_year(absences, 2024) == 0


# --- properties ------------------------------------------------------------------------------

ZONES = [
    "UTC",
    AMS,
    "America/New_York",
    "America/Santiago",  # DST changes at midnight
    "Asia/Kolkata",  # +05:30
    "Australia/Adelaide",  # +09:30 with DST
    "Australia/Lord_Howe",  # a half-hour DST shift
]

instants = st.datetimes(
    min_value=datetime(2020, 1, 1), max_value=datetime(2030, 12, 31), timezones=st.just(UTC)
)
budgets = st.timedeltas(min_value=timedelta(0), max_value=timedelta(days=40))


@st.composite
def player_clocks(draw: st.DrawFn, start: datetime) -> dict[str, Any]:
    """A zone, a weekend flag, and absences near ``start`` so that they matter."""
    base = start.date()
    absence = st.builds(
        lambda offset, length: Absence(base + D * offset, base + D * (offset + length)),
        st.integers(-5, 45),
        st.integers(0, 10),
    )
    return {
        "zone": draw(st.sampled_from(ZONES)),
        "weekends_off": draw(st.booleans()),
        "absences": draw(st.lists(absence, max_size=4)),
    }


@settings(max_examples=150, deadline=None)
@given(st.data(), instants, budgets)
def test_deadline_after_and_counted_time_are_inverses(
    data: st.DataObject, start: datetime, budget: timedelta
) -> None:
    clock = data.draw(player_clocks(start))
    deadline = deadline_after(start, budget, **clock)
    assert counted_time(start, deadline, **clock) == budget
    if budget:  # and it is the first such instant
        assert counted_time(start, deadline - timedelta(microseconds=1), **clock) < budget
    end = start + data.draw(budgets)
    used = counted_time(start, end, **clock)
    back = deadline_after(start, used, **clock)
    assert back <= end
    assert counted_time(back, end, **clock) == timedelta(0)


@settings(max_examples=150, deadline=None)
@given(st.data(), instants, budgets, budgets)
def test_clock_arithmetic_is_monotonic_and_additive(
    data: st.DataObject, start: datetime, first: timedelta, second: timedelta
) -> None:
    clock = data.draw(player_clocks(start))
    small, large = sorted((first, second))
    assert deadline_after(start, small, **clock) <= deadline_after(start, large, **clock)
    middle, end = start + small, start + large
    assert counted_time(start, middle, **clock) <= counted_time(start, end, **clock)
    assert counted_time(start, end, **clock) == (
        counted_time(start, middle, **clock) + counted_time(middle, end, **clock)
    )
    assert deadline_after(start, small, **clock) <= deadline_after(middle, small, **clock)


@settings(max_examples=60, deadline=None)
@given(st.data(), instants, st.integers(0, 4 * 24 * 8))
def test_counted_time_matches_counting_quarter_hours(
    data: st.DataObject, start: datetime, quarters: int
) -> None:
    # Local midnights fall on whole quarter hours in every zone used, so this count is exact.
    start = start.replace(minute=start.minute // 15 * 15, second=0, microsecond=0)
    clock = data.draw(player_clocks(start))
    zone, absences = ZoneInfo(clock["zone"]), clock["absences"]

    def paused(day: date) -> bool:
        weekend = clock["weekends_off"] and day.weekday() >= 5
        return weekend or any(a.start <= day <= a.end for a in absences)

    quarter = timedelta(minutes=15)
    running = 0
    for n in range(quarters):
        moment = start + n * quarter
        is_running = not paused(moment.astimezone(zone).date())
        assert clock_running(moment, **clock) == is_running
        running += is_running
    assert counted_time(start, start + quarters * quarter, **clock) == running * quarter


durations = st.integers(1, 365 * 24 * 60).map(lambda minutes: timedelta(minutes=minutes))
controls = st.one_of(
    st.builds(PerMove, durations, st.booleans()),
    st.builds(
        lambda initial, extra, increment, weekends: Fischer(
            initial, increment, min(initial + extra, timedelta(days=365)), weekends
        ),
        durations,
        durations,
        st.integers(0, 7 * 24 * 60).map(lambda minutes: timedelta(minutes=minutes)),
        st.booleans(),
    ),
)


@given(controls)
def test_text_and_dict_forms_round_trip(control: TimeControl) -> None:
    assert parse_time_control(str(control)) == control
    assert time_control_from_dict(json.loads(json.dumps(control.to_dict()))) == control
