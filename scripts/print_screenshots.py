"""Pictures of the printouts: the first page of each PDF download, as PNG.

Usage (from the repository root; needs Debian's poppler-utils for ``pdftoppm``):

    PYTHONPATH=$PWD .venv/bin/python scripts/print_screenshots.py [--out docs/screenshots]

Builds the browser tests' table on a fresh SQLite database (``tests/browser/world.py``, as
``scripts/screenshots.py`` does), adds a handout and a revealed fact, downloads every kind of
printout as the GM or the player would, and writes ``print-<name>.png`` (first page, 80 dpi).
"""

from __future__ import annotations

import argparse
import subprocess
import tempfile
from pathlib import Path

from playwright.sync_api import sync_playwright

from app.migrate import upgrade
from tests.browser.conftest import CHROMIUM, CHROMIUM_ARGS
from tests.browser.world import World, build_world, ok
from tests.conftest import LiveServer

DPI = "80"


def _downloads(world: World) -> dict[str, tuple[str, str]]:
    """Name → (who, API path) of every printout to picture."""
    base = f"/api/v1/campaigns/{world.hh}"
    gm = world.gm.request
    goblin = next(e for e in ok(gm.get(f"{base}/bestiary")) if e["name"] == "Goblin")
    ok(gm.post(f"{base}/bestiary/{goblin['id']}/reveal", data={"facts": ["name", "lp"]}))
    letter = ok(
        gm.post(
            f"{base}/handouts",
            data={
                "title": "Brief des Grafen",
                "body": "Kommt zur Mittsommernacht an die alte Brücke.\n\n"
                "Bringt das Siegel mit, sonst öffnet niemand das Tor. Sagt keinem ein Wort.",
                "shown_to": "all",
            },
        )
    )
    out = {f"sheet-{s}": ("player", f"/api/v1{path}/sheet.pdf") for s, path in world.sheets.items()}
    out |= {f"empty-{s}": ("player", f"/api/v1/systems/{s}/sheet.pdf") for s in world.sheets}
    out["card-gm"] = ("gm", f"{base}/bestiary/{goblin['id']}/card.pdf")
    out["card-player"] = ("player", f"{base}/bestiary/{goblin['id']}/card.pdf")
    out["initiative"] = ("gm", f"{world.encounter_api}/initiative.pdf")
    out["handout"] = ("player", f"{base}/handouts/{letter['id']}/handout.pdf")
    return out


def _picture(world: World, downloads: dict[str, tuple[str, str]], tmp: Path, out: Path) -> None:
    for name, (who, path) in downloads.items():
        context = world.gm if who == "gm" else world.player
        answer = context.request.get(path)
        assert answer.status == 200, (path, answer.status, answer.text())
        pdf = tmp / f"{name}.pdf"
        pdf.write_bytes(answer.body())
        target = out / f"print-{name}"
        subprocess.run(
            ["pdftoppm", "-png", "-r", DPI, "-f", "1", "-l", "1", "-singlefile", pdf, target],
            check=True,
        )
        print(f"{target}.png")


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n", 1)[0])
    parser.add_argument("--out", type=Path, default=Path("docs/screenshots"))
    args = parser.parse_args()
    args.out.mkdir(parents=True, exist_ok=True)
    with tempfile.TemporaryDirectory() as tmp:
        database = f"sqlite+aiosqlite:///{Path(tmp) / 'print.db'}"
        upgrade(database)
        server = LiveServer(database, Path(tmp))
        try:
            with sync_playwright() as p:
                browser = p.chromium.launch(executable_path=str(CHROMIUM), args=CHROMIUM_ARGS)
                world = build_world(browser, server.url)
                _picture(world, _downloads(world), Path(tmp), args.out)
                browser.close()
        finally:
            server.stop()


if __name__ == "__main__":
    main()
