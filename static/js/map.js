// The battle map (templates/maps/_region.html): drag on a desktop (a ghost follows the
// pointer, one request on drop), tap a token then a cell on a phone, keyboard (choose a token
// in the list, arrow keys move a cursor, Enter moves there, Escape cancels), zoom, ruler and
// ping; on a touch screen two fingers zoom and a double tap centres on your figure. The
// server decides: a refused move leaves the token where it was and shows why; the live
// stream re-renders the board, or for a move swaps that token's place (see follow) and
// changes the viewer's fog of sight with it (see applySight).
(function () {
  "use strict";
  var CELL = 48;
  var zoom = 1;
  var selected = null; // token id
  var cursor = null; // [x, y]
  var mode = null; // "ruler" | "ping" | null
  var waypoints = [];
  var drag = null;
  var zonesOn = false;
  var routing = false; // "Waypoints" pressed: taps add waypoints to the selected token's route
  var route = []; // waypoints, the last one the goal

  function board() { return document.getElementById("map-board"); }
  // The GM edits on this board (static/js/map_edit.js): its pointer and keys are the editor's.
  function editing() { var r = region(); return !!(r && r.classList.contains("map-editing")); }
  function svg() { var b = board(); return b ? b.querySelector(".map-svg") : null; }
  function region() { return document.getElementById("map-region"); }
  function num(el, name) { return parseInt(el.getAttribute("data-" + name), 10); }
  function api(path) {
    var b = board();
    return "/api/v1/campaigns/" + b.getAttribute("data-campaign") + "/scenes/" +
      b.getAttribute("data-scene") + path;
  }
  function say(text) {
    var el = document.getElementById("map-message");
    if (el) { el.textContent = text || ""; }
  }
  function token(id) {
    var s = svg();
    return s ? s.querySelector('.map-token[data-token="' + id + '"]') : null;
  }

  function applyZoom() {
    var s = svg(), b = board();
    if (!s || !b) { return; }
    s.setAttribute("width", String(num(b, "cols") * CELL * zoom));
    s.setAttribute("height", String(num(b, "rows") * CELL * zoom));
    var t = selected && token(selected);
    if (t) { t.classList.add("map-selected"); } else { selected = null; }
    showCursor();
  }

  function cellAt(evt) {
    var s = svg(), b = board();
    var r = s.getBoundingClientRect();
    var x = Math.floor((evt.clientX - r.left) / r.width * num(b, "cols"));
    var y = Math.floor((evt.clientY - r.top) / r.height * num(b, "rows"));
    if (x < 0 || y < 0 || x >= num(b, "cols") || y >= num(b, "rows")) { return null; }
    return [x, y];
  }

  function post(path, body) {
    return fetch(api(path), {
      method: "POST",
      credentials: "same-origin",
      headers: { "Content-Type": "application/json", "Accept": "application/json" },
      body: JSON.stringify(body)
    });
  }

  function problem(data) {
    var errors = (data && data.errors) || {};
    for (var key in errors) { if (errors.hasOwnProperty(key)) { return errors[key]; } }
    return (data && typeof data.detail === "string") ? data.detail : "";
  }

  function place(t, x, y) {
    t.setAttribute("transform", "translate(" + x + " " + y + ")");
    t.setAttribute("data-x", String(x));
    t.setAttribute("data-y", String(y));
  }

  function move(id, cell, via) {
    var t = token(id);
    say("");
    var body = { to: cell };
    if (via && via.length) { body.via = via; }
    return post("/tokens/" + id + "/move", body).then(function (r) {
      return r.json().then(function (data) {
        if (!r.ok) {
          say(problem(data) || region().getAttribute("data-refused"));
          return;
        }
        if (t && data.x !== null) { place(t, data.x, data.y); }
        if (data.reactions && data.reactions.length) {
          say(region().getAttribute("data-reaction"));
        } else if (data.blocked) {
          say(data.message);
        } else if (data.actions) {
          say(data.actions.text);
        }
      });
    }).catch(function () { say(region().getAttribute("data-refused")); });
  }

  function select(id) {
    var old = selected && token(selected);
    if (old) { old.classList.remove("map-selected"); }
    if (id !== selected) { route = []; }
    selected = id;
    var t = id && token(id);
    if (t) {
      t.classList.add("map-selected");
      cursor = [num(t, "x"), num(t, "y")];
    }
    showCursor();
    drawRoute();
    showReach(t ? id : null);
  }

  // The chosen figure's reach in a fight (issue 28): the cells a move may end on with the
  // movement left, as the server measures them (GET …/tokens/{id}/reach), and the enemies'
  // Gefährdungsbereich with it where the system has one (turned off again with the choice).
  var reachFor = null;
  var autoZones = false;
  function drawReach(cells) {
    var layer = document.getElementById("map-reach");
    if (!layer) { return; }
    while (layer.firstChild) { layer.removeChild(layer.firstChild); }
    cells.forEach(function (c) {
      var r = document.createElementNS("http://www.w3.org/2000/svg", "rect");
      r.setAttribute("class", "map-reach");
      r.setAttribute("x", c[0]); r.setAttribute("y", c[1]);
      r.setAttribute("width", "1"); r.setAttribute("height", "1");
      layer.appendChild(r);
    });
  }
  function showReach(id, again) {
    reachFor = id;
    drawReach([]);
    var cleared = document.getElementById("map-reach-note");
    if (cleared && !id) { cleared.textContent = ""; }
    var zoner = document.querySelector("[data-map-zones]");
    if (!id) {
      if (autoZones && zoner && zonesOn) { zoner.click(); }
      autoZones = false;
      return;
    }
    fetch(api("/tokens/" + id + "/reach"), {
      credentials: "same-origin", headers: { "Accept": "application/json" }
    }).then(function (r) { return r.ok ? r.json() : null; }).then(function (data) {
      if (!data || reachFor !== id || data.left === null) { return; }
      drawReach(data.cells);
      // Told to screen readers only: a visible line above the board would move the board
      // under the finger that is about to tap a cell.
      var note = document.getElementById("map-reach-note");
      if (note && !again) { note.textContent = region().getAttribute("data-reach").replace("{left}", data.left); }
      if (zoner && !zonesOn) { autoZones = true; zoner.click(); }
    }).catch(function () {});
  }

  // A route with waypoints: drawn from the token through each waypoint; «Move along the
  // waypoints» (or Enter) sends them as `via`, the server takes the cheapest leg between
  // each two and checks the whole against the allowance.
  function drawRoute() {
    var layer = document.getElementById("map-route");
    var t = selected && token(selected);
    var goer = document.querySelector("[data-map-go]");
    if (goer) { goer.hidden = !(route.length && t); }
    if (!layer) { return; }
    while (layer.firstChild) { layer.removeChild(layer.firstChild); }
    if (!route.length || !t) { return; }
    var ns = "http://www.w3.org/2000/svg";
    var cells = [[num(t, "x"), num(t, "y")]].concat(route);
    var line = document.createElementNS(ns, "polyline");
    line.setAttribute("class", "map-route-line");
    line.setAttribute("points", cells.map(function (c) { return (c[0] + 0.5) + "," + (c[1] + 0.5); }).join(" "));
    layer.appendChild(line);
    route.forEach(function (c) {
      var dot = document.createElementNS(ns, "circle");
      dot.setAttribute("class", "map-route-point");
      dot.setAttribute("cx", c[0] + 0.5); dot.setAttribute("cy", c[1] + 0.5); dot.setAttribute("r", 0.15);
      layer.appendChild(dot);
    });
  }

  function addWaypoint(cell) {
    route.push([cell[0], cell[1]]);
    if (route.length > 21) { route = route.slice(-21); }
    drawRoute();
  }

  function go() {
    if (!selected || !route.length) { return; }
    var id = selected, path = route;
    route = [];
    select(null);
    cursor = null;
    showCursor();
    move(id, path[path.length - 1], path.slice(0, -1));
  }

  function showCursor() {
    var c = document.getElementById("map-cursor");
    if (!c) { return; }
    if (!cursor) { c.setAttribute("visibility", "hidden"); return; }
    c.setAttribute("x", String(cursor[0]));
    c.setAttribute("y", String(cursor[1]));
    c.setAttribute("visibility", "visible");
  }

  function pointer(kind, cells) {
    return post("/pointer", { kind: kind, cells: cells }).catch(function () {});
  }

  function setMode(next) {
    if (mode === "ruler" && waypoints.length > 1) { pointer("clear", []); }
    waypoints = [];
    mode = mode === next ? null : next;
    var buttons = document.querySelectorAll("[data-map-mode]");
    for (var i = 0; i < buttons.length; i++) {
      var on = buttons[i].getAttribute("data-map-mode") === mode;
      buttons[i].setAttribute("aria-pressed", on ? "true" : "false");
    }
  }

  function onCell(cell) {
    if (mode === "ping") { pointer("ping", [cell]); return; }
    if (mode === "ruler") {
      waypoints.push(cell);
      if (waypoints.length > 20) { waypoints = waypoints.slice(-20); }
      if (waypoints.length > 1) { pointer("ruler", waypoints); }
      return;
    }
    if (selected && routing) { addWaypoint(cell); return; }
    if (selected) {
      var id = selected;
      select(null);
      cursor = null;
      showCursor();
      move(id, cell);
    }
  }

  document.addEventListener("click", function (evt) {
    var zoomer = evt.target.closest && evt.target.closest("[data-map-zoom]");
    if (zoomer) {
      zoom = Math.max(ZOOM_MIN, Math.min(ZOOM_MAX, zoom + 0.25 * parseInt(zoomer.getAttribute("data-map-zoom"), 10)));
      applyZoom();
      return;
    }
    var moder = evt.target.closest && evt.target.closest("[data-map-mode]");
    if (moder) { setMode(moder.getAttribute("data-map-mode")); return; }
    var router = evt.target.closest && evt.target.closest("[data-map-waypoints]");
    if (router) {
      routing = !routing;
      router.setAttribute("aria-pressed", routing ? "true" : "false");
      if (!routing) { route = []; drawRoute(); }
      return;
    }
    if (evt.target.closest && evt.target.closest("[data-map-go]")) { go(); return; }
    var zoner = evt.target.closest && evt.target.closest("[data-map-zones]");
    if (zoner) {
      zonesOn = !zonesOn;
      zoner.setAttribute("aria-pressed", zonesOn ? "true" : "false");
      drawZones();
      return;
    }
    var aim = evt.target.closest && evt.target.closest(".map-target");
    if (aim && aimAt(aim.getAttribute("data-target"))) {
      document.getElementById("attack-target").focus();
      return;
    }
    var pick = evt.target.closest && evt.target.closest(".map-pick");
    if (pick && !editing()) {
      select(pick.getAttribute("data-token"));
      var vp = document.querySelector(".map-viewport");
      if (vp) { vp.focus(); }
      return;
    }
    var s = svg();
    if (!s || !s.contains(evt.target) || drag || editing()) { return; }
    var areaForm = document.querySelector("#area-details[open] .area-form");
    if (areaForm && !mode) {
      var picked = cellAt(evt);
      if (picked) { pickArea(areaForm, picked); return; }
    }
    var t = evt.target.closest(".map-token");
    if (t && !mode && gmAims(t) && aimAt(t.getAttribute("data-participant"))) { return; }
    if (t && t.classList.contains("map-mine") && !mode) {
      var id = t.getAttribute("data-token");
      select(selected === id ? null : id);
      return;
    }
    // Another's figure that the attack form offers aims at it, also while the own figure is
    // chosen (tap your figure, then an enemy in reach: issue 28); other taps go to the cell.
    if (t && !mode && !t.classList.contains("map-mine") && aimAt(t.getAttribute("data-participant"))) {
      select(null);
      return;
    }
    var cell = cellAt(evt);
    if (cell) { onCell(cell); }
  });

  document.addEventListener("pointerdown", function (evt) {
    if (evt.pointerType === "touch" || mode || editing()) { return; }
    var t = evt.target.closest && evt.target.closest(".map-token.map-mine");
    if (!t) { return; }
    var ghost = t.cloneNode(true);
    ghost.classList.add("map-ghost");
    svg().appendChild(ghost);
    drag = { id: t.getAttribute("data-token"), from: [num(t, "x"), num(t, "y")], ghost: ghost, to: null };
    evt.preventDefault();
  });

  document.addEventListener("pointermove", function (evt) {
    if (!drag) { return; }
    var cell = cellAt(evt);
    if (cell) { drag.to = cell; place(drag.ghost, cell[0], cell[1]); }
  });

  document.addEventListener("pointerup", function () {
    if (!drag) { return; }
    var d = drag;
    d.ghost.remove();
    // A press that stays on its cell is a click, not a drag: the click that follows chooses
    // or aims (whether it comes before or after a timer). Only a real drag swallows it.
    if (!d.to || (d.to[0] === d.from[0] && d.to[1] === d.from[1])) {
      drag = null;
      return;
    }
    setTimeout(function () { drag = null; }, 0);
    select(null);
    move(d.id, d.to);
  });

  document.addEventListener("keydown", function (evt) {
    if (!evt.target.classList || !evt.target.classList.contains("map-viewport") || editing()) { return; }
    var b = board();
    var steps = { ArrowLeft: [-1, 0], ArrowRight: [1, 0], ArrowUp: [0, -1], ArrowDown: [0, 1] };
    if (steps[evt.key]) {
      cursor = cursor || [0, 0];
      cursor = [
        Math.max(0, Math.min(num(b, "cols") - 1, cursor[0] + steps[evt.key][0])),
        Math.max(0, Math.min(num(b, "rows") - 1, cursor[1] + steps[evt.key][1]))
      ];
      showCursor();
      evt.preventDefault();
    } else if (evt.key === " " && cursor && selected) {
      evt.preventDefault();
      addWaypoint(cursor);
    } else if (evt.key === "Enter" && cursor && route.length && selected) {
      evt.preventDefault();
      var last = route[route.length - 1];
      if (last[0] !== cursor[0] || last[1] !== cursor[1]) { addWaypoint(cursor); }
      go();
    } else if (evt.key === "Enter" && cursor) {
      evt.preventDefault();
      onCell(cursor);
    } else if (evt.key === "Escape") {
      select(null);
      cursor = null;
      showCursor();
    }
  });

  // A `token_moved` push swaps only that token's place in the list (class "map-at", with its
  // cell in data-x / data-y): the board follows the list, and the distances under it, which
  // the push does not carry, are dropped until the next whole board arrives.
  // On the combat page: a button per token of a fighter the attack form may target fills
  // the form's target (and so its forecast); hidden where there is no such form.
  function targets() {
    var choice = document.getElementById("attack-target");
    var buttons = document.querySelectorAll("#map-list .map-target");
    for (var i = 0; i < buttons.length; i++) {
      var pid = buttons[i].getAttribute("data-target");
      buttons[i].hidden = !(choice && choice.querySelector('option[value="' + pid + '"]'));
    }
  }

  // An attack chosen on the map (a tap on a token, or its button in the list): the target
  // select is set, and the server's measurement for this viewer fills the form's fields
  // (range: DS4/PF2e distance; H&H cover and living cover), each marked as suggested.
  // An area is placed on the board (issue 28): while the area form is open, a tap on the
  // board gives its origin, and for a cone or a line then its direction; a tap after both
  // starts again. The form stays the truth (typed cells work too); the server decides.
  function pickArea(form, cell) {
    var origin = form.querySelector('[name="origin"]');
    var toward = form.querySelector('[name="toward"]');
    var shape = form.querySelector('[name="shape"]');
    var text = cell[0] + "," + cell[1];
    var aims = shape && shape.value !== "circle" && toward;
    var field = aims && origin.value && !toward.value ? toward : origin;
    if (field === origin && toward) { toward.value = ""; }
    field.value = text;
    field.dispatchEvent(new Event("input", { bubbles: true }));
    cursor = cell;
    showCursor();
    var label = form.querySelector('label[for="' + field.id + '"]');
    say((label ? label.textContent + ": " : "") + text);
  }

  // Every token is the GM's to move; in a fight a tap on one that is not the acting figure's
  // and that the attack form offers as a target aims at it (the GM plays the monsters on the
  // board like a player plays a hero); the acting figure's own token is still chosen to move.
  function gmAims(t) {
    var b = board();
    if (!b || b.getAttribute("data-gm") !== "1" || t.classList.contains("map-active")) { return false; }
    var choice = document.getElementById("attack-target");
    var attacker = choice && choice.form && choice.form.querySelector('[name="attacker"]');
    return !!choice && (!attacker || attacker.value !== t.getAttribute("data-participant"));
  }

  function aimAt(pid) {
    var choice = document.getElementById("attack-target");
    if (!pid || !choice || !choice.querySelector('option[value="' + pid + '"]')) { return false; }
    choice.value = pid;
    choice.dispatchEvent(new Event("change", { bubbles: true }));
    // On the combat page's board the form sits in the actions sheet: it opens, the attack
    // button one more tap away.
    var sheet = choice.closest("details.action-sheet");
    if (sheet && !sheet.open) { sheet.open = true; }
    var button = document.getElementById("attack-button");
    if (sheet && button) { button.scrollIntoView({ block: "nearest" }); }
    var attacker = choice.form && choice.form.querySelector('[name="attacker"]');
    if (!attacker) { return true; }
    fetch(api("/attack?attacker=" + attacker.value + "&target=" + pid), {
      credentials: "same-origin", headers: { "Accept": "application/json" }
    }).then(function (r) { return r.ok ? r.json() : null; }).then(function (data) {
      if (data && choice.value === pid) { suggest(choice.form, data); }
    }).catch(function () {});
    return true;
  }

  function suggest(form, data) {
    var note = document.getElementById("map-aim");
    if (!note) {
      note = document.createElement("p");
      note.id = "map-aim";
      note.className = "meta map-aim";
      note.setAttribute("role", "status");
      form.querySelector("#attack-target").insertAdjacentElement("afterend", note);
    }
    var text = [data.summary];
    var marked = document.querySelectorAll(".map-token.map-covering");
    for (var i = 0; i < marked.length; i++) { marked[i].classList.remove("map-covering"); }
    var covering = data.covering_token_id && token(data.covering_token_id);
    if (covering) { covering.classList.add("map-covering"); }
    Object.keys(data.fill).forEach(function (name) {
      var field = form.elements[name];
      if (!field) { return; }
      field.value = data.fill[name];
      field.classList.add("map-suggested");
      field.setAttribute("aria-describedby", "map-aim");
    });
    if (data.cover && form.elements.cover) {
      var parts = [form.elements.cover.selectedOptions[0].text];
      var cov = form.elements.covering;
      if (data.covering && cov && cov.selectedOptions[0]) { parts.push(cov.selectedOptions[0].text); }
      text.push(region().getAttribute("data-suggested") + ": " + parts.join(", "));
      var details = form.querySelector("details.cover");
      if (details && data.cover !== "none") { details.open = true; }
    }
    note.textContent = text.join(". ");
    form.dispatchEvent(new Event("change", { bubbles: true }));
  }

  // The Gefährdungsbereich toggle: the server sends the cells of the figures this viewer
  // sees; they are drawn under the tokens and fetched again after every board update.
  function drawZones() {
    var layer = document.getElementById("map-zones");
    if (!layer) { return; }
    while (layer.firstChild) { layer.removeChild(layer.firstChild); }
    if (!zonesOn) { say(""); return; }
    fetch(api("/zones"), { credentials: "same-origin", headers: { "Accept": "application/json" } })
      .then(function (r) { return r.ok ? r.json() : { zones: [] }; })
      .then(function (data) {
        var ns = "http://www.w3.org/2000/svg";
        layer = document.getElementById("map-zones");
        if (!layer || !zonesOn) { return; }
        while (layer.firstChild) { layer.removeChild(layer.firstChild); }
        data.zones.forEach(function (z) {
          z.cells.forEach(function (c) {
            var r = document.createElementNS(ns, "rect");
            r.setAttribute("class", "map-zone map-zone-" + z.side);
            r.setAttribute("x", c[0]); r.setAttribute("y", c[1]);
            r.setAttribute("width", 1); r.setAttribute("height", 1);
            r.setAttribute("data-token", z.token_id);
            layer.appendChild(r);
          });
        });
        if (!data.zones.length) { say(region().getAttribute("data-no-zones")); }
      }).catch(function () {});
  }

  // The board's tokens by id, read in one pass (a selector per token would search the board
  // once for each: a hundred searches of a hundred tokens on every live message).
  function tokensById() {
    var s = svg(), out = {};
    var marks = s ? s.querySelectorAll(".map-token") : [];
    for (var i = 0; i < marks.length; i++) { out[marks[i].getAttribute("data-token")] = marks[i]; }
    return out;
  }

  function follow() {
    var places = document.querySelectorAll("#map-list .map-at"), marks = tokensById();
    for (var i = 0; i < places.length; i++) {
      var t = marks[places[i].getAttribute("data-token")];
      var x = num(places[i], "x"), y = num(places[i], "y");
      if (t && (num(t, "x") !== x || num(t, "y") !== y)) { place(t, x, y); }
    }
    applyZoom();
    targets();
    if (zonesOn) { drawZones(); }
    drawRoute();
    if (selected) { showReach(selected, true); }
  }

  // A change of the viewer's sight pushed from events alone (templates/maps/_sight.html, in
  // #map-sight): the cells that came into sight lose their dimming, those that went out of
  // it get it (the map of both is known: the server draws the board anew otherwise); the
  // tokens that came into sight go on the board and into the list (in the server's order, by
  // id), those that went out of it come off. Applied once, then emptied.
  var SVG_NS = "http://www.w3.org/2000/svg";
  function cellsOf(box, name) {
    var v = box.getAttribute(name);
    return v ? v.split(" ").map(function (c) { return c.split(","); }) : [];
  }
  // The explored layer's rects by cell, read once per change (a lookup per cell would
  // search the whole layer each time: hundreds of cells, a thousand rects).
  function rectsByCell(layer) {
    var out = {}, rects = layer.querySelectorAll("rect");
    for (var i = 0; i < rects.length; i++) {
      out[rects[i].getAttribute("x") + "," + rects[i].getAttribute("y")] = rects[i];
    }
    return out;
  }
  function putInOrder(parent, el, items, before) {
    var id = num(el, "token"), next = before || null;
    for (var i = 0; i < items.length; i++) {
      if (num(items[i], "token") > id) { next = items[i]; break; }
    }
    parent.insertBefore(el, next);
  }
  // Every token of the box: those that went out of sight come off, those that came into it
  // go on (in place of any they had), one list pass for all of them.
  function sightTokens(box) {
    var gone = (box.getAttribute("data-token-removed") || "").split(" ").filter(Boolean);
    var marks = box.querySelectorAll(".map-token"), fresh = box.querySelectorAll("li");
    var ids = gone.concat(Array.prototype.map.call(marks, function (m) {
      return m.getAttribute("data-token");
    }));
    if (!ids.length) { return; }
    var onBoard = tokensById();
    ids.forEach(function (id) {
      var old = onBoard[id], oldItem = document.querySelector("#map-list #map-item-" + id);
      if (old) { old.remove(); }
      if (oldItem) { oldItem.remove(); }
    });
    var s = svg(), list = document.querySelector("#map-list ul");
    if (s) {
      var zones = document.getElementById("map-zones");
      for (var m = 0; m < marks.length; m++) {
        putInOrder(s, marks[m], s.querySelectorAll(".map-token"), zones);
      }
    }
    if (!list) { return; }
    if (fresh.length) {
      var items = list.querySelectorAll("li[id^='map-item-']");
      for (var i = 0; i < items.length; i++) { items[i].setAttribute("data-token", items[i].id.slice(9)); }
      for (var f = 0; f < fresh.length; f++) {
        fresh[f].setAttribute("data-token", fresh[f].id.slice(9));
        putInOrder(list, fresh[f], list.querySelectorAll("li[id^='map-item-']"), null);
      }
      var tagged = list.querySelectorAll("li[data-token]");
      for (var j = 0; j < tagged.length; j++) { tagged[j].removeAttribute("data-token"); }
    }
    var empty = list.querySelector("li.empty");
    if (list.querySelector("li[id^='map-item-']")) {
      if (empty) { empty.remove(); }
    } else if (!empty) {
      empty = document.createElement("li");
      empty.className = "empty";
      empty.textContent = document.getElementById("map-list").getAttribute("data-empty");
      list.appendChild(empty);
    }
  }
  function applySight() {
    var box = document.getElementById("map-sight"), b = board();
    if (!box || !box.hasAttribute("data-pending") || !b) { return; }
    box.removeAttribute("data-pending");
    var layer = document.getElementById("map-explored");
    var dim = "map-explored" + (b.getAttribute("data-dark") === "1" ? " map-dark" : "");
    if (layer) {
      var rects = rectsByCell(layer);
      cellsOf(box, "data-visible-added").forEach(function (c) {
        var r = rects[c[0] + "," + c[1]];
        if (r) { r.remove(); delete rects[c[0] + "," + c[1]]; }
      });
      cellsOf(box, "data-visible-removed").forEach(function (c) {
        if (rects[c[0] + "," + c[1]]) { return; }
        var r = document.createElementNS(SVG_NS, "rect");
        r.setAttribute("class", dim);
        r.setAttribute("x", c[0]); r.setAttribute("y", c[1]);
        r.setAttribute("width", "1"); r.setAttribute("height", "1");
        layer.appendChild(r);
      });
    }
    sightTokens(box);
    box.textContent = "";
  }

  // The tokens that tell something else after a step of the fight or a sheet change
  // (templates/maps/_marks.html, in #map-marks): each of its own on the board and in the
  // list takes the fresh one's attributes and content in place, so the element stays (a
  // tap or a drag that began on it goes on) with the classes map.js gave it; a list
  // button that had the focus hands it on to its successor.
  var OWN_CLASSES = ["map-selected", "map-covering"];
  function refresh(old, fresh) {
    var kept = OWN_CLASSES.filter(function (c) { return old.classList.contains(c); });
    Array.prototype.slice.call(old.attributes).forEach(function (a) {
      if (!fresh.hasAttribute(a.name)) { old.removeAttribute(a.name); }
    });
    Array.prototype.slice.call(fresh.attributes).forEach(function (a) {
      old.setAttribute(a.name, a.value);
    });
    kept.forEach(function (c) { old.classList.add(c); });
    while (old.firstChild) { old.removeChild(old.firstChild); }
    while (fresh.firstChild) { old.appendChild(fresh.firstChild); }
  }
  function applyMarks() {
    var box = document.getElementById("map-marks");
    if (!box || !box.hasAttribute("data-pending")) { return; }
    box.removeAttribute("data-pending");
    var marks = box.querySelectorAll("svg > .map-token");
    for (var i = 0; i < marks.length; i++) {
      var old = token(marks[i].getAttribute("data-token"));
      if (old) { refresh(old, marks[i]); }
    }
    var items = box.querySelectorAll("ul > li");
    for (var j = 0; j < items.length; j++) {
      var was = document.querySelector("#map-list #" + items[j].id);
      if (!was) { continue; }
      var focused = was.contains(document.activeElement) ? document.activeElement : null;
      refresh(was, items[j]);
      var again = focused && was.querySelector("." + focused.classList[0]);
      if (again) { again.focus(); }
    }
    box.textContent = "";
  }

  document.addEventListener("htmx:sseMessage", function (evt) {
    var data = (evt.detail && evt.detail.data) || "";
    applySight();
    applyMarks();
    if ((data.indexOf('class="map-at"') >= 0 || data.indexOf('id="map-sight"') >= 0) &&
        data.indexOf('id="map-board"') < 0) {
      var near = document.querySelectorAll("#map-list .map-near");
      for (var i = 0; i < near.length; i++) { near[i].remove(); }
    }
    follow();
  });
  // Touch (issue 28): one finger pans the board natively (touch-action: pan-x pan-y), two
  // fingers zoom it here around their midpoint, a double tap centres it on your figure (the
  // chosen one, else the one on the move, else your first). Not while the GM edits.
  var ZOOM_MIN = 0.5, ZOOM_MAX = 2;
  var pinch = null; // {spread, zoom}: the fingers' distance and the zoom when they landed
  var lastTap = null; // {t, x, y} of the last single tap on the board
  function viewport() { var r = region(); return r ? r.querySelector(".map-viewport") : null; }
  function onBoard(evt) { var vp = viewport(); return !!vp && vp.contains(evt.target) && !editing(); }
  function spread(touches) {
    return Math.hypot(touches[0].clientX - touches[1].clientX, touches[0].clientY - touches[1].clientY);
  }

  function zoomAround(next, clientX, clientY) {
    var vp = viewport();
    if (!vp) { return; }
    var box = vp.getBoundingClientRect();
    var ox = clientX - box.left, oy = clientY - box.top;
    var fx = (vp.scrollLeft + ox) / zoom, fy = (vp.scrollTop + oy) / zoom;
    zoom = Math.max(ZOOM_MIN, Math.min(ZOOM_MAX, next));
    applyZoom();
    vp.scrollLeft = fx * zoom - ox;
    vp.scrollTop = fy * zoom - oy;
  }

  function centreOnMine() {
    var s = svg(), vp = viewport();
    var t = (selected && token(selected)) || (s && (s.querySelector(".map-token.map-mine.map-active") ||
      s.querySelector(".map-token.map-mine")));
    if (!t || !vp) { return; }
    var tb = t.getBoundingClientRect(), vb = vp.getBoundingClientRect();
    vp.scrollLeft += tb.left + tb.width / 2 - (vb.left + vb.width / 2);
    vp.scrollTop += tb.top + tb.height / 2 - (vb.top + vb.height / 2);
  }

  document.addEventListener("touchstart", function (evt) {
    if (evt.touches.length !== 2 || !onBoard(evt)) { return; }
    pinch = { spread: spread(evt.touches) || 1, zoom: zoom };
    lastTap = null;
    evt.preventDefault();
  }, { passive: false });
  document.addEventListener("touchmove", function (evt) {
    if (!pinch || evt.touches.length !== 2) { return; }
    evt.preventDefault();
    var mx = (evt.touches[0].clientX + evt.touches[1].clientX) / 2;
    var my = (evt.touches[0].clientY + evt.touches[1].clientY) / 2;
    zoomAround(pinch.zoom * spread(evt.touches) / pinch.spread, mx, my);
  }, { passive: false });
  document.addEventListener("touchend", function (evt) {
    if (pinch) {
      if (evt.touches.length < 2) { pinch = null; }
      return;
    }
    if (evt.touches.length || evt.changedTouches.length !== 1 || !onBoard(evt)) { return; }
    // Taps on tokens choose and aim, however quickly they follow: only the empty board
    // takes a double tap.
    if (evt.target.closest && evt.target.closest(".map-token")) { lastTap = null; return; }
    var touch = evt.changedTouches[0], now = Date.now();
    var near = lastTap && Math.hypot(touch.clientX - lastTap.x, touch.clientY - lastTap.y) < 30;
    if (near && now - lastTap.t < 350) {
      lastTap = null;
      evt.preventDefault(); // the second tap is the gesture's, not a click
      centreOnMine();
      return;
    }
    lastTap = { t: now, x: touch.clientX, y: touch.clientY };
  }, { passive: false });

  document.addEventListener("htmx:oobAfterSwap", applyZoom);
  document.addEventListener("htmx:afterSwap", follow);
  document.addEventListener("DOMContentLoaded", targets);
})();
