"""Tafelrunde: a web virtual tabletop whose server runs the rules and rolls every die."""
