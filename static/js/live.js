// One live connection per campaign per browser (docs/ui.md, "One live connection per campaign").
//
// Over HTTP/1.1 a browser opens at most six connections per server; a page's stream and the
// notices' in every tab hung the fourth tab. So no tab holds its page's streams itself: one tab
// per campaign, the leader (chosen over a BroadcastChannel), holds the campaign's feed
// (/campaigns/<id>/feed: up to which seq something happened) and tells the other tabs. Every tab
// then catches each of its streams (sse-connect) up with a short request, <stream>?after=<last
// seq>&once=1, which answers what the stream would have sent and ends with a "caught-up" message
// naming how far it read. The htmx SSE extension gets those messages from an object that looks
// like an EventSource, so regions, swaps and notices work as before.
(function () {
  "use strict";
  if (!window.htmx) return;

  var CAMPAIGN = /^\/campaigns\/(\d+)\//;
  // Milliseconds a new tab listens for a leader before it leads; between a follower's checks
  // that the leader is still there; the longest wait before a failed catch-up is tried again.
  var LISTEN = 300;
  var CHECK = 5000;
  var RETRY_MAX = 30000;
  var feeds = {};

  function setStatus(state) {
    var status = document.getElementById("live-status");
    if (!status) return;
    status.textContent = status.getAttribute("data-" + state) || state;
    status.setAttribute("data-state", state);
  }

  // The messages of an event-stream body: {id, event, data}; comments (pings) are skipped.
  function parse(text) {
    var out = [];
    text.split(/\r?\n\r?\n/).forEach(function (block) {
      var msg = { id: "", event: "message", data: [] };
      block.split(/\r?\n/).forEach(function (line) {
        var colon = line.indexOf(":");
        if (colon === 0 || line === "") return;
        var name = colon < 0 ? line : line.slice(0, colon);
        var value = colon < 0 ? "" : line.slice(colon + 1).replace(/^ /, "");
        if (name === "data") msg.data.push(value);
        else if (name === "id" || name === "event") msg[name] = value;
      });
      if (msg.data.length) out.push({ id: msg.id, event: msg.event, data: msg.data.join("\n") });
    });
    return out;
  }

  // One stream of the page (an sse-connect URL), for the SSE extension an EventSource.
  function PageStream(url, feed) {
    var el = document.querySelector('[sse-connect="' + CSS.escape(url) + '"]');
    this.url = url;
    this.feed = feed;
    this.readyState = 0;
    this.listeners = {};
    this.after = el ? parseInt(el.getAttribute("data-last-seq") || "0", 10) : 0;
    this.wanted = this.after;
    this.running = false;
    this.retry = 0;
  }

  PageStream.prototype.addEventListener = function (name, fn) {
    (this.listeners[name] = this.listeners[name] || []).push(fn);
  };

  PageStream.prototype.removeEventListener = function (name, fn) {
    var list = this.listeners[name] || [];
    if (list.indexOf(fn) >= 0) list.splice(list.indexOf(fn), 1);
  };

  PageStream.prototype.close = function () {
    this.readyState = 2;
    this.feed.streams.splice(this.feed.streams.indexOf(this), 1);
  };

  PageStream.prototype.state = function (online) {
    if (this.readyState === 2) return;
    this.readyState = online ? 1 : 0;
    var handler = online ? this.onopen : this.onerror;
    if (handler) handler(new Event(online ? "open" : "error"));
  };

  // Catch up to at least ``seq``; one request at a time, each from where the last one ended,
  // so nothing is missed or shown twice.
  PageStream.prototype.catchUp = function (seq) {
    if (this.readyState === 2) return;
    if (seq > this.wanted) this.wanted = seq;
    if (this.running || this.wanted <= this.after) return;
    this.running = true;
    var self = this;
    var sep = this.url.indexOf("?") < 0 ? "?" : "&";
    fetch(this.url + sep + "after=" + this.after + "&once=1", {
      credentials: "same-origin",
      headers: { Accept: "text/event-stream" },
    }).then(function (answer) {
      if (!answer.ok) throw new Error(String(answer.status));
      return answer.text();
    }).then(function (text) {
      // Not as far as the feed said (a worker that has not seen the event yet, a stream that
      // ended early): again after a pause.
      if (self.deliver(parse(text)) >= self.wanted) self.retry = 0;
      else self.backOff();
    }).catch(function () {
      self.backOff();
    }).then(function () {
      self.running = false;
      // Behind still (the feed went on meanwhile, or the pause above): again.
      if (self.wanted > self.after) setTimeout(function () { self.catchUp(0); }, self.retry || 0);
    });
  };

  PageStream.prototype.backOff = function () {
    this.retry = Math.min(Math.max(this.retry * 2, 500), RETRY_MAX);
  };

  // Hands the messages to the SSE extension; answers the seq the server read up to (-1: the
  // answer did not say).
  PageStream.prototype.deliver = function (messages) {
    var reached = -1;
    for (var i = 0; i < messages.length; i++) {
      var msg = messages[i];
      var seq = parseInt(msg.id, 10);
      if (msg.event === "caught-up") {
        reached = seq;
        if (seq > this.after) this.after = seq;
        continue;
      }
      var event = new MessageEvent(msg.event, { data: msg.data, lastEventId: msg.id });
      (this.listeners[msg.event] || []).slice().forEach(function (fn) { fn(event); });
      if (seq > this.after) this.after = seq;
    }
    return reached;
  };

  // The campaign's feed in this tab: its streams, and whether this tab leads.
  function Feed(campaign) {
    this.campaign = campaign;
    this.streams = [];
    this.seq = 0;
    this.id = Math.random();
    this.leading = false;
    this.heard = false;
    this.source = null;
    this.online = false;
    // While leading: the followers heard from (id -> when), so a closing leader can name its
    // successor and no two followers race to take over.
    this.followers = {};
    this.channel = window.BroadcastChannel ? new BroadcastChannel("tafelrunde-" + campaign) : null;
    if (this.channel) this.channel.onmessage = this.hear.bind(this);
  }

  Feed.prototype.post = function (message) {
    message.id = this.id;
    if (this.channel) this.channel.postMessage(message);
  };

  Feed.prototype.advance = function (seq) {
    if (seq > this.seq) this.seq = seq;
    this.streams.forEach(function (stream) { stream.catchUp(seq); });
  };

  Feed.prototype.status = function (online) {
    this.online = online;
    setStatus(online ? "online" : "offline");
    this.streams.forEach(function (stream) { stream.state(online); });
  };

  // Look for a leader for a moment; lead if none answers.
  Feed.prototype.elect = function () {
    if (this.leading) return;
    var self = this;
    this.heard = false;
    this.post({ type: "hello" });
    setTimeout(function () { if (!self.heard) self.lead(); }, this.channel ? LISTEN : 0);
  };

  Feed.prototype.lead = function () {
    if (this.leading) return;
    var self = this;
    this.leading = true;
    setStatus("connecting");
    var url = "/campaigns/" + this.campaign + "/feed?after=" + this.seq;
    var source = this.source = new EventSource(url, { withCredentials: true });
    source.addEventListener("seq", function (evt) {
      var seq = parseInt(evt.data, 10);
      self.post({ type: "seq", seq: seq });
      self.advance(seq);
    });
    // Online first, then tell the others: they take the leader's state from its announcement.
    source.onopen = function () { self.status(true); self.announce(); };
    source.onerror = function () {
      self.status(false);
      self.post({ type: "status", online: false });
      if (source.readyState !== EventSource.CLOSED) return;
      // Refused (signed out, not a member): lead again later from where the feed was.
      self.stepDown();
      setTimeout(function () { self.elect(); }, CHECK);
    };
    this.announce();
  };

  Feed.prototype.announce = function () {
    this.post({ type: "lead", seq: this.seq, online: this.online });
  };

  // A tab that stops leading shows what it knew before it led (a lead it gave up at once, two
  // tabs having led together, left its status at «connecting» for good: the winner's
  // announcements only change a status that differs from what the tab knows).
  Feed.prototype.stepDown = function () {
    this.leading = false;
    this.followers = {};
    if (this.source) this.source.close();
    this.source = null;
    setStatus(this.online ? "online" : "offline");
  };

  // The follower heard from last (a closing leader's successor), or null.
  Feed.prototype.successor = function () {
    var best = null;
    for (var id in this.followers) {
      if (best === null || this.followers[id] > this.followers[best]) best = id;
    }
    return best === null ? null : Number(best);
  };

  // The leader said goodbye. The successor it named leads at once; the others only elect if
  // no one announced a lead meanwhile (the successor closed too), after a random pause.
  Feed.prototype.succeed = function (msg) {
    if (msg.next === this.id) {
      this.lead();
      return;
    }
    var self = this;
    this.heard = false;
    var pause = (msg.next === null ? 0 : LISTEN) + Math.random() * LISTEN;
    setTimeout(function () { if (!self.heard) self.elect(); }, pause);
  };

  Feed.prototype.hear = function (evt) {
    var msg = evt.data;
    if (typeof msg.seq === "number") this.advance(msg.seq);
    if (msg.type === "hello" && this.leading) {
      this.followers[msg.id] = Date.now();
      this.announce();
    }
    if (msg.type === "gone") delete this.followers[msg.id];
    if (msg.type === "bye") this.succeed(msg);
    if (msg.type === "lead") {
      this.heard = true;
      // Two leaders (they started together): the lower id stays.
      if (this.leading && msg.id < this.id) this.stepDown();
      else if (this.leading) this.announce();
    }
    if (msg.type === "lead" || msg.type === "status") {
      if (!this.leading && msg.online !== this.online) this.status(msg.online);
    }
  };

  // A follower asks now and then whether its leader is still there (a crashed tab says no
  // goodbye); a leader that closes says goodbye and names the follower that takes over at
  // once; a follower that closes says so, so it is not named.
  Feed.prototype.start = function () {
    var self = this;
    this.elect();
    setInterval(function () { if (!self.leading) self.elect(); }, CHECK);
    window.addEventListener("pagehide", function () {
      if (!self.leading) {
        self.post({ type: "gone" });
        return;
      }
      var next = self.successor();
      self.stepDown();
      self.post({ type: "bye", next: next, seq: self.seq });
    });
    window.addEventListener("pageshow", function (evt) { if (evt.persisted) self.elect(); });
  };

  htmx.createEventSource = function (url) {
    var match = CAMPAIGN.exec(url);
    if (!match) return new EventSource(url, { withCredentials: true });
    var feed = feeds[match[1]];
    if (!feed) {
      feed = feeds[match[1]] = new Feed(match[1]);
      feed.start();
    }
    var stream = new PageStream(url, feed);
    feed.streams.push(stream);
    if (stream.after > feed.seq && !feed.leading) feed.seq = stream.after;
    if (feed.online) setTimeout(function () { stream.state(true); }, 0);
    stream.catchUp(feed.seq);
    return stream;
  };
})();
