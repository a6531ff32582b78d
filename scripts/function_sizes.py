"""List the functions longer than a limit (default 80 lines) in the given trees (default app/).

    python scripts/function_sizes.py [--max 80] [--check] [PATH ...]

A function's length runs from its ``def`` line to its last line, docstring and comments
included (what a reader has to take in). Data tables are not counted: a function whose body
is one ``return`` of a literal (a dict, list, tuple or set) is a table that happens to be
built in a function. Nested functions are listed on their own and count within their parent.
With ``--check`` the exit status is 1 when any function is over the limit.
"""

from __future__ import annotations

import argparse
import ast
import sys
from collections.abc import Iterator, Sequence
from dataclasses import dataclass
from pathlib import Path

DEFAULT_MAX = 80
_LITERALS = (ast.Dict, ast.List, ast.Tuple, ast.Set)


@dataclass(frozen=True, slots=True)
class Function:
    path: Path
    line: int
    name: str
    lines: int

    def __str__(self) -> str:
        return f"{self.lines:5d}  {self.path}:{self.line}  {self.name}"


def is_table(node: ast.FunctionDef | ast.AsyncFunctionDef) -> bool:
    """One ``return`` of a literal, after an optional docstring."""
    body = node.body
    if body and isinstance(body[0], ast.Expr) and isinstance(body[0].value, ast.Constant):
        body = body[1:]
    return (
        len(body) == 1 and isinstance(body[0], ast.Return) and isinstance(body[0].value, _LITERALS)
    )


def functions(path: Path) -> Iterator[Function]:
    """Every function and method in one file, with its qualified name and length."""
    tree = ast.parse(path.read_text(encoding="utf-8"), filename=str(path))

    def walk(node: ast.AST, prefix: str) -> Iterator[Function]:
        for child in ast.iter_child_nodes(node):
            if isinstance(child, ast.FunctionDef | ast.AsyncFunctionDef):
                name = prefix + child.name
                end = child.end_lineno or child.lineno
                if not is_table(child):
                    yield Function(path, child.lineno, name, end - child.lineno + 1)
                yield from walk(child, name + ".")
            elif isinstance(child, ast.ClassDef):
                yield from walk(child, prefix + child.name + ".")
            else:
                yield from walk(child, prefix)

    yield from walk(tree, "")


def python_files(roots: Sequence[Path]) -> Iterator[Path]:
    for root in roots:
        yield from [root] if root.is_file() else sorted(root.rglob("*.py"))


def too_long(roots: Sequence[Path], limit: int) -> list[Function]:
    """The functions over ``limit`` lines, longest first."""
    found = [f for p in python_files(roots) for f in functions(p) if f.lines > limit]
    return sorted(found, key=lambda f: (-f.lines, str(f.path), f.line))


def main(argv: Sequence[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("paths", nargs="*", type=Path, default=[Path("app")])
    parser.add_argument("--max", type=int, default=DEFAULT_MAX, help="longest allowed function")
    parser.add_argument("--check", action="store_true", help="exit 1 if any function is longer")
    args = parser.parse_args(argv)
    found = too_long(args.paths, args.max)
    for function in found:
        print(function)
    print(f"{len(found)} functions over {args.max} lines")
    return 1 if args.check and found else 0


if __name__ == "__main__":
    sys.exit(main())
