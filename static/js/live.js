// One live connection per campaign per browser (docs/ui.md, "One live connection per campaign").
//
// Over HTTP/1.1 a browser opens at most six connections per server; a page's stream and the
// notices' in every tab hung the fourth tab. So no tab holds its page's streams itself: one tab
// per campaign, the leader (chosen over a BroadcastChannel), holds the campaign's feed
// (/campaigns/<id>/feed?s=<stream>&s=…), which carries the streams (sse-connect) of every tab of
// the campaign: the tabs tell the leader theirs, and the leader hands each batch to them all.
// A stream the feed does not carry (yet), or one that would miss or repeat something, catches
// up with a short request instead, <stream>?after=<last seq>&once=1, which answers what the
// stream would have sent and ends with a "caught-up" message naming how far it read. The htmx
// SSE extension gets the messages from an object that looks like an EventSource, so regions,
// swaps and notices work as before.
(function () {
  "use strict";
  if (!window.htmx) return;

  var CAMPAIGN = /^\/campaigns\/(\d+)\//;
  // Milliseconds a new tab listens for a leader before it leads; between a follower's checks
  // that the leader is still there; the longest wait before a failed catch-up is tried again.
  var LISTEN = 300;
  var CHECK = 5000;
  var RETRY_MAX = 30000;
  // Streams one feed carries (the server's limit, app.limits.FEED_STREAMS); milliseconds the
  // leader gathers changes of the tabs' streams before it opens the feed again.
  var FEED_STREAMS = 16;
  var GATHER = 100;
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
    var at = this.feed.streams.indexOf(this);
    this.readyState = 2;
    if (at < 0) return;  // closed before
    this.feed.streams.splice(at, 1);
    this.feed.register();
  };

  PageStream.prototype.state = function (online) {
    if (this.readyState === 2) return;
    this.readyState = online ? 1 : 0;
    var handler = online ? this.onopen : this.onerror;
    if (handler) handler(new Event(online ? "open" : "error"));
  };

  // A batch of the feed: its parts for this stream, if the feed carries it and the batch starts
  // where this stream is (it read up to ``prev``, none of the batch's events yet); otherwise
  // the stream catches up itself.
  PageStream.prototype.take = function (batch) {
    if (this.readyState === 2 || this.after >= batch.seq) return;
    var index = batch.urls.indexOf(this.url);
    if (index < 0 || batch.prev > this.after || batch.first <= this.after) {
      this.catchUp(batch.seq);
      return;
    }
    var messages = [];
    batch.parts.forEach(function (part) {
      if (part[0] === index) messages.push({ id: String(part[1]), event: part[2], data: part[3] });
    });
    this.deliver(messages);
    this.after = batch.seq;
    if (batch.seq > this.wanted) this.wanted = batch.seq;
  };

  // Catch up to at least ``seq``; one request at a time, each from where the stream is, so
  // nothing is missed or shown twice (an answer from a point the feed has moved the stream
  // past meanwhile is dropped).
  PageStream.prototype.catchUp = function (seq) {
    if (this.readyState === 2) return;
    if (seq > this.wanted) this.wanted = seq;
    if (this.running || this.wanted <= this.after) return;
    this.running = true;
    var self = this;
    var from = this.after;
    var sep = this.url.indexOf("?") < 0 ? "?" : "&";
    fetch(this.url + sep + "after=" + from + "&once=1", {
      credentials: "same-origin",
      headers: { Accept: "text/event-stream" },
    }).then(function (answer) {
      if (!answer.ok) throw new Error(String(answer.status));
      return answer.text();
    }).then(function (text) {
      if (self.after !== from) return;
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
    this.leader = null;
    this.source = null;
    this.online = false;
    // While leading: the followers heard from (id -> when), so a closing leader can name its
    // successor and no two followers race to take over; the streams each follower asked for
    // (id -> {urls, when}); the streams the open feed was asked for, and those it carries.
    this.followers = {};
    this.registry = {};
    this.asked = null;
    this.carried = [];
    this.gathering = null;
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

  // A batch of the feed (from this tab's feed or the leader's), to every stream of this tab.
  Feed.prototype.take = function (batch) {
    if (batch.seq > this.seq) this.seq = batch.seq;
    this.streams.slice().forEach(function (stream) { stream.take(batch); });
  };

  Feed.prototype.status = function (online) {
    this.online = online;
    setStatus(online ? "online" : "offline");
    this.streams.forEach(function (stream) { stream.state(online); });
  };

  // This tab's streams, each once.
  Feed.prototype.urls = function () {
    var urls = [];
    this.streams.forEach(function (stream) {
      if (urls.indexOf(stream.url) < 0) urls.push(stream.url);
    });
    return urls;
  };

  // This tab's streams changed: the leader reconsiders its feed, a follower tells the leader.
  Feed.prototype.register = function () {
    if (this.leading) this.plan();
    else this.post({ type: "streams", urls: this.urls() });
  };

  // The streams the feed should carry: this tab's first, then the followers' heard from lately
  // (a crashed tab says no goodbye), up to the server's limit.
  Feed.prototype.wanted = function () {
    var urls = this.urls();
    var now = Date.now();
    for (var id in this.registry) {
      var entry = this.registry[id];
      if (now - entry.when > 3 * CHECK) {
        delete this.registry[id];
        continue;
      }
      entry.urls.forEach(function (url) {
        if (urls.indexOf(url) < 0) urls.push(url);
      });
    }
    return urls.slice(0, FEED_STREAMS).sort();
  };

  // Opens the feed again if it should carry other streams, once the changes of a moment are in.
  Feed.prototype.plan = function () {
    if (!this.leading || this.gathering !== null) return;
    var self = this;
    this.gathering = setTimeout(function () {
      self.gathering = null;
      if (!self.leading) return;
      var urls = self.wanted();
      if (self.asked === null || urls.join("\n") !== self.asked.join("\n")) self.connect(urls);
    }, GATHER);
  };

  // Look for a leader for a moment; lead if none answers.
  Feed.prototype.elect = function () {
    if (this.leading) return;
    var self = this;
    this.heard = false;
    this.post({ type: "hello", urls: this.urls() });
    setTimeout(function () { if (!self.heard) self.lead(); }, this.channel ? LISTEN : 0);
  };

  // ``registry``: the streams of the tabs a leader that closed knew of.
  Feed.prototype.lead = function (registry) {
    if (this.leading) return;
    this.leading = true;
    this.leader = this.id;
    this.registry = registry || {};
    for (var id in this.registry) this.registry[id].when = Date.now();
    setStatus("connecting");
    this.connect(this.wanted());
    this.announce();
  };

  // Opens the feed from the last seq this tab knows, carrying ``urls``; the feed it replaces
  // closes. The batches name the streams they carry, so each tab's streams know whether a
  // batch is theirs.
  Feed.prototype.connect = function (urls) {
    var self = this;
    if (this.source) this.source.close();
    this.asked = urls;
    this.carried = [];
    var query = urls.map(function (url) { return "&s=" + encodeURIComponent(url); }).join("");
    var url = "/campaigns/" + this.campaign + "/feed?after=" + this.seq + query;
    var source = this.source = new EventSource(url, { withCredentials: true });
    source.addEventListener("streams", function (evt) {
      var served = JSON.parse(evt.data).served;
      self.carried = urls.map(function (url, i) { return served.indexOf(i) < 0 ? null : url; });
    });
    source.addEventListener("batch", function (evt) {
      var batch = JSON.parse(evt.data);
      batch.urls = self.carried;
      self.post({ type: "batch", batch: batch });
      self.take(batch);
    });
    // The viewer's role changed: the streams' routes decide again what this viewer may follow.
    source.addEventListener("reclaim", function () {
      if (source === self.source) self.connect(self.asked);
    });
    // A feed that carries no stream names only the seq (a tab whose streams all closed).
    source.addEventListener("seq", function (evt) {
      var seq = parseInt(evt.data, 10);
      self.post({ type: "seq", seq: seq });
      self.advance(seq);
    });
    // Online first, then tell the others: they take the leader's state from its announcement.
    source.onopen = function () {
      if (source !== self.source) return;
      self.status(true);
      self.announce();
    };
    source.onerror = function () {
      if (source !== self.source) return;
      self.status(false);
      self.post({ type: "status", online: false });
      if (source.readyState !== EventSource.CLOSED) return;
      // Refused (signed out, not a member): lead again later from where the feed was.
      self.stepDown();
      setTimeout(function () { self.elect(); }, CHECK);
    };
  };

  // Whether the campaign's events flow: through the leader's feed, as it last said, for a
  // follower; through its own feed for a leader (which keeps what it knew as a follower while
  // it connects, and shows «Verbinde…»: a stream that starts meanwhile, as the page loads a
  // region, must not say «Live»).
  Feed.prototype.open = function () {
    if (!this.leading) return this.online;
    return this.source !== null && this.source.readyState === EventSource.OPEN;
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
    this.registry = {};
    this.asked = null;
    if (this.gathering !== null) clearTimeout(this.gathering);
    this.gathering = null;
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

  // The leader said goodbye. The successor it named leads at once, with the streams the leader
  // knew of; the others only elect if no one announced a lead meanwhile (the successor closed
  // too), after a random pause.
  Feed.prototype.succeed = function (msg) {
    if (msg.next === this.id) {
      var registry = msg.registry || {};
      delete registry[this.id];
      this.lead(registry);
      return;
    }
    var self = this;
    this.heard = false;
    var pause = (msg.next === null ? 0 : LISTEN) + Math.random() * LISTEN;
    setTimeout(function () { if (!self.heard) self.elect(); }, pause);
  };

  // What a leader hears of a follower: it is there, and which streams it has.
  Feed.prototype.heardFollower = function (msg) {
    if (msg.type === "hello") {
      this.followers[msg.id] = Date.now();
      this.announce();
    }
    // A follower that closed: its streams are dropped at the next change (a tab that moves to
    // another page registers again in a moment), not with a feed of their own.
    if (msg.type === "gone") {
      delete this.followers[msg.id];
      delete this.registry[msg.id];
    }
    if ((msg.type === "hello" || msg.type === "streams") && msg.urls) {
      this.registry[msg.id] = { urls: msg.urls, when: Date.now() };
      this.plan();
    }
  };

  Feed.prototype.hear = function (evt) {
    var msg = evt.data;
    if (typeof msg.seq === "number") this.advance(msg.seq);
    if (msg.type === "batch") this.take(msg.batch);
    if (this.leading) this.heardFollower(msg);
    if (msg.type === "bye") this.succeed(msg);
    if (msg.type === "lead") {
      this.heard = true;
      // Two leaders (they started together): the lower id stays.
      if (this.leading && msg.id < this.id) this.stepDown();
      else if (this.leading) this.announce();
      // A new leader: it learns this tab's streams at once, not at the next check.
      if (!this.leading && this.leader !== msg.id) {
        this.leader = msg.id;
        this.register();
      }
    }
    if (msg.type === "lead" || msg.type === "status") {
      if (!this.leading && msg.online !== this.online) this.status(msg.online);
    }
  };

  // A follower asks now and then whether its leader is still there (a crashed tab says no
  // goodbye), naming its streams; a leader that closes says goodbye and names the follower
  // that takes over at once, with the followers' streams; a follower that closes says so, so
  // it is not named and its streams are no longer carried.
  Feed.prototype.start = function () {
    var self = this;
    this.elect();
    setInterval(function () {
      if (self.leading) self.plan();
      else self.elect();
    }, CHECK);
    window.addEventListener("pagehide", function () {
      if (!self.leading) {
        self.post({ type: "gone" });
        return;
      }
      var next = self.successor();
      var registry = self.registry;
      self.stepDown();
      self.post({ type: "bye", next: next, seq: self.seq, registry: registry });
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
    setTimeout(function () { if (feed.open()) stream.state(true); }, 0);
    stream.catchUp(feed.seq);
    feed.register();
    return stream;
  };
})();
