"""The rule-system protocols stay small and documented (issue 26, «seams by capability»).

Like Datasette's documentation tests: every protocol a rule system implements
(``app/*/systems/protocol.py``) is listed in docs/architecture.md, «Rule systems:
capabilities», with each member on a line of its own and the systems whose adapter has it;
a member added, renamed or removed without the docs, or a protocol grown past
:data:`MAX_MEMBERS`, fails here. The registries keyed by rule system and the checklist «A new
rule system» are held by ``tests/test_system_seams.py`` (``REGISTRIES``).
"""

from __future__ import annotations

import ast
import importlib
import re
from pathlib import Path

import pytest

from app.characters.systems import ds4 as sheet_ds4
from app.characters.systems import hh as sheet_hh
from app.characters.systems import pf2e as sheet_pf2e
from app.characters.systems.protocol import (
    CharacterCore,
    CombatSheet,
    Companions,
    Inventory,
    Rests,
    SheetChecks,
    SheetRolls,
)
from app.core.systems import RuleSystem
from app.encounters.systems import ds4, hh, pf2e
from app.encounters.systems.protocol import (
    Areas,
    AttackOptions,
    Bursts,
    Checks,
    CombatCore,
    Conditions,
    CountedActions,
    ExtraActions,
    FirstAid,
    Foresight,
    Luck,
    Morale,
    NamedSpells,
    Reactions,
    Recovery,
    Saves,
    SheetSync,
    Spellcasting,
    Spending,
    Stunts,
    Tactics,
    WeaponJams,
    Zones,
)

ROOT = Path(__file__).resolve().parents[1]
DOC = ROOT / "docs" / "architecture.md"
SECTION = "## Rule systems: capabilities"
#: No rule-system protocol has more members than this (properties, methods, attributes).
MAX_MEMBERS = 15
SYSTEM_KEYS = sorted(s.value for s in RuleSystem)
#: The adapters of each domain, by system key (the registries hold the same objects).
ADAPTERS: dict[str, dict[str, object]] = {
    "app/encounters/systems/protocol.py": {"hh": hh.RULES, "ds4": ds4.RULES, "pf2e": pf2e.RULES},
    "app/characters/systems/protocol.py": {
        "hh": sheet_hh.SYSTEM,
        "ds4": sheet_ds4.SYSTEM,
        "pf2e": sheet_pf2e.SYSTEM,
    },
}


# --- what the code has ------------------------------------------------------------------------


def _is_protocol(node: ast.ClassDef) -> bool:
    return any(
        (isinstance(b, ast.Name) and b.id == "Protocol")
        or (isinstance(b, ast.Attribute) and b.attr == "Protocol")
        for b in node.bases
    )


def members(node: ast.ClassDef) -> list[str]:
    """A protocol's members as written in its class body: methods and properties (``def``)
    and annotated attributes (``name: type``), in order."""
    out: list[str] = []
    for item in node.body:
        if isinstance(item, ast.FunctionDef | ast.AsyncFunctionDef):
            out.append(item.name)
        elif isinstance(item, ast.AnnAssign) and isinstance(item.target, ast.Name):
            out.append(item.target.id)
    return out


def protocols_in(source: str) -> dict[str, list[str]]:
    """Every ``Protocol`` class of a module with its members."""
    tree = ast.parse(source)
    return {
        node.name: members(node)
        for node in tree.body
        if isinstance(node, ast.ClassDef) and _is_protocol(node)
    }


def rule_system_protocols() -> dict[str, tuple[str, list[str]]]:
    """Protocol name → (module file, members) for every ``app/*/systems/protocol.py``."""
    found: dict[str, tuple[str, list[str]]] = {}
    for path in sorted(ROOT.glob("app/*/systems/protocol.py")):
        name = path.relative_to(ROOT).as_posix()
        for protocol, names in protocols_in(path.read_text(encoding="utf-8")).items():
            assert protocol not in found, f"{protocol} is defined twice"
            found[protocol] = (name, names)
    return found


# --- what the docs say ------------------------------------------------------------------------

HEADING = re.compile(r"^#### `(\w+)` \(([^)]*)\)$")
MEMBER = re.compile(r"^- `(\w+)` — \S")


def documented(text: str) -> dict[str, tuple[str, list[str]]]:
    """Protocol → (``required`` or the systems that have it, members) as the docs list them:
    a heading ``#### `Name` (ds4, hh)`` followed by one ``- `member` — what it does`` line
    per member."""
    section = text.split(SECTION, 1)[1].split("\n## ", 1)[0]
    out: dict[str, tuple[str, list[str]]] = {}
    current: str | None = None
    for line in section.splitlines():
        heading = HEADING.match(line)
        if heading:
            current = heading.group(1)
            assert current not in out, f"{current} documented twice"
            out[current] = (heading.group(2), [])
        elif line.startswith("#"):
            current = None
        elif current is not None and (member := MEMBER.match(line)):
            out[current][1].append(member.group(1))
    return out


def _docs() -> dict[str, tuple[str, list[str]]]:
    text = DOC.read_text(encoding="utf-8")
    assert SECTION in text, f"docs/architecture.md has no section {SECTION!r}"
    return documented(text)


# --- the rules --------------------------------------------------------------------------------


def test_the_protocols_are_found() -> None:
    found = rule_system_protocols()
    assert {"CombatCore", "CharacterCore", "KnowledgeRules", "Tactics", "Inventory"} <= set(found)


@pytest.mark.parametrize("protocol", sorted(rule_system_protocols()))
def test_no_rule_system_protocol_has_more_than_15_members(protocol: str) -> None:
    module, names = rule_system_protocols()[protocol]
    assert len(names) <= MAX_MEMBERS, (
        f"{protocol} ({module}) has {len(names)} members; split it by capability "
        f"(at most {MAX_MEMBERS} each, docs/architecture.md «Rule systems: capabilities»)"
    )


def test_every_protocol_is_documented_and_every_documented_one_exists() -> None:
    assert sorted(_docs()) == sorted(rule_system_protocols())


@pytest.mark.parametrize("protocol", sorted(rule_system_protocols()))
def test_every_member_is_named_in_the_docs_one_line_each(protocol: str) -> None:
    _module, names = rule_system_protocols()[protocol]
    _systems, listed = _docs()[protocol]
    assert listed == names, (
        f"docs/architecture.md lists {protocol}'s members as {listed}; the code has {names} "
        "(one line `- `member` — …` each, in the code's order)"
    )


@pytest.mark.parametrize("protocol", sorted(rule_system_protocols()))
def test_the_docs_name_the_systems_that_have_each_capability(protocol: str) -> None:
    module, _names = rule_system_protocols()[protocol]
    systems, _listed = _docs()[protocol]
    adapters = ADAPTERS.get(module)
    if adapters is None:  # one protocol for the whole domain (knowledge)
        assert systems == "required"
        return
    kind = getattr(importlib.import_module(module[:-3].replace("/", ".")), protocol)
    having = sorted(key for key, adapter in adapters.items() if isinstance(adapter, kind))
    if systems == "required":
        assert having == SYSTEM_KEYS, f"every system's adapter must implement {protocol}"
    else:
        assert systems == ", ".join(having), f"{protocol}: the docs say {systems}"


def test_the_new_rule_system_checklist_starts_with_turns_and_attacks() -> None:
    checklist = DOC.read_text(encoding="utf-8").split("**A new rule system**", 1)[1]
    checklist = checklist.split("\n\n", 1)[0]
    assert "`CombatCore`" in checklist and "turns and attacks" in checklist


# --- the detector counts what it should -------------------------------------------------------


def test_the_count_takes_methods_properties_and_attributes() -> None:
    source = (
        "class P(Protocol):\n"
        '    """Doc."""\n'
        "    x: int\n"
        "    @property\n"
        "    def y(self) -> int: ...\n"
        "    def z(self) -> None: ...\n"
        "class NotOne:\n"
        "    def a(self) -> None: ...\n"
    )
    assert protocols_in(source) == {"P": ["x", "y", "z"]}


def test_a_protocol_of_16_members_is_counted_16() -> None:
    body = "".join(f"    def m{i}(self) -> None: ...\n" for i in range(16))
    counted = protocols_in(f"class Big(typing.Protocol):\n{body}")["Big"]
    assert len(counted) == 16 > MAX_MEMBERS


def test_the_docs_parser_reads_headings_and_member_lines() -> None:
    text = (
        f"{SECTION}\n\n#### `A` (required)\n- `x` — one.\n- `y` — two.\n\n"
        "#### `B` (hh)\n- `z` — three.\n\n## Next\n#### `C` (hh)\n- `w` — no.\n"
    )
    assert documented(text) == {"A": ("required", ["x", "y"]), "B": ("hh", ["z"])}


# --- mypy checks each adapter against what it claims (the signatures, not only the names) ----

_HH_COMBAT: tuple[
    CombatCore, Conditions, Checks, Spending, Foresight, SheetSync, Tactics, Zones, Areas, Bursts,
    AttackOptions, Spellcasting, Recovery, WeaponJams, FirstAid, Luck, Morale, ExtraActions,
    Stunts,
] = (hh.RULES,) * 19  # fmt: skip
_DS4_COMBAT: tuple[
    CombatCore, Conditions, Checks, Spending, Foresight, SheetSync, Tactics, Areas, Recovery,
] = (ds4.RULES,) * 9  # fmt: skip
_PF2E_COMBAT: tuple[
    CombatCore, Conditions, Checks, Spending, CountedActions, Foresight, SheetSync, Tactics, Areas,
    NamedSpells, Recovery, Saves, Reactions,
] = (pf2e.RULES,) * 13  # fmt: skip
_HH_SHEET: tuple[
    CharacterCore, Inventory, SheetRolls, Rests, SheetChecks, Companions, CombatSheet
] = (sheet_hh.SYSTEM,) * 7  # fmt: skip
_DS4_SHEET: tuple[CharacterCore, Inventory, SheetRolls, Rests, CombatSheet] = (
    sheet_ds4.SYSTEM,
) * 5
_PF2E_SHEET: tuple[CharacterCore, Inventory, SheetRolls, Rests, CombatSheet] = (
    sheet_pf2e.SYSTEM,
) * 5
