"""The seeded dice of the test environment (``TAFELRUNDE_DICE_SEED``): refused anywhere else,
and with it two servers draw the same faces."""

from __future__ import annotations

import pytest
from pydantic import ValidationError

from app.config import Environment, Settings
from app.main import create_app
from app.rules.dice import SecureRoller


def test_a_dice_seed_is_refused_outside_the_test_environment() -> None:
    for environment in (Environment.development, Environment.production):
        with pytest.raises(ValidationError, match="TAFELRUNDE_DICE_SEED"):
            Settings(environment=environment, dice_seed=7, secret_key="x")


def test_with_a_seed_two_servers_roll_the_same_faces() -> None:
    def faces(settings: Settings) -> list[int]:
        roller = create_app(settings).state.ctx.roller
        return [roller.roll(20) for _ in range(50)]

    seeded = Settings(environment=Environment.test, dice_seed=7, database_url="sqlite+aiosqlite://")
    assert faces(seeded) == faces(seeded)
    other = Settings(environment=Environment.test, dice_seed=8, database_url="sqlite+aiosqlite://")
    assert faces(seeded) != faces(other)
    plain = Settings(environment=Environment.test, database_url="sqlite+aiosqlite://")
    assert isinstance(create_app(plain).state.ctx.roller, SecureRoller)
