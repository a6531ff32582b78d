"""Printouts: sheets, monster cards, initiative lists and handouts as A4 PDFs (docs/print.md)."""
