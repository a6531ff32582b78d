// Tafelrunde's only script: resume live streams where they left off, and show their state.
//
// The htmx SSE extension builds a fresh EventSource after a failed connection, and a fresh
// EventSource sends no Last-Event-ID. So every stream URL carries ?after=<last seen seq>;
// the server resumes from the later of that and Last-Event-ID, losing and repeating nothing.
(function () {
  "use strict";
  var lastSeq = {};

  function streamElement(url) {
    return document.querySelector('[sse-connect="' + url + '"]');
  }

  function withAfter(url) {
    if (!(url in lastSeq)) {
      var el = streamElement(url);
      lastSeq[url] = el ? parseInt(el.getAttribute("data-last-seq") || "0", 10) : 0;
    }
    return url + (url.indexOf("?") < 0 ? "?" : "&") + "after=" + lastSeq[url];
  }

  function setStatus(state) {
    var status = document.getElementById("live-status");
    if (!status) return;
    status.textContent = status.getAttribute("data-" + state) || state;
    status.setAttribute("data-state", state);
  }

  // At once, not on DOMContentLoaded: htmx opens the streams in its own DOMContentLoaded
  // handler, registered before this (deferred) script ran.
  if (window.htmx) {
    window.htmx.createEventSource = function (url) {
      setStatus("connecting");
      return new EventSource(withAfter(url), { withCredentials: true });
    };
  }

  document.addEventListener("htmx:sseMessage", function (evt) {
    var source = evt.target.closest("[sse-connect]");
    var id = parseInt(evt.detail.lastEventId, 10);
    if (source && !isNaN(id)) {
      var url = source.getAttribute("sse-connect");
      if (!(url in lastSeq) || id > lastSeq[url]) lastSeq[url] = id;
    }
  });
  document.addEventListener("htmx:sseOpen", function () { setStatus("online"); });
  document.addEventListener("htmx:sseError", function () { setStatus("offline"); });
})();
