"""The encounter's settings as the rule systems read them (``protocol.settings_of``)."""

from __future__ import annotations

from app.campaigns.settings import current
from app.core.systems import RuleSystem
from app.encounters.systems.protocol import Settings, settings_of


def test_known_keys_are_kept_with_their_type() -> None:
    stored = {"surprise": "monster", "defence_timeout": 90, "movement": "half", "other": 1}
    expected: Settings = {"surprise": "monster", "defence_timeout": 90, "movement": "half"}
    assert settings_of(stored) == expected


def test_a_timeout_as_text_is_read_as_its_number_and_a_wrong_one_left_out() -> None:
    assert settings_of({"defence_timeout": "45"}) == {"defence_timeout": 45}
    assert settings_of({"defence_timeout": "soon"}) == {}
    assert settings_of({"defence_timeout": True, "surprise": None}) == {}


def test_every_rule_option_of_every_system_reaches_the_adapters() -> None:
    for rule_system in RuleSystem:
        options = current(rule_system, {})
        assert dict(settings_of(options)) == options
