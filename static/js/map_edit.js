// The GM's scene editor (templates/maps/_editor.html): draws over the forms that work
// without JavaScript and keeps them in step. Tap (click) a cell edge for a wall or a door,
// a cell for difficult terrain or a start cell; drag from one grid point to another for a
// straight wall along the grid lines (the longer axis wins), drag over cells to paint
// terrain or start cells like a brush (the first cell decides: paint or erase); «Undo» (or
// Ctrl+Z) takes back the last edit; the «Pan» mode lets a finger scroll the editor instead.
// Keyboard: arrow keys move a cursor, Shift + arrow acts on that side's edge, Space on the
// cell. «Save walls» PUTs the whole set with the version read; a stale one (409) loads the
// current walls and says so. The grid fields preview the alignment on the background as
// they change. Nothing here touches the board.
(function () {
  "use strict";
  var CELL = 64; // px per cell: the nearest-edge target of an edge is 64 px across (≥ 44)
  var NS = "http://www.w3.org/2000/svg";
  var SIDES = ["abenteurer", "gegner", "neutral"];
  var MODE_KEYS = { w: "wall", d: "door", t: "difficult", p: "pan", "1": "abenteurer", "2": "gegner", "3": "neutral" };
  var DRAG = 0.5; // cells a pointer must travel before a press is a drag, not a tap
  var UNDO_MAX = 100;
  var root = document.getElementById("map-edit");
  if (!root) { return; }
  var cols = parseInt(root.getAttribute("data-cols"), 10);
  var rows = parseInt(root.getAttribute("data-rows"), 10);
  var walls = {}; // "v,x,y" -> true
  var doors = {}; // "v,x,y" -> open (bool)
  var difficult = {}; // "x,y" -> true
  var areas = { abenteurer: {}, gegner: {}, neutral: {} };
  var mode = "wall";
  var cursor = [0, 0];
  var svg, layer, image, cursorRect, wallPreview;
  var history = []; // snapshots before each edit, for «Undo»
  var press = null; // the pointer pressed on the editor: {id, x, y, drag, paint, seen}

  function $(id) { return document.getElementById(id); }
  function label(name) { return root.getAttribute("data-l-" + name) || ""; }
  function say(text) { $("map-edit-status").textContent = text || ""; }
  function at(x, y) { return label("at").replace("{x}", x).replace("{y}", y); }

  // --- the texts of the forms <-> the drawn state ----------------------------------------
  function numbers(text) {
    return text.split(/[\n;]/).map(function (l) { return l.trim(); })
      .filter(function (l) { return l; })
      .map(function (l) { return l.split(/[\s,]+/).map(function (n) { return parseInt(n, 10); }); });
  }
  function unitEdges(seg) { // [x1, y1, x2, y2] -> ["v,x,y", ...]
    var out = [], i;
    if (seg[0] === seg[2]) {
      for (i = Math.min(seg[1], seg[3]); i < Math.max(seg[1], seg[3]); i++) { out.push("v," + seg[0] + "," + i); }
    } else if (seg[1] === seg[3]) {
      for (i = Math.min(seg[0], seg[2]); i < Math.max(seg[0], seg[2]); i++) { out.push("h," + i + "," + seg[1]); }
    }
    return out;
  }
  function segmentOf(key) { // "v,x,y" -> [x1, y1, x2, y2]
    var p = key.split(","), x = +p[1], y = +p[2];
    return p[0] === "v" ? [x, y, x, y + 1] : [x, y, x + 1, y];
  }
  function load(scene) { // from the forms' texts, or from a scene of the JSON API
    walls = {}; doors = {}; difficult = {};
    var segs = scene ? scene.walls : numbers($("edit-segments").value);
    segs.forEach(function (s) { unitEdges(s).forEach(function (k) { walls[k] = true; }); });
    var ds = scene ? scene.doors.map(function (d) { return d.segment.concat([d.open ? 1 : 0]); })
      : numbers($("edit-doors").value);
    ds.forEach(function (d) { unitEdges(d).forEach(function (k) { doors[k] = d[4] === 1; delete walls[k]; }); });
    var cs = scene ? scene.difficult : numbers($("edit-difficult").value);
    cs.forEach(function (c) { difficult[c[0] + "," + c[1]] = true; });
    SIDES.forEach(function (side) {
      var field = $("area-" + side);
      areas[side] = {};
      if (field) { numbers(field.value).forEach(function (c) { areas[side][c[0] + "," + c[1]] = true; }); }
    });
  }
  function write() {
    $("edit-segments").value = Object.keys(walls).sort().map(function (k) { return segmentOf(k).join(","); }).join("\n");
    $("edit-doors").value = Object.keys(doors).sort().map(function (k) {
      return segmentOf(k).join(",") + (doors[k] ? ",1" : "");
    }).join("\n");
    $("edit-difficult").value = Object.keys(difficult).sort().join("\n");
    SIDES.forEach(function (side) {
      var field = $("area-" + side);
      if (field) { field.value = Object.keys(areas[side]).sort().join("\n"); }
    });
  }

  // --- undo ------------------------------------------------------------------------------
  function snapshot() {
    return JSON.stringify({ walls: walls, doors: doors, difficult: difficult, areas: areas });
  }
  function remember() {
    history.push(snapshot());
    if (history.length > UNDO_MAX) { history.shift(); }
    undoButton().disabled = false;
  }
  function undoButton() { return root.querySelector("[data-edit-undo]"); }
  function undo() {
    if (!history.length) { return; }
    var state = JSON.parse(history.pop());
    walls = state.walls; doors = state.doors; difficult = state.difficult; areas = state.areas;
    undoButton().disabled = history.length === 0;
    say(label("undone") + " " + root.getAttribute("data-unsaved"));
    write(); draw();
  }

  // --- drawing -----------------------------------------------------------------------------
  function el(name, attrs, parent) {
    var e = document.createElementNS(NS, name);
    for (var k in attrs) { if (attrs.hasOwnProperty(k)) { e.setAttribute(k, attrs[k]); } }
    (parent || layer).appendChild(e);
    return e;
  }
  function build() {
    var viewport = root.querySelector(".map-edit-viewport");
    svg = el("svg", { "class": "map-edit-svg", viewBox: "0 0 " + cols + " " + rows, width: cols * CELL,
      height: rows * CELL, "aria-hidden": "true", focusable: "false" }, viewport);
    el("rect", { "class": "map-ground", x: 0, y: 0, width: cols, height: rows }, svg);
    if (root.getAttribute("data-bg-url")) {
      image = el("image", { href: root.getAttribute("data-bg-url"), preserveAspectRatio: "none" }, svg);
      preview();
    }
    var d = "", i;
    for (i = 0; i <= cols; i++) { d += "M" + i + " 0V" + rows; }
    for (i = 0; i <= rows; i++) { d += "M0 " + i + "H" + cols; }
    el("path", { "class": "map-grid", d: d }, svg);
    layer = el("g", {}, svg);
    cursorRect = el("rect", { "class": "map-cursor", x: 0, y: 0, width: 1, height: 1, visibility: "hidden" }, svg);
    wallPreview = el("line", { "class": "map-wall-preview", x1: 0, y1: 0, x2: 0, y2: 0, visibility: "hidden" }, svg);
    svg.addEventListener("pointerdown", onDown);
    svg.addEventListener("pointermove", onMove);
    svg.addEventListener("pointerup", onUp);
    svg.addEventListener("pointercancel", function () { press = null; showPreview(null); });
    viewport.addEventListener("keydown", onKey);
    viewport.addEventListener("focus", function () { showCursor(true); });
    viewport.addEventListener("blur", function () { showCursor(false); });
    [".map-edit-tools", "#map-edit-help", ".map-edit-viewport"].forEach(function (s) {
      root.querySelector(s).hidden = false;
    });
  }
  function draw() {
    while (layer.firstChild) { layer.removeChild(layer.firstChild); }
    Object.keys(difficult).forEach(function (k) {
      var c = k.split(",");
      el("rect", { "class": "map-difficult", x: c[0], y: c[1], width: 1, height: 1 });
    });
    SIDES.forEach(function (side) {
      Object.keys(areas[side]).forEach(function (k) {
        var c = k.split(",");
        el("rect", { "class": "map-start map-start-" + side, x: +c[0] + 0.15, y: +c[1] + 0.15, width: 0.7, height: 0.7 });
      });
    });
    Object.keys(walls).forEach(function (k) { edgeLine(k, "map-wall"); });
    Object.keys(doors).forEach(function (k) { edgeLine(k, "map-door" + (doors[k] ? " map-door-open" : "")); });
  }
  function edgeLine(key, cls) {
    var s = segmentOf(key);
    el("line", { "class": cls, x1: s[0], y1: s[1], x2: s[2], y2: s[3], "data-edge": key });
  }
  function showCursor(on) {
    cursorRect.setAttribute("x", cursor[0]);
    cursorRect.setAttribute("y", cursor[1]);
    cursorRect.setAttribute("visibility", on ? "visible" : "hidden");
  }

  // --- editing -----------------------------------------------------------------------------
  function edgeAction(key) {
    var what;
    remember();
    if (mode === "door") {
      if (!(key in doors)) { doors[key] = false; delete walls[key]; what = "door"; }
      else if (!doors[key]) { doors[key] = true; what = "open"; }
      else { delete doors[key]; what = "none"; }
    } else if (walls[key]) { delete walls[key]; what = "none"; }
    else { walls[key] = true; delete doors[key]; what = "wall"; }
    changed(label(what), key);
  }
  function cellSet() { return mode === "difficult" ? difficult : areas[mode]; }
  function cellAction(x, y, paint) {
    var key = x + "," + y, set = cellSet();
    var on = paint === undefined ? !set[key] : paint;
    if (paint === undefined) { remember(); }
    if (on) { set[key] = true; } else { delete set[key]; }
    var what = mode === "difficult" ? (on ? "difficult" : "plain") : (on ? "start" : "nostart");
    say(label(what) + ": " + at(x + 1, y + 1) + ". " + root.getAttribute("data-unsaved"));
    write(); draw();
  }
  function changed(text, key) {
    var p = key.split(",");
    var x = p[0] === "v" ? +p[1] : +p[1] + 1, y = p[0] === "v" ? +p[2] + 1 : +p[2];
    say(text + ": " + at(x, y) + ". " + root.getAttribute("data-unsaved"));
    write(); draw();
  }
  function edgeMode() { return mode === "wall" || mode === "door"; }
  function cellMode() { return mode === "difficult" || SIDES.indexOf(mode) >= 0; }

  // --- pointer: a tap acts like a click; a drag draws a straight wall or paints cells -----
  function gridPoint(evt) {
    var r = svg.getBoundingClientRect();
    return [(evt.clientX - r.left) / r.width * cols, (evt.clientY - r.top) / r.height * rows];
  }
  function cellAt(p) {
    return [Math.max(0, Math.min(cols - 1, Math.floor(p[0]))), Math.max(0, Math.min(rows - 1, Math.floor(p[1])))];
  }
  function inside(p) { return p[0] >= 0 && p[1] >= 0 && p[0] <= cols && p[1] <= rows; }
  function onDown(evt) {
    if (mode === "pan" || evt.button > 0) { return; }
    var p = gridPoint(evt);
    if (!inside(p)) { return; }
    press = { id: evt.pointerId, start: p, drag: false, paint: null, seen: {} };
    svg.setPointerCapture(evt.pointerId);
  }
  function onMove(evt) {
    if (!press || evt.pointerId !== press.id) { return; }
    var p = gridPoint(evt);
    if (!press.drag && Math.abs(p[0] - press.start[0]) + Math.abs(p[1] - press.start[1]) < DRAG) { return; }
    if (!press.drag) { press.drag = true; startDrag(); }
    if (mode === "wall") { showPreview(straight(press.start, p)); }
    else if (cellMode()) { paintAt(cellAt(p)); }
  }
  function onUp(evt) {
    if (!press || evt.pointerId !== press.id) { return; }
    var done = press;
    press = null;
    showPreview(null);
    if (!done.drag) { onTap(done.start); return; }
    if (mode === "wall") { wallAlong(straight(done.start, gridPoint(evt))); }
  }
  function startDrag() {
    if (cellMode()) {
      var first = cellAt(press.start), set = cellSet();
      remember();
      press.paint = !set[first[0] + "," + first[1]];
      paintAt(first);
    }
  }
  function paintAt(cell) {
    var key = cell[0] + "," + cell[1];
    if (press.seen[key]) { return; }
    press.seen[key] = true;
    cellAction(cell[0], cell[1], press.paint);
  }
  // The straight segment from the grid point nearest the press along the longer axis of the
  // drag: [x1, y1, x2, y2] with x1 == x2 or y1 == y2, clamped to the scene.
  function straight(a, b) {
    var x1 = Math.round(a[0]), y1 = Math.round(a[1]);
    var x2 = Math.round(b[0]), y2 = Math.round(b[1]);
    if (Math.abs(x2 - x1) >= Math.abs(y2 - y1)) { y2 = y1; } else { x2 = x1; }
    function cx(v) { return Math.max(0, Math.min(cols, v)); }
    function cy(v) { return Math.max(0, Math.min(rows, v)); }
    return [cx(x1), cy(y1), cx(x2), cy(y2)];
  }
  function showPreview(seg) {
    if (!seg) { wallPreview.setAttribute("visibility", "hidden"); return; }
    wallPreview.setAttribute("x1", seg[0]); wallPreview.setAttribute("y1", seg[1]);
    wallPreview.setAttribute("x2", seg[2]); wallPreview.setAttribute("y2", seg[3]);
    wallPreview.setAttribute("visibility", "visible");
  }
  function wallAlong(seg) {
    var keys = unitEdges(seg);
    if (!keys.length) { return; }
    remember();
    keys.forEach(function (k) { walls[k] = true; delete doors[k]; });
    say(label("wall") + ": " + at(seg[0], seg[1]) + " – " + at(seg[2], seg[3]) + ". " + root.getAttribute("data-unsaved"));
    write(); draw();
  }

  function onTap(p) {
    var fx = p[0], fy = p[1];
    if (cellMode()) {
      cellAction(Math.min(cols - 1, Math.floor(fx)), Math.min(rows - 1, Math.floor(fy)));
      return;
    }
    // The nearest grid line decides: a vertical edge when a vertical line is nearer.
    var vx = Math.round(fx), hy = Math.round(fy);
    if (Math.abs(fx - vx) <= Math.abs(fy - hy)) {
      edgeAction("v," + vx + "," + Math.min(rows - 1, Math.floor(fy)));
    } else {
      edgeAction("h," + Math.min(cols - 1, Math.floor(fx)) + "," + hy);
    }
  }
  var ARROWS = { ArrowLeft: [-1, 0], ArrowRight: [1, 0], ArrowUp: [0, -1], ArrowDown: [0, 1] };
  function onKey(evt) {
    var step = ARROWS[evt.key], key = evt.key.toLowerCase();
    if (key === "z" && (evt.ctrlKey || evt.metaKey)) {
      undo();
    } else if (step && evt.shiftKey) {
      var x = cursor[0], y = cursor[1];
      var edge = step[0] ? "v," + (x + (step[0] > 0 ? 1 : 0)) + "," + y : "h," + x + "," + (y + (step[1] > 0 ? 1 : 0));
      if (!edgeMode()) { setMode("wall"); }
      edgeAction(edge);
    } else if (step) {
      cursor = [Math.max(0, Math.min(cols - 1, cursor[0] + step[0])), Math.max(0, Math.min(rows - 1, cursor[1] + step[1]))];
      say(at(cursor[0] + 1, cursor[1] + 1));
    } else if ((evt.key === " " || evt.key === "Enter") && cellMode()) {
      cellAction(cursor[0], cursor[1]);
    } else if (MODE_KEYS[key] && !evt.ctrlKey && !evt.metaKey && !evt.altKey &&
               root.querySelector('[data-edit-mode="' + MODE_KEYS[key] + '"]')) {
      setMode(MODE_KEYS[key]);
    } else { return; }
    evt.preventDefault();
    showCursor(true);
  }
  function setMode(name) {
    mode = name;
    svg.classList.toggle("map-edit-pan", name === "pan");
    root.querySelectorAll("[data-edit-mode]").forEach(function (b) {
      b.setAttribute("aria-pressed", b.getAttribute("data-edit-mode") === name ? "true" : "false");
    });
  }

  // --- saving ------------------------------------------------------------------------------
  function versions(v) {
    document.querySelectorAll("input.map-version").forEach(function (i) { i.value = String(v); });
  }
  function save(evt) {
    evt.preventDefault();
    var body = {
      segments: Object.keys(walls).sort().map(segmentOf),
      doors: Object.keys(doors).sort().map(function (k) { return { segment: segmentOf(k), open: doors[k] }; }),
      difficult: Object.keys(difficult).sort().map(function (k) { return k.split(",").map(Number); }),
      version: parseInt($("map-walls-form").querySelector("input.map-version").value, 10)
    };
    fetch("/api/v1/campaigns/" + root.getAttribute("data-campaign") + "/scenes/" +
          root.getAttribute("data-scene") + "/walls", {
      method: "PUT", credentials: "same-origin",
      headers: { "Content-Type": "application/json", "Accept": "application/json" },
      body: JSON.stringify(body)
    }).then(function (r) {
      return r.json().then(function (data) {
        if (r.ok || (r.status === 409 && data.scene)) {
          var scene = r.ok ? data : data.scene;
          versions(scene.version);
          load(scene); write(); draw();
          history = [];
          undoButton().disabled = true;
          say(root.getAttribute(r.ok ? "data-saved" : "data-stale"));
          return;
        }
        var errors = (data && data.errors) || {}, first = Object.keys(errors)[0];
        say(root.getAttribute("data-failed") + " " + (first ? errors[first] : (data.detail || "")));
      });
    }).catch(function () { say(root.getAttribute("data-failed")); });
  }

  // --- the grid's alignment, previewed on the background ----------------------------------
  function preview() {
    if (!image) { return; }
    var cell = parseInt($("grid-cell").value, 10);
    if (!(cell >= 4)) { return; }
    var gx = parseInt($("grid-x").value, 10) || 0, gy = parseInt($("grid-y").value, 10) || 0;
    image.setAttribute("x", String(-gx / cell));
    image.setAttribute("y", String(-gy / cell));
    image.setAttribute("width", String(parseInt(root.getAttribute("data-bg-w"), 10) / cell));
    image.setAttribute("height", String(parseInt(root.getAttribute("data-bg-h"), 10) / cell));
  }

  load(null);
  build();
  draw();
  root.querySelectorAll("[data-edit-mode]").forEach(function (b) {
    b.addEventListener("click", function () { setMode(b.getAttribute("data-edit-mode")); });
  });
  undoButton().addEventListener("click", undo);
  $("map-walls-form").addEventListener("submit", save);
  ["grid-x", "grid-y", "grid-cell"].forEach(function (id) { $(id).addEventListener("input", preview); });
}());
