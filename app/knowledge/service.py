"""What the heroes know of the bestiary: reveal facts, read them per viewer, knowledge checks.

Every fact of an entry (``systems.<system>.facts``) is hidden from players until revealed:
by a GM by hand (:func:`reveal`) or by a knowledge check from a sheet (:func:`prepare_check`
before the roll, :func:`apply_check` with the engine's outcome after it). A fact is revealed
to the party (every member who is not a GM: a ``public`` ``knowledge_revealed`` event) or to
chosen members (``listed``). A PF2e critical failure proposes a false fact that only the
GMs see (``knowledge_false_pending``, ``gm``) until one confirms or replaces it
(:func:`confirm`); then it reaches its audience like a true one, and nothing tells a player
it is false.

The bestiary lives in ``app.encounters`` (a layer above); this package reads the few
columns it needs through a ``table()`` of its own, as the log does with the campaign.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field
from typing import Any, Literal

from sqlalchemy import JSON, Integer, String, and_, column, or_, select, table
from sqlalchemy.ext.asyncio import AsyncSession
from sqlalchemy.orm.exc import StaleDataError

from app import limits
from app.accounts.models import User
from app.campaigns import service as campaigns
from app.campaigns.models import Campaign
from app.campaigns.permissions import Action, authorize_viewer
from app.campaigns.settings import current as current_settings
from app.core.systems import RuleSystem
from app.core.viewer import Viewer
from app.errors import Conflict, NotFound, ValidationFailed
from app.events.audience import gm_only, listed, public
from app.events.service import append_event
from app.i18n import _
from app.knowledge.events import KnowledgeFalsePending, KnowledgeRevealed
from app.knowledge.models import KnownFact
from app.knowledge.systems import knowledge_rules
from app.knowledge.systems.protocol import Fact

Audience = list[int] | Literal["party"]
#: Facts named in one reveal, and members it may go to.
FACTS_MAX = 50
RECIPIENTS_MAX = 20
#: A false fact's text as the GM writes it.
TEXT_MAX = 200
#: The campaign option (every system) that says to whom a check reveals.
AUDIENCE_OPTION = "knowledge_to"

_ENTRY = table(
    "bestiary_entry",
    column("id", Integer),
    column("campaign_id", Integer),
    column("system", String),
    column("name", String),
    column("data", JSON),
)


@dataclass(frozen=True, slots=True)
class Entry:
    id: int
    system: str
    name: str
    block: Mapping[str, Any]

    @property
    def facts(self) -> tuple[Fact, ...]:
        return knowledge_rules(self.system).facts(self.name, self.block)


@dataclass(frozen=True, slots=True)
class Shown:
    """A fact as a player sees it: its key and its text (true or not, they cannot tell)."""

    key: str
    text: str


@dataclass(frozen=True, slots=True)
class GmFact:
    """A fact as the GMs see it: the truth and who knows it."""

    fact: Fact
    party: bool
    users: list[int]


@dataclass(frozen=True, slots=True)
class FalseFact:
    """A false fact (GMs only): confirmed (``pending`` false) or waiting for the GM."""

    row: KnownFact
    audience: Audience


@dataclass(frozen=True, slots=True)
class EntryKnowledge:
    """What one viewer may see of an entry: players ``shown``; the GMs everything."""

    entry: Entry
    gm: bool
    shown: list[Shown] = field(default_factory=list)
    facts: list[GmFact] = field(default_factory=list)
    false_facts: list[FalseFact] = field(default_factory=list)

    @property
    def name(self) -> str | None:
        """The entry's name, if the viewer knows it."""
        if self.gm:
            return self.entry.name
        return next((s.text for s in self.shown if s.key == "name"), None)


async def entry(session: AsyncSession, campaign_id: int, entry_id: int) -> Entry:
    row = (
        await session.execute(
            select(_ENTRY.c.id, _ENTRY.c.system, _ENTRY.c.name, _ENTRY.c.data).where(
                _ENTRY.c.id == entry_id, _ENTRY.c.campaign_id == campaign_id
            )
        )
    ).first()
    if row is None:
        raise NotFound(_("Bestiary entry not found."))
    return Entry(row.id, row.system, row.name, row.data or {})


def _readable(viewer: Viewer) -> Any:
    """The rows a non-GM viewer knows: confirmed, to the party or to them."""
    return and_(
        KnownFact.pending.is_(False),
        or_(KnownFact.user_id.is_(None), KnownFact.user_id == viewer.user_id),
    )


async def _rows(
    session: AsyncSession, viewer: Viewer, campaign_id: int, entry_ids: Sequence[int]
) -> list[KnownFact]:
    query = select(KnownFact).where(
        KnownFact.campaign_id == campaign_id, KnownFact.entry_id.in_(entry_ids)
    )
    if not viewer.is_gm:
        query = query.where(_readable(viewer))
    return list((await session.scalars(query.order_by(KnownFact.id))).all())


def shown(entry_: Entry, rows: Sequence[KnownFact]) -> list[Shown]:
    """The facts these rows give, in the system's order: a true fact in the entry's current
    words, a false one in its own; the truth wins when both are known."""
    by_key = {f.key: f for f in entry_.facts}
    true_keys = {r.fact for r in rows if r.text is None}
    out = [Shown(f.key, f.text) for f in entry_.facts if f.key in true_keys]
    seen: set[str] = set(true_keys)
    for r in rows:
        if r.text is not None and r.fact not in seen and r.fact in by_key:
            out.append(Shown(r.fact, r.text))
            seen.add(r.fact)
    return out


@dataclass(frozen=True, slots=True)
class Lore:
    """Everything known of some bestiary entries, by anyone: read once, then cut per viewer
    (a live push of a fight reads it once for all its viewers)."""

    entries: Mapping[int, Entry]
    rows: Sequence[KnownFact]

    def texts_for(self, viewer: Viewer) -> dict[int, list[str]]:
        """Per entry, the texts ``viewer`` knows ("verwundbar gegen Feuer", "LP ~60");
        nothing for the GMs (they see the whole stat block) and for entries nobody told
        them of."""
        if viewer.is_gm:
            return {}
        mine = [
            r
            for r in self.rows
            if not r.pending and (r.user_id is None or r.user_id == viewer.user_id)
        ]
        out: dict[int, list[str]] = {}
        for entry_id in sorted({r.entry_id for r in mine}):
            rows = [r for r in mine if r.entry_id == entry_id]
            out[entry_id] = [s.text for s in shown(self.entries[entry_id], rows)]
        return out


async def lore(session: AsyncSession, campaign_id: int, entry_ids: Sequence[int]) -> Lore:
    """What is known of ``entry_ids`` (two statements, none without entries)."""
    ids = sorted(set(entry_ids))
    if not ids:
        return Lore({}, [])
    query = select(KnownFact).where(
        KnownFact.campaign_id == campaign_id, KnownFact.entry_id.in_(ids)
    )
    rows = list((await session.scalars(query.order_by(KnownFact.id))).all())
    known = sorted({r.entry_id for r in rows})
    entries: dict[int, Entry] = {}
    if known:
        found = await session.execute(
            select(_ENTRY.c.id, _ENTRY.c.system, _ENTRY.c.name, _ENTRY.c.data).where(
                _ENTRY.c.id.in_(known), _ENTRY.c.campaign_id == campaign_id
            )
        )
        entries = {r.id: Entry(r.id, r.system, r.name, r.data or {}) for r in found}
    return Lore(entries, [r for r in rows if r.entry_id in entries])


async def known_texts(
    session: AsyncSession, viewer: Viewer, campaign_id: int, entry_ids: Sequence[int]
) -> dict[int, list[str]]:
    """Per entry, the texts a player knows (:meth:`Lore.texts_for`)."""
    if viewer.is_gm:
        return {}
    return (await lore(session, campaign_id, entry_ids)).texts_for(viewer)


async def known_keys(
    session: AsyncSession, viewer: Viewer, campaign_id: int, entry_id: int
) -> set[str]:
    """The fact keys of an entry the viewer knows truly (the GMs: every one)."""
    e = await entry(session, campaign_id, entry_id)
    if viewer.is_gm:
        return {f.key for f in e.facts}
    rows = await _rows(session, viewer, campaign_id, [entry_id])
    return {r.fact for r in rows if r.text is None}


async def forecast_unknown(
    session: AsyncSession, viewer: Viewer, campaign_id: int, entry_id: int
) -> dict[str, str]:
    """The values the attack forecast needs of this entry that the viewer does not know yet
    (fact key → label, e.g. ``{"tp": "TP"}``); empty when they know them all. The forecast
    uses what is known (PF2e: the RK alone gives the hit chance; issue 31)."""
    e = await entry(session, campaign_id, entry_id)
    needs = knowledge_rules(e.system).forecast_needs(e.facts)
    missing = needs - await known_keys(session, viewer, campaign_id, entry_id)
    labels = {f.key: f.label for f in e.facts}
    return {key: labels.get(key, key) for key in sorted(missing)}


def _gm_view(entry_: Entry, rows: Sequence[KnownFact]) -> EntryKnowledge:
    facts = []
    for f in entry_.facts:
        true = [r for r in rows if r.fact == f.key and r.text is None]
        facts.append(
            GmFact(
                f,
                any(r.user_id is None for r in true),
                sorted({r.user_id for r in true if r.user_id is not None}),
            )
        )
    false = [
        FalseFact(r, "party" if r.user_id is None else [r.user_id])
        for r in rows
        if r.text is not None
    ]
    return EntryKnowledge(entry_, True, facts=facts, false_facts=false)


async def knowledge(
    session: AsyncSession, user: User, campaign_id: int, entry_id: int
) -> EntryKnowledge:
    """What the caller may see of an entry. A player who knows nothing of it gets 404:
    not even its existence is told."""
    viewer = await authorize_viewer(session, campaign_id, user.id, user.username, Action.view)
    e = await entry(session, campaign_id, entry_id)
    rows = await _rows(session, viewer, campaign_id, [entry_id])
    if viewer.is_gm:
        return _gm_view(e, rows)
    if not rows:
        raise NotFound(_("Bestiary entry not found."))
    return EntryKnowledge(e, False, shown=shown(e, rows))


async def known_entries(
    session: AsyncSession, viewer: Viewer, campaign_id: int
) -> list[EntryKnowledge]:
    """The player's monster cards: every entry they know something of (the GMs: every
    entry of the campaign, with who knows what)."""
    query = select(_ENTRY.c.id).where(_ENTRY.c.campaign_id == campaign_id)
    if not viewer.is_gm:
        query = query.where(
            _ENTRY.c.id.in_(
                select(KnownFact.entry_id).where(
                    KnownFact.campaign_id == campaign_id, _readable(viewer)
                )
            )
        )
    ids = list((await session.scalars(query.order_by(_ENTRY.c.name, _ENTRY.c.id))).all())
    rows = await _rows(session, viewer, campaign_id, ids)
    out = []
    for entry_id in ids:
        e = await entry(session, campaign_id, entry_id)
        mine = [r for r in rows if r.entry_id == entry_id]
        out.append(_gm_view(e, mine) if viewer.is_gm else EntryKnowledge(e, False, shown(e, mine)))
    return out


async def _audience_errors(
    session: AsyncSession, campaign_id: int, to: Audience, field_: str = "to"
) -> dict[str, str]:
    if to == "party":
        return {}
    if not to or len(to) > RECIPIENTS_MAX:
        return {field_: _("Choose up to %(n)d members.", n=RECIPIENTS_MAX)}
    if not await campaigns.all_members(session, campaign_id, to):
        return {field_: _("Reveal it only to members of this campaign.")}
    return {}


async def _knowers(
    session: AsyncSession, campaign_id: int, entry_id: int
) -> tuple[set[str], dict[str, set[int]]]:
    """Keys the party knows truly (or is about to be told: pending), and per key the members
    who know it truly by themselves."""
    party: set[str] = set()
    users: dict[str, set[int]] = {}
    for key, user_id, text, pending in await session.execute(
        select(KnownFact.fact, KnownFact.user_id, KnownFact.text, KnownFact.pending).where(
            KnownFact.campaign_id == campaign_id, KnownFact.entry_id == entry_id
        )
    ):
        if user_id is None and (text is None or pending):
            party.add(key)
        elif user_id is not None and (text is None or pending):
            users.setdefault(key, set()).add(user_id)
    return party, users


def _missing(
    fact: str, party: set[str], users: dict[str, set[int]], to: Audience
) -> list[int | None]:
    """Who of the audience does not know ``fact`` yet (``None``: the party)."""
    if fact in party:
        return []
    if to == "party":
        return [None]
    return [u for u in sorted(set(to)) if u not in users.get(fact, set())]


async def _publish(
    session: AsyncSession,
    user: User,
    campaign_id: int,
    entry_id: int,
    facts: Sequence[tuple[str, str]],
    to: Audience,
) -> int:
    """The ``knowledge_revealed`` event of these (key, text) pairs to their audience."""
    event = await append_event(
        session,
        campaign_id,
        KnowledgeRevealed(
            actor_name=user.username,
            entry_id=entry_id,
            facts=[{"key": k, "text": t} for k, t in facts],
            to=[] if to == "party" else sorted(set(to)),
        ),
        actor_id=user.id,
        audience=public() if to == "party" else listed(to),
    )
    return event.seq


async def _record(
    session: AsyncSession,
    user: User,
    e: Entry,
    campaign_id: int,
    chosen: Sequence[Fact],
    to: Audience,
) -> list[str]:
    """Tell ``chosen`` to those of the audience who do not know them yet: one event, one
    row per fact and member (or the party). Returns the keys told."""
    party, users = await _knowers(session, campaign_id, e.id)
    todo = [(f, _missing(f.key, party, users, to)) for f in chosen]
    todo = [(f, who) for f, who in todo if who]
    if not todo:
        return []
    seq = await _publish(session, user, campaign_id, e.id, [(f.key, f.text) for f, _w in todo], to)
    session.add_all(
        KnownFact(campaign_id=campaign_id, entry_id=e.id, fact=f.key, user_id=u, seq=seq)
        for f, who in todo
        for u in who
    )
    await session.flush()
    return [f.key for f, _w in todo]


async def reveal(
    session: AsyncSession,
    user: User,
    campaign_id: int,
    entry_id: int,
    facts: Sequence[str],
    to: Audience,
) -> list[str]:
    """A GM reveals facts by hand; returns the keys newly told (those known are skipped)."""
    await authorize_viewer(session, campaign_id, user.id, user.username, Action.manage_talk)
    e = await entry(session, campaign_id, entry_id)
    by_key = {f.key: f for f in e.facts}
    errors = await _audience_errors(session, campaign_id, to)
    if not facts or len(facts) > FACTS_MAX:
        errors["facts"] = _("Choose the facts to reveal.")
    elif unknown := [k for k in facts if k not in by_key]:
        errors["facts"] = _("No such fact: %(keys)s.", keys=", ".join(unknown[:5]))
    if errors:
        raise ValidationFailed(errors)
    return await _record(
        session, user, e, campaign_id, [by_key[k] for k in dict.fromkeys(facts)], to
    )


# --- knowledge checks ------------------------------------------------------------------------

_PARTICIPANT = table(
    "encounter_participant",
    column("encounter_id", Integer),
    column("bestiary_entry_id", Integer),
    column("hidden"),
    column("name", String),
)
_ENCOUNTER = table(
    "encounter", column("id", Integer), column("campaign_id", Integer), column("status", String)
)


@dataclass(frozen=True, slots=True)
class CheckPlan:
    """A knowledge check about to be rolled: the entry, the SG and secrecy the rules set,
    and to whom it reveals."""

    entry: Entry
    dc: int | None
    secret: bool
    audience: Audience


async def _met(session: AsyncSession, viewer: Viewer, campaign_id: int, entry_id: int) -> bool:
    """A player may check on a creature they face (a visible figure of a running fight) or
    already know something of; the GMs on any entry."""
    if viewer.is_gm:
        return True
    facing = await session.scalar(
        select(_PARTICIPANT.c.encounter_id)
        .join(_ENCOUNTER, _ENCOUNTER.c.id == _PARTICIPANT.c.encounter_id)
        .where(
            _ENCOUNTER.c.campaign_id == campaign_id,
            _ENCOUNTER.c.status == "running",
            _PARTICIPANT.c.bestiary_entry_id == entry_id,
            _PARTICIPANT.c.hidden.is_(False),
        )
        .limit(1)
    )
    if facing is not None:
        return True
    return bool(await _rows(session, viewer, campaign_id, [entry_id]))


async def prepare_check(
    session: AsyncSession,
    viewer: Viewer,
    campaign_id: int,
    entry_id: int,
    target: str,
    owner_id: int | None,
) -> CheckPlan:
    """Check that a roll on ``target`` is a knowledge check about this entry (422 at
    ``knowledge_of`` or ``target``) and say how it is rolled. It reveals to the party or,
    under the campaign option, to the character's player alone."""
    try:
        e = await entry(session, campaign_id, entry_id)
    except NotFound:
        e = None
    if e is None or not await _met(session, viewer, campaign_id, entry_id):
        raise ValidationFailed({"knowledge_of": _("Choose a creature your hero has met.")})
    rules = knowledge_rules(e.system)
    if problem := rules.check_problem(e.block, target):
        raise ValidationFailed({"target": problem})
    campaign = await session.get(Campaign, campaign_id)
    assert campaign is not None  # the caller opened it
    settings = current_settings(RuleSystem(campaign.system), campaign.settings or {})
    setup = rules.setup(e.block, settings)
    alone = settings.get(AUDIENCE_OPTION) == "self"
    who = owner_id if owner_id is not None else viewer.user_id
    return CheckPlan(e, setup.dc, setup.secret, [who] if alone else "party")


async def apply_check(
    session: AsyncSession, user: User, campaign_id: int, plan: CheckPlan, outcome: Mapping[str, Any]
) -> list[str]:
    """Reveal what the roll's outcome yields: the next facts its audience does not know, in
    the system's order; a false fact waits for the GMs. Returns the keys revealed."""
    e = plan.entry
    learned = knowledge_rules(e.system).learned(outcome)
    party, users = await _knowers(session, campaign_id, e.id)
    unknown = [f for f in e.facts if _missing(f.key, party, users, plan.audience)]
    revealed = await _record(session, user, e, campaign_id, unknown[: learned.facts], plan.audience)
    lie = next((f for f in unknown if f.lie), None) if learned.false_fact else None
    if lie is not None:
        await _propose(session, user, campaign_id, e, lie, plan.audience)
    return revealed


async def _propose(
    session: AsyncSession, user: User, campaign_id: int, e: Entry, lie: Fact, to: Audience
) -> None:
    """A false fact for the audience, waiting for the GMs (one row: the party or one player)."""
    user_id = None if to == "party" else to[0]
    row = KnownFact(
        campaign_id=campaign_id, entry_id=e.id, fact=lie.key, user_id=user_id,
        text=lie.lie, pending=True,
    )  # fmt: skip
    session.add(row)
    await session.flush()
    event = await append_event(
        session,
        campaign_id,
        KnowledgeFalsePending(
            actor_name=user.username,
            entry_id=e.id,
            fact_id=row.id,
            fact=lie.key,
            text=lie.lie,
            to=[] if user_id is None else [user_id],
        ),
        actor_id=user.id,
        audience=gm_only(),
    )
    row.seq = event.seq
    await session.flush()


async def confirm(
    session: AsyncSession,
    user: User,
    campaign_id: int,
    entry_id: int,
    fact_id: int,
    text: str | None,
    version: int | None,
) -> KnownFact:
    """A GM confirms a pending false fact, or replaces its text; then its audience learns it."""
    await authorize_viewer(session, campaign_id, user.id, user.username, Action.manage_talk)
    row = await session.get(KnownFact, fact_id)
    if row is None or row.campaign_id != campaign_id or row.entry_id != entry_id or not row.pending:
        raise NotFound(_("No such fact waits for you."))
    if version is not None and version != row.version:
        raise Conflict(_("The fact changed meanwhile."))
    words = (text if text is not None else row.text or "").strip()
    if not words:
        raise ValidationFailed({"text": _("Write what the heroes believe.")})
    if problem := limits.name_problem(words, TEXT_MAX):
        raise ValidationFailed({"text": problem})
    to: Audience = "party" if row.user_id is None else [row.user_id]
    row.text, row.pending = words, False
    row.seq = await _publish(session, user, campaign_id, entry_id, [(row.fact, words)], to)
    try:
        await session.flush()
    except StaleDataError:
        raise Conflict(_("The fact changed meanwhile.")) from None
    return row


async def faced(session: AsyncSession, viewer: Viewer, campaign_id: int) -> dict[int, list[str]]:
    """The bestiary entries behind the visible figures of running fights, with those
    figures' names: what a player may make a knowledge check about."""
    rows = await session.execute(
        select(_PARTICIPANT.c.bestiary_entry_id, _PARTICIPANT.c.name)
        .select_from(_PARTICIPANT.join(_ENCOUNTER, _ENCOUNTER.c.id == _PARTICIPANT.c.encounter_id))
        .where(
            _ENCOUNTER.c.campaign_id == campaign_id,
            _ENCOUNTER.c.status == "running",
            _PARTICIPANT.c.bestiary_entry_id.is_not(None),
            _PARTICIPANT.c.hidden.is_(False),
        )
        .order_by(_PARTICIPANT.c.name)
    )
    out: dict[int, list[str]] = {}
    for entry_id, name in rows:
        names = out.setdefault(entry_id, [])
        if name not in names:  # the same figure in two running fights is one creature met
            names.append(name)
    return out
