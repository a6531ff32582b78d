// The defence/hit deadline as a ticking countdown (issue 13). The server renders the
// seconds left when it renders the prompt (data-remaining, also after a live push, which
// replaces the element); the script counts them down on the browser's own clock, so a clock
// skew between browser and server does not matter. Without scripts the deadline's time
// stays as text and the countdown stays hidden. The number has aria-live="off": a screen
// reader reads it when asked (role="timer" with its label), not every second.
(function () {
  "use strict";

  function tick() {
    var now = Date.now();
    var boxes = document.querySelectorAll("[data-countdown]");
    for (var i = 0; i < boxes.length; i++) {
      var box = boxes[i];
      if (!box.hasAttribute("data-ends")) {
        var left = parseInt(box.getAttribute("data-remaining") || "0", 10);
        box.setAttribute("data-ends", String(now + left * 1000));
        box.hidden = false;
      }
      var seconds = Math.max(0, Math.ceil((parseInt(box.getAttribute("data-ends"), 10) - now) / 1000));
      var number = box.querySelector("[data-countdown-seconds]");
      if (number && number.textContent !== String(seconds)) number.textContent = String(seconds);
      if (seconds === 0) box.setAttribute("data-expired", "1");
    }
  }

  tick();
  window.setInterval(tick, 500);
})();
