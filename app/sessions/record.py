"""The session record (Sitzungsprotokoll): chat, dice, combat log and handouts of one
session, exactly as one member may see them (``app.events.service.project``), as lines for
the Markdown export and the printable HTML page."""

from __future__ import annotations

import re
from collections.abc import Mapping, Sequence
from dataclasses import dataclass

from app.core.viewer import Viewer
from app.events.models import CampaignEvent
from app.events.service import VisibleEvent, project
from app.i18n import _, gettext, local_time, rule_text, zone_name

#: The event types a record shows, in the log's order.
RECORDED = frozenset(
    {
        "roll",
        "combat",
        "chat_message",
        "chat_message_edited",
        "chat_message_deleted",
        "handout_shown",
        "session_started",
        "session_ended",
    }
)


@dataclass(frozen=True, slots=True)
class Line:
    seq: int
    created_at: str
    who: str
    text: str
    #: ``chat``, ``roll``, ``combat``, ``handout`` or ``session``.
    kind: str
    restricted: bool


def _items(value: object) -> list[object]:
    """A JSON array's items (nothing for what is not an array)."""
    return value if isinstance(value, list) else []


def _fields(value: object) -> Mapping[str, object]:
    """A JSON object's fields (none for what is not an object)."""
    return value if isinstance(value, dict) else {}


def _faces(dice: object) -> str:
    return " ".join(
        "[" + ", ".join(str(f) for f in _items(_fields(d).get("faces", []))) + "]"
        for d in _items(dice)
    )


def _roll(data: Mapping[str, object]) -> str:
    if data["secret"]:
        return _("rolled secretly")
    label = f"{data['label']}: " if data.get("label") else ""
    text = f"{label}{data['expression']} {_faces(data.get('dice', []))} = {data['total']}"
    return f"{text} ({data['summary']})" if data.get("summary") else text


def _combat(data: Mapping[str, object]) -> str:
    lines = []
    for item in _items(data.get("entries", [])):
        entry = _fields(item)
        params = dict(_fields(entry.get("params", {})))
        try:
            msg = str(entry["msg"])
            lines.append(gettext(msg, **params) if params else gettext(msg))
        except (KeyError, TypeError, ValueError):
            lines.append(str(entry["msg"]))
    return " · ".join(lines)


def _chat(data: Mapping[str, object]) -> str:
    """A chat line; nothing for a ``/r`` roll's message (its roll event is the line)."""
    type_ = data["type"]
    if data.get("kind") == "roll" or data.get("roll"):
        return ""
    if type_ == "chat_message_deleted":
        return _("deleted a message")
    if type_ == "chat_message_edited":
        return _("edited a message: %(text)s", text=data.get("text", ""))
    speaker = data.get("speaker")
    text = str(data.get("text", ""))
    return f"{speaker}: {text}" if speaker else text


def _text(data: Mapping[str, object]) -> tuple[str, str]:
    """What one event says, and its kind."""
    type_ = str(data["type"])
    if type_ == "roll":
        return _roll(data), "roll"
    if type_ == "combat":
        return _combat(data), "combat"
    if type_.startswith("chat_"):
        return _chat(data), "chat"
    if type_ == "handout_shown":
        return _("showed the handout “%(title)s”", title=data.get("title", "")), "handout"
    if type_ == "session_started":
        return _("started the session"), "session"
    return _("ended the session"), "session"


def lines(events: Sequence[CampaignEvent], viewer: Viewer) -> list[Line]:
    """The record's lines for ``viewer``: what they may see of each recorded event."""
    shown: list[VisibleEvent] = project([e for e in events if e.type in RECORDED], viewer)
    out = []
    for visible in shown:
        data: Mapping[str, object] = visible.data()
        text, kind = _text(data)
        if not text:
            continue
        out.append(
            Line(
                seq=visible.seq,
                created_at=str(data["created_at"]),
                who=str(_fields(data["actor"]).get("username") or ""),
                text=text,
                kind=kind,
                restricted=data["visibility"] != "public",
            )
        )
    return out


def markdown(title: str, subtitle: str, record: Sequence[Line]) -> str:
    """The record as Markdown a person reads as it is: times in the UI's zone (named under
    the title), and only what could format the file escaped (a message cannot make a link,
    emphasis, a heading or a list item)."""
    zone = _("Times: %(zone)s", zone=zone_name())
    out = [f"# {_md(title)}", "", _md(subtitle), "", _md(zone), ""]
    for line in record:
        mark = " 🔒" if line.restricted else ""
        when = local_time(line.created_at)
        out.append(f"- {when} **{_md(line.who)}**{mark}: {_md(rule_text(line.text))}")
    return "\n".join(out) + "\n"


#: Characters that format inline text anywhere in a line.
_INLINE = frozenset("\\`*<>|~")
#: ``_`` at a word's edge (emphasis; ``gm_user`` stays), ``]`` that closes a link text.
_EDGES = re.compile(r"(?<!\w)_|_(?!\w)|\](?=[(\[])")
#: What makes a block (heading, list item, quote, link definition) at the start of a line.
_BLOCK_START = re.compile(r"^(\s*)([#>+-]|\d+[.)]|\[)(?=\s|$|(?<=\[))")


def _md(text: str) -> str:
    """``text`` with what Markdown would format escaped, line breaks kept in the list item."""
    escaped = "".join("\\" + ch if ch in _INLINE else ch for ch in text)
    escaped = _EDGES.sub(lambda m: "\\" + m.group(), escaped)
    lines = [_BLOCK_START.sub(_escape_block, line) for line in escaped.split("\n")]
    return "  \n  ".join(lines)


def _escape_block(m: re.Match[str]) -> str:
    marker = m.group(2)
    return f"{m.group(1)}{marker[:-1]}\\{marker[-1]}"
