"""End of a combat round (hh.md §5): first Zehrend damage and its ending Probe for every
figure, then the Sterbend Probe of every dying figure (including figures that started
dying from Zehrend damage in this same end of round — project decision)."""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass

from app.rules.dice import DieRoll, Roller, roll_dice
from app.rules.hh.damage import typed_damage
from app.rules.hh.life import Log, _damage, remove_zustand, sterbend_probe
from app.rules.hh.options import DEFAULT_OPTIONS, RuleOptions
from app.rules.hh.probe import ProbeResult, roll_probe
from app.rules.hh.state import Change, Figure, Zustand


@dataclass(frozen=True, slots=True)
class RoundEndProbe:
    figure: str
    reason: str
    probe: ProbeResult


@dataclass(frozen=True, slots=True)
class RoundEndResult:
    figures: tuple[Figure, ...]
    changes: tuple[Change, ...]
    rolls: tuple[DieRoll, ...]
    probes: tuple[RoundEndProbe, ...]

    def figure(self, fid: str) -> Figure:
        return next(f for f in self.figures if f.id == fid)


def zehrend_damage(
    roller: Roller, figure: Figure, z: Zustand, options: RuleOptions, log: Log
) -> Figure:
    """1W10 LP or WP damage of one «zehrend»; armour and resistances apply to LP damage."""
    die = roll_dice(roller, 1, 10)
    log.rolls.append(die)
    resource = z.resource or "LP"
    if resource == "WP":
        amount = die.total
    else:
        amount = typed_damage(
            [die.total],
            0,
            figure.rs,
            damage_type=z.cause or "physisch",
            resistances=figure.resistances,
        )
    return _damage(roller, figure, amount, options, log, resource, False, z.label)


def end_of_round(
    roller: Roller, figures: Sequence[Figure], options: RuleOptions = DEFAULT_OPTIONS
) -> RoundEndResult:
    """Process the end of a round for ``figures`` (in the given order within each phase)."""
    log = Log()
    probes: list[RoundEndProbe] = []
    current = list(figures)
    for i, fig in enumerate(current):
        for z in [c for c in fig.conditions if c.key == "zehrend"]:
            if fig.dead:
                break
            fig = zehrend_damage(roller, fig, z, options, log)
            if fig.dead:
                break
            probe = roll_probe(roller, fig.skill(z.probe_skill or "Unbeugsamkeit"))
            log.rolls.extend(probe.rolls)
            probes.append(RoundEndProbe(fig.id, z.label, probe))
            if probe.success:
                fig = log.absorb(remove_zustand(fig, z, detail=f"{z.probe_skill}-Probe"))
        current[i] = fig
    for i, fig in enumerate(current):
        if fig.dead or not fig.has("sterbend"):
            continue
        out = sterbend_probe(roller, fig, options)
        assert out.probe is not None
        probes.append(RoundEndProbe(fig.id, "sterbend", out.probe))
        current[i] = log.absorb(out)
    return RoundEndResult(tuple(current), tuple(log.changes), tuple(log.rolls), tuple(probes))
