// Live updates keep what the user is doing (docs/ui.md, "How live updates keep state").
//
// Every innerHTML/outerHTML swap (an HTMX answer, an out-of-band part, an SSE push) morphs the
// page with Idiomorph instead of replacing it: elements stay where they are, so focus, caret,
// scroll, open dialogs and listeners stay too. On top of that, a field the user changed after
// its last request went out keeps its value: the answer (or a push) brings the server's view
// from before that change, and putting it back would lose what was typed since.
(function () {
  "use strict";
  if (!window.htmx || !window.Idiomorph) return;

  // A clock of user edits and requests: a field is the user's while its last edit is newer
  // than the last request that carried it.
  var clock = 0;
  var edited = new WeakMap();
  var sent = new WeakMap();

  function markEdited(evt) {
    var el = evt.target;
    if (el && el.matches && el.matches("input, select, textarea")) edited.set(el, ++clock);
  }
  document.addEventListener("input", markEdited, true);
  document.addEventListener("change", markEdited, true);
  // A panel the user opened or closed keeps that state (its summary was clicked).
  document.addEventListener("click", function (evt) {
    var summary = evt.target.closest ? evt.target.closest("summary") : null;
    if (summary && summary.parentElement) edited.set(summary.parentElement, ++clock);
  }, true);

  // The fields a request carries: its element's form (HTMX sends the whole enclosing form),
  // or the element alone. A lookup (data-lookup: the attack's odds) changes nothing on the
  // server: what it carried stays the user's.
  document.addEventListener("htmx:configRequest", function (evt) {
    var el = evt.detail.elt;
    if (el.hasAttribute && el.hasAttribute("data-lookup")) return;
    var form = el.form || (el.closest ? el.closest("form") : null);
    var now = ++clock;
    var fields = form ? form.elements : [el];
    for (var i = 0; i < fields.length; i++) sent.set(fields[i], now);
    sent.set(el, now);
  });

  function theUsers(el) {
    var at = edited.get(el);
    return at !== undefined && at > (sent.get(el) || 0);
  }

  // Which element's state an attribute is: an option's is its select's.
  function owner(node) {
    return node instanceof HTMLOptionElement ? node.closest("select") || node : node;
  }

  function keepAttribute(name, node, mutation) {
    // Inline styles are the browser's own (a text box the user resized): the server sends
    // none (the CSP forbids them), so a swap keeps them.
    if (name === "style") return false;
    // An open dialog is closed by the user, never by a swap.
    if (name === "open" && node instanceof HTMLDialogElement) return mutation === "update";
    if (name === "open" && node instanceof HTMLDetailsElement) return !theUsers(node);
    if (name === "value" || name === "checked" || name === "selected") return !theUsers(owner(node));
    return true;
  }

  var config = {
    restoreFocus: true,
    callbacks: {
      beforeAttributeUpdated: keepAttribute,
      // A textarea's typed text lives in its value; its text child is only the default.
      // An element whose content the page loaded itself (the attack's odds, data-keep-content)
      // keeps it: the server sends it empty, and emptying it would move the buttons below it
      // away from the pointer.
      beforeNodeMorphed: function (oldNode) {
        if (oldNode.hasAttribute && oldNode.hasAttribute("data-keep-content")) return false;
        return !(oldNode instanceof HTMLTextAreaElement && theUsers(oldNode));
      },
    },
  };

  // htmx replaces outerHTML itself before asking extensions; an answer's outerHTML swap (its
  // hx-swap or HX-Reswap) is renamed so that it comes here. Pushes and other swaps use
  // innerHTML, which extensions get anyway.
  var OUTER = "morph-outer";
  document.addEventListener("htmx:beforeSwap", function (evt) {
    var el = evt.detail.elt;
    var holder = el && el.closest ? el.closest("[hx-swap]") : null;
    var spec = evt.detail.swapOverride || (holder ? holder.getAttribute("hx-swap") : "") || "";
    if (/^outerHTML\b/.test(spec)) evt.detail.swapOverride = OUTER + spec.slice(9);
  });

  function morphOptions(morphStyle) {
    var options = { morphStyle: morphStyle };
    for (var key in config) options[key] = config[key];
    return options;
  }

  // A part a push replaces whole (the combat page's regions) while the pointer is pressed on
  // a control inside it waits until the press ends, so the control the user pressed is still
  // there when it is released and the click lands (docs/ui.md, «Nothing lost under a push»).
  // Its forms' versions take the pushed values at once: the click's request is the user's
  // answer to the view that has just arrived, and the server checks it like any other.
  var pressed = null; // the control under a pressed pointer
  var held = {}; // element id -> the pushed HTML that waits for the press to end
  var HOLD_MAX = 10000; // ms: a press held longer lets the pushes through
  var holdTimer = null;

  function takeVersions(into, fragment) {
    var fresh = fragment.querySelectorAll("form input[name=version]");
    for (var i = 0; i < fresh.length; i++) {
      var form = fresh[i].form || fresh[i].closest("form");
      var action = form && form.getAttribute("action");
      if (!action) continue;
      var old = into.querySelectorAll("form[action='" + CSS.escape(action) + "'] input[name=version]");
      for (var j = 0; j < old.length; j++) old[j].value = fresh[i].value;
    }
  }

  // A part swapped whole keeps what the user had in it (docs/ui.md, «What a whole swap
  // keeps»): its scroll position (the actions sheet on a phone scrolls in the part itself),
  // what the user typed or chose in its fields since their last request, and the content the
  // page loaded into it (data-keep-content: the odds, which the server sends empty and the
  // new part loads again). So the buttons stay where the thumb is and nothing typed is lost.
  function fieldKey(field) {
    if (field.id) return "#" + field.id;
    var form = field.form;
    return form && field.name ? (form.getAttribute("action") || "") + " " + field.name : null;
  }

  // What a form is about: its hidden fields but the version and the idempotency key (the
  // attack form's attacker). A value typed for one figure is not carried to the next one's.
  function aboutOf(form) {
    if (!form) return "";
    var hidden = form.querySelectorAll("input[type=hidden]");
    var about = [];
    for (var i = 0; i < hidden.length; i++) {
      var name = hidden[i].name;
      if (name !== "version" && name !== "idempotency_key") about.push(name + "=" + hidden[i].value);
    }
    return about.join("&");
  }

  // The elements the user (or the page) scrolled: only their scroll is read before a swap.
  // Reading an element's scrollTop lays the page out first, and a push's parts are mostly
  // small ones nobody scrolls (a token's place, a hidden box of data for map.js).
  var scrolled = new WeakSet();
  document.addEventListener("scroll", function (evt) {
    if (evt.target instanceof Element) scrolled.add(evt.target);
  }, true);

  function stateOf(part) {
    var typed = [];
    var fields = part.querySelectorAll("input, select, textarea");
    for (var i = 0; i < fields.length; i++) {
      var field = fields[i];
      var key = theUsers(field) ? fieldKey(field) : null;
      if (key) typed.push({ key: key, about: aboutOf(field.form), value: field.value, checked: field.checked });
    }
    var kept = [];
    var loaded = part.querySelectorAll("[data-keep-content][id]");
    for (var j = 0; j < loaded.length; j++) {
      var box = loaded[j];
      kept.push({ id: box.id, about: aboutOf(box.closest("form")), html: box.innerHTML });
    }
    var opened = [];
    var panels = part.querySelectorAll("details");
    for (var k = 0; k < panels.length; k++) {
      // A panel is the user's once toggled: the request its opening may make (the roster
      // row's forms) does not tell the server whether it is open.
      if (edited.has(panels[k])) opened.push({ key: placeKey(panels[k]), open: panels[k].open });
    }
    return {
      id: part.id, scroll: scrolled.has(part) ? part.scrollTop : 0, typed: typed, kept: kept, opened: opened,
      focus: focusedIn(part),
    };
  }

  // An element by its id, else by the nearest element with an id around it and its place
  // among that element's elements of its kind (a roster row's «Verwalten», «Abwarten»).
  function placeKey(el) {
    if (el.id) return "#" + el.id;
    var around = el.parentElement ? el.parentElement.closest("[id]") : null;
    if (!around) return null;
    var all = around.querySelectorAll(el.tagName);
    return "#" + around.id + " " + el.tagName + " " + Array.prototype.indexOf.call(all, el);
  }

  // The element of part matching selector whose keyOf is key.
  function found(part, selector, keyOf, key) {
    var all = part.querySelectorAll(selector);
    for (var i = 0; i < all.length; i++) if (keyOf(all[i]) === key) return all[i];
    return null;
  }

  // Where a keyboard user is: the focused element without an id (HTMX finds one with an id
  // again itself), so that the swap does not drop them at the top of the page.
  function focusedIn(part) {
    var el = document.activeElement;
    if (!el || el === document.body || el.id || !part.contains(el)) return null;
    var key = placeKey(el);
    return key ? { key: key, tag: el.tagName } : null;
  }

  function hasOption(select, value) {
    for (var i = 0; i < select.options.length; i++) if (select.options[i].value === value) return true;
    return false;
  }

  function restore(state) {
    var part = document.getElementById(state.id);
    if (!part) return;
    state.kept.forEach(function (k) { keepLoaded(part, k); });
    state.typed.forEach(function (t) { keepTyped(part, t); });
    state.opened.forEach(function (o) { keepOpened(part, o); });
    if (state.scroll) {
      part.scrollTop = state.scroll;
      scrolled.add(part);
    }
    keepFocus(part, state.focus);
  }

  function keepFocus(part, focus) {
    var now = document.activeElement;
    if (!focus || (now && now !== document.body)) return;
    var el = found(part, focus.tag, placeKey, focus.key);
    if (el) el.focus({ preventScroll: true });
  }

  function keepLoaded(part, k) {
    var box = document.getElementById(k.id);
    if (!box || !part.contains(box) || box.firstElementChild) return;
    if (aboutOf(box.closest("form")) === k.about) box.innerHTML = k.html;
  }

  function keepTyped(part, t) {
    var field = found(part, "input, select, textarea", fieldKey, t.key);
    if (!field || field.type === "hidden" || aboutOf(field.form) !== t.about) return;
    if (field instanceof HTMLSelectElement && !hasOption(field, t.value)) return; // gone
    if (field.type === "checkbox" || field.type === "radio") field.checked = t.checked;
    else field.value = t.value;
    edited.set(field, ++clock);
  }

  function keepOpened(part, o) {
    var panel = o.key === null ? null : found(part, "details", placeKey, o.key);
    if (!panel) return;
    if (panel.open !== o.open) {
      panel.open = o.open;
      // Its «toggle» comes after this task: a panel that loads its content on opening
      // (hx-trigger «toggle») must hear it, so HTMX takes it in now, not when it settles.
      htmx.process(panel);
    }
    edited.set(panel, ++clock);
  }

  var swapping = {}; // element id -> its state while htmx swaps it whole

  function release() {
    pressed = null;
    if (holdTimer) clearTimeout(holdTimer);
    holdTimer = null;
    // After the click this release causes has been handled (its request has its fields).
    setTimeout(function () {
      var waiting = held;
      held = {};
      Object.keys(waiting).forEach(function (id) {
        var target = document.getElementById(id);
        if (!target) return;
        var state = stateOf(target);
        htmx.swap(target, waiting[id], { swapStyle: "outerHTML" });
        restore(state);
      });
    }, 0);
  }

  document.addEventListener("pointerdown", function (evt) {
    var control = evt.target.closest ? evt.target.closest("button, input[type=submit], a[href]") : null;
    pressed = control;
    if (control && !holdTimer) holdTimer = setTimeout(release, HOLD_MAX);
  }, true);
  document.addEventListener("pointerup", function () { if (pressed) release(); }, true);
  document.addEventListener("pointercancel", function () { if (pressed) release(); }, true);

  document.addEventListener("htmx:oobBeforeSwap", function (evt) {
    var detail = evt.detail;
    var part = detail.fragment.firstElementChild;
    var whole = detail.fragment.children.length === 1 && part && part.id === detail.target.id;
    if (!detail.shouldSwap || !whole) return;
    if (pressed && detail.target.contains(pressed)) {
      takeVersions(detail.target, detail.fragment);
      held[part.id] = part.outerHTML;
      detail.shouldSwap = false;
      return;
    }
    swapping[part.id] = stateOf(detail.target);
  });
  document.addEventListener("htmx:oobAfterSwap", function (evt) {
    var id = evt.detail.target && evt.detail.target.id;
    var state = id ? swapping[id] : null;
    if (!state) return;
    delete swapping[id];
    restore(state);
  });

  htmx.defineExtension("keep-state", {
    handleSwap: function (swapStyle, target, fragment) {
      if (swapStyle !== "innerHTML" && swapStyle !== OUTER) return false;
      return Idiomorph.morph(target, fragment, morphOptions(swapStyle === OUTER ? "outerHTML" : "innerHTML"));
    },
  });
})();
