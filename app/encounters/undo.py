"""The GM's undo history of a fight: one :class:`UndoStep` row per undoable action.

A combat action inserts one row (the state before it, its events' seqs) and, once more than
``HISTORY`` are kept, cuts the oldest in one DELETE by id; it never reads an old state. An
undo reads the newest row only. Every change of these rows happens in a use case that also
writes the encounter row, whose ``version`` guards them both (a stale write gets 409).

The number of steps a page shows is counted in the statement that reads the encounter
(:func:`count`), not kept in a counter column: the rows stay the only truth (no second
number to keep in step on trimming, undo, reset, import or migration), and it counts at
most ``HISTORY`` rows through the index ``(encounter_id, id)``, decoding no state.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any, TypedDict

from sqlalchemy import ScalarSelect, bindparam, delete, func, insert, select
from sqlalchemy.ext.asyncio import AsyncSession

from app import limits
from app.encounters.models import Encounter, UndoStep
from app.encounters.state import StateError, check_state

HISTORY = limits.UNDO_STEPS


class Entry(TypedDict):
    """An undo step as the campaign export writes it (the former ``Encounter.history``
    entry): the fight's state before the step (the row's JSON, ``state.load_state`` reads
    it) and the seqs of the events the step wrote."""

    state: dict[str, object]
    seq: list[int]


def count() -> ScalarSelect[int]:
    """The number of undo steps of the encounter of the enclosing ``select(Encounter)``."""
    return (
        select(func.count())
        .select_from(UndoStep)
        .where(UndoStep.encounter_id == Encounter.id)
        .correlate(Encounter)
        .scalar_subquery()
    )


async def push(
    session: AsyncSession,
    encounter_id: int,
    state: dict[str, object],
    seqs: Sequence[int],
    kept: int,
) -> None:
    """Keep ``state`` as the newest step; ``kept`` is the number of steps before it (read
    with the encounter, whose row lock keeps it true). Past ``HISTORY`` the oldest go."""
    step = {"encounter_id": encounter_id, "state": state, "seqs": list(seqs)}
    await session.execute(_PUSH, step)
    if kept + 1 > HISTORY:
        await session.execute(_FORGET_OLDEST, {"of_encounter": encounter_id})


#: A step kept (the statements of every combat action, built once).
_PUSH = insert(UndoStep)
_OLDEST_KEPT = (
    select(UndoStep.id)
    .where(UndoStep.encounter_id == bindparam("of_encounter"))
    .order_by(UndoStep.id.desc())
    .offset(HISTORY - 1)
    .limit(1)
    .scalar_subquery()
)
#: The steps past ``HISTORY``, forgotten.
_FORGET_OLDEST = (
    delete(UndoStep)
    .where(UndoStep.encounter_id == bindparam("of_encounter"), UndoStep.id < _OLDEST_KEPT)
    .execution_options(synchronize_session=False)
)


def after_push(kept: int) -> int:
    """The number of steps after :func:`push` with ``kept`` steps before it."""
    return min(kept + 1, HISTORY)


async def newest(session: AsyncSession, encounter_id: int) -> tuple[int, Entry] | None:
    """The id and entry (``state``, ``seq``) of the newest step, or None."""
    row = (
        await session.execute(
            select(UndoStep.id, UndoStep.state, UndoStep.seqs)
            .where(UndoStep.encounter_id == encounter_id)
            .order_by(UndoStep.id.desc())
            .limit(1)
        )
    ).first()
    if row is None:
        return None
    return row.id, {"state": row.state, "seq": [int(s) for s in row.seqs]}


async def drop(session: AsyncSession, step_id: int) -> None:
    """Delete one step (the one :func:`newest` returned, once undone)."""
    await session.execute(
        delete(UndoStep).where(UndoStep.id == step_id).execution_options(synchronize_session=False)
    )


async def clear(session: AsyncSession, encounter_id: int, kept: int) -> None:
    """Delete every step of the encounter (a fight starts or ends, the roster changes);
    nothing to do when ``kept`` (read with the encounter) is 0."""
    if kept:
        await session.execute(
            delete(UndoStep)
            .where(UndoStep.encounter_id == encounter_id)
            .execution_options(synchronize_session=False)
        )


async def entries(session: AsyncSession, encounter_ids: Sequence[int]) -> dict[int, list[Entry]]:
    """Per encounter its steps as the export writes them, oldest first."""
    out: dict[int, list[Entry]] = {i: [] for i in encounter_ids}
    if not encounter_ids:
        return out
    rows = await session.execute(
        select(UndoStep.encounter_id, UndoStep.state, UndoStep.seqs)
        .where(UndoStep.encounter_id.in_(encounter_ids))
        .order_by(UndoStep.encounter_id, UndoStep.id)
    )
    for encounter_id, state, seqs in rows:
        out[encounter_id].append({"state": state, "seq": list(seqs)})
    return out


def step_rows(encounter_id: int, history: Sequence[Any]) -> list[UndoStep] | None:
    """The rows of an imported history (oldest first, the newest ``HISTORY`` kept), or
    None when an entry is not ``{"state": {...}, "seq": [int, ...] or null}``."""
    rows = []
    for entry in history[-HISTORY:]:
        if not isinstance(entry, dict) or not _runnable(entry.get("state")):
            return None
        seqs = entry.get("seq") or []
        if not isinstance(seqs, list) or not all(
            isinstance(s, int) and not isinstance(s, bool) for s in seqs
        ):
            return None
        rows.append(UndoStep(encounter_id=encounter_id, state=entry["state"], seqs=seqs))
    return rows


def _runnable(state: object) -> bool:
    """Whether an imported step's state has the shape an undo can restore."""
    try:
        check_state(state)
    except StateError:
        return False
    return True
