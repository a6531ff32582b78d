"""scripts/function_sizes.py: finds long functions, leaves data tables alone, fails --check."""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path

SCRIPT = Path(__file__).resolve().parents[1] / "scripts" / "function_sizes.py"


def _run(*args: str) -> subprocess.CompletedProcess[str]:
    return subprocess.run(
        [sys.executable, str(SCRIPT), *args], capture_output=True, text=True, check=False
    )


def _write_module(path: Path) -> None:
    long_body = "".join(f"    x += {i}\n" for i in range(85))
    table_rows = "".join(f"        {i!r}: {i},\n" for i in range(90))
    path.write_text(
        "class Tables:\n"
        "    def long_method(self) -> int:\n"
        "        x = 0\n" + long_body.replace("    x", "        x") + "        return x\n"
        "\n\n"
        "def table() -> dict[str, int]:\n"
        '    """A data table built in a function."""\n'
        "    return {\n" + table_rows + "    }\n"
        "\n\n"
        "def short() -> int:\n"
        "    return 1\n",
        encoding="utf-8",
    )


def test_lists_long_functions_but_not_tables(tmp_path: Path) -> None:
    module = tmp_path / "mod.py"
    _write_module(module)
    result = _run(str(tmp_path))
    assert result.returncode == 0, result.stderr
    lines = result.stdout.splitlines()
    assert lines == [f"   88  {module}:2  Tables.long_method", "1 functions over 80 lines"]


def test_check_fails_over_the_limit_and_passes_under_it(tmp_path: Path) -> None:
    _write_module(tmp_path / "mod.py")
    assert _run("--check", str(tmp_path)).returncode == 1
    assert _run("--check", "--max", "88", str(tmp_path)).returncode == 0
