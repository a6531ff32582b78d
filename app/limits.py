"""Every limit of the service in one place, and the validators that enforce them.

Services call these checks (so the HTML forms and the JSON API refuse the same input with
the same 422 message at the field); the API schemas use the same rules through the
annotated types :data:`Name` and :data:`Text`. ``docs/security.md`` ("Limits") lists every
constant here; ``tests/api/test_limits_doc.py`` keeps that table and this module in step.
The per-user write rate and the request body size are settings (``app.config``).
"""

from __future__ import annotations

import math
import time
import unicodedata
from collections.abc import Mapping
from typing import Annotated, Any

from pydantic import AfterValidator, Field, StringConstraints

from app.db import IDLE_IN_TRANSACTION_SECONDS as IDLE_IN_TRANSACTION_SECONDS
from app.errors import TooManyRequests, ValidationFailed
from app.i18n import _

# --- text -----------------------------------------------------------------------------------

#: Names of campaigns, characters, items, encounters, participants and bestiary entries.
NAME_MAX = 100
#: One-line sheet values (a profession, a weapon's name on the sheet).
LINE_MAX = 100
#: Free text: descriptions, notes, long sheet values, any string inside structured data.
TEXT_MAX = 5000
#: Label of a dice roll.
LABEL_MAX = 100
#: Keys inside structured data (``data``, ``fields``, ``settings``, ``stats``).
KEY_MAX = 100
#: An invite code as typed (the real ones have 12 characters).
INVITE_CODE_MAX = 64
#: A member's client seed for a fair-play session (any text).
CLIENT_SEED_MAX = 64

# --- integers -------------------------------------------------------------------------------

#: The largest integer a request may give for anything stored in or compared with a
#: PostgreSQL ``integer`` column (ids, seqs, versions, quantities, prices, modifiers): a
#: larger one is refused with 422 at the field instead of failing in the database.
INT_MAX = 2_147_483_647

#: An integer a PostgreSQL ``integer`` holds (the services check the real range).
Int32 = Annotated[int, Field(ge=-INT_MAX - 1, le=INT_MAX)]
#: A row's version as the client read it (a stale one answers 409).
Version = Annotated[int, Field(ge=0, le=INT_MAX)]
#: A reference to a row (an id, a user, a character, a recipient).
RowId = Annotated[int, Field(ge=1, le=INT_MAX)]
#: A position in a campaign's log (``seq``); 0 is before the first event.
Seq = Annotated[int, Field(ge=0, le=INT_MAX)]

# --- structured data ------------------------------------------------------------------------

#: Keys and list entries, counted over every level, in one ``data``/``fields``/``settings``/
#: ``stats`` object. The largest real sheet (PF2e) has about 50.
DATA_ENTRIES_MAX = 500
#: Nesting depth of such an object.
DATA_DEPTH_MAX = 8

# --- collections a user can grow ------------------------------------------------------------

#: Campaigns one user is GM of.
CAMPAIGNS_PER_GM = 50
#: Members of a campaign (joining beyond it is refused).
MEMBERS_PER_CAMPAIGN = 100
#: Invites of a campaign that are neither revoked nor expired.
INVITES_PER_CAMPAIGN = 50
#: Game sessions of a campaign (ended ones included).
SESSIONS_PER_CAMPAIGN = 1000
#: Characters of a campaign, archived ones included.
CHARACTERS_PER_CAMPAIGN = 200
#: Items a character carries (an import with more is refused as a whole).
ITEMS_PER_CHARACTER = 200
#: Keys and list entries in a whole character file: a sheet and its items (about 25 each).
FILE_ENTRIES_MAX = DATA_ENTRIES_MAX + ITEMS_PER_CHARACTER * 50
#: XP one gain from the sheet may give (H&H «Band der Erfahrung» shares it).
XP_GAIN_MAX = 100
#: XP a sheet may hold (the sheet field's maximum).
XP_MAX = 1_000_000
#: Rests an H&H sheet keeps for the per-day limits (the last ones; two days' worth).
REST_RECORDS_KEPT = 6
#: Hours a rest may start after the end of the last one (H&H sheet clock).
REST_HOURS_MAX = 240
#: Entries of a campaign's item library.
LIBRARY_ITEMS_PER_CAMPAIGN = 200
#: Bestiary entries of a campaign.
BESTIARY_ENTRIES_PER_CAMPAIGN = 200
#: Encounters of a campaign.
ENCOUNTERS_PER_CAMPAIGN = 200
#: Participants of one encounter.
PARTICIPANTS_PER_ENCOUNTER = 60

#: Personal API tokens of a user.
API_TOKENS_PER_USER = 20

#: Webhooks of a campaign (Discord or others).
WEBHOOKS_PER_CAMPAIGN = 5

#: Battle map scenes of a campaign.
SCENES_PER_CAMPAIGN = 50
#: Columns and rows of a scene (each).
SCENE_SIDE_MAX = 100
#: Tokens on one scene.
TOKENS_PER_SCENE = 200
#: Unit wall and door edges of one scene (walls and doors together).
SCENE_EDGES_MAX = 4000
#: Cells named in one fog change, one path, one terrain list.
MAP_CELLS_PER_REQUEST = SCENE_SIDE_MAX * SCENE_SIDE_MAX
#: Steps of a move's path.
MOVE_PATH_MAX = 200
#: Waypoints of a move (``via``).
MOVE_WAYPOINTS_MAX = 20
#: Token size in cells (a side).
TOKEN_SIZE_MAX = 6
#: Waypoints of a ruler.
RULER_POINTS_MAX = 20
#: Light sources placed on the cells of one scene.
LIGHTS_PER_SCENE = 50
#: Radius of a light (on a cell or carried by a token), in cells.
LIGHT_RADIUS_MAX = 30

# --- uploaded images ------------------------------------------------------------------------

#: Bytes of one uploaded image (map background, handout picture); its route allows this body.
IMAGE_UPLOAD_BYTES = 10 * 1_048_576
#: Pixels of the longer side of an uploaded image.
IMAGE_MAX_SIDE = 8192
#: Pixels of an uploaded image in all (checked from its header, before decoding).
IMAGE_MAX_PIXELS = 40_000_000

# --- pages of the log -----------------------------------------------------------------------

#: Entries per page of the dice log and of a sheet's history (HTML and API).
LOG_PAGE = 50
#: Entries of a sheet's history in one API answer.
HISTORY_API_PAGE = 200
#: Seconds a browser waits (SSE ``retry``) before it reconnects a stream the server closed
#: because its user or credential opened more than ``TAFELRUNDE_STREAMS_PER_USER`` /
#: ``TAFELRUNDE_STREAMS_PER_CREDENTIAL`` streams.
STREAM_RETRY_SECONDS = 60
#: Events a (re)connecting stream reads from the database at a time.
REPLAY_BATCH = 200
#: Page streams one campaign feed carries for the tabs of a browser (``app.web.feed``); a
#: tab whose stream finds no room catches it up with its own short requests.
FEED_STREAMS = 16
#: Characters of one page stream's address given to the feed.
FEED_STREAM_URL = 120
#: Entries per page of an encounter's combat log (page and API).
COMBAT_LOG_ENTRIES = 200
#: Undo steps kept per encounter.
UNDO_STEPS = 30

# --- the GM's risk estimate (issue 18) ------------------------------------------------------

#: Simulated fights of one risk estimate.
RISK_TRIALS_MAX = 20_000
#: Seconds one risk estimate may run (in a worker thread); then the fights played so far count.
RISK_SECONDS = 5

# --- printouts (issue 30) -------------------------------------------------------------------

#: Pages of one PDF printout; a longer one is refused (a handout's longest text fills about 8).
PRINT_PAGES_MAX = 30
#: PDF printouts laid out at once per process (each in a worker thread); more wait their turn.
PRINT_RENDERS_AT_ONCE = 2

# --- the rules ------------------------------------------------------------------------------

#: Characters a name may not contain: control characters (``Cc``), format characters
#: (``Cf``: bidi embeddings, overrides and isolates, zero-width space/joiners, BOM),
#: surrogates, private-use and unassigned code points, line and paragraph separators.
NAME_FORBIDDEN_CATEGORIES = frozenset({"Cc", "Cf", "Cs", "Co", "Cn", "Zl", "Zp"})
#: Control characters free text may contain.
TEXT_ALLOWED_CONTROLS = frozenset("\t\n\r")


def name_problem(value: str, max_len: int = NAME_MAX) -> str | None:
    """Why ``value`` (already stripped) is no name, or ``None``."""
    if not 1 <= len(value) <= max_len:
        return _("Give a name of at most %(max)d characters.", max=max_len)
    if any(unicodedata.category(ch) in NAME_FORBIDDEN_CATEGORIES for ch in value):
        return _("Names may not contain control, format or invisible characters.")
    return None


def text_problem(value: str, max_len: int = TEXT_MAX) -> str | None:
    """Why ``value`` is no acceptable free text, or ``None``."""
    if len(value) > max_len:
        return _("At most %(max)d characters.", max=max_len)
    if any(unicodedata.category(ch) == "Cc" and ch not in TEXT_ALLOWED_CONTROLS for ch in value):
        return _("The text may not contain control characters (such as NUL).")
    return None


def check_name(value: str, field: str = "name", max_len: int = NAME_MAX) -> str:
    """The stripped name, or 422 at ``field``: the one rule for every name field."""
    name = value.strip()
    problem = name_problem(name, max_len)
    if problem:
        raise ValidationFailed({field: problem})
    return name


def check_text(value: str, field: str, max_len: int = TEXT_MAX) -> str:
    """``value`` unchanged, or 422 at ``field``."""
    problem = text_problem(value, max_len)
    if problem:
        raise ValidationFailed({field: problem})
    return value


def check_no_nul(value: str, field: str) -> str:
    """For inputs with a rule of their own (login name, invite code): NUL never reaches SQL."""
    if "\x00" in value:
        raise ValidationFailed(
            {field: _("The text may not contain control characters (such as NUL).")}
        )
    return value


def data_problem(value: Any, max_entries: int = DATA_ENTRIES_MAX) -> tuple[str, str] | None:
    """The first problem of a structured value as (dotted path, message), or ``None``.

    Counts keys and list entries over all levels, bounds the depth and checks every key and
    string; stops as soon as a bound is crossed, so a huge document costs little.
    """
    entries = 0
    stack: list[tuple[Any, str, int]] = [(value, "", 0)]
    while stack:
        node, path, depth = stack.pop()
        if isinstance(node, str):
            problem = text_problem(node)
            if problem:
                return path, problem
            continue
        if not isinstance(node, Mapping | list):
            continue
        if depth >= DATA_DEPTH_MAX:
            return path, _("Nested more than %(max)d levels deep.", max=DATA_DEPTH_MAX)
        entries += len(node)
        if entries > max_entries:
            return path, _("More than %(max)d entries.", max=max_entries)
        children = node.items() if isinstance(node, Mapping) else enumerate(node)
        for key, child in children:
            label = str(key)
            if isinstance(key, str) and (len(key) > KEY_MAX or text_problem(key)):
                return path, _("A key is too long or contains control characters.")
            stack.append((child, f"{path}.{label}" if path else label, depth + 1))
    return None


def check_data(value: Any, field: str | None = None) -> None:
    """422 for structured data beyond the bounds. The error is at ``field`` (or, without
    one, at the top-level key the problem is under: the form field of a sheet)."""
    found = data_problem(value)
    if found is None:
        return
    path, message = found
    top = path.split(".", 1)[0]
    raise ValidationFailed({field or top or "data": message})


def check_room(count: int, limit: int, field: str) -> None:
    """422 when a collection holding ``count`` entries already has ``limit``."""
    if count >= limit:
        raise ValidationFailed(
            {field: _("The limit of %(max)d has been reached; remove some first.", max=limit)}
        )


# --- for API schemas ------------------------------------------------------------------------


def _name(value: str) -> str:
    name = value.strip()
    problem = name_problem(name)
    if problem:
        raise ValueError(problem)
    return name


def _text(value: str) -> str:
    problem = text_problem(value)
    if problem:
        raise ValueError(problem)
    return value


#: A name in a JSON body: the rule of :func:`check_name`.
Name = Annotated[str, StringConstraints(max_length=NAME_MAX * 2), AfterValidator(_name)]
#: Free text in a JSON body: the rule of :func:`check_text`.
Text = Annotated[str, StringConstraints(max_length=TEXT_MAX), AfterValidator(_text)]


# --- writes per user ------------------------------------------------------------------------


class WriteRateLimiter:
    """A token bucket per user for unsafe requests: ``burst`` at once, refilled at
    ``per_minute``. In-process: with several processes each keeps its own buckets, so a
    user gets up to that many times the rate (see docs/security.md)."""

    def __init__(self, per_minute: float, burst: int) -> None:
        self.rate = per_minute / 60.0
        self.burst = float(burst)
        self._buckets: dict[int, tuple[float, float]] = {}

    def take(self, user_id: int, now: float | None = None) -> None:
        """Spend one write of ``user_id`` or raise :class:`TooManyRequests`."""
        now = time.monotonic() if now is None else now
        tokens, then = self._buckets.get(user_id, (self.burst, now))
        tokens = min(self.burst, tokens + (now - then) * self.rate)
        if tokens < 1.0:
            self._buckets[user_id] = (tokens, now)
            wait = math.ceil((1.0 - tokens) / self.rate) if self.rate > 0 else 60
            raise TooManyRequests(
                _(
                    "Too many changes in a short time. Please wait %(seconds)d seconds.",
                    seconds=wait,
                ),
                retry_after=wait,
            )
        self._buckets[user_id] = (tokens - 1.0, now)
        if len(self._buckets) > 10_000:
            self._forget_full(now)

    def _forget_full(self, now: float) -> None:
        """Drop buckets that have refilled: they hold nothing a new bucket would not."""
        for user_id, (tokens, then) in list(self._buckets.items()):
            if tokens + (now - then) * self.rate >= self.burst:
                del self._buckets[user_id]
