"""Areas the rules set off by themselves (issue 27): a :class:`~app.encounters.combat.Burst`
a system put in the report (H&H «Arkane Explosion» on a magic Patzer) becomes, on a fight
linked to a scene, a circle centred on the figure's token on the true board — the same area
record as a placed one (``state["area"]``, events ``area_placed``/``area_resolved``), its
figures resolved at once by the system's ``burst``. In theatre of the mind nothing is placed
(the system's log line says the GM applies it)."""

from __future__ import annotations

from collections.abc import Set
from fractions import Fraction
from typing import Final

from app.encounters.board import Snapshot
from app.encounters.combat import Report, State
from app.encounters.state import AreaRecord
from app.encounters.systems.play import Play
from app.encounters.systems.protocol import Bursts, CombatCore, Settings, Tactics, capability
from app.i18n import N_
from app.rules import grid as g
from app.rules.dice import Roller

#: Bursts set off by other bursts (a focusing figure hit loses control) stop after this many.
MAX_BURSTS = 8
#: Areas placed and resolved in one operation before its last (each gets its events).
DONE: Final = "areas_done"


def burst_cells(board: Snapshot, metric: g.Metric, pid: str, radius: int) -> list[g.Cell]:
    """The cells within ``radius`` (the system's unit) of any cell of ``pid``'s token that a
    line from that cell reaches (walls and closed doors protect, as for every area)."""
    size = Fraction(radius) / metric.per_cell
    out: set[g.Cell] = set()
    for cell in board.cells.get(pid, ()):
        out |= g.area_cells(board.grid, "circle", cell, size)
    return sorted(out)


def _keep(state: State, record: AreaRecord, before_id: object) -> None:
    """Make ``record`` the fight's area; one still waiting for answers stays, and one placed
    earlier in this operation keeps its events (``state["areas_done"]``)."""
    current = state.get("area")
    if current and not current.get("resolved"):
        state.setdefault(DONE, []).append(record)
        return
    if current and current.get("id") != before_id:
        state.setdefault(DONE, []).append(current)
    state["area"] = record


def place(
    board: Snapshot,
    core: CombatCore,
    state: State,
    report: Report,
    roller: Roller,
    settings: Settings,
    hidden: Set[str],
    before_id: object,
) -> None:
    """Place and resolve the report's bursts (and those they set off) on ``board``;
    ``before_id``: the id of the fight's area before the operation (none to place where
    the system has no :class:`Bursts`, or no map rules to measure them)."""
    rules, tactics = capability(core, Bursts), capability(core, Tactics)
    if rules is None or tactics is None:
        report.bursts.clear()
        return
    count = 0
    while report.bursts and count < MAX_BURSTS:
        burst = report.bursts.pop(0)
        count += 1
        if burst.pid not in board.cells:
            name = state["figures"][burst.pid].get("name", "")
            message = N_("%(name)s has no token on the map: the GM applies the area.")
            report.add(message, who={burst.pid}, name=name)
            continue
        area = burst_cells(board, tactics.metric, burst.pid, burst.radius)
        inside = set(area)
        hit = [pid for pid in state["figures"] if inside.intersection(board.cells.get(pid, ()))]
        seq = int(state.get("area_seq", 0)) + 1
        state["area_seq"] = seq
        origin = board.cells[burst.pid][0]
        record: AreaRecord = {
            "id": seq, "shape": "circle", "origin": list(origin), "toward": None,
            "size": float(burst.radius), "cells": [list(c) for c in area], "targets": hit,
            "source": "burst", "actor": burst.pid, "scene_id": board.scene_id, "resolved": True,
        }  # fmt: skip
        _keep(state, record, before_id)
        report.add(
            N_("A circular area is placed: %(count)d figures in it."),
            who={burst.pid},
            count=len([p for p in hit if p not in hidden]),
        )
        rules.burst(state, burst.pid, hit, burst.params, Play(roller, report, settings))
    report.bursts.clear()
