// Tafelrunde's page script: focus after swaps, notices, confirmations, busy forms. How tabs
// share one live connection per campaign is static/js/live.js.
(function () {
  "use strict";

  function setStatus(state) {
    var status = document.getElementById("live-status");
    if (!status) return;
    status.textContent = status.getAttribute("data-" + state) || state;
    status.setAttribute("data-state", state);
  }

  document.addEventListener("htmx:sseOpen", function () { setStatus("online"); });
  document.addEventListener("htmx:sseError", function () { setStatus("offline"); });

  // Focus after a swap is kept or moved on purpose, never dropped on <body>: when a swap took
  // the focused element away, focus goes to the element of the same id if it came back, else
  // the first control of its region if that came back with one, else the swapped region's
  // heading, else the page's [data-focus-home] (the combat page's actions), else <main>.
  // Nobody's focus moves when it was not lost to a swap.
  var lastFocused = null;
  document.addEventListener("focusin", function (evt) { lastFocused = evt.target; });

  function focusable(el) {
    if (!el.matches("a[href], button, input, select, textarea, summary, [tabindex]")) {
      el.setAttribute("tabindex", "-1");
    }
    el.focus();
  }

  // A sheet's roll link has no id; a live push of the sheet brings back the one for the same
  // value (a roll from the dialog is itself such a push).
  function sameRollLink(el) {
    var roll = el.getAttribute && el.getAttribute("data-roll");
    return roll ? document.querySelector('a.roll-link[data-roll="' + CSS.escape(roll) + '"]') : null;
  }

  // A control that went with its region (a defence prompt's button, when the next prompt
  // comes): the first control of the region that came back in its place, if it has one.
  function sameRegion(el) {
    var old = el.parentElement ? el.parentElement.closest("[id]") : null;
    var region = old ? document.getElementById(old.id) : null;
    return region ? region.querySelector(
      "button:not([disabled]), a[href], input:not([type=hidden]), select, textarea") : null;
  }

  function restoreFocus(region) {
    var active = document.activeElement;
    if (active && active !== document.body) return;
    if (!lastFocused || lastFocused.isConnected) return;
    var again = lastFocused.id ? document.getElementById(lastFocused.id) : sameRollLink(lastFocused);
    var heading = region && region.isConnected ? region.querySelector("h1, h2, h3") : null;
    var next = again || sameRegion(lastFocused) || heading ||
      document.querySelector("[data-focus-home]") || document.getElementById("main");
    if (next) focusable(next);
  }

  // htmx takes up a form a swap brought in when the swap settles, 20 ms later. A keyboard
  // user who sends such a form first (a defence prompt a live push has just shown) would
  // send it as a plain form: a whole page load, the focus lost. So a submit of an htmx form
  // that htmx did not stop is stopped here and made again, by the same button, once htmx
  // has taken the form up; if htmx stops that one neither, it goes as a plain form. A form
  // Idiomorph keeps through later pushes may need this again, so the mark lasts one resend.
  var resent = new WeakSet();
  document.addEventListener("submit", function (evt) {
    var form = evt.target;
    if (evt.defaultPrevented || resent.has(form)) return;
    if (!form.matches || !form.matches("form[hx-post], form[hx-put], form[hx-patch]")) return;
    evt.preventDefault();
    resent.add(form);
    htmx.process(form);
    var button = evt.submitter;
    // Not from within this submit: a form does not submit again while it is submitting.
    setTimeout(function () {
      if (button && button.isConnected) button.click();
      else if (form.isConnected) form.requestSubmit();
      resent.delete(form);
    }, 0);
  });

  // The sheet's roll dialog: the roll link that opened it gets the focus back on close.
  var opener = null;
  document.addEventListener("click", function (evt) {
    var link = evt.target.closest ? evt.target.closest("a.roll-link") : null;
    if (link) opener = { el: link };
  }, true);

  function openDialog(dialog) {
    var previous = lastFocused;
    if (!dialog.open && typeof dialog.showModal === "function") dialog.showModal();
    // A field that re-rendered the dialog (a changed option) keeps the focus.
    var again = previous && previous.id ? document.getElementById(previous.id) : null;
    if (again && dialog.contains(again) && !dialog.querySelector("[autofocus]")) again.focus();
  }

  document.addEventListener("close", function (evt) {
    // A dialog replaced by its next version is not closed by the user: keep the focus there.
    if (evt.target.id !== "roll-dialog" || !evt.target.isConnected || !opener) return;
    var link = opener.el.isConnected ? opener.el : sameRollLink(opener.el);
    if (link) link.focus();
  }, true);

  // At once after the swap (not after settling): the old dialog is gone, the new one waits.
  document.addEventListener("htmx:afterSwap", function (evt) {
    var target = evt.detail && evt.detail.target;
    var dialog = document.getElementById("roll-dialog");
    if (target && target.id === "roll-dialog" && dialog && dialog.querySelector("form")) {
      openDialog(dialog);
    }
  });
  document.addEventListener("htmx:afterSettle", function (evt) {
    if (evt.target.id !== "roll-dialog") restoreFocus(evt.target);
  });

  // Notices (a fight began, your turn, defend): the server decides them per viewer and sends
  // them into the hidden #notice-sink; a notice not shown yet goes into the toast (a live
  // region that stays in the DOM) and the tab title; "nothing" clears both.
  var baseTitle = document.title;
  var shownNotice = null;
  var ALERTS = "tafelrunde-alerts";

  function alertsOn() {
    try { return window.localStorage.getItem(ALERTS) === "on"; } catch (e) { return false; }
  }

  function beep() {
    var Ctx = window.AudioContext || window.webkitAudioContext;
    if (!Ctx) return;
    var audio = new Ctx();
    var tone = audio.createOscillator();
    var gain = audio.createGain();
    tone.frequency.value = 660;
    gain.gain.value = 0.08;
    tone.connect(gain).connect(audio.destination);
    tone.start();
    tone.stop(audio.currentTime + 0.18);
  }

  function tell(notice, title) {
    if (!alertsOn()) return;
    beep();
    if (window.Notification && Notification.permission === "granted" && document.hidden) {
      new Notification(title, { body: notice.querySelector("p").textContent.trim() });
    }
  }

  function showNotice() {
    var sink = document.getElementById("notice-sink");
    var toast = document.getElementById("toast");
    if (!sink || !toast) return;
    var notice = sink.querySelector("[data-notice]");
    var key = notice ? notice.getAttribute("data-notice") : "";
    if (key === shownNotice) return;
    var first = shownNotice === null;
    shownNotice = key;
    toast.replaceChildren();
    if (!notice) {
      document.title = baseTitle;
      return;
    }
    var title = notice.getAttribute("data-title");
    document.title = "\u25CF " + title + " \u2014 Tafelrunde";
    // On the page of the fight it links (the turn bar and the defence card say it there),
    // the toast would only cover the board: the title and the sound tell it (issue 28).
    var link = notice.querySelector("a[href]");
    if (!link || link.getAttribute("href") !== window.location.pathname) {
      toast.appendChild(notice.cloneNode(true));
    }
    if (!first) tell(notice, title);
  }

  // After any settle: the notices' own swap (an outerHTML swap settles on the new element).
  document.addEventListener("htmx:afterSettle", showNotice);
  document.addEventListener("click", function (evt) {
    var close = evt.target.closest ? evt.target.closest("[data-close-alert]") : null;
    if (!close) return;
    var toast = document.getElementById("toast");
    if (toast) toast.replaceChildren();
    focusable(document.getElementById("main"));
  });


  // Destructive forms (data-confirm) ask in a <dialog> first; a "yes" sends the form with
  // confirm=1, so the server's own confirmation page is skipped. Focus goes back to the
  // button that asked.
  var asking = null;
  document.addEventListener("submit", function (evt) {
    var form = evt.target;
    var dialog = document.getElementById("confirm-dialog");
    if (!form.matches || !form.matches("form[data-confirm]") || !dialog) return;
    if (form.querySelector("input[name=confirm]")) return;
    if (typeof dialog.showModal !== "function") return;
    evt.preventDefault();
    evt.stopImmediatePropagation();
    asking = { form: form, button: evt.submitter || form.querySelector("button") };
    document.getElementById("confirm-dialog-question").textContent = form.getAttribute("data-confirm");
    document.getElementById("confirm-dialog-yes").textContent =
      form.getAttribute("data-confirm-button") || form.getAttribute("data-confirm");
    dialog.returnValue = "";
    dialog.showModal();
  }, true);
  document.addEventListener("close", function (evt) {
    if (evt.target.id !== "confirm-dialog" || !asking) return;
    var ask = asking;
    asking = null;
    if (evt.target.returnValue !== "yes") {
      if (ask.button) ask.button.focus();
      return;
    }
    var yes = document.createElement("input");
    yes.type = "hidden";
    yes.name = "confirm";
    yes.value = "1";
    ask.form.appendChild(yes);
    ask.form.requestSubmit(ask.button && ask.button.form === ask.form ? ask.button : undefined);
  }, true);

  // A form with data-busy says so while its request runs (hx-disabled-elt disables its
  // button): the button shows the busy text and the form is aria-busy; the answer (a new
  // form or the next page) ends it.
  document.addEventListener("htmx:beforeRequest", function (evt) {
    var form = evt.detail.elt;
    if (!form.matches || !form.matches("form[data-busy]")) return;
    var button = form.querySelector("button[type=submit]");
    form.setAttribute("aria-busy", "true");
    if (button) {
      button.setAttribute("data-idle", button.textContent);
      button.textContent = form.getAttribute("data-busy");
    }
  });
  document.addEventListener("htmx:afterRequest", function (evt) {
    var form = evt.detail.elt;
    if (!form.matches || !form.matches("form[data-busy]") || !form.isConnected) return;
    var button = form.querySelector("button[data-idle]");
    form.removeAttribute("aria-busy");
    if (button) {
      button.textContent = button.getAttribute("data-idle");
      button.removeAttribute("data-idle");
    }
  });

  // The switch for sound and system notifications; the browser asks for permission only
  // after this click.
  function showAlertsToggle() {
    var toggle = document.getElementById("alerts-toggle");
    if (!toggle) return;
    toggle.hidden = false;
    toggle.setAttribute("aria-pressed", alertsOn() ? "true" : "false");
    toggle.addEventListener("click", function () {
      var on = !alertsOn();
      try { window.localStorage.setItem(ALERTS, on ? "on" : "off"); } catch (e) { return; }
      toggle.setAttribute("aria-pressed", on ? "true" : "false");
      if (on && window.Notification && Notification.permission === "default") {
        Notification.requestPermission();
      }
      if (on) beep();
    });
  }
  if (document.readyState === "loading") {
    document.addEventListener("DOMContentLoaded", showAlertsToggle);
  } else {
    showAlertsToggle();
  }

  // The fight on its board (issue 28): what a phone folds away (the actions sheet, roster,
  // log) stands open beside the board on a wide screen.
  function openWide() {
    if (!window.matchMedia || !window.matchMedia("(min-width: 60rem)").matches) return;
    var folds = document.querySelectorAll("details[data-wide-open]");
    for (var i = 0; i < folds.length; i++) folds[i].open = true;
  }
  if (document.readyState === "loading") {
    document.addEventListener("DOMContentLoaded", openWide);
  } else {
    openWide();
  }
})();
