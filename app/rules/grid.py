"""The battle map's geometry on a square grid: edges, path cost, distance, line of sight.

Pure and shared by the three systems; each system chooses its :class:`Metric` (how a
diagonal step counts, how long a cell is) in its combat adapter. Coordinates:

- a **cell** ``(x, y)`` with ``0 <= x < cols``, ``0 <= y < rows``;
- a **wall or door** lies on the grid lines between cells, as unit **edges**: ``("v", x, y)``
  is the vertical edge on line ``x`` between the cells ``(x - 1, y)`` and ``(x, y)``;
  ``("h", x, y)`` the horizontal edge on line ``y`` between ``(x, y - 1)`` and ``(x, y)``.
  A segment ``(x1, y1, x2, y2)`` in grid-line coordinates (``0..cols``, ``0..rows``),
  horizontal or vertical, is the run of unit edges it covers.

Rules decided here (docs/map.md):

- An orthogonal step crosses one edge and is blocked by a wall or closed door on it. A
  diagonal step is blocked when *either* of the two orthogonal detours is blocked (no
  squeezing past the corner of a wall).
- Entering a difficult cell costs twice the step.
- Diagonals: ``"one"`` (every step 1 cell: H&H, whose Gefährdungsbereich is the 8
  neighbours) or ``"alternate"`` (the 1st, 3rd, ... diagonal 1 cell, the 2nd, 4th, ... 2:
  PF2e's rule, and DS4's by project decision).
- Line of sight runs from cell centre to cell centre; it is blocked by a wall or closed
  door it crosses (touching a wall's end point exactly is not crossing it).
- Light: a source on a cell with a radius of ``r`` cells lights each cell whose centre
  lies less than ``r + 1/2`` cells from the source's centre (a disc: ``dx² + dy² ≤ r(r +
  1)``) and that has line of sight from the source (walls and closed doors stop light).
"""

from __future__ import annotations

import heapq
import math
from collections.abc import Iterable, Iterator, Sequence
from dataclasses import dataclass, field
from fractions import Fraction
from typing import Literal

Cell = tuple[int, int]
Edge = tuple[Literal["h", "v"], int, int]
Segment = tuple[int, int, int, int]
Diagonal = Literal["one", "alternate"]


class GridError(ValueError):
    """Input outside the grid or not on its lines; ``message`` says which."""


@dataclass(frozen=True, slots=True)
class Metric:
    """How a system measures on the grid: ``unit`` per ``per_cell`` of a cell length."""

    diagonal: Diagonal
    unit: str
    per_cell: Fraction


@dataclass(frozen=True, slots=True)
class Grid:
    cols: int
    rows: int
    #: Edges that block movement and sight (walls and closed doors).
    blocked: frozenset[Edge] = field(default_factory=frozenset)
    difficult: frozenset[Cell] = field(default_factory=frozenset)

    def inside(self, cell: Cell) -> bool:
        return 0 <= cell[0] < self.cols and 0 <= cell[1] < self.rows


def segment_edges(seg: Segment, cols: int, rows: int) -> list[Edge]:
    """The unit edges of a wall segment, or :class:`GridError` if it is not on the grid."""
    x1, y1, x2, y2 = seg
    if not (min(x1, x2) >= 0 and max(x1, x2) <= cols and 0 <= min(y1, y2) <= max(y1, y2) <= rows):
        raise GridError("segment outside the grid")
    if (x1 == x2) == (y1 == y2):
        raise GridError("a segment runs along one grid line and has a length")
    if x1 == x2:
        lo, hi = sorted((y1, y2))
        return [("v", x1, y) for y in range(lo, hi)]
    lo, hi = sorted((x1, x2))
    return [("h", x, y1) for x in range(lo, hi)]


def edges_to_segments(edges: Iterable[Edge]) -> list[Segment]:
    """Unit edges joined into the fewest straight segments (for the answer and the SVG)."""
    out: list[Segment] = []
    horizontal = sorted((y, x) for kind, x, y in edges if kind == "h")
    vertical = sorted((x, y) for kind, x, y in edges if kind == "v")
    for line, along in _runs(horizontal):
        out.append((along[0], line, along[1], line))
    for line, along in _runs(vertical):
        out.append((line, along[0], line, along[1]))
    return out


def _runs(points: list[tuple[int, int]]) -> Iterator[tuple[int, tuple[int, int]]]:
    start: tuple[int, int] | None = None
    prev: tuple[int, int] | None = None
    for line, pos in points:
        if prev is not None and start is not None and (line != prev[0] or pos != prev[1] + 1):
            yield start[0], (start[1], prev[1] + 1)
            start = None
        if start is None:
            start = (line, pos)
        prev = (line, pos)
    if start is not None and prev is not None:
        yield start[0], (start[1], prev[1] + 1)


def edge_between(a: Cell, b: Cell) -> Edge:
    """The edge between two orthogonally adjacent cells."""
    if a[1] == b[1] and abs(a[0] - b[0]) == 1:
        return ("v", max(a[0], b[0]), a[1])
    if a[0] == b[0] and abs(a[1] - b[1]) == 1:
        return ("h", a[0], max(a[1], b[1]))
    raise GridError("cells are not orthogonal neighbours")


def step_open(grid: Grid, a: Cell, b: Cell) -> bool:
    """Whether one step from ``a`` to its neighbour ``b`` is possible."""
    dx, dy = b[0] - a[0], b[1] - a[1]
    if max(abs(dx), abs(dy)) != 1 or not grid.inside(b):
        return False
    if dx == 0 or dy == 0:
        return edge_between(a, b) not in grid.blocked
    via_x, via_y = (b[0], a[1]), (a[0], b[1])
    first = (
        edge_between(a, via_x) not in grid.blocked and edge_between(via_x, b) not in grid.blocked
    )
    second = (
        edge_between(a, via_y) not in grid.blocked and edge_between(via_y, b) not in grid.blocked
    )
    return first and second


def step_cost(
    grid: Grid, b: Cell, diagonal_step: bool, diagonals_so_far: int, rule: Diagonal
) -> int:
    """Cells one step into ``b`` costs (difficult terrain doubles it)."""
    base = 2 if diagonal_step and rule == "alternate" and diagonals_so_far % 2 == 1 else 1
    return base * (2 if b in grid.difficult else 1)


@dataclass(frozen=True, slots=True)
class PathCost:
    """A path's cost in cells; ``blocked_at``: index of the first step that is impossible."""

    cost: int
    blocked_at: int | None


def path_cost(grid: Grid, path: Sequence[Cell], rule: Diagonal) -> PathCost:
    """The cost of following ``path`` (start cell first) step by step."""
    cost = 0
    diagonals = 0
    for i in range(1, len(path)):
        a, b = path[i - 1], path[i]
        if not step_open(grid, a, b):
            return PathCost(cost, i)
        diagonal = a[0] != b[0] and a[1] != b[1]
        cost += step_cost(grid, b, diagonal, diagonals, rule)
        diagonals += diagonal
    return PathCost(cost, None)


NEIGHBOURS = ((1, 0), (-1, 0), (0, 1), (0, -1), (1, 1), (1, -1), (-1, 1), (-1, -1))


def shortest_path(
    grid: Grid, start: Cell, goal: Cell, rule: Diagonal, *, avoid: frozenset[Cell] = frozenset()
) -> list[Cell] | None:
    """A cheapest path from ``start`` to ``goal`` (both included), or ``None``.

    Dijkstra over (cell, parity of diagonals taken): with alternating diagonals the cost of
    the next diagonal depends on it. ``avoid``: cells that may not be entered (other figures).
    """
    if not grid.inside(start) or not grid.inside(goal):
        return None
    Node = tuple[Cell, int]
    best: dict[Node, int] = {(start, 0): 0}
    came: dict[Node, Node] = {}
    queue: list[tuple[int, Cell, int]] = [(0, start, 0)]
    while queue:
        cost, cell, parity = heapq.heappop(queue)
        if cell == goal:
            return _unwind(came, (cell, parity))
        if cost > best.get((cell, parity), cost):
            continue
        for dx, dy in NEIGHBOURS:
            nxt = (cell[0] + dx, cell[1] + dy)
            if (nxt in avoid and nxt != goal) or not step_open(grid, cell, nxt):
                continue
            diagonal = dx != 0 and dy != 0
            new = cost + step_cost(grid, nxt, diagonal, parity, rule)
            node = (nxt, (parity + diagonal) % 2)
            if new < best.get(node, new + 1):
                best[node] = new
                came[node] = (cell, parity)
                heapq.heappush(queue, (new, nxt, node[1]))
    return None


def reachable(grid: Grid, start: Cell, budget: int, rule: Diagonal) -> dict[Cell, int]:
    """Every cell a figure on ``start`` can walk to with at most ``budget`` cells of
    movement, with the cheapest cost (the start included at 0): the steps and costs of
    :func:`shortest_path` (walls and closed doors stop it, difficult terrain doubles a
    step, alternating diagonals), other figures not counted."""
    if not grid.inside(start) or budget < 0:
        return {}
    best: dict[tuple[Cell, int], int] = {(start, 0): 0}
    out: dict[Cell, int] = {start: 0}
    queue: list[tuple[int, Cell, int]] = [(0, start, 0)]
    while queue:
        cost, cell, parity = heapq.heappop(queue)
        if cost > best.get((cell, parity), cost):
            continue
        for dx, dy in NEIGHBOURS:
            nxt = (cell[0] + dx, cell[1] + dy)
            if not step_open(grid, cell, nxt):
                continue
            diagonal = dx != 0 and dy != 0
            new = cost + step_cost(grid, nxt, diagonal, parity, rule)
            node = (nxt, (parity + diagonal) % 2)
            if new <= budget and new < best.get(node, new + 1):
                best[node] = new
                out[nxt] = min(out.get(nxt, new), new)
                heapq.heappush(queue, (new, nxt, node[1]))
    return out


def _unwind(came: dict[tuple[Cell, int], tuple[Cell, int]], node: tuple[Cell, int]) -> list[Cell]:
    path = [node[0]]
    while node in came:
        node = came[node]
        path.append(node[0])
    return path[::-1]


def distance(a: Cell, b: Cell, rule: Diagonal) -> int:
    """Cells between ``a`` and ``b`` on open ground (walls ignored): the range of an attack."""
    dx, dy = abs(a[0] - b[0]), abs(a[1] - b[1])
    diag, straight = min(dx, dy), abs(dx - dy)
    extra = diag // 2 if rule == "alternate" else 0
    return straight + diag + extra


def nearest(
    points: Sequence[tuple[int, int, str]], rule: Diagonal, count: int
) -> list[list[tuple[int, str]]]:
    """For each point ``(x, y, name)``, the ``count`` nearest of the others as
    ``(cells, name)``: nearest first, equal distances by name.

    Every pair is measured (100 tokens: 9,900 distances), so :func:`distance` is written
    out in the loop: the greater offset, and with the alternating rule every second
    diagonal step once more (``tests/rules/test_grid_nearest.py`` holds the two equal)."""
    out: list[list[tuple[int, str]]] = []
    for x, y, name in points:
        if rule == "alternate":
            measured = [
                (
                    dx + dy // 2 if (dx := abs(x - ox)) >= (dy := abs(y - oy)) else dy + dx // 2,
                    other,
                )
                for ox, oy, other in points
            ]
        else:
            measured = [
                (dx if (dx := abs(x - ox)) >= (dy := abs(y - oy)) else dy, other)
                for ox, oy, other in points
            ]
        measured.remove((0, name))  # itself (or its equal: the same distance and name)
        out.append(heapq.nsmallest(count, measured))
    return out


def _corner_closed(blocked: frozenset[Edge], src: Cell, dst: Cell) -> bool:
    """Whether a line through the grid corner between the diagonal neighbours ``src`` and
    ``dst`` is stopped: only when both detours around the corner are walled (a line that
    only touches the end of a wall passes)."""
    via_a, via_b = (dst[0], src[1]), (src[0], dst[1])
    a = edge_between(src, via_a) in blocked or edge_between(via_a, dst) in blocked
    b = edge_between(src, via_b) in blocked or edge_between(via_b, dst) in blocked
    return a and b


Point = tuple[Fraction, Fraction]


def _centre(cell: Cell) -> Point:
    half = Fraction(1, 2)
    return (cell[0] + half, cell[1] + half)


def segment_blocked(grid: Grid, p: Point, q: Point) -> bool:
    """Whether a wall or closed door stops the straight line from point ``p`` to ``q``
    (points in grid-line coordinates, not on a grid line themselves).

    Every grid line between them is visited once (a supercover walk): where the line
    crosses it between two lattice points, the unit edge there decides; exactly through a
    lattice point, the corner rule of :func:`_corner_closed`.
    """
    (x0, y0), (x1, y1) = p, q
    dx, dy = x1 - x0, y1 - y0
    sx, sy = (1 if dx > 0 else -1), (1 if dy > 0 else -1)
    for line in range(math.floor(min(x0, x1)) + 1, math.floor(max(x0, x1)) + 1):
        y = y0 + dy * (line - x0) / dx
        if y.denominator == 1:
            k = int(y)
            src = (line - 1 if sx > 0 else line, k - 1 if sy > 0 else k)
            if dy != 0 and _corner_closed(grid.blocked, src, (src[0] + sx, src[1] + sy)):
                return True
        elif ("v", line, math.floor(y)) in grid.blocked:
            return True
    for line in range(math.floor(min(y0, y1)) + 1, math.floor(max(y0, y1)) + 1):
        x = x0 + dx * (line - y0) / dy
        if x.denominator != 1 and ("h", math.floor(x), line) in grid.blocked:
            return True
    return False


def sight_blocked(grid: Grid, a: Cell, b: Cell) -> bool:
    """Whether a wall or closed door stops the line from the centre of ``a`` to that of ``b``.

    The walk of :func:`segment_blocked` in integers (doubled coordinates: cell centres are
    odd, grid lines even), because a player's sight asks this for every cell in range.
    """
    blocked = grid.blocked
    if not blocked or a == b:
        return False
    x0, y0, x1, y1 = 2 * a[0] + 1, 2 * a[1] + 1, 2 * b[0] + 1, 2 * b[1] + 1
    dx, dy = x1 - x0, y1 - y0
    sx, sy = (1 if dx > 0 else -1), (1 if dy > 0 else -1)
    for line in range(min(a[0], b[0]) + 1, max(a[0], b[0]) + 1):
        num, den = y0 * dx + dy * (2 * line - x0), 2 * dx
        if den < 0:
            num, den = -num, -den
        k, rest = divmod(num, den)
        if rest == 0:
            src = (line - 1 if sx > 0 else line, k - 1 if sy > 0 else k)
            if dy != 0 and _corner_closed(blocked, src, (src[0] + sx, src[1] + sy)):
                return True
        elif ("v", line, k) in blocked:
            return True
    for line in range(min(a[1], b[1]) + 1, max(a[1], b[1]) + 1):
        num, den = x0 * dy + dx * (2 * line - y0), 2 * dy
        if den < 0:
            num, den = -num, -den
        k, rest = divmod(num, den)
        if rest != 0 and ("h", k, line) in blocked:
            return True
    return False


#: Where the cover lines end inside the target's cell: near its four corners (a tenth of a
#: cell inside, so that no line ends on a grid line).
COVER_INSET = Fraction(1, 10)


def cover_lines(grid: Grid, a: Cell, b: Cell) -> tuple[int, int]:
    """How many of the lines from the centre of ``a`` to the four corners of ``b`` (each a
    tenth of a cell inside) a wall or closed door stops, of how many: the measure of a
    wall's cover (the systems' engines turn it into a category)."""
    lo, hi = COVER_INSET, 1 - COVER_INSET
    ends = [(b[0] + fx, b[1] + fy) for fx in (lo, hi) for fy in (lo, hi)]
    return sum(segment_blocked(grid, _centre(a), end) for end in ends), len(ends)


def line_of_sight(grid: Grid, a: Cell, b: Cell) -> bool:
    """Whether the centre of ``b`` can be seen from the centre of ``a``."""
    return a == b or not sight_blocked(grid, a, b)


def cells_on_line(a: Cell, b: Cell) -> list[Cell]:
    """The cells the centre-to-centre line from ``a`` to ``b`` passes through, in order,
    without both ends (the figures there may give living cover)."""
    (x0, y0), (x1, y1) = a, b
    samples = 4 * max(abs(x1 - x0), abs(y1 - y0))
    out: list[Cell] = []
    half = Fraction(1, 2)
    for i in range(samples):
        t = Fraction(2 * i + 1, 2 * samples)
        x, y = x0 + half + (x1 - x0) * t, y0 + half + (y1 - y0) * t
        if x.denominator == 1 or y.denominator == 1:
            continue
        cell = (math.floor(x), math.floor(y))
        if cell not in out and cell not in (a, b):
            out.append(cell)
    return out


def visible_cells(grid: Grid, eyes: Iterable[Cell], max_range: int | None = None) -> set[Cell]:
    """Every cell some cell of ``eyes`` has line of sight to (within ``max_range`` cells,
    counted as steps in any direction: only the square around an eye is looked at)."""
    seen: set[Cell] = set()
    for eye in eyes:
        reach = max(grid.cols, grid.rows) if max_range is None else max_range
        for x in range(max(0, eye[0] - reach), min(grid.cols, eye[0] + reach + 1)):
            for y in range(max(0, eye[1] - reach), min(grid.rows, eye[1] + reach + 1)):
                cell = (x, y)
                if cell not in seen and not sight_blocked(grid, eye, cell):
                    seen.add(cell)
    return seen


def in_light_radius(source: Cell, cell: Cell, radius: int) -> bool:
    """Whether the centre of ``cell`` lies less than ``radius + 1/2`` cells from the centre
    of ``source`` (in integers: ``dx² + dy² ≤ radius (radius + 1)``)."""
    dx, dy = cell[0] - source[0], cell[1] - source[1]
    return radius >= 0 and dx * dx + dy * dy <= radius * (radius + 1)


def lit_by(grid: Grid, source: Cell, radius: int) -> set[Cell]:
    """The cells a light on ``source`` with ``radius`` cells lights: within the radius
    (:func:`in_light_radius`) and with a line from the source (:func:`line_of_sight`)."""
    out: set[Cell] = set()
    if not grid.inside(source) or radius < 0:
        return out
    for x in range(max(0, source[0] - radius), min(grid.cols, source[0] + radius + 1)):
        for y in range(max(0, source[1] - radius), min(grid.rows, source[1] + radius + 1)):
            cell = (x, y)
            if in_light_radius(source, cell, radius) and not sight_blocked(grid, source, cell):
                out.add(cell)
    return out


def lit_cells(grid: Grid, lights: Iterable[tuple[Cell, int]]) -> set[Cell]:
    """The cells some light ``(source, radius)`` lights (:func:`lit_by` of each)."""
    out: set[Cell] = set()
    for source, radius in lights:
        out |= lit_by(grid, source, radius)
    return out


def push_end(
    grid: Grid,
    start: Cell,
    size: int,
    direction: tuple[int, int],
    steps: int,
    taken: frozenset[Cell],
    passable: frozenset[Cell] = frozenset(),
) -> Cell:
    """Where a token of ``size`` at ``start`` ends when pushed ``steps`` cells in
    ``direction`` (each of x and y −1, 0 or 1): it stops before a wall or closed door (a
    diagonal step by the corner rule of :func:`step_open`), the grid's edge, or a cell in
    ``taken``; it may cross cells in ``passable`` (the figure it slides past) but not end
    on one — then it stays on its last cell outside them."""
    here, rest = start, start
    for _ in range(steps):
        nxt = (here[0] + direction[0], here[1] + direction[1])
        cells = footprint(nxt, size)
        moves = zip(footprint(here, size), cells, strict=True)
        if any(c in taken or not grid.inside(c) for c in cells) or not all(
            step_open(grid, a, b) for a, b in moves
        ):
            break
        here = nxt
        if not any(c in passable for c in cells):
            rest = here
    return rest


def footprint(cell: Cell, size: int) -> list[Cell]:
    """The cells a token of ``size`` × ``size`` cells covers, ``cell`` its top-left one."""
    return [(cell[0] + dx, cell[1] + dy) for dx in range(size) for dy in range(size)]


def free_cells_near(
    grid: Grid, area: Sequence[Cell], taken: Iterable[Cell], count: int
) -> list[Cell]:
    """Up to ``count`` free cells for figures starting in ``area``: first the area's own
    free cells (in its order), then the nearest cells reachable from it by steps walls allow
    (breadth first, orthogonal before diagonal). ``taken``: cells already occupied."""
    occupied = set(taken)
    inside = [c for c in dict.fromkeys(area) if grid.inside(c)]
    out = [c for c in inside if c not in occupied][:count]
    seen = set(inside)
    queue = list(inside)
    while queue and len(out) < count:
        nxt: list[Cell] = []
        for cell in queue:
            for dx, dy in NEIGHBOURS:
                cand = (cell[0] + dx, cell[1] + dy)
                if cand in seen or not step_open(grid, cell, cand):
                    continue
                seen.add(cand)
                nxt.append(cand)
                if cand not in occupied and len(out) < count:
                    out.append(cand)
        queue = nxt
    return out


# --- areas (issue 27; docs/rules/README.md, «Areas on the grid») ----------------------------

AreaShape = Literal["circle", "cone", "line"]


def _inside_area(shape: AreaShape, v: tuple[int, int], d: tuple[int, int], size2: Fraction) -> bool:
    """Whether the offset ``v`` (doubled cell units, from the origin's centre to a cell's
    centre) lies in the shape of squared size ``size2`` (doubled units) pointing along ``d``."""
    vv = v[0] * v[0] + v[1] * v[1]
    if shape == "circle":
        return vv <= size2
    if vv == 0:
        return False  # a cone or line starts at its origin; the caster's cell is not in it
    dot = v[0] * d[0] + v[1] * d[1]
    dd = d[0] * d[0] + d[1] * d[1]
    if shape == "cone":
        # Within the radius and 45° of ``d``: cos ≥ 1/√2, squared without roots.
        return vv <= size2 and dot > 0 and 2 * dot * dot >= vv * dd
    cross = v[0] * d[1] - v[1] * d[0]
    # A line one cell wide: the centre at most half a cell (1 in doubled units) from its axis.
    return dot > 0 and cross * cross <= dd and dot * dot <= size2 * dd


def area_cells(
    grid: Grid, shape: AreaShape, origin: Cell, size: Fraction, toward: Cell | None = None
) -> set[Cell]:
    """The cells an area covers: its centre lies inside the shape (a circle of radius
    ``size`` cells around the origin cell's centre; a 90° cone or a line one cell wide of
    length ``size`` from it towards ``toward``'s centre) **and** a line from the origin's
    centre reaches it (walls and closed doors stop it, as they stop sight)."""
    if not grid.inside(origin):
        raise GridError("origin outside the grid")
    if shape != "circle" and (toward is None or toward == origin):
        raise GridError("a cone or a line needs a direction")
    d = (0, 0) if toward is None else (2 * (toward[0] - origin[0]), 2 * (toward[1] - origin[1]))
    size2 = (2 * size) ** 2
    reach = math.ceil(size) + 1
    out: set[Cell] = set()
    for x in range(max(0, origin[0] - reach), min(grid.cols, origin[0] + reach + 1)):
        for y in range(max(0, origin[1] - reach), min(grid.rows, origin[1] + reach + 1)):
            v = (2 * (x - origin[0]), 2 * (y - origin[1]))
            if _inside_area(shape, v, d, size2) and not sight_blocked(grid, origin, (x, y)):
                out.add((x, y))
    return out
