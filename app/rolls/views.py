"""The roll form's context. The dice log's, one builder for the page's slot and a page of
older entries, is ``app.rolls.live.log_context``: it needs the entries kept rendered there."""

from __future__ import annotations

#: What the roll form shows before anything was posted.
FORM_DEFAULTS: dict[str, object] = {"roll_errors": {}, "roll_values": {"visibility": "public"}}
