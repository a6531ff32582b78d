"""Write the core German catalog from a {msgid: translation} table.

Usage: .venv/bin/python scripts/i18n_core.py TABLE.py   (TABLE defines ``DE``)
Only msgids used outside other domains' folders belong in messages.po.
"""

from __future__ import annotations

import runpy
import sys
from pathlib import Path

from babel.messages.catalog import Catalog
from babel.messages.pofile import write_po

table: dict[str, str] = runpy.run_path(sys.argv[1])["DE"]
catalog = Catalog(locale="de", project="Tafelrunde", fuzzy=False)
for msgid, msgstr in table.items():
    catalog.add(msgid, msgstr)
out = Path("app/locale/de/LC_MESSAGES/messages.po")
with out.open("wb") as fh:
    write_po(fh, catalog, width=100, omit_header=False)
print(f"wrote {len(table)} messages to {out}")
