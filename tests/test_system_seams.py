"""The per-system seam holds: no branch on the rule system outside the system modules.

A *branch on the rule system* is a comparison with a system's name: ``system == "hh"``,
``c.system != "pf2e"``, ``system in ("hh", "ds4")``, ``RuleSystem.hh == x``, a
``match``/``case "hh"``, and in templates ``{% if character.system == "hh" %}``. Python is
read with :mod:`ast` and templates with Jinja's own parser, so comments, strings and other
comparisons (``system != campaign.system``, ``system not in RuleSystem.__members__``,
``SCHEMAS[system]``) do not count.

Such branches belong in the system modules and their registries only:
``app/characters/systems/``, ``app/encounters/systems/`` and the templates below
``templates/characters/systems/`` and ``templates/encounters/systems/``.
"""

from __future__ import annotations

import ast
import importlib
import re
from collections import Counter
from collections.abc import Iterator
from pathlib import Path

import pytest
from jinja2 import Environment, nodes

from app.characters.systems.registry import SYSTEMS, character_system
from app.core.systems import RULE_SYSTEMS, RuleSystem

ROOT = Path(__file__).resolve().parents[1]
SYSTEM_NAMES = frozenset(s.value for s in RuleSystem)
ALLOWED = (
    "app/characters/systems/",
    "app/encounters/systems/",
    "templates/characters/systems/",
    "templates/encounters/systems/",
)
#: Branches a file outside the system modules still has, at most this many per file; whoever
#: removes a file's branches deletes its line here (``test_known_remaining_list_is_not_stale``
#: insists). Empty: the encounters side moved its branches into ``app/encounters/systems/``.
KNOWN_REMAINING: dict[str, int] = {}


# --- the detector ---------------------------------------------------------------------------


def _names_a_system(node: ast.expr) -> bool:
    """A system's name as a literal (``"hh"``, ``RuleSystem.hh``) or a collection of them."""
    if isinstance(node, ast.Constant):
        return node.value in SYSTEM_NAMES
    if isinstance(node, ast.Attribute):
        return (
            isinstance(node.value, ast.Name)
            and node.value.id == "RuleSystem"
            and node.attr in SYSTEM_NAMES
        )
    if isinstance(node, ast.Tuple | ast.List | ast.Set):
        return any(_names_a_system(e) for e in node.elts)
    return False


def _case_names_a_system(pattern: ast.pattern) -> bool:
    if isinstance(pattern, ast.MatchValue):
        return _names_a_system(pattern.value)
    if isinstance(pattern, ast.MatchOr):
        return any(_case_names_a_system(p) for p in pattern.patterns)
    return False


def python_branches(source: str) -> list[int]:
    """Line numbers of the branches on the rule system in a Python module."""
    lines: list[int] = []
    for node in ast.walk(ast.parse(source)):
        if isinstance(node, ast.Compare) and any(
            _names_a_system(side) for side in (node.left, *node.comparators)
        ):
            lines.append(node.lineno)
        elif isinstance(node, ast.match_case) and _case_names_a_system(node.pattern):
            lines.append(node.pattern.lineno)
    return sorted(lines)


def _jinja_names_a_system(node: nodes.Node) -> bool:
    if isinstance(node, nodes.Const):
        return node.value in SYSTEM_NAMES
    if isinstance(node, nodes.Tuple | nodes.List):
        return any(_jinja_names_a_system(item) for item in node.items)
    return False


_JINJA = Environment(extensions=["jinja2.ext.i18n"])


def template_branches(source: str) -> list[int]:
    """Line numbers of the branches on the rule system in a Jinja template."""
    lines: list[int] = []
    for compare in _JINJA.parse(source).find_all(nodes.Compare):
        sides = [compare.expr, *(op.expr for op in compare.ops)]
        if any(_jinja_names_a_system(side) for side in sides):
            lines.append(compare.lineno)
    return sorted(lines)


def _sources() -> Iterator[tuple[str, str, str]]:
    for folder, pattern, kind in (("app", "*.py", "python"), ("templates", "*.html", "jinja")):
        for path in sorted((ROOT / folder).rglob(pattern)):
            yield path.relative_to(ROOT).as_posix(), path.read_text(encoding="utf-8"), kind


def branches_outside_the_system_modules() -> Counter[str]:
    """Per file (relative to the repository), the branches on the rule system it has."""
    found: Counter[str] = Counter()
    for name, source, kind in _sources():
        if name.startswith(ALLOWED):
            continue
        lines = python_branches(source) if kind == "python" else template_branches(source)
        if lines:
            found[name] = len(lines)
    return found


# --- the rule -------------------------------------------------------------------------------


def test_no_branch_on_the_rule_system_outside_the_system_modules() -> None:
    found = branches_outside_the_system_modules()
    new = {name: count for name, count in found.items() if count > KNOWN_REMAINING.get(name, 0)}
    assert not new, (
        "Branches on the rule system outside app/*/systems/ (move them into the system "
        f"module, behind its protocol): {new}"
    )


def test_known_remaining_list_is_not_stale() -> None:
    found = branches_outside_the_system_modules()
    stale = {
        name: (count, found.get(name, 0))
        for name, count in KNOWN_REMAINING.items()
        if found.get(name, 0) < count
    }
    assert not stale, f"Lower or delete these KNOWN_REMAINING entries (listed, found): {stale}"


def test_characters_campaigns_and_rolls_have_no_branch_at_all() -> None:
    found = branches_outside_the_system_modules()
    domains = ("app/characters/", "app/campaigns/", "app/rolls/", "templates/characters/")
    assert not {name: n for name, n in found.items() if name.startswith(domains)}


# --- the detector finds what it should, and nothing else -----------------------------------


@pytest.mark.parametrize(
    "source",
    [
        'if system == "hh":\n    pass',
        'x = 1 if character.system != "pf2e" else 2',
        'ok = c.system in ("hh", "ds4")',
        'ok = "ds4" == self.system',
        "ok = campaign.system == RuleSystem.pf2e",
        'match system:\n    case "hh":\n        pass',
        'match system:\n    case "ds4" | "pf2e":\n        pass',
    ],
)
def test_a_python_branch_is_found(source: str) -> None:
    assert python_branches(source) != []


@pytest.mark.parametrize(
    "source",
    [
        "if system != campaign.system:\n    pass",
        "if system not in RuleSystem.__members__:\n    pass",
        "stats = SCHEMAS[system]",
        'name = "hh"  # system == "hh" in a comment',
        "text = 'system == \"hh\"'",
        'if kind == "npc":\n    pass',
    ],
)
def test_other_python_comparisons_are_not_counted(source: str) -> None:
    assert python_branches(source) == []


@pytest.mark.parametrize(
    "source",
    [
        '{% if character.system == "hh" %}x{% endif %}',
        "{{ 'a' if system != 'pf2e' else 'b' }}",
        '{% if system in ("hh", "ds4") %}x{% endif %}',
        "{% if system == 'hh' %}a{% elif system == 'ds4' %}b{% endif %}",
    ],
)
def test_a_template_branch_is_found(source: str) -> None:
    assert template_branches(source) != []


@pytest.mark.parametrize(
    "source",
    [
        "{% if values.get('system', 'hh') == key %}checked{% endif %}",
        '<p>system == "hh"</p>',
        "{{ systems[campaign.system] }}",
    ],
)
def test_other_template_comparisons_are_not_counted(source: str) -> None:
    assert template_branches(source) == []


# --- the registry ---------------------------------------------------------------------------

#: What a system module may not import: it is pure (sheet data in, values out).
IMPURE = ("fastapi", "starlette", "sqlalchemy", "app.web", "app.db", "app.events")


def _imports(source: str) -> set[str]:
    found: set[str] = set()
    for node in ast.walk(ast.parse(source)):
        if isinstance(node, ast.Import):
            found.update(alias.name for alias in node.names)
        elif isinstance(node, ast.ImportFrom) and node.module:
            found.add(node.module)
    return found


def test_character_system_modules_import_no_web_and_no_database() -> None:
    folder = ROOT / "app" / "characters" / "systems"
    modules = sorted(folder.glob("*.py"))
    assert {m.stem for m in modules} >= SYSTEM_NAMES
    for module in modules:
        bad = {
            name
            for name in _imports(module.read_text(encoding="utf-8"))
            if name.startswith(IMPURE) or name.endswith((".models", ".service", ".routes"))
        }
        assert not bad, f"{module.name} imports {bad}"


def test_every_rule_system_has_one_character_system() -> None:
    assert set(SYSTEMS) == SYSTEM_NAMES
    for key, system in SYSTEMS.items():
        assert system.key == key
        assert character_system(key) is system


@pytest.mark.parametrize("key", sorted(SYSTEM_NAMES))
def test_a_systems_partials_exist_in_its_template_folder(key: str) -> None:
    partials = character_system(key).partials
    for template in (partials.item_actions, partials.roll_fields):
        if template is not None:
            assert template.startswith(f"characters/systems/{key}/")
            assert (ROOT / "templates" / template).is_file()


# --- one source of the system keys, and every registry keyed by them -----------------------

#: Every registry keyed by rule system, (module, name): each has exactly the keys of the
#: rule-system table (``app.core.systems.RULE_SYSTEMS``) and is named in the checklist «A new
#: rule system» of ``docs/architecture.md``.
REGISTRIES = (
    ("app.campaigns.settings", "OPTIONS"),
    ("app.characters.systems.registry", "SYSTEMS"),
    ("app.encounters.systems", "SYSTEMS"),
    ("app.encounters.statblocks", "STATBLOCKS"),
    ("app.knowledge.systems", "SYSTEMS"),
)
#: Registries of what only some systems have (a Foundry VTT system to import from): their
#: keys are some of the table's.
PARTIAL_REGISTRIES = (
    ("app.characters.foreign", "FOUNDRY_CHARACTERS"),
    ("app.encounters.foreign", "CONVERTERS"),
)
#: The one module that spells out the system keys (the enum and the table beside it).
ONE_SOURCE = "app/core/systems.py"
#: The one module that names each system's parts and puts them into the registries.
WIRING = "app/wiring.py"


def _module_file(module: str) -> str:
    path = importlib.import_module(module).__file__
    assert path is not None
    return Path(path).resolve().relative_to(ROOT).as_posix()


def _registry(module: str, name: str) -> dict[str, object]:
    registry = getattr(importlib.import_module(module), name)
    assert isinstance(registry, dict), f"{module}.{name} is no dict"
    return registry


def test_the_rule_system_table_has_every_key() -> None:
    assert set(RULE_SYSTEMS) == set(RuleSystem)


@pytest.mark.parametrize(("module", "name"), REGISTRIES)
def test_a_registry_has_exactly_the_keys_of_the_rule_system_table(module: str, name: str) -> None:
    assert set(_registry(module, name)) == SYSTEM_NAMES


@pytest.mark.parametrize(("module", "name"), PARTIAL_REGISTRIES)
def test_a_partial_registry_has_only_keys_of_the_rule_system_table(module: str, name: str) -> None:
    assert set(_registry(module, name)) <= SYSTEM_NAMES


def _checklist() -> str:
    text = (ROOT / "docs" / "architecture.md").read_text(encoding="utf-8")
    match = re.search(r"\*\*A new rule system\*\*\n(.*?)\n\n", text, re.DOTALL)
    assert match, "docs/architecture.md has no checklist «A new rule system»"
    return match.group(1)


@pytest.mark.parametrize(("module", "name"), REGISTRIES + PARTIAL_REGISTRIES)
def test_the_new_rule_system_checklist_names_every_registry(module: str, name: str) -> None:
    checklist = _checklist()
    path = _module_file(module)
    assert f"`{path}`" in checklist, f"the checklist does not name {path}"
    assert re.search(rf"`{name}`", checklist), f"the checklist does not name {name} ({path})"


def test_the_checklist_names_the_one_source() -> None:
    assert f"`{ONE_SOURCE}`" in _checklist()


def _names_key(node: ast.AST) -> str | None:
    """The system key ``node`` spells: ``"hh"``, ``RuleSystem.hh``, ``hh.RULES`` (a system
    module) or an enum member ``hh = ...``."""
    if isinstance(node, ast.Constant) and node.value in SYSTEM_NAMES:
        return str(node.value)
    if isinstance(node, ast.Attribute) and isinstance(node.value, ast.Name):
        if node.value.id == "RuleSystem" and node.attr in SYSTEM_NAMES:
            return node.attr
        if node.value.id in SYSTEM_NAMES:
            return node.value.id
    if isinstance(node, ast.Assign) and len(node.targets) == 1:
        target = node.targets[0]
        if isinstance(target, ast.Name) and target.id in SYSTEM_NAMES:
            return target.id
    return None


def spells_every_key(source: str) -> bool:
    """Whether one literal (dict, tuple, list, set) or class body names every system."""
    for node in ast.walk(ast.parse(source)):
        if isinstance(node, ast.Dict):
            parts: list[ast.AST] = [k for k in node.keys if k is not None]
        elif isinstance(node, ast.Tuple | ast.List | ast.Set):
            parts = list(node.elts)
        elif isinstance(node, ast.ClassDef):
            parts = list(node.body)
        else:
            continue
        if {_names_key(part) for part in parts} >= SYSTEM_NAMES:
            return True
    return False


def test_the_system_keys_are_spelled_out_together_in_two_places() -> None:
    """The table of the systems and the wiring of their parts (issue 26); a registry is
    filled by the wiring, and everything else derives from ``RuleSystem``."""
    spelled = {
        name for name, source, kind in _sources() if kind == "python" and spells_every_key(source)
    }
    assert spelled == {ONE_SOURCE, WIRING}, (
        "Every system key spelled out outside app/core/systems.py and app/wiring.py: derive it "
        "from RuleSystem or RULE_SYSTEMS, or give the registry its part in app/wiring.py"
    )
    # Templates choose from the table (LABELS); none lists the keys.
    listing = [
        name
        for name, source, kind in _sources()
        if kind == "jinja" and all(f'"{k}"' in source or f"'{k}'" in source for k in SYSTEM_NAMES)
    ]
    assert not listing


@pytest.mark.parametrize(
    "source",
    [
        'X = {"hh": 1, "ds4": 2, "pf2e": 3}',
        "X = {RuleSystem.hh: 1, RuleSystem.ds4: 2, RuleSystem.pf2e: 3}",
        'K = Literal["hh", "ds4", "pf2e"]',
        "R = {r.name: r for r in (hh.RULES, ds4.RULES, pf2e.RULES)}",
        'class S(StrEnum):\n    hh = "hh"\n    ds4 = "ds4"\n    pf2e = "pf2e"',
    ],
)
def test_spelling_every_key_is_found(source: str) -> None:
    assert spells_every_key(source)


@pytest.mark.parametrize(
    "source",
    ['X = {"hh": 1, "ds4": 2}', "X = {k: v.label for k, v in RULE_SYSTEMS.items()}"],
)
def test_fewer_keys_are_not_counted(source: str) -> None:
    assert not spells_every_key(source)
