"""Markdown-lite for chat messages and handouts: **bold**, *italics*, [links](https://…).

The text is escaped first; the patterns then run on the escaped text, so the only tags in
the result are the ones inserted here (``strong``, ``em``, ``a``, ``br``) and no character
of the input can open a tag or leave an attribute. Links take ``http`` and ``https`` URLs
only and open with ``rel="noopener nofollow"``.
"""

from __future__ import annotations

import re

from markupsafe import Markup, escape

LINK = re.compile(r"\[([^\]\n]{1,200})\]\((https?://[^\s()]{1,500})\)")
BOLD = re.compile(r"\*\*(?=\S)(.+?)(?<=\S)\*\*")
ITALIC = re.compile(r"(?<![\w*])([*_])(?=[^\s*_])(.+?)(?<=[^\s*_])\1(?![\w*])")


def _inline(escaped: str) -> str:
    """Bold and italics on already escaped text."""
    escaped = BOLD.sub(r"<strong>\1</strong>", escaped)
    return ITALIC.sub(r"<em>\2</em>", escaped)


def render_markup(text: str) -> Markup:
    """``text`` as safe HTML: escaped, then bold, italics, links and line breaks."""
    escaped = str(escape(text))
    out: list[str] = []
    position = 0
    for link in LINK.finditer(escaped):
        out.append(_inline(escaped[position : link.start()]))
        label, url = link.group(1), link.group(2)
        out.append(f'<a href="{url}" rel="noopener nofollow" target="_blank">{_inline(label)}</a>')
        position = link.end()
    out.append(_inline(escaped[position:]))
    return Markup("<br>".join("".join(out).splitlines()))


def plain_text(text: str) -> str:
    """``text`` without its markup (print): bold and italics as plain words, a link as
    ``label (url)``."""
    text = LINK.sub(r"\1 (\2)", text)
    return ITALIC.sub(r"\2", BOLD.sub(r"\1", text))
