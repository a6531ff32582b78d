// The GM's scene editor, on the board the GM sees (issue 28). «Edit» in the board's toolbar
// (templates/maps/_edit_tools.html) shows the editor's tools next to the board and puts the
// edit layer — walls, doors, terrain, start cells, fog being painted, the wall preview, the
// cursor — as the last group inside the board's own SVG (templates/maps/_board.html), in
// its coordinates: tokens stay visible under it, zoom and scrolling are the board's. A live
// push replaces the board; the layer (and the drawing, which lives here, not in the board)
// is put back into the new board at once, so unsaved edits survive it.
// Tap (click) a cell edge for a wall or a door, a cell for difficult terrain, fog or a start
// cell; drag from one grid point to another for a straight wall along the grid lines (the
// longer axis wins), drag over cells to paint like a brush (the first cell decides: paint
// or erase); «Undo» (or Ctrl+Z) takes back the last edit; «Pan» gives the finger back to
// scrolling the board. Keyboard (the board's frame is the editor while editing): arrow keys
// move a cursor, Shift + arrow acts on that side's edge, Space on the cell. While editing,
// map.js leaves the board's pointer and keys alone (no token is dragged or moved).
// Walls, doors and terrain go into the texts of the form «As text» (templates/maps/
// _editor.html, the editor without JavaScript) as they are drawn, and typing there redraws;
// «Save walls» PUTs the whole set with the version read. A 409 whose walls are still the
// ones drawn on (the version moved for fog or sight only) is sent again with the new
// version; otherwise the current walls are loaded and the page says so. Text that does not
// parse is kept as typed and posted as the form, so the server says what is wrong at the
// field. Fog is saved at once (POST …/fog, per cell), undone by the opposite request.
// The grid fields preview the alignment on the board's background as they change.
(function () {
  "use strict";
  var NS = "http://www.w3.org/2000/svg";
  var SIDES = ["abenteurer", "gegner", "neutral"];
  var MODE_KEYS = { w: "wall", d: "door", t: "difficult", f: "fog", p: "pan", "1": "abenteurer", "2": "gegner", "3": "neutral" };
  var FIELDS = { segments: [4], doors: [4, 5], difficult: [2] };
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
  var bad = { segments: [], doors: [], difficult: [] }; // typed lines that do not parse
  var base = ""; // the walls as the server had them when the drawing started (canon)
  var fogNow = {}; // "x,y" -> hidden (bool): fog sent, until the board shows it
  var mode = "wall";
  var editing = false;
  var cursor = [0, 0];
  var layer, marks, hit, cursorRect, wallPreview;
  var history = []; // before each edit: a snapshot, or {fog, cells} (undone by a request)
  var press = null; // the pointer pressed on the board: {id, start, drag, paint, seen, cells}
  var typing = false; // the texts are being typed in (one undo step per field visit)
  var viewportAttrs = null; // the board frame's own role and labels, given back after editing

  function $(id) { return document.getElementById(id); }
  function label(name) { return root.getAttribute("data-l-" + name) || ""; }
  function unsaved() { return root.getAttribute("data-unsaved"); }
  function say(text) { var s = $("map-edit-status"); if (s) { s.textContent = text || ""; } }
  function at(x, y) { return label("at").replace("{x}", x).replace("{y}", y); }
  function region() { return $("map-region"); }
  function boardSvg() { var b = $("map-board"); return b ? b.querySelector(".map-svg") : null; }
  function viewport() { var r = region(); return r ? r.querySelector(".map-viewport") : null; }
  function toggle() { return document.querySelector("[data-map-edit]"); }
  function undoButton() { return document.querySelector("[data-edit-undo]"); }
  function api(path) {
    return "/api/v1/campaigns/" + root.getAttribute("data-campaign") + "/scenes/" +
      root.getAttribute("data-scene") + path;
  }

  // --- the texts of the forms <-> the drawn state ----------------------------------------
  function entries(text) {
    return text.split(/[\n;]/).map(function (l) { return l.trim(); }).filter(function (l) { return l; });
  }
  function numbers(text) {
    return entries(text).map(function (l) { return l.split(/[\s,]+/).map(function (n) { return parseInt(n, 10); }); });
  }
  // An entry of a field as the server takes it, and on the grid; null: it does not parse.
  function parsed(name, line) {
    var parts = line.split(/[\s,]+/);
    if (FIELDS[name].indexOf(parts.length) < 0 || !parts.every(function (p) { return /^-?\d{1,5}$/.test(p); })) { return null; }
    var n = parts.map(Number);
    if (name === "difficult") { return n[0] >= 0 && n[1] >= 0 && n[0] < cols && n[1] < rows ? n : null; }
    if (n.length === 5 && n[4] !== 0 && n[4] !== 1) { return null; }
    var onGrid = n.slice(0, 4).every(function (v, i) { return v >= 0 && v <= (i % 2 ? rows : cols); });
    var straight = (n[0] === n[2]) !== (n[1] === n[3]);
    return onGrid && straight ? n : null;
  }
  function fromText() { // the good entries of each field; the others kept as typed in `bad`
    var out = {};
    Object.keys(FIELDS).forEach(function (name) {
      out[name] = []; bad[name] = [];
      entries($("edit-" + name).value).forEach(function (line) {
        var n = parsed(name, line);
        if (n) { out[name].push(n); } else { bad[name].push(line); }
      });
    });
    return out;
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
  // The walls, doors and difficult cells of a scene of the JSON API, or of the texts.
  function stateOf(scene) {
    var text = scene ? null : fromText();
    var st = { walls: {}, doors: {}, difficult: {} };
    (scene ? scene.walls : text.segments).forEach(function (s) { unitEdges(s).forEach(function (k) { st.walls[k] = true; }); });
    var ds = scene ? scene.doors.map(function (d) { return d.segment.concat([d.open ? 1 : 0]); }) : text.doors;
    ds.forEach(function (d) { unitEdges(d).forEach(function (k) { st.doors[k] = d[4] === 1; delete st.walls[k]; }); });
    (scene ? scene.difficult : text.difficult).forEach(function (c) { st.difficult[c[0] + "," + c[1]] = true; });
    return st;
  }
  function canon(st) {
    return JSON.stringify([Object.keys(st.walls).sort(),
      Object.keys(st.doors).sort().map(function (k) { return k + (st.doors[k] ? "o" : ""); }),
      Object.keys(st.difficult).sort()]);
  }
  function load(scene) { // from the forms' texts, or from a scene of the JSON API
    var st = stateOf(scene);
    walls = st.walls; doors = st.doors; difficult = st.difficult;
    if (scene) { bad = { segments: [], doors: [], difficult: [] }; }
    SIDES.forEach(function (side) {
      var field = $("area-" + side);
      areas[side] = {};
      if (field) {
        numbers(field.value).forEach(function (c) {
          if (c.length === 2 && c[0] >= 0 && c[1] >= 0 && c[0] < cols && c[1] < rows) { areas[side][c[0] + "," + c[1]] = true; }
        });
      }
    });
  }
  function lines(list, name) { return list.concat(bad[name]).join("\n"); }
  function write() {
    $("edit-segments").value = lines(Object.keys(walls).sort().map(function (k) { return segmentOf(k).join(","); }), "segments");
    $("edit-doors").value = lines(Object.keys(doors).sort().map(function (k) {
      return segmentOf(k).join(",") + (doors[k] ? ",1" : "");
    }), "doors");
    $("edit-difficult").value = lines(Object.keys(difficult).sort(), "difficult");
    SIDES.forEach(function (side) {
      var field = $("area-" + side);
      if (field) { field.value = Object.keys(areas[side]).sort().join("\n"); }
    });
  }
  function typed() { // the GM typed into a text: the drawing follows
    if (!typing) { remember(); typing = true; }
    load(null); draw();
  }

  // --- undo ------------------------------------------------------------------------------
  function snapshot() {
    return JSON.stringify({ walls: walls, doors: doors, difficult: difficult, areas: areas });
  }
  function remember(entry) {
    history.push(entry || snapshot());
    if (history.length > UNDO_MAX) { history.shift(); }
    var u = undoButton();
    if (u) { u.disabled = false; }
  }
  function undo() {
    if (!history.length) { return; }
    var entry = history.pop(), u = undoButton();
    if (u) { u.disabled = history.length === 0; }
    if (typeof entry !== "string") { sendFog(!entry.hide, entry.cells, true); return; }
    var state = JSON.parse(entry);
    walls = state.walls; doors = state.doors; difficult = state.difficult; areas = state.areas;
    say(label("undone") + " " + unsaved());
    write(); draw();
  }

  // --- the edit layer inside the board's SVG ---------------------------------------------
  function el(name, attrs, parent) {
    var e = document.createElementNS(NS, name);
    for (var k in attrs) { if (attrs.hasOwnProperty(k)) { e.setAttribute(k, attrs[k]); } }
    (parent || marks).appendChild(e);
    return e;
  }
  function build() {
    layer = document.createElementNS(NS, "g");
    layer.setAttribute("class", "map-edit-layer");
    hit = el("rect", { "class": "map-edit-hit", x: 0, y: 0, width: cols, height: rows, fill: "transparent" }, layer);
    marks = el("g", { "class": "map-edit-marks" }, layer);
    wallPreview = el("line", { "class": "map-wall-preview", x1: 0, y1: 0, x2: 0, y2: 0, visibility: "hidden" }, layer);
    cursorRect = el("rect", { "class": "map-cursor map-edit-cursor", x: 0, y: 0, width: 1, height: 1, visibility: "hidden" }, layer);
  }
  // After a push replaced the board: the layer goes back on top of the new board (the same
  // nodes, so what is drawn and not saved stays), and the grid preview with it.
  function attach() {
    var s = boardSvg();
    if (editing && s && (layer.parentNode !== s || s.lastChild !== layer)) { s.appendChild(layer); }
    if (!editing && layer.parentNode) { layer.parentNode.removeChild(layer); }
    settleFog();
    preview();
  }
  function draw() {
    while (marks.firstChild) { marks.removeChild(marks.firstChild); }
    Object.keys(difficult).forEach(function (k) {
      var c = k.split(",");
      el("rect", { "class": "map-difficult", x: c[0], y: c[1], width: 1, height: 1 });
    });
    Object.keys(fogNow).forEach(function (k) {
      var c = k.split(",");
      el("rect", { "class": fogNow[k] ? "map-edit-fog" : "map-edit-unfog", x: +c[0] + 0.05, y: +c[1] + 0.05, width: 0.9, height: 0.9 });
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

  // --- edit mode on and off ----------------------------------------------------------------
  function setEditing(on) {
    var r = region(), vp = viewport(), t = toggle(), tools = $("map-edit-tools"), help = $("map-edit-help");
    if (!r || !vp || !t || !tools) { return; }
    editing = on;
    r.classList.toggle("map-editing", on);
    r.classList.toggle("map-edit-pan", on && mode === "pan");
    t.setAttribute("aria-pressed", on ? "true" : "false");
    tools.hidden = !on;
    if (help) { help.hidden = !on; }
    if (on && !viewportAttrs) {
      viewportAttrs = { label: vp.getAttribute("aria-label"), described: vp.getAttribute("aria-describedby") };
      vp.setAttribute("role", "application");
      vp.setAttribute("aria-label", label("editor"));
      vp.setAttribute("aria-describedby", "map-edit-help");
    } else if (!on && viewportAttrs) {
      vp.removeAttribute("role");
      vp.setAttribute("aria-label", viewportAttrs.label);
      vp.setAttribute("aria-describedby", viewportAttrs.described);
      viewportAttrs = null;
    }
    if (!on) { press = null; showPreview(null); showCursor(false); }
    try { sessionStorage.setItem("map-editing-" + root.getAttribute("data-scene"), on ? "1" : ""); } catch (e) { /* private mode */ }
    attach();
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
    var p = key.split(",");
    var x = p[0] === "v" ? +p[1] : +p[1] + 1, y = p[0] === "v" ? +p[2] + 1 : +p[2];
    say(label(what) + ": " + at(x, y) + ". " + unsaved());
    write(); draw();
  }
  function cellSet() { return mode === "difficult" ? difficult : areas[mode]; }
  function cellAction(x, y, paint) {
    if (mode === "fog") { sendFog(!fogged(x, y), [x + "," + y]); return; }
    var key = x + "," + y, set = cellSet();
    var on = paint === undefined ? !set[key] : paint;
    if (paint === undefined) { remember(); }
    if (on) { set[key] = true; } else { delete set[key]; }
    var what = mode === "difficult" ? (on ? "difficult" : "plain") : (on ? "start" : "nostart");
    say(label(what) + ": " + at(x + 1, y + 1) + ". " + unsaved());
    write(); draw();
  }
  function edgeMode() { return mode === "wall" || mode === "door"; }
  function cellMode() { return mode === "difficult" || mode === "fog" || SIDES.indexOf(mode) >= 0; }

  // --- fog: per cell, saved at once --------------------------------------------------------
  function fogged(x, y) {
    var key = x + "," + y, s = boardSvg();
    if (key in fogNow) { return fogNow[key]; }
    return !!(s && s.querySelector('.map-fog[x="' + x + '"][y="' + y + '"]'));
  }
  function settleFog() { // the board now shows what was sent: it draws the fog again
    var s = boardSvg(), gone = false;
    if (!s) { return; }
    Object.keys(fogNow).forEach(function (k) {
      var c = k.split(","), shown = !!s.querySelector('.map-fog[x="' + c[0] + '"][y="' + c[1] + '"]');
      if (shown === fogNow[k] && !(press && press.seen[k])) { delete fogNow[k]; gone = true; }
    });
    if (gone) { draw(); }
  }
  function version() { return parseInt($("map-walls-form").querySelector("input.map-version").value, 10); }
  function sendFog(hide, cells, undoing) {
    if (!cells.length) { return; }
    if (!undoing) { remember({ hide: hide, cells: cells }); }
    cells.forEach(function (k) { fogNow[k] = hide; });
    draw();
    var body = { reveal: [], hide: [] }, before = version();
    body[hide ? "hide" : "reveal"] = cells.map(function (k) { return k.split(",").map(Number); });
    var done = (undoing ? label("undone") + " " : "") + label(hide ? "fogged" : "revealed") + ": " +
      (cells.length === 1 ? at(+cells[0].split(",")[0] + 1, +cells[0].split(",")[1] + 1) : label("cells").replace("{n}", cells.length)) + ". ";
    fetch(api("/fog"), {
      method: "POST", credentials: "same-origin",
      headers: { "Content-Type": "application/json", "Accept": "application/json" },
      body: JSON.stringify(body)
    }).then(function (r) {
      return r.json().then(function (data) {
        if (!r.ok) { throw data; }
        // Only the fog changed since the walls were read: the forms may write on.
        if (data.version === before + 1) { versions(data.version); }
        say(done + label("fogsaved"));
      });
    }).catch(function (data) {
      cells.forEach(function (k) { delete fogNow[k]; });
      draw();
      say(root.getAttribute("data-failed") + " " + problem(data));
    });
  }
  function problem(data) {
    var errors = (data && data.errors) || {}, first = Object.keys(errors)[0];
    return first ? errors[first] : ((data && typeof data.detail === "string") ? data.detail : "");
  }

  // --- pointer: a tap acts like a click; a drag draws a straight wall or paints cells -----
  function gridPoint(evt) {
    var r = boardSvg().getBoundingClientRect();
    return [(evt.clientX - r.left) / r.width * cols, (evt.clientY - r.top) / r.height * rows];
  }
  function cellAt(p) {
    return [Math.max(0, Math.min(cols - 1, Math.floor(p[0]))), Math.max(0, Math.min(rows - 1, Math.floor(p[1])))];
  }
  function inside(p) { return p[0] >= 0 && p[1] >= 0 && p[0] <= cols && p[1] <= rows; }
  function onDown(evt) {
    if (!editing || mode === "pan" || evt.button > 0 || !layer.contains(evt.target)) { return; }
    var p = gridPoint(evt);
    if (!inside(p)) { return; }
    press = { id: evt.pointerId, start: p, drag: false, paint: null, seen: {}, cells: [] };
    try { boardSvg().setPointerCapture(evt.pointerId); } catch (e) { /* the board went meanwhile */ }
  }
  function onMove(evt) {
    if (!press || evt.pointerId !== press.id || !boardSvg()) { return; }
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
    if (mode === "wall" && boardSvg()) { wallAlong(straight(done.start, gridPoint(evt))); }
    if (mode === "fog") { sendFog(done.paint, done.cells); }
  }
  function startDrag() {
    if (!cellMode()) { return; }
    var first = cellAt(press.start);
    if (mode === "fog") {
      press.paint = !fogged(first[0], first[1]);
    } else {
      remember();
      press.paint = !cellSet()[first[0] + "," + first[1]];
    }
    paintAt(first);
  }
  function paintAt(cell) {
    var key = cell[0] + "," + cell[1];
    if (press.seen[key]) { return; }
    press.seen[key] = true;
    if (mode === "fog") { // drawn while the stroke goes on, sent when it ends
      if (fogged(cell[0], cell[1]) !== press.paint) { press.cells.push(key); fogNow[key] = press.paint; draw(); }
      return;
    }
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
    say(label("wall") + ": " + at(seg[0], seg[1]) + " – " + at(seg[2], seg[3]) + ". " + unsaved());
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
    if (!editing || evt.target !== viewport()) { return; }
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
               document.querySelector('[data-edit-mode="' + MODE_KEYS[key] + '"]')) {
      setMode(MODE_KEYS[key]);
    } else { return; }
    evt.preventDefault();
    showCursor(true);
  }
  function setMode(name) {
    mode = name;
    var r = region();
    if (r) { r.classList.toggle("map-edit-pan", editing && name === "pan"); }
    document.querySelectorAll("[data-edit-mode]").forEach(function (b) {
      b.setAttribute("aria-pressed", b.getAttribute("data-edit-mode") === name ? "true" : "false");
    });
  }

  // --- saving ------------------------------------------------------------------------------
  function versions(v) {
    document.querySelectorAll("input.map-version").forEach(function (i) { i.value = String(v); });
  }
  function fieldError(name, message) { // as the server's form answers: at the field
    var field = $("edit-" + name), id = name + "-error", old = $(id);
    if (!field) { return; }
    if (!message) {
      if (old) { old.remove(); }
      field.removeAttribute("aria-invalid");
      field.setAttribute("aria-describedby", "map-text-help");
      return;
    }
    if (!old) {
      old = document.createElement("p");
      old.className = "error"; old.id = id; old.setAttribute("role", "alert");
      field.insertAdjacentElement("afterend", old);
    }
    old.textContent = message;
    field.setAttribute("aria-invalid", "true");
    field.setAttribute("aria-describedby", id + " map-text-help");
    field.closest("details").open = true;
  }
  function save(evt) {
    fromText();
    // A text that does not parse goes to the server as typed: its answer names the entry
    // at the field and keeps the text (and what was drawn, which is in the texts).
    if (bad.segments.length || bad.doors.length || bad.difficult.length) { return; }
    evt.preventDefault();
    load(null); draw();
    put(version(), true);
  }
  function put(v, retry) {
    var body = {
      segments: Object.keys(walls).sort().map(segmentOf),
      doors: Object.keys(doors).sort().map(function (k) { return { segment: segmentOf(k), open: doors[k] }; }),
      difficult: Object.keys(difficult).sort().map(function (k) { return k.split(",").map(Number); }),
      version: v
    };
    fetch(api("/walls"), {
      method: "PUT", credentials: "same-origin",
      headers: { "Content-Type": "application/json", "Accept": "application/json" },
      body: JSON.stringify(body)
    }).then(function (r) {
      return r.json().then(function (data) {
        if (r.status === 409 && data.scene && retry && canon(stateOf(data.scene)) === base) {
          put(data.scene.version, false); // the version moved, the walls did not: ours stand
          return;
        }
        if (r.ok || (r.status === 409 && data.scene)) {
          var scene = r.ok ? data : data.scene;
          versions(scene.version);
          load(scene); write(); draw();
          base = canon(stateOf(scene));
          Object.keys(FIELDS).forEach(function (name) { fieldError(name, ""); });
          history = [];
          var u = undoButton();
          if (u) { u.disabled = true; }
          say(root.getAttribute(r.ok ? "data-saved" : "data-stale"));
          return;
        }
        Object.keys((data && data.errors) || {}).forEach(function (name) { fieldError(name, data.errors[name]); });
        say(root.getAttribute("data-failed") + " " + problem(data));
      });
    }).catch(function () { say(root.getAttribute("data-failed")); });
  }

  // --- the grid's alignment, previewed on the board's background ----------------------------
  function preview() {
    var s = boardSvg(), image = s && s.querySelector("image.map-background");
    var fields = ["grid-x", "grid-y", "grid-cell"].map($);
    if (!image || !root.getAttribute("data-bg-w") || fields.every(function (f) { return f.value === f.defaultValue; })) { return; }
    var cell = parseInt(fields[2].value, 10);
    if (!(cell >= 4)) { return; }
    var gx = parseInt(fields[0].value, 10) || 0, gy = parseInt(fields[1].value, 10) || 0;
    image.setAttribute("x", String(-gx / cell));
    image.setAttribute("y", String(-gy / cell));
    image.setAttribute("width", String(parseInt(root.getAttribute("data-bg-w"), 10) / cell));
    image.setAttribute("height", String(parseInt(root.getAttribute("data-bg-h"), 10) / cell));
  }

  load(null);
  base = canon({ walls: walls, doors: doors, difficult: difficult });
  build();
  draw();
  document.querySelectorAll("[data-edit-mode]").forEach(function (b) {
    b.addEventListener("click", function () { setMode(b.getAttribute("data-edit-mode")); });
  });
  var u = undoButton();
  if (u) { u.addEventListener("click", undo); }
  $("map-walls-form").addEventListener("submit", save);
  ["grid-x", "grid-y", "grid-cell"].forEach(function (id) { $(id).addEventListener("input", preview); });
  ["edit-segments", "edit-doors", "edit-difficult", "area-abenteurer", "area-gegner", "area-neutral"].forEach(function (id) {
    var field = $(id);
    if (!field) { return; }
    field.addEventListener("input", typed);
    field.addEventListener("change", function () { typing = false; });
  });
  document.addEventListener("pointerdown", onDown);
  document.addEventListener("pointermove", onMove);
  document.addEventListener("pointerup", onUp);
  document.addEventListener("pointercancel", function () { press = null; showPreview(null); });
  document.addEventListener("keydown", onKey);
  var t = toggle(), vp = viewport();
  if (t && vp) {
    t.hidden = false;
    $("map-edit-note").hidden = false;
    t.addEventListener("click", function () { setEditing(!editing); });
    vp.addEventListener("focus", function () { if (editing) { showCursor(true); } });
    vp.addEventListener("blur", function () { showCursor(false); });
    // A push swaps the board (an out-of-band outerHTML, not morphed): put the layer back.
    ["htmx:afterSwap", "htmx:oobAfterSwap", "htmx:afterSettle", "htmx:sseMessage"].forEach(function (name) {
      document.addEventListener(name, attach);
    });
    var canvas = vp.querySelector(".map-canvas");
    if (canvas && window.MutationObserver) { new MutationObserver(attach).observe(canvas, { childList: true }); }
    var kept = "";
    try { kept = sessionStorage.getItem("map-editing-" + root.getAttribute("data-scene")) || ""; } catch (e) { /* private mode */ }
    if (kept) { setEditing(true); }
  }
}());
