#!/usr/bin/env python3
"""Verify a Tafelrunde fair-play session: ``python3 verify_fairplay.py SESSION.json``.

One file, the Python standard library only: download it from the session's verification
page (or take this file from the repository), save the session's fair-play export
(``GET /api/v1/campaigns/{cid}/sessions/{id}/fairplay``) and run it. It recomputes, for
every event: the digest of its payload (format version 2: keyed with the event's salt;
version 1, older sessions: unsalted), its link of the hash chain (from the commitment), the
order of the events (no gap, none moved), every die from the published server seed, the
event's ``seq``, the roller and their client seed, and that the faces and totals a roll
shows are the dice drawn for it. Each event is reported as ``✓`` or with what is wrong;
the exit status is 0 only when nothing is wrong.
The algorithm is in ``docs/fairplay.md`` ("The derivation", "Format versions").
"""

from __future__ import annotations

import hashlib
import hmac
import json
import sys
from dataclasses import dataclass, field
from typing import TypedDict

PREFIX = "tafelrunde-fairplay-v1"
#: The summary's line on the record formats the session used (docs: "Format versions").
FORMATS = {
    (): "format: no events",
    (2,): "format: version 2, salted digests",
    (1,): "format: version 1, unsalted digests (a secret payload's digest can be guessed)",
    (1, 2): "format: versions 1 and 2, unsalted digests before the salted ones",
}
_TWO_64 = 1 << 64


class DiceGroup(TypedDict, total=False):
    """One group of a shown roll (``dice[i]``): its sides, its faces in draw order, which
    of them count."""

    sides: int
    faces: list[int]
    kept: list[bool]


class Roll(TypedDict, total=False):
    """What the verifier reads of a roll a payload shows (a dice log roll, a chat message's
    inline roll naming its roll event by ``seq``); any key may be missing."""

    dice: list[DiceGroup]
    signs: list[int]
    modifier: int
    total: int
    system: str | None
    label: str | None
    expression: str | None
    seq: int


class Payload(Roll, total=False):
    """What the verifier reads of an event's payload: a roll's own keys (the payload of a
    ``roll`` is the roll), a chat message's inline ``roll``, who acted, the commitment of
    ``session_started`` and the seed of ``session_ended``. Its digest covers all of it."""

    roll: Roll | None
    actor_name: str | None
    commitment: str
    server_seed: str


class Fairplay(TypedDict, total=False):
    """An event's fair-play record (docs: "How it works", step 3)."""

    version: int
    session_id: int
    user_id: int | None
    client_seed: str | None
    #: ``[[sides, face], …]``; null where the viewer may not see the faces.
    draws: list[list[int]] | None
    salt: str
    digest: str
    chain: str
    override: bool


class Event(TypedDict, total=False):
    """One event of the export; ``payload`` null where the viewer may see its digest only."""

    seq: int
    type: str
    payload: Payload | None
    fairplay: Fairplay | None


class Export(TypedDict, total=False):
    """A session's fair-play export (``GET …/sessions/{id}/fairplay``)."""

    campaign_id: int
    session_id: int
    commitment: str
    #: Hex, published when the session ends.
    server_seed: str | None
    events: list[Event]


def derive_face(
    server_seed: bytes,
    campaign_id: int,
    seq: int,
    user_id: int,
    client_seed: str,
    k: int,
    sides: int,
) -> int:
    """Draw ``k`` of event ``seq``: HMAC-SHA256 keyed with the seed, the first 8 bytes as
    a big-endian number ``u``, a face ``u mod sides + 1`` unless ``u`` lies above the largest
    multiple of ``sides`` (then the next attempt ``j``)."""
    if sides < 1:
        raise ValueError(f"a die needs at least one side, not {sides}")
    limit = _TWO_64 - (_TWO_64 % sides)
    j = 0
    while True:
        msg = f"{PREFIX}|{campaign_id}|{seq}|{user_id}|{client_seed}|{k}|{j}"
        u = int.from_bytes(hmac.new(server_seed, msg.encode(), hashlib.sha256).digest()[:8], "big")
        if u < limit:
            return u % sides + 1
        j += 1


def canonical(payload: object) -> bytes:
    return json.dumps(payload, sort_keys=True, separators=(",", ":"), ensure_ascii=False).encode()


def sha256_hex(data: bytes) -> str:
    return hashlib.sha256(data).hexdigest()


def payload_digest(payload: object, fp: Fairplay) -> str | None:
    """The digest the payload must have: version 2 ``HMAC-SHA256(salt, canonical)``,
    version 1 ``SHA-256(canonical)``; ``None`` when a version 2 record lacks its salt."""
    if fp.get("version", 1) == 1:
        return sha256_hex(canonical(payload))
    salt = fp.get("salt")
    if not isinstance(salt, str):
        return None
    return hmac.new(bytes.fromhex(salt), canonical(payload), hashlib.sha256).hexdigest()


def shown_rolls(e: Event) -> list[Roll]:
    """The rolls an event's payload shows: a dice log roll, a chat message's inline roll."""
    payload = e.get("payload") or {}
    if e.get("type") == "roll":
        return [payload]
    inline = payload.get("roll") if e.get("type") == "chat_message" else None
    return [inline] if isinstance(inline, dict) else []


def shown_problems(roll: Roll, draws: list[list[int]]) -> list[str]:
    """What a roll shows against the dice drawn for it: every face in draw order, and for a
    free roll (no rules engine) its total, the signed sum of the kept faces plus the
    modifier. A sheet roll's total follows its system's rules, which the dice do not prove."""
    groups = list(roll.get("dice") or [])
    faces = [[g.get("sides"), f] for g in groups for f in g.get("faces") or []]
    problems = [
        f"die {k + 1} shows d{shown[0]} {shown[1]}, the draw was d{drawn[0]} {drawn[1]}"
        for k, (shown, drawn) in enumerate(zip(faces, draws, strict=False))
        if list(shown) != list(drawn)
    ]
    if len(faces) != len(draws):
        problems.append(f"shows {len(faces)} dice, {len(draws)} were drawn")
    if roll.get("system") is None and not problems:
        signs = list(roll.get("signs") or [1] * len(groups))
        kept = [
            sum(
                f
                for f, keep in zip(g.get("faces") or [], g.get("kept") or [], strict=False)
                if keep
            )
            for g in groups
        ]
        want = sum(s * k for s, k in zip(signs, kept, strict=False)) + int(roll.get("modifier", 0))
        if roll.get("total") != want:
            problems.append(f"shows the total {roll.get('total')}, the dice give {want}")
    return problems


def describe(e: Event) -> str:
    """Who rolled what, as the export shows it (``anna: Wahrnehmung 1W20 [18] = 18``)."""
    for roll in shown_rolls(e):
        faces = " ".join(
            "[" + ", ".join(str(f) for f in g.get("faces") or []) + "]"
            for g in roll.get("dice") or []
        )
        who = (e.get("payload") or {}).get("actor_name") or "?"
        what = " ".join(str(x) for x in (roll.get("label"), roll.get("expression")) if x)
        return f"{who}: {what} {faces} = {roll.get('total')}"
    return ""


@dataclass
class Checked:
    """One event as verified: ``problems`` empty means ✓."""

    seq: int
    type: str
    #: The format of its record: 2 salted, 1 unsalted (sessions recorded before salts).
    version: int = 2
    #: Who rolled what, for a roll the verifier may see.
    roll: str = ""
    dice: int = 0
    secret: bool = False
    override: bool = False
    problems: list[str] = field(default_factory=list)


@dataclass
class Report:
    events: list[Checked]
    problems: list[str]
    seed_published: bool

    @property
    def ok(self) -> bool:
        return not self.problems and all(not e.problems for e in self.events)

    @property
    def first_failure(self) -> int | None:
        return next((e.seq for e in self.events if e.problems), None)

    @property
    def versions(self) -> list[int]:
        return sorted({e.version for e in self.events})


@dataclass
class _Walk:
    """What the check of one event needs of those before it: the session (its campaign and
    id as the export has them, the published seed), the chain's last link, the last seq
    and every roll's draws by its seq."""

    campaign_id: int | None
    session_id: int | None
    seed: bytes | None
    chain: str
    last_seq: int | None = None
    draws: dict[int, list[list[int]]] = field(default_factory=dict)


def _dice(e: Event, fp: Fairplay, ctx: _Walk, out: Checked) -> None:
    draws = fp.get("draws")
    if draws is None:
        out.secret = True
        return
    ctx.draws[out.seq] = draws
    out.dice = len(draws)
    seed = ctx.seed
    if seed is None or not draws:
        return
    campaign_id, user_id, client_seed = ctx.campaign_id, fp["user_id"], fp["client_seed"]
    if campaign_id is None or user_id is None or client_seed is None:
        out.problems.append("the dice name no campaign, roller or client seed to derive them")
        return
    for k, (sides, face) in enumerate(draws):
        want = derive_face(seed, campaign_id, e["seq"], user_id, client_seed, k, sides)
        if want != face:
            out.problems.append(f"die {k + 1} (d{sides}) shows {face}, the derivation gives {want}")


def _shown(e: Event, ctx: _Walk, out: Checked) -> None:
    """The faces a roll shows are its draws; a chat line's inline roll shows the draws of
    the roll event it names (``roll.seq``)."""
    for roll in shown_rolls(e):
        seq = out.seq if e.get("type") == "roll" else roll.get("seq")
        draws = ctx.draws.get(seq) if seq is not None else None
        if draws is not None:
            out.problems.extend(shown_problems(roll, draws))
        out.roll = describe(e)


def _digest(e: Event, fp: Fairplay, out: Checked) -> None:
    out.version = 1 if fp.get("version", 1) == 1 else 2
    payload = e.get("payload")
    if payload is None:
        return
    want = payload_digest(payload, fp)
    if want is None:
        out.problems.append("the salt of the payload is missing")
    elif want != fp.get("digest"):
        out.problems.append("the payload does not match its digest")


def _event(e: Event, ctx: _Walk) -> Checked:
    out = Checked(int(e.get("seq", 0)), str(e.get("type", "?")))
    fp = e.get("fairplay")
    if not isinstance(fp, dict):
        out.problems.append("no fair-play record")
        return out
    out.override = bool(fp.get("override"))
    if ctx.last_seq is not None and out.seq != ctx.last_seq + 1:
        out.problems.append(
            f"expected event {ctx.last_seq + 1} next, got {out.seq} (missing or moved)"
        )
    ctx.last_seq = out.seq
    if fp.get("session_id") != ctx.session_id:
        out.problems.append("belongs to another session")
    _digest(e, fp, out)
    link = sha256_hex((ctx.chain + str(fp.get("digest"))).encode())
    if link != fp.get("chain"):
        out.problems.append("the hash chain is broken here")
    ctx.chain = str(fp.get("chain"))
    _dice(e, fp, ctx, out)
    if not out.secret:
        _shown(e, ctx, out)
    return out


def _session_problems(data: Export, events: list[Event]) -> list[str]:
    problems = []
    seed_hex = data.get("server_seed")
    if seed_hex is not None and sha256_hex(bytes.fromhex(seed_hex)) != data.get("commitment"):
        problems.append("the server seed does not match the commitment")
    first = events[0] if events else None
    if first is None or first.get("type") != "session_started":
        problems.append("the session does not begin with its commitment (session_started)")
    elif (started := first.get("payload")) is not None and started.get("commitment") != data.get(
        "commitment"
    ):
        problems.append("session_started publishes another commitment")
    if seed_hex is not None:
        last = events[-1] if events else {}
        if last.get("type") != "session_ended":
            problems.append("the session's end (session_ended) is missing")
        elif (last.get("payload") or {}).get("server_seed") != seed_hex:
            problems.append("session_ended publishes another server seed")
    return problems


def verify(data: Export) -> Report:
    """Check a session's fair-play export (the JSON of ``…/sessions/{id}/fairplay``)."""
    events = list(data.get("events") or [])
    seed_hex = data.get("server_seed")
    ctx = _Walk(
        campaign_id=data.get("campaign_id"),
        session_id=data.get("session_id"),
        seed=bytes.fromhex(seed_hex) if seed_hex else None,
        chain=str(data.get("commitment")),
    )
    checked = [_event(e, ctx) for e in events]
    return Report(checked, _session_problems(data, events), seed_hex is not None)


def render(report: Report) -> str:
    """The report as text: one line per event, then the summary."""
    lines = [f"! {p}" for p in report.problems]
    for e in report.events:
        mark = "✓" if not e.problems else "✗ " + "; ".join(e.problems)
        notes = [f"{e.dice} dice"] if e.dice else []
        notes += ["secret (digest only)"] if e.secret else []
        notes += ["GM override"] if e.override else []
        extra = f" ({', '.join(notes)})" if notes else ""
        roll = f" — {e.roll}" if e.roll else ""
        lines.append(f"{e.seq:>6} {e.type:<22} {mark}{extra}{roll}")
    dice = sum(e.dice for e in report.events if not e.secret)
    overrides = sum(1 for e in report.events if e.override)
    secret = sum(1 for e in report.events if e.secret)
    verdict = "OK" if report.ok else f"FAILED at event {report.first_failure}"
    if report.ok and not report.seed_published:
        verdict = "OK so far (the server seed is published when the session ends)"
    lines.append(FORMATS.get(tuple(report.versions), FORMATS[(1, 2)]))
    lines.append(
        f"{verdict}: {len(report.events)} events, {dice} dice, {secret} secret, "
        f"{overrides} GM overrides"
    )
    return "\n".join(lines)


def main(argv: list[str] | None = None) -> int:
    args = sys.argv[1:] if argv is None else argv
    if len(args) != 1:
        print("usage: verify_fairplay.py SESSION.json", file=sys.stderr)
        return 2
    with open(args[0], encoding="utf-8") as f:
        report = verify(json.load(f))
    print(render(report))
    return 0 if report.ok else 1


if __name__ == "__main__":
    sys.exit(main())
