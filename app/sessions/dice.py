"""Where every die of the server comes from: :func:`roller_for` and
:func:`roller_for_read_campaign`.

Outside a fair-play session that is the app's roller (``SecureRoller``). While one is open,
it is a :class:`FairRoller`: each face is derived from the session's ``server_seed``, the
``seq`` of the event the face goes to, the requesting member and their client seed
(``docs/fairplay.md``, "The derivation"; the function is the standalone verifier's,
``app/sessions/verify_fairplay.py``), and recorded for that event's ``fairplay``.
"""

from __future__ import annotations

import random

from sqlalchemy import select
from sqlalchemy.ext.asyncio import AsyncSession

from app.campaigns.models import Campaign
from app.events import fairplay
from app.events.service import assume_no_fairplay, lock_log
from app.rules.dice import Roller
from app.sessions.models import ClientSeed, GameSession
from app.sessions.verify_fairplay import derive_face


class SeededRoller:
    """Dice from a seeded generator, for what must repeat: a risk estimate with a ``seed``,
    the test environment's server (``TAFELRUNDE_DICE_SEED``). Never the game's dice in
    development or production, which come from :class:`~app.rules.dice.SecureRoller`.
    (Not in ``app.rules``: the engines draw no randomness of their own.)"""

    def __init__(self, seed: int) -> None:
        self._rng = random.Random(seed)

    def roll(self, sides: int) -> int:
        if sides < 1:
            raise ValueError(f"a die needs at least one side, not {sides}")
        return self._rng.randint(1, sides)


class FairRoller:
    """A :class:`~app.rules.dice.Roller` for one member's request in a fair-play session.

    Its faces go to the next event the request appends (the transaction holds the
    campaign's log lock, so that ``seq`` is known); after that event, to the next one.
    """

    def __init__(
        self,
        session: AsyncSession,
        campaign_id: int,
        server_seed: bytes,
        user_id: int,
        client_seed: str,
    ) -> None:
        self._session = session
        self._campaign_id = campaign_id
        self._seed = server_seed
        self.user_id = user_id
        self.client_seed = client_seed

    def roll(self, sides: int) -> int:
        seq = fairplay.next_seq(self._session, self._campaign_id)
        if seq is None:
            raise RuntimeError("a fair roll needs the campaign's log lock")
        pending = fairplay.pending_draws(self._session, self._campaign_id)
        if pending is None or pending.seq != seq:
            pending = fairplay.PendingDraws(seq, self.user_id, self.client_seed)
            fairplay.set_pending(self._session, self._campaign_id, pending)
        face = derive_face(
            self._seed, self._campaign_id, seq, self.user_id, self.client_seed,
            len(pending.draws), sides,
        )  # fmt: skip
        pending.draws.append([sides, face])
        return face


async def roller_for(
    session: AsyncSession, campaign_id: int, user_id: int, default: Roller
) -> Roller:
    """The roller for a request of ``user_id`` in the campaign: ``default`` outside a
    fair-play session, else a :class:`FairRoller` (taking the log lock until commit)."""
    _next, session_id = await lock_log(session, campaign_id)
    if session_id is None:
        return default
    open_session = await session.get_one(GameSession, session_id)
    if open_session.server_seed is None:
        raise RuntimeError("a fair-play session without its seed")
    client_seed = await session.scalar(
        select(ClientSeed.client_seed).where(
            ClientSeed.session_id == session_id, ClientSeed.user_id == user_id
        )
    )
    return FairRoller(
        session, campaign_id, bytes.fromhex(open_session.server_seed), user_id, client_seed or ""
    )


async def roller_for_read_campaign(
    session: AsyncSession, campaign: Campaign, user_id: int, default: Roller
) -> Roller:
    """:func:`roller_for`, one statement less outside fair play (issue 29): if the campaign
    row this transaction read with the sign-in shows no fair-play session, ``default``
    without the log lock; should a session open before the use case's first event, that
    event is refused unwritten (``app.events.service.FairPlayOpened``: a 409, try again)."""
    if campaign.fairplay_session_id is None:
        assume_no_fairplay(session, campaign.id)
        return default
    return await roller_for(session, campaign.id, user_id, default)
