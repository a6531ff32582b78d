"""A printed page's content as typed blocks, and its layout on A4 with fpdf2.

The services (``app.printing.service``) decide what a viewer may see and put it, already
translated and formatted, into a :class:`Document`; :func:`render` only lays it out, so it
runs in a worker thread without the request's database session. The layout keeps a
heading together with the start of its block (no heading alone at the foot of a page),
repeats a table's header on every page it spans, and numbers the pages in the footer.
"""

from __future__ import annotations

import threading
from collections.abc import Sequence
from dataclasses import dataclass, field
from pathlib import Path

from fpdf import FPDF
from fpdf.fonts import FontFace

from app import limits
from app.errors import ValidationFailed
from app.i18n import _

FONT_DIR = Path(__file__).parent / "fonts"
FONT = "DejaVu"
#: A printout longer than this is refused (422): a sheet fits on two or three pages, the
#: longest handout (20,000 characters) on about eight.
PAGES_MAX = limits.PRINT_PAGES_MAX
#: Printouts laid out at once per process; more wait for a free one (each takes one core).
RENDERS_AT_ONCE = limits.PRINT_RENDERS_AT_ONCE
#: A table row holds at most this many lines (a row cannot span two pages): a longer value
#: (a sheet's 5,000-character text field) goes on in the rows below.
ROW_LINES = 25
#: Room (mm) left in a cell when wrapping its text beforehand (the cell's padding).
CELL_SLACK_MM = 4
#: Space (mm) a heading needs below it on its page, or it moves to the next one.
KEEP_WITH_NEXT_MM = 35
MARGIN_MM = 15


@dataclass(frozen=True, slots=True)
class Pairs:
    """Label and value rows (a sheet's group, a monster's facts); an empty value leaves a
    line to write on (the empty sheet for the table)."""

    heading: str
    rows: Sequence[tuple[str, str]]


@dataclass(frozen=True, slots=True)
class Table:
    """A table with a header row, repeated on every page it spans."""

    heading: str
    columns: Sequence[str]
    rows: Sequence[Sequence[str]]
    #: Relative column widths (one per column).
    widths: Sequence[int] = ()


@dataclass(frozen=True, slots=True)
class Text:
    """Running text (a handout's body); paragraphs split at blank lines."""

    heading: str
    body: str


@dataclass(frozen=True, slots=True)
class Picture:
    """An image (a handout's), scaled to the page width and at most half its height."""

    data: bytes
    width: int
    height: int
    alt: str


Block = Pairs | Table | Text | Picture


@dataclass(frozen=True, slots=True)
class Document:
    title: str
    subtitle: str
    #: The footer's left part (campaign and date); the page numbers go right.
    footer: str
    blocks: Sequence[Block] = field(default_factory=tuple)


_RENDERING = threading.BoundedSemaphore(RENDERS_AT_ONCE)


class TooLong(ValidationFailed):
    """More pages than :data:`PAGES_MAX`."""


class _Pdf(FPDF):
    def __init__(self, footer_text: str, page_label: str) -> None:
        super().__init__(orientation="portrait", unit="mm", format="A4")
        self.footer_text = footer_text
        self.page_label = page_label
        self.set_margins(MARGIN_MM, MARGIN_MM, MARGIN_MM)
        self.set_auto_page_break(auto=True, margin=MARGIN_MM + 5)
        self.add_font(FONT, "", FONT_DIR / "DejaVuSans.ttf")
        self.add_font(FONT, "B", FONT_DIR / "DejaVuSans-Bold.ttf")
        self.alias_nb_pages()

    def header(self) -> None:
        """Called on every new page: past :data:`PAGES_MAX` the printout is refused."""
        if self.page > PAGES_MAX:
            raise TooLong(
                {"document": _("Too long to print (at most %(max)d pages).", max=PAGES_MAX)}
            )

    def footer(self) -> None:
        self.set_y(-MARGIN_MM)
        self.set_font(FONT, "", 8)
        self.set_text_color(90)
        self.cell(0, 5, self.footer_text, align="L")
        self.set_x(MARGIN_MM)
        self.cell(0, 5, self.page_label % {"page": self.page_no()}, align="R")


def render(document: Document) -> bytes:
    """The document as a PDF (CPU only: call it in a worker thread; at most
    :data:`RENDERS_AT_ONCE` run at a time)."""
    with _RENDERING:
        return _layout(document)


def _layout(document: Document) -> bytes:
    pdf = _Pdf(document.footer, _("Page %(page)s of {nb}"))
    pdf.set_title(document.title)
    pdf.set_creator("Tafelrunde")
    pdf.add_page()
    pdf.set_font(FONT, "B", 18)
    pdf.multi_cell(0, 9, document.title, new_x="LMARGIN", new_y="NEXT")
    if document.subtitle:
        pdf.set_font(FONT, "", 10)
        pdf.set_text_color(70)
        pdf.multi_cell(0, 6, document.subtitle, new_x="LMARGIN", new_y="NEXT")
        pdf.set_text_color(0)
    for block in document.blocks:
        _block(pdf, block)
    return bytes(pdf.output())


def _block(pdf: _Pdf, block: Block) -> None:
    if isinstance(block, Picture):
        _picture(pdf, block)
    elif isinstance(block, Text):
        _heading(pdf, block.heading)
        pdf.set_font(FONT, "", 10.5)
        for paragraph in block.body.split("\n\n"):
            pdf.multi_cell(0, 5.5, paragraph.strip(), new_x="LMARGIN", new_y="NEXT")
            pdf.ln(2)
    elif isinstance(block, Pairs):
        _heading(pdf, block.heading)
        _table(pdf, [], block.rows, (2, 3))
    else:
        _heading(pdf, block.heading)
        _table(pdf, block.columns, block.rows, block.widths)


def _heading(pdf: _Pdf, text: str) -> None:
    pdf.ln(4)
    if not text:
        return
    if pdf.get_y() > pdf.h - pdf.b_margin - KEEP_WITH_NEXT_MM:
        pdf.add_page()
    pdf.set_font(FONT, "B", 12.5)
    pdf.cell(0, 8, text, new_x="LMARGIN", new_y="NEXT")


def _table(
    pdf: _Pdf,
    columns: Sequence[str],
    rows: Sequence[Sequence[str]],
    widths: Sequence[int],
) -> None:
    pdf.set_font(FONT, "", 10)
    header = bool(columns)
    shares = list(widths) or [1] * max((len(r) for r in rows), default=len(columns) or 1)
    mm = [pdf.epw * share / sum(shares) for share in shares]
    with pdf.table(
        col_widths=tuple(widths) or None,
        first_row_as_headings=header,
        headings_style=FontFace(emphasis="BOLD", fill_color=(225, 225, 225)),
        line_height=6.5,
        text_align="LEFT",
        borders_layout="HORIZONTAL_LINES",
    ) as table:
        if header:
            table.row(list(columns))
        for values in rows:
            for part in _split_row(pdf, values, mm):
                table.row(part)


def _split_row(pdf: _Pdf, values: Sequence[str], widths: Sequence[float]) -> list[list[str]]:
    """One row as rows that each fit on a page: every cell wrapped to its column's width
    and cut after :data:`ROW_LINES` lines, the rest in the rows below."""
    chunks: list[list[str]] = []
    for value, width in zip(values, widths, strict=True):
        lines = _lines(pdf, value, width - CELL_SLACK_MM)
        chunks.append(
            ["\n".join(lines[k : k + ROW_LINES]) for k in range(0, len(lines), ROW_LINES)]
        )
    count = max(len(c) for c in chunks)
    return [[c[k] if k < len(c) else "" for c in chunks] for k in range(count)]


def _lines(pdf: _Pdf, text: str, width: float) -> list[str]:
    """``text`` wrapped as the current font sets it in ``width`` mm (at least one line)."""
    lines = pdf.multi_cell(width, 5, text, dry_run=True, output="LINES")
    assert isinstance(lines, list)
    return [str(line) for line in lines] or [""]


def _picture(pdf: _Pdf, picture: Picture) -> None:
    width = pdf.epw
    height = width * picture.height / max(picture.width, 1)
    most = (pdf.h - pdf.t_margin - pdf.b_margin) / 2
    if height > most:
        width, height = width * most / height, most
    if pdf.get_y() + height > pdf.h - pdf.b_margin:
        pdf.add_page()
    pdf.ln(3)
    pdf.image(picture.data, w=width, h=height, alt_text=picture.alt)
    pdf.ln(3)
