"""The migrations build exactly the schema the models describe, on SQLite and PostgreSQL."""

from __future__ import annotations

import json
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path
from typing import Any

import psycopg
from alembic import command
from alembic.autogenerate import compare_metadata
from alembic.migration import MigrationContext
from alembic.script import ScriptDirectory
from sqlalchemy import Connection, text
from sqlalchemy import create_engine as sa_create_engine

from app.config import Settings
from app.db import create_engine, utcnow
from app.migrate import alembic_config, upgrade
from app.models import MODEL_MODULES, Base
from tests.blocking import blocking_url

APP = Path(__file__).resolve().parents[1] / "app"


def _diff(connection: Connection) -> list[object]:
    context = MigrationContext.configure(connection, opts={"compare_type": True})
    return list(compare_metadata(context, Base.metadata))


def test_the_schema_lists_every_packages_models_module() -> None:
    listed = {module.__name__ for module in MODEL_MODULES}
    on_disk = {f"app.{path.parent.name}.models" for path in APP.glob("*/models.py")}
    assert len(listed) == len(MODEL_MODULES)
    assert listed == on_disk


async def test_models_and_migrations_agree(settings: Settings) -> None:
    engine = create_engine(settings.resolved_database_url)
    async with engine.connect() as connection:
        diff = await connection.run_sync(_diff)
    await engine.dispose()
    assert diff == [], f"models and migrations differ; write a migration: {diff}"


def test_migration_history_is_linear_or_merged(database_url: str) -> None:
    script = ScriptDirectory.from_config(alembic_config(database_url))
    assert len(script.get_heads()) == 1, f"several heads: {script.get_heads()}"


@contextmanager
def _scratch_database(database_url: str, tmp_path: Path) -> Iterator[str]:
    """An empty database of the same kind as the test database, dropped afterwards."""
    if not database_url.startswith("postgresql"):
        yield f"sqlite+aiosqlite:///{tmp_path / 'scratch.db'}"
        return
    server, _, name = database_url.rpartition("/")
    scratch = f"{name}_scratch"
    admin = "postgresql://" + database_url.partition("://")[2]
    with psycopg.connect(admin, autocommit=True) as conn:
        conn.execute(f"DROP DATABASE IF EXISTS {scratch}")
        conn.execute(f"CREATE DATABASE {scratch}")
    try:
        yield f"{server}/{scratch}"
    finally:
        with psycopg.connect(admin, autocommit=True) as conn:
            conn.execute(f"DROP DATABASE IF EXISTS {scratch} WITH (FORCE)")


#: Rows as revision 0003 stored them: (type, payload) → the subject 0004 gives them.
OLD_EVENTS = [
    ("character_updated", {"actor_name": "a", "character_id": 7, "field": "be"}, "character:7"),
    ("character_item_moved", {"actor_name": "a", "character_id": 8}, "character:8"),
    ("roll", {"actor_name": "a", "total": 3, "character_id": 7}, "character:7"),
    ("roll", {"actor_name": "a", "total": 3}, None),
    ("roll", {"actor_name": "a", "total": 3, "character_id": None}, None),
    ("combat", {"actor_name": "a", "encounter_id": 12, "entries": []}, "encounter:12"),
    (
        "encounter",
        {"actor_name": "a", "kind": "encounter_created", "encounter_id": 13},
        "encounter:13",
    ),
    ("encounter", {"actor_name": "a", "kind": "bestiary_added", "entry_id": 4}, None),
    ("member_joined", {"actor_name": "a", "user_id": 7}, None),
]


def test_event_subject_is_backfilled_from_payloads(database_url: str, tmp_path: Path) -> None:
    with _scratch_database(database_url, tmp_path) as url:
        upgrade(url, "0003")
        sync_url = blocking_url(url)
        engine = sa_create_engine(sync_url)
        with engine.begin() as conn:
            conn.execute(
                text(
                    "INSERT INTO campaign (id, name, system, settings, last_seq, created_at,"
                    " version) VALUES (1, 'K', 'hh', '{}', 0, :now, 1)"
                ),
                {"now": utcnow()},
            )
            for seq, (type_, payload, _subject) in enumerate(OLD_EVENTS, start=1):
                conn.execute(
                    text(
                        "INSERT INTO campaign_event (campaign_id, seq, type, visibility, payload,"
                        " created_at) VALUES (1, :seq, :type, 'public', :payload, :now)"
                    ),
                    {"seq": seq, "type": type_, "payload": json.dumps(payload), "now": utcnow()},
                )
        upgrade(url, "0004")
        with engine.connect() as conn:
            rows = conn.execute(text("SELECT subject FROM campaign_event ORDER BY seq")).all()
        engine.dispose()
    assert [r[0] for r in rows] == [subject for _t, _p, subject in OLD_EVENTS]


#: An encounter's ``history`` as revision 0010 stored it (oldest first; old rows have no seqs).
OLD_HISTORY: list[dict[str, Any]] = [
    {"state": {"round": 1, "figures": {"7": {"lp": 12}}}, "seq": None},
    {"state": {"round": 1, "figures": {"7": {"lp": 9}}}, "seq": [4, 5]},
    {"state": {"round": 2, "figures": {"7": {"lp": 3}}}, "seq": [6]},
]


def _old_encounters(conn: Connection) -> None:
    """A campaign with two encounters at revision 0010: one with a history and a
    participant, one with an empty history."""
    now = {"now": utcnow()}
    conn.execute(
        text(
            "INSERT INTO campaign (id, name, system, settings, last_seq, created_at, version)"
            " VALUES (1, 'K', 'hh', '{}', 0, :now, 1)"
        ),
        now,
    )
    for eid, history in ((1, OLD_HISTORY), (2, [])):
        conn.execute(
            text(
                "INSERT INTO encounter (id, campaign_id, name, notes, status, settings, state,"
                " history, created_at, updated_at, version) VALUES (:id, 1, 'E', '', 'running',"
                " '{}', '{}', :history, :now, :now, 1)"
            ),
            {"id": eid, "history": json.dumps(history), **now},
        )
    conn.execute(
        text(
            "INSERT INTO encounter_participant (id, encounter_id, name, side, hidden, stats,"
            " position, created_at) VALUES (7, 1, 'Goblin', 'gegner', false, '{}', 0, :now)"
        ),
        now,
    )


def test_undo_histories_move_into_rows_and_back(database_url: str, tmp_path: Path) -> None:
    with _scratch_database(database_url, tmp_path) as url:
        upgrade(url, "0010_sight")
        engine = sa_create_engine(blocking_url(url))
        with engine.begin() as conn:
            _old_encounters(conn)
        upgrade(url, "0011")
        with engine.connect() as conn:
            steps = conn.execute(
                text("SELECT encounter_id, state, seqs FROM encounter_undo ORDER BY id")
            ).all()
            participants = conn.execute(text("SELECT id FROM encounter_participant")).all()
            columns = conn.execute(text("SELECT * FROM encounter")).keys()
        assert [(e, _json(s), _json(q)) for e, s, q in steps] == [
            (1, entry["state"], entry["seq"] or []) for entry in OLD_HISTORY
        ]
        assert participants == [(7,)], "the upgrade must not cascade to the participants"
        assert "history" not in columns
        command.downgrade(alembic_config(url), "0010_sight")
        with engine.connect() as conn:
            histories = conn.execute(text("SELECT id, history FROM encounter ORDER BY id")).all()
            participants = conn.execute(text("SELECT id FROM encounter_participant")).all()
        engine.dispose()
    expected = [{"state": e["state"], "seq": e["seq"] or []} for e in OLD_HISTORY]
    assert [(i, _json(h)) for i, h in histories] == [(1, expected), (2, [])]
    assert participants == [(7,)]


def _json(value: object) -> object:
    """A JSON column as read by raw SQL: decoded on PostgreSQL, text on SQLite."""
    return json.loads(value) if isinstance(value, str) else value


def _campaign_with_scene(conn: Connection) -> None:
    """Campaign 1 with scene 1, as revision 0009 and later store them."""
    now = {"now": utcnow()}
    conn.execute(
        text(
            "INSERT INTO campaign (id, name, system, settings, last_seq, created_at,"
            " version) VALUES (1, 'K', 'hh', '{}', 0, :now, 1)"
        ),
        now,
    )
    conn.execute(
        text(
            "INSERT INTO map_scene (id, campaign_id, name, cols, rows, grid_x, grid_y,"
            " cell_px, walls, doors, difficult, fog, revealed, created_at, version)"
            " VALUES (1, 1, 'Gasthaus', 10, 8, 0, 0, 50, '[]', '[]', '[]', false, '[]',"
            " :now, 1)"
        ),
        now,
    )


def test_a_scene_keeps_its_tokens_and_background_through_line_of_sight(
    database_url: str, tmp_path: Path
) -> None:
    """0010 adds two columns to ``map_scene``; on SQLite a rebuilt table would take its
    tokens and background with it (their foreign keys cascade)."""
    with _scratch_database(database_url, tmp_path) as url:
        upgrade(url, "0009")
        engine = sa_create_engine(blocking_url(url))
        with engine.begin() as conn:
            _campaign_with_scene(conn)
            conn.execute(
                text(
                    "INSERT INTO map_token (id, scene_id, label, colour, size, hidden, x, y,"
                    " moved, moved_turn, version) VALUES (3, 1, 'Alrik', '#c33', 1, false, 2, 3,"
                    " 0, 0, 1)"
                )
            )
            conn.execute(
                text(
                    "INSERT INTO map_background (scene_id, data, mime, width, height, etag)"
                    " VALUES (1, :data, 'image/png', 1, 1, 'e1')"
                ),
                {"data": b"\x89PNG"},
            )

        def kept() -> tuple[object, ...]:
            with engine.connect() as conn:
                return tuple(
                    conn.execute(text(f"SELECT count(*) FROM {table}")).scalar_one()
                    for table in ("map_scene", "map_token", "map_background")
                )

        upgrade(url, "0010_sight")
        assert kept() == (1, 1, 1)
        command.downgrade(alembic_config(url), "0009")
        assert kept() == (1, 1, 1)
        engine.dispose()


#: A campaign's rows at revision 0003, by table (one each), inserted in this order.
_ROWS_AT_0003 = {
    "user_account": "(id, username, username_key, password_hash, locale, is_active, created_at)"
    " VALUES (1, 'gm', 'gm', 'x', 'de', true, :now)",
    "campaign": "(id, name, system, settings, last_seq, created_at, version)"
    " VALUES (1, 'K', 'hh', '{}', 1, :now, 1)",
    "membership": "(id, campaign_id, user_id, role, joined_at) VALUES (1, 1, 1, 'gm', :now)",
    "campaign_event": "(id, campaign_id, seq, type, actor_id, visibility, payload, created_at)"
    " VALUES (1, 1, 1, 'roll', 1, 'public', '{}', :now)",
    "character": "(id, campaign_id, owner_id, system, name, kind, hidden_from_players, data,"
    " created_at, updated_at, version) VALUES (1, 1, 1, 'hh', 'Alrik', 'pc', false, '{}', :now,"
    " :now, 1)",
    "encounter": "(id, campaign_id, name, notes, status, settings, state, history, created_at,"
    " updated_at, version) VALUES (1, 1, 'E', '', 'prepared', '{}', '{}', '[]', :now, :now, 1)",
    "encounter_participant": "(id, encounter_id, character_id, name, side, hidden, stats,"
    " position, created_at) VALUES (1, 1, 1, 'Alrik', 'helden', false, '{}', 0, :now)",
    "invite": "(id, campaign_id, code, role, created_at) VALUES (1, 1, 'abc', 'player', :now)",
    "item": "(id, campaign_id, character_id, in_library, name, description, quantity, price,"
    " fields, equipped, created_at, version) VALUES (1, 1, 1, false, 'Seil', '', 1, 0, '{}',"
    " false, :now, 1)",
}


def test_a_campaign_keeps_its_rows_up_to_the_newest_revision_and_back(
    database_url: str, tmp_path: Path
) -> None:
    """Batch mode on SQLite rebuilds tables; none may take a campaign's rows with it."""
    with _scratch_database(database_url, tmp_path) as url:
        upgrade(url, "0003")
        engine = sa_create_engine(blocking_url(url))
        with engine.begin() as conn:
            for table, values in _ROWS_AT_0003.items():
                conn.execute(text(f'INSERT INTO "{table}" {values}'), {"now": utcnow()})

        def counts() -> list[int]:
            with engine.connect() as conn:
                return [
                    conn.execute(text(f'SELECT count(*) FROM "{table}"')).scalar_one()
                    for table in _ROWS_AT_0003
                ]

        upgrade(url)
        assert counts() == [1] * len(_ROWS_AT_0003)
        command.downgrade(alembic_config(url), "0003")
        assert counts() == [1] * len(_ROWS_AT_0003)
        engine.dispose()


#: Events as revision 0011 stored them: (type, actor, visibility, audience_user_id, payload)
#: → the audience 0012 gives them and the payload it leaves.
OLD_AUDIENCES: list[tuple[tuple[str, int | None, str, int | None, dict[str, Any]], Any, Any]] = [
    (("roll", 1, "self", 2, {"total": 3}), {"v": "self", "to": {"2": 1}, "stub": 1}, None),
    (
        ("chat_message_posted", 2, "listed", None, {"text": "psst", "to": [3]}),
        {"v": "listed", "to": {"2": 1, "3": 1}},
        None,
    ),
    (
        ("character_item_moved", 1, "public", None,
         {"character_id": 7, "to_character_id": 8, "withheld_parties": ["to_character_id"]}),
        {"v": "public", "withheld": ["to_character_id"]},
        {"character_id": 7, "to_character_id": 8},
    ),
    (
        ("token_moved", 1, "gm", None,
         {"scene_id": 4, "token_id": 9, "x": 1, "y": 2,
          "player_form": {"type": "token_removed", "scene_id": 4, "token_id": 9},
          "player_forms": {"2": {"type": "token_added", "scene_id": 4}, "3": None}}),
        {"v": "gm", "form": {"type": "token_removed", "scene_id": 4, "token_id": 9},
         "forms": {"2": {"type": "token_added", "scene_id": 4}}, "blind": {"3": 1},
         "scene": 4, "token": 9},
        {"scene_id": 4, "token_id": 9, "x": 1, "y": 2},
    ),
    (
        ("scene_updated", 1, "public", None, {"scene_id": 4, "change": "deleted", "version": 2}),
        {"v": "public"},
        None,
    ),
]  # fmt: skip


def test_the_five_places_of_an_audience_move_into_one_and_back(
    database_url: str, tmp_path: Path
) -> None:
    with _scratch_database(database_url, tmp_path) as url:
        upgrade(url, "0011")
        engine = sa_create_engine(blocking_url(url))
        now = {"now": utcnow()}
        with engine.begin() as conn:
            for uid in (1, 2, 3):
                conn.execute(
                    text(
                        "INSERT INTO user_account (id, username, username_key, password_hash,"
                        " locale, is_active, created_at) VALUES (:id, :name, :name, 'x', 'de',"
                        " true, :now)"
                    ),
                    {"id": uid, "name": f"u{uid}", **now},
                )
            _campaign_with_scene(conn)
            for seq, ((type_, actor, visibility, user, payload), _a, _p) in enumerate(
                OLD_AUDIENCES, start=1
            ):
                conn.execute(
                    text(
                        "INSERT INTO campaign_event (campaign_id, seq, type, actor_id, visibility,"
                        " audience_user_id, payload, created_at) VALUES (1, :seq, :type, :actor,"
                        " :visibility, :user, :payload, :now)"
                    ),
                    {"seq": seq, "type": type_, "actor": actor, "visibility": visibility,
                     "user": user, "payload": json.dumps(payload), **now},
                )  # fmt: skip
        upgrade(url, "0015_audience")
        with engine.connect() as conn:
            rows = conn.execute(
                text("SELECT audience, payload FROM campaign_event ORDER BY seq")
            ).all()
            shown = conn.execute(text("SELECT shown FROM map_scene")).scalar_one()
        assert [(_json(a), _json(p)) for a, p in rows] == [
            (audience, payload if payload is not None else old[4])
            for old, audience, payload in OLD_AUDIENCES
        ]
        assert shown, "scenes that exist stay shown to the players"
        command.downgrade(alembic_config(url), "0011")
        with engine.connect() as conn:
            back = conn.execute(
                text(
                    "SELECT type, actor_id, visibility, audience_user_id, payload"
                    " FROM campaign_event ORDER BY seq"
                )
            ).all()
        engine.dispose()
    assert [(t, a, v, u, _json(p)) for t, a, v, u, p in back] == [
        old for old, _a, _p in OLD_AUDIENCES
    ]


def test_movement_spent_moves_from_the_tokens_into_the_fight(
    database_url: str, tmp_path: Path
) -> None:
    """0017 moves what a figure's token spent in the current turn of its running fight into
    the fight's state (an earlier turn's count goes); the downgrade writes it back."""
    with _scratch_database(database_url, tmp_path) as url:
        upgrade(url, "0016_tokenslook")
        engine = sa_create_engine(blocking_url(url))
        now = {"now": utcnow()}
        state = {"round": 2, "turn": 1, "figures": {"7": {"lp": 9}, "8": {"lp": 5}}}
        with engine.begin() as conn:
            _campaign_with_scene(conn)
            conn.execute(
                text(
                    "INSERT INTO encounter (id, campaign_id, name, notes, status, settings,"
                    " state, created_at, updated_at, version) VALUES (1, 1, 'E', '', 'running',"
                    " '{}', :state, :now, :now, 1)"
                ),
                {"state": json.dumps(state), **now},
            )
            conn.execute(text("UPDATE map_scene SET encounter_id = 1 WHERE id = 1"))
            for pid, name in ((7, "Alrik"), (8, "Goblin")):
                conn.execute(
                    text(
                        "INSERT INTO encounter_participant (id, encounter_id, name, side, hidden,"
                        " stats, position, created_at) VALUES (:id, 1, :name, 'gegner', false,"
                        " '{}', 0, :now)"
                    ),
                    {"id": pid, "name": name, **now},
                )
            # Alrik moved 3 in this turn ("2:1"); the goblin 2 in an earlier one.
            for tid, pid, x, moved, turn in ((3, 7, 0, 3, "2:1"), (4, 8, 5, 2, "1:0")):
                conn.execute(
                    text(
                        "INSERT INTO map_token (id, scene_id, participant_id, label, colour,"
                        " size, hidden, x, y, moved, moved_turn, version) VALUES (:id, 1, :pid,"
                        " 'T', '#c33', 1, false, :x, 0, :moved, :turn, 1)"
                    ),
                    {"id": tid, "pid": pid, "x": x, "moved": moved, "turn": turn},
                )
        upgrade(url, "0017_moveundo")
        with engine.connect() as conn:
            after = _json(conn.execute(text("SELECT state FROM encounter")).scalar_one())
            columns = conn.execute(text("SELECT * FROM map_token")).keys()
            tokens = conn.execute(text("SELECT count(*) FROM map_token")).scalar_one()
        assert isinstance(after, dict)
        assert after["movement"] == {"turn": "2:1", "spent": {"7": 3}}
        assert after["figures"] == state["figures"]
        assert "moved" not in columns and "moved_turn" not in columns
        assert tokens == 2
        command.downgrade(alembic_config(url), "0016_tokenslook")
        with engine.connect() as conn:
            back = conn.execute(
                text("SELECT id, moved, moved_turn FROM map_token ORDER BY id")
            ).all()
        engine.dispose()
    assert [tuple(r) for r in back] == [(3, 3, "2:1"), (4, 0, "")]
