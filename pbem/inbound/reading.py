"""What a reply says: its new text, and the move, note or command in it.

:func:`reply_text` takes the text of a reply email (the text/plain part, or the HTML part made text
when there is none) and strips what was quoted and the signature; :func:`read_reply` reads the
move, note or command from that text. Neither checks a move: the caller asks the game engine.

>>> read_reply("C2-E2\\nnote: your turn!\\n\\nOn Mon, 23 Nov 2026 at 21:00, pbem wrote:\\n> pass")
Reply(steps=('C2-E2',), note='your turn!', command=None, said='')
>>> read_reply("Vacation 2w").command
Command(name='vacation', days=14, setting=None, hour=None)
>>> read_reply("notify digest 7").command
Command(name='notify', days=None, setting='digest', hour=7)

Quotes are stripped twice over: first by mail-parser-reply (English, Dutch, German and Italian
headers), then by the rules here, which catch what it misses (Gmail's Dutch "Op ... schreef pbem
<...>:", Apple Mail's "... het volgende geschreven:", headers wrapped over two lines, replies
written below the quote, "-- " signatures and "Sent from my iPhone" lines).

The command words of each language are in :mod:`pbem.inbound.words`, the text of an HTML body in
:mod:`pbem.inbound.html_text`.
"""

from __future__ import annotations

import re
from dataclasses import dataclass
from email.message import EmailMessage, Message

from mailparser_reply import EmailReplyParser  # type: ignore[import-untyped]

from pbem.conditional.tree import is_conditional_line
from pbem.inbound.html_text import html_to_text
from pbem.inbound.words import COMMAND_WORDS as COMMAND_WORDS  # re-exported: still read from here
from pbem.inbound.words import (
    COMMANDS,
    DAY_UNITS,
    LANGUAGES,
    NOTIFY_WORDS,
    WEEK_UNITS,
    CommandName,
    words_of,
)
from pbem.inbound.words import command_words as command_words  # re-exported too


@dataclass(frozen=True)
class Command:
    """A command alone on the first line; ``days`` only for ``vacation``; ``setting`` and
    ``hour`` only for ``notify`` (``notify digest 8``: "digest", 8)."""

    name: CommandName
    days: int | None = None
    setting: str | None = None
    hour: int | None = None


@dataclass(frozen=True)
class Reply:
    """A reply read: the move (its steps), a note for the other players, or a command; and
    what it says to the game's other players (``said``: its ``say:`` lines), beside any of them.

    Nothing at all (no steps, no command, nothing said) is an empty reply, which the caller
    answers with help.
    """

    steps: tuple[str, ...] = ()
    note: str = ""
    command: Command | None = None
    said: str = ""


# -- the new text of a reply -------------------------------------------------------------------


def reply_text(message: EmailMessage) -> str:
    """The new text of a reply email: quotes, attribution lines and signature removed.

    >>> from email.message import EmailMessage
    >>> message = EmailMessage()
    >>> message.set_content("e5\\n\\nOp ma 23 nov 2026 om 21:00 schreef pbem <p@x.org>:\\n> d4\\n")
    >>> reply_text(message)
    'e5'
    """
    text = ""
    plain = message.get_body(preferencelist=("plain",))
    if plain is not None:
        text = _unflowed(_content(plain), plain)
    if not text.strip():  # no text/plain, or an empty one next to the HTML that has the reply
        html = message.get_body(preferencelist=("html",))
        if html is not None:
            text = html_to_text(_content(html))
    return strip_quotes(text)


def _content(part: Message) -> str:
    try:
        content = part.get_content()  # type: ignore[attr-defined]
    except (LookupError, UnicodeError, ValueError):  # an unknown or lying charset
        payload = part.get_payload(decode=True)
        content = payload.decode("utf-8", "replace") if isinstance(payload, bytes) else ""
    return content if isinstance(content, str) else ""


def _unflowed(text: str, part: Message) -> str:
    """Undo format=flowed (RFC 3676; Thunderbird, Apple Mail): soft line breaks end in a space."""
    if str(part.get_param("format", "")).lower() != "flowed":
        return text
    delsp = str(part.get_param("delsp", "")).lower() == "yes"
    lines: list[tuple[int, str]] = []  # (quote depth, text)
    joining = False
    for raw in text.replace("\r\n", "\n").split("\n"):
        depth = len(raw) - len(raw.lstrip(">"))
        line = raw[depth:]
        line = line[1:] if line.startswith(" ") else line  # space-stuffing
        if joining and lines and lines[-1][0] == depth:
            lines[-1] = (depth, lines[-1][1] + line)
        else:
            lines.append((depth, line))
        joining = line.endswith(" ") and line != "-- "
        if joining and delsp:
            lines[-1] = (depth, lines[-1][1][:-1])
    return "\n".join(f"{'>' * depth} {line}" if depth else line for depth, line in lines)


_PARSER = EmailReplyParser(languages=list(LANGUAGES))


def strip_quotes(text: str) -> str:
    """The new text of a reply body: mail-parser-reply first, then the rules of this module.

    When mail-parser-reply leaves nothing (a reply written below the quote, after a quoted
    header it took for the start of an older message), the rules alone read the whole text.

    >>> strip_quotes("d4\\n\\nVon meinem iPhone gesendet\\n\\n> Am 23.11.2026 schrieb pbem:\\n> e5")
    'd4'
    """
    text = _normalized(text)
    head = text[:_LIBRARY_MAX_TEXT]
    first = ""
    if max(map(len, head.split("\n"))) <= _LIBRARY_MAX_LINE:
        try:
            replies = _PARSER.read(head).replies
            first = replies[0].body if replies else ""
        except Exception:  # a library bug must not stop a reply: the rules below still read it
            first = ""
    return _new_lines(first) or _new_lines(text)


# mail-parser-reply's header expressions backtrack on long lines that start like an attribution
# ("On x x x ...": about 2 s for fifty lines of 1000 characters), so it only gets a bounded head
# of short lines; otherwise the rules below, which do all it does here, read the text alone.
_LIBRARY_MAX_TEXT = 16_000
_LIBRARY_MAX_LINE = 400


_INVISIBLE = dict.fromkeys(map(ord, "\u200b\u200c\u200d\u2060\ufeff\u00ad"))
_SPACES = dict.fromkeys(map(ord, "\u00a0\u2007\u202f\u3000\t"), " ")


def _normalized(text: str) -> str:
    """Unix line ends, plain spaces for non-breaking ones, no zero-width characters."""
    text = text.replace("\r\n", "\n").replace("\r", "\n")
    return text.translate(_INVISIBLE).translate(_SPACES)


# Attribution lines of replies in the four languages, e.g. Gmail "On Mon, 23 Nov 2026 at 21:00,
# pbem <play@x> wrote:", "Op ma 23 nov 2026 om 21:00 schreef pbem <play@x>:", Apple Mail "Op 23
# nov 2026 om 21:00 heeft pbem <play@x> het volgende geschreven:", "Am 23.11.2026 um 21:00
# schrieb pbem:", "Il giorno lun 23 nov 2026 alle ore 21:00 pbem <play@x> ha scritto:".
_VERBS = r"(?:wrote|schreef|geschreven|schrieb|ha\s+scritto)"
_ATTRIBUTION = re.compile(rf"(?:on|op|am|il)\s.{{3,300}}?\b{_VERBS}\b[^:]{{0,120}}:", re.I)
# "pbem <play@x> wrote:" and the like, taken for an attribution only when a quote follows.
_LOOSE_ATTRIBUTION = re.compile(rf".{{1,300}}\b{_VERBS}\s*:", re.I)
_ORIGINAL_MESSAGE = re.compile(
    r"-{3,}\s*(?:original\s+message|oorspronkelijk\s+bericht|originele?\s+bericht"
    r"|urspr(?:ü|ue)ngliche\s+nachricht|original\s+nachricht|messaggio\s+originale)\s*-{3,}",
    re.I)
# Outlook's block "From: / Sent: / To: / Subject:" in the four languages.
_HEADER_FROM = re.compile(r"[*\s]*(?:from|van|von|da)[*\s]*:", re.I)
_HEADER_OTHER = re.compile(r"[*\s]*(?:sent|date|to|cc|subject|verzonden|datum|aan|onderwerp"
                          r"|gesendet|an|betreff|inviato|data|a|oggetto)[*\s]*:", re.I)
_RULE = re.compile(r"[_\-=]{10,}")
# Lines phones and Outlook's apps add under a reply ("Sent from my iPhone", "Get Outlook for iOS").
_SENT_FROM = re.compile(
    r"(?:sent\s+from\s+my|verstuurd\s+vanaf\s+mijn|verzonden\s+vanaf\s+mijn"
    r"|von\s+meinem\s+\S+(?:\s+\S+)?\s+gesendet|gesendet\s+von\s+meinem|inviato\s+da(?:l\s+mio)?"
    r"|(?:get|download|ottieni|scarica)?\s*outlook\s+(?:for|voor|f(?:ü|ue)r|per)\s+(?:ios|android)"
    r")(?:\W.{0,60})?", re.I)


def _next_text(lines: list[str], start: int) -> int:
    """The index of the first non-blank line from ``start`` (``len(lines)`` if none)."""
    while start < len(lines) and not lines[start].strip():
        start += 1
    return start


def _quoted(lines: list[str], index: int) -> bool:
    return index < len(lines) and lines[index].lstrip().startswith(">")


def _outlook_header(lines: list[str], index: int) -> bool:
    """A "From:" line followed, within three lines, by another header of the block."""
    if index >= len(lines) or not _HEADER_FROM.match(lines[index]):
        return False
    return any(_HEADER_OTHER.match(line) for line in lines[index + 1:index + 4])


def _old_message(lines: list[str], index: int) -> bool:
    """Outlook's start of the old message: "-----Original Message-----" or a header block."""
    return _ORIGINAL_MESSAGE.fullmatch(lines[index].strip()) is not None or _outlook_header(
        lines, index)


def _attribution(lines: list[str], index: int) -> int:
    """How many lines (0, 1 or 2: Gmail wraps long ones) the attribution at ``index`` takes."""
    line = lines[index].strip()
    if _ATTRIBUTION.fullmatch(line):
        return 1
    if index + 1 < len(lines) and _ATTRIBUTION.fullmatch(f"{line} {lines[index + 1].strip()}"):
        return 2
    if _LOOSE_ATTRIBUTION.fullmatch(line) and _quoted(lines, _next_text(lines, index + 1)):
        return 1
    return 0


def _new_lines(text: str) -> str:
    """The rules: drop quoted lines and phone signatures; stop at a signature or an old message.

    An attribution followed by quoted lines is dropped with them and reading goes on below (some
    people answer under the quote); followed by anything else, it starts the old message.
    """
    lines = _normalized(text).split("\n")
    kept: list[str] = []
    index = 0
    while index < len(lines):
        line = lines[index].strip()
        if line.startswith(">") or _SENT_FROM.fullmatch(line):
            index += 1
            continue
        if line == "--" or _old_message(lines, index):
            break
        if _RULE.fullmatch(line):  # Outlook's rule above the old message, or left at the end
            after = _next_text(lines, index + 1)
            if after == len(lines) or _old_message(lines, after):
                break
        if size := _attribution(lines, index):
            if not _quoted(lines, _next_text(lines, index + size)):
                break
            index += size
            continue
        kept.append(line)
        index += 1
    return "\n".join(kept).strip("\n")


# -- reading the new text ----------------------------------------------------------------------

def _either(words: tuple[str, ...]) -> str:
    return "|".join(re.escape(word) for word in sorted(words, key=len, reverse=True))


_NOTE = re.compile(rf"(?:{_either(words_of('note'))})\s*:\s*", re.I)
_SAY = re.compile(rf"(?:{_either(words_of('say'))})\s*:\s*", re.I)
_PLAIN_COMMANDS: dict[str, CommandName] = {
    word: name for name in COMMANDS if name not in ("vacation", "notify")
    for word in words_of(name)}
_SETTINGS: dict[str, str] = {word: setting for language in NOTIFY_WORDS.values()
                             for setting, words in language.items() for word in words}
# Any word after "notify" makes it the command: one it does not know is refused with the choices.
_NOTIFY = re.compile(rf"(?:{_either(words_of('notify'))})(?:\s+(\S+)"
                     r"(?:\s+(\d{1,2})(?:[:.]00)?\s*h?)?)?", re.I)
_VACATION = re.compile(rf"(?:{_either(words_of('vacation'))})\s+(\d{{1,3}})\s*"
                       rf"({_either(DAY_UNITS + WEEK_UNITS)})?", re.I)


def _command(line: str) -> Command | None:
    """The command a whole first line is, in any case and with a full stop or so after it."""
    words = " ".join(line.split()).rstrip(".!?").strip()
    if name := _PLAIN_COMMANDS.get(words.lower()):
        return Command(name)
    if (match := _VACATION.fullmatch(words)) and int(match.group(1)) > 0:
        weeks = (match.group(2) or "d").lower() in WEEK_UNITS
        return Command("vacation", int(match.group(1)) * (7 if weeks else 1))
    if match := _NOTIFY.fullmatch(words):  # "notify" alone asks what is set
        setting = _SETTINGS.get(match.group(1).lower(), "") if match.group(1) else None
        return Command("notify", setting=setting,
                       hour=int(match.group(2)) if match.group(2) else None)
    return None


def read_reply(text: str) -> Reply:
    """The move, note or command in the new text of a reply.

    The first non-empty line is a command (alone on it) or the move; a move of several steps goes
    on the following lines, up to a blank line, or is separated by ";". Lines after it that start
    with "note:" are the note (a wrapped note goes on until a blank line; several notes are
    joined by line breaks). Quoted lines and phone signatures are skipped here too, so a reply
    written below the quote reads well.

    >>> read_reply("C2-E2; E2xG4\\nnote: sorry\\r\\n\\nSent from my iPhone")
    Reply(steps=('C2-E2', 'E2xG4'), note='sorry', command=None, said='')
    >>> read_reply("PASS")
    Reply(steps=(), note='', command=Command(name='pass', days=None, setting=None, hour=None),
          said='')
    >>> read_reply("")
    Reply(steps=(), note='', command=None, said='')

    Lines that start with "say:" are a message to the game's other players, wherever they stand
    (a message goes on to the next blank line, its line breaks kept); the rest of the reply is
    read without them, so it may still be a move or a command.

    >>> reply = read_reply("say: well played!\\nSee you next game.\\n\\nresign")
    >>> reply.command.name, reply.said
    ('resign', 'well played!\\nSee you next game.')
    """
    lines, said = _without_messages([" ".join(line.split())
                                     for line in _new_lines(text).split("\n")])
    start = _next_text(lines, 0)
    if start == len(lines):
        return Reply(said=said)
    command = _command(lines[start])
    steps: list[str] = []
    index = start + 1 if command else start
    if command is None:
        while index < len(lines) and lines[index] and not _NOTE.match(lines[index]):
            # A conditional move's line keeps its ";": there it joins the steps of one move.
            steps += ([lines[index]] if is_conditional_line(lines[index]) else
                      (step.strip() for step in lines[index].split(";") if step.strip()))
            index += 1
    notes: list[str] = []
    in_note = False
    for line in lines[index:]:
        if match := _NOTE.match(line):
            notes.append(line[match.end():])
            in_note = True
        elif in_note and line:
            notes[-1] = f"{notes[-1]} {line}".strip()
        else:
            in_note = False
    return Reply(tuple(steps), "\n".join(note for note in notes if note), command, said)


def _without_messages(lines: list[str]) -> tuple[list[str], str]:
    """(the lines that are not a "say:" message, the messages joined by blank lines)."""
    kept: list[str] = []
    said: list[list[str]] = []
    in_message = False
    for line in lines:
        if match := _SAY.match(line):
            said.append([line[match.end():]])
            in_message = True
        elif in_message and line and not _NOTE.match(line):
            said[-1].append(line)
        else:
            in_message = False
            kept.append(line)
    messages = ("\n".join(part for part in message if part).strip() for message in said)
    return kept, "\n\n".join(message for message in messages if message)
