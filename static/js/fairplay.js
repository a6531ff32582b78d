// Fair-play verification in the browser (docs/fairplay.md): Web Crypto only, no server help.
// It checks what verify_fairplay.py checks: digests (format version 2 salted, 1 unsalted),
// the chain, every die against the derivation, and the faces and totals a roll shows.
// The export is parsed keeping each number as written, so the canonical JSON of a payload is
// byte for byte what the server hashed (Python's json.dumps, sorted keys, no spaces).
(function () {
  "use strict";

  function Num(raw) { this.raw = raw; }

  function parse(text) {
    var i = 0;
    function ws() { while (i < text.length && " \t\n\r".indexOf(text[i]) >= 0) { i++; } }
    function value() {
      ws();
      var c = text[i];
      if (c === "{") { return object(); }
      if (c === "[") { return array(); }
      if (c === "\"") { return string(); }
      var m = /^(?:true|false|null|-?(?:0|[1-9]\d*)(?:\.\d+)?(?:[eE][+-]?\d+)?)/.exec(text.slice(i, i + 400));
      if (!m) { throw new Error("bad JSON at " + i); }
      i += m[0].length;
      if (m[0] === "true") { return true; }
      if (m[0] === "false") { return false; }
      if (m[0] === "null") { return null; }
      return new Num(m[0]);
    }
    function string() {
      var start = i;
      i++;
      while (text[i] !== "\"") { i += text[i] === "\\" ? 2 : 1; if (i >= text.length) { throw new Error("bad JSON"); } }
      i++;
      return JSON.parse(text.slice(start, i));
    }
    function object() {
      var out = Object.create(null);
      i++; ws();
      if (text[i] === "}") { i++; return out; }
      for (;;) {
        ws(); var key = string(); ws();
        if (text[i] !== ":") { throw new Error("bad JSON at " + i); }
        i++; out[key] = value(); ws();
        if (text[i] === ",") { i++; continue; }
        if (text[i] === "}") { i++; return out; }
        throw new Error("bad JSON at " + i);
      }
    }
    function array() {
      var out = [];
      i++; ws();
      if (text[i] === "]") { i++; return out; }
      for (;;) {
        out.push(value()); ws();
        if (text[i] === ",") { i++; continue; }
        if (text[i] === "]") { i++; return out; }
        throw new Error("bad JSON at " + i);
      }
    }
    var v = value(); ws();
    if (i !== text.length) { throw new Error("trailing data"); }
    return v;
  }

  function codePoints(a, b) {
    var x = Array.from(a), y = Array.from(b);
    for (var k = 0; k < Math.min(x.length, y.length); k++) {
      var d = x[k].codePointAt(0) - y[k].codePointAt(0);
      if (d) { return d; }
    }
    return x.length - y.length;
  }

  function canonical(v) {
    if (v === null) { return "null"; }
    if (v === true) { return "true"; }
    if (v === false) { return "false"; }
    if (v instanceof Num) { return v.raw; }
    if (typeof v === "string") { return JSON.stringify(v); }
    if (Array.isArray(v)) { return "[" + v.map(canonical).join(",") + "]"; }
    return "{" + Object.keys(v).sort(codePoints).map(function (k) {
      return JSON.stringify(k) + ":" + canonical(v[k]);
    }).join(",") + "}";
  }

  function plain(v) { return v instanceof Num ? v.raw : v === null || v === undefined ? "None" : String(v); }
  function int(v) { return v instanceof Num ? Number(v.raw) : Number(v); }

  var enc = new TextEncoder();
  function hex(buf) {
    return Array.from(new Uint8Array(buf)).map(function (b) { return b.toString(16).padStart(2, "0"); }).join("");
  }
  function sha256(text) { return crypto.subtle.digest("SHA-256", enc.encode(text)).then(hex); }
  // Format version 2: HMAC-SHA256 keyed with the event's salt; version 1: plain SHA-256.
  async function payloadDigest(payload, fp) {
    var version = fp.version === undefined ? 1 : int(fp.version);
    if (version === 1) { return sha256(canonical(payload)); }
    if (typeof fp.salt !== "string") { return null; }
    var key = await crypto.subtle.importKey("raw", fromHex(fp.salt), { name: "HMAC", hash: "SHA-256" }, false, ["sign"]);
    return hex(await crypto.subtle.sign("HMAC", key, enc.encode(canonical(payload))));
  }
  function fromHex(h) {
    var out = new Uint8Array(h.length / 2);
    for (var k = 0; k < out.length; k++) { out[k] = parseInt(h.substr(k * 2, 2), 16); }
    return out;
  }

  var TWO64 = BigInt(1) << BigInt(64);
  async function derive(key, campaign, seq, user, seed, k, sides) {
    var n = BigInt(sides), limit = TWO64 - (TWO64 % n);
    for (var j = 0; ; j++) {
      var msg = ["tafelrunde-fairplay-v1", campaign, seq, user, seed, k, j].join("|");
      var h = new DataView(await crypto.subtle.sign("HMAC", key, enc.encode(msg)));
      var u = h.getBigUint64(0, false);
      if (u < limit) { return Number(u % n) + 1; }
    }
  }

  // The rolls a payload shows: a dice log roll, a chat message's inline roll.
  function shownRolls(e) {
    var p = e.payload;
    if (!p) { return []; }
    if (e.type === "roll") { return [p]; }
    return e.type === "chat_message" && p.roll && typeof p.roll === "object" ? [p.roll] : [];
  }

  // What a roll shows against its draws: each face in draw order, and for a free roll (no
  // rules engine) the total, the signed sum of the kept faces plus the modifier.
  function shownProblems(roll, draws, M) {
    var groups = roll.dice || [], faces = [], problems = [];
    groups.forEach(function (g) { (g.faces || []).forEach(function (f) { faces.push([int(g.sides), int(f)]); }); });
    for (var k = 0; k < Math.min(faces.length, draws.length); k++) {
      var want = [int(draws[k][0]), int(draws[k][1])];
      if (faces[k][0] !== want[0] || faces[k][1] !== want[1]) {
        problems.push(M.shown + " (" + (k + 1) + ": d" + faces[k][0] + " " + faces[k][1] + " ≠ d" + want[0] + " " + want[1] + ")");
      }
    }
    if (faces.length !== draws.length) { problems.push(M.shown + " (" + faces.length + " ≠ " + draws.length + ")"); }
    if ((roll.system === null || roll.system === undefined) && !problems.length) {
      var signs = roll.signs || [], total = int(roll.modifier || 0);
      groups.forEach(function (g, n) {
        var kept = 0;
        (g.faces || []).forEach(function (f, m) { if (g.kept && g.kept[m]) { kept += int(f); } });
        total += (signs[n] === undefined ? 1 : int(signs[n])) * kept;
      });
      if (int(roll.total) !== total) { problems.push(M.total + " (" + plain(roll.total) + " ≠ " + total + ")"); }
    }
    return problems;
  }

  // Who rolled what: «anna: Wahrnehmung 1W20 [18] = 18».
  function describe(e) {
    var rolls = shownRolls(e);
    if (!rolls.length) { return ""; }
    var r = rolls[0];
    var faces = (r.dice || []).map(function (g) { return "[" + (g.faces || []).map(plain).join(", ") + "]"; }).join(" ");
    var what = [r.label, r.expression].filter(function (x) { return x; }).join(" ");
    return (e.payload.actor_name || "?") + ": " + what + " " + faces + " = " + plain(r.total);
  }

  function checkShown(e, ctx, out, M) {
    shownRolls(e).forEach(function (roll) {
      var draws = ctx.draws[e.type === "roll" ? out.seq : int(roll.seq)];
      if (draws) { shownProblems(roll, draws, M).forEach(function (p) { out.problems.push(p); }); }
    });
    out.roll = describe(e);
  }

  async function checkDigest(e, fp, out, M) {
    out.version = fp.version === undefined || int(fp.version) === 1 ? 1 : 2;
    if (e.payload === null || e.payload === undefined) { return; }
    var want = await payloadDigest(e.payload, fp);
    if (want === null) { out.problems.push(M.salt); } else if (want !== fp.digest) { out.problems.push(M.digest); }
  }

  async function checkEvent(e, ctx, M) {
    var out = { seq: int(e.seq), type: e.type, version: 2, roll: "", dice: 0, secret: false, override: false, problems: [] };
    var fp = e.fairplay;
    if (!fp || typeof fp !== "object") { out.problems.push(M.record); return out; }
    out.override = fp.override === true;
    if (ctx.last !== null && out.seq !== ctx.last + 1) { out.problems.push(M.gap); }
    ctx.last = out.seq;
    if (int(fp.session_id) !== ctx.session) { out.problems.push(M.session); }
    await checkDigest(e, fp, out, M);
    if (await sha256(ctx.chain + String(fp.digest)) !== fp.chain) { out.problems.push(M.chain); }
    ctx.chain = String(fp.chain);
    if (fp.draws === null || fp.draws === undefined) { out.secret = true; return out; }
    out.dice = fp.draws.length;
    ctx.draws[out.seq] = fp.draws;
    checkShown(e, ctx, out, M);
    if (!ctx.key) { return out; }
    for (var k = 0; k < fp.draws.length; k++) {
      var sides = int(fp.draws[k][0]), face = int(fp.draws[k][1]);
      var want = await derive(ctx.key, ctx.campaign, plain(e.seq), plain(fp.user_id), plain(fp.client_seed), k, sides);
      if (want !== face) { out.problems.push(M.die + " (" + (k + 1) + ": d" + sides + " " + face + " ≠ " + want + ")"); }
    }
    return out;
  }

  async function sessionProblems(data, events, M) {
    var problems = [];
    if (data.server_seed && await crypto.subtle.digest("SHA-256", fromHex(data.server_seed)).then(hex) !== data.commitment) {
      problems.push(M.commitment);
    }
    var first = events[0];
    if (!first || first.type !== "session_started" || (first.payload && first.payload.commitment !== data.commitment)) {
      problems.push(M.start);
    }
    var last = events[events.length - 1];
    if (data.server_seed && (!last || last.type !== "session_ended" || (last.payload && last.payload.server_seed !== data.server_seed))) {
      problems.push(M.end);
    }
    return problems;
  }

  async function verify(text, M) {
    var data = parse(text);
    var events = data.events || [];
    var ctx = { campaign: plain(data.campaign_id), session: int(data.session_id), chain: String(data.commitment), last: null, key: null, draws: Object.create(null) };
    if (data.server_seed) {
      ctx.key = await crypto.subtle.importKey("raw", fromHex(data.server_seed), { name: "HMAC", hash: "SHA-256" }, false, ["sign"]);
    }
    var checked = [];
    for (var k = 0; k < events.length; k++) { checked.push(await checkEvent(events[k], ctx, M)); }
    return { events: checked, problems: await sessionProblems(data, events, M), seeded: !!data.server_seed };
  }

  function fill(template, values) {
    return template.replace(/\{(\w+)\}/g, function (_m, name) { return String(values[name]); });
  }

  function show(root, report) {
    var list = root.querySelector("#fairplay-events"), summary = root.querySelector("#fairplay-summary");
    var d = root.dataset;
    list.textContent = "";
    report.problems.forEach(function (p) {
      var li = document.createElement("li");
      li.className = "fairplay-bad";
      li.textContent = "✗ " + p;
      list.appendChild(li);
    });
    var labels = JSON.parse(d.labels || "{}");
    var dice = 0, secret = 0, overrides = 0, failed = null, versions = {};
    report.events.forEach(function (e) {
      versions[e.version] = true;
      var li = document.createElement("li");
      li.id = "fairplay-event-" + e.seq;
      li.dataset.seq = String(e.seq);
      var notes = [];
      if (e.dice) { notes.push(e.dice + " " + d.dice); }
      if (e.secret) { notes.push(d.secret); secret++; } else { dice += e.dice; }
      if (e.override) { notes.push(d.override); overrides++; }
      var mark = e.problems.length ? "✗ " + e.problems.join("; ") : "✓";
      li.className = e.problems.length ? "fairplay-bad" : "fairplay-ok";
      var label = Object.prototype.hasOwnProperty.call(labels, e.type) ? labels[e.type] : e.type;
      li.textContent = "#" + e.seq + " " + label + " " + mark + (notes.length ? " (" + notes.join(", ") + ")" : "");
      if (e.roll) {
        var what = document.createElement("span");
        what.className = "fairplay-roll";
        what.textContent = " — " + e.roll;
        li.appendChild(what);
      }
      if (e.problems.length && failed === null) { failed = e.seq; }
      list.appendChild(li);
    });
    var format = root.querySelector("#fairplay-format");
    format.textContent = versions[1] && versions[2] ? d.formatMixed : versions[1] ? d.formatV1 : report.events.length ? d.formatV2 : "";
    var values = { events: report.events.length, dice: dice, secret: secret, overrides: overrides, seq: failed };
    if (failed !== null || report.problems.length) {
      summary.textContent = fill(d.failed, { seq: failed === null ? "–" : failed });
      summary.className = "fairplay-bad";
    } else {
      summary.textContent = fill(report.seeded ? d.allOk : d.soFar, values);
      summary.className = "fairplay-ok";
    }
  }

  function messages(d) {
    return {
      gap: d.mGap, session: d.mSession, digest: d.mDigest, chain: d.mChain, die: d.mDie,
      record: d.mRecord, commitment: d.mCommitment, start: d.mStart, end: d.mEnd,
      shown: d.mShown, total: d.mTotal, salt: d.mSalt
    };
  }

  function run(root, text) {
    var summary = root.querySelector("#fairplay-summary");
    if (!window.crypto || !crypto.subtle) { summary.textContent = root.dataset.noCrypto; return; }
    verify(text, messages(root.dataset)).then(function (report) { show(root, report); }, function () {
      summary.textContent = root.dataset.unreadable;
      summary.className = "fairplay-bad";
    });
  }

  function setUp() {
    var seed = document.querySelector("input[data-random-seed]");
    if (seed && !seed.value && window.crypto) {
      seed.value = hex(crypto.getRandomValues(new Uint8Array(12)));
    }
    var root = document.getElementById("fairplay-verify");
    if (!root) { return; }
    root.querySelector("#fairplay-run").addEventListener("click", function () {
      fetch(root.dataset.export, { credentials: "same-origin" }).then(function (r) { return r.text(); })
        .then(function (text) { run(root, text); });
    });
    root.querySelector("#fairplay-file").addEventListener("change", function (ev) {
      var file = ev.target.files && ev.target.files[0];
      if (file) { file.text().then(function (text) { run(root, text); }); }
    });
  }

  if (document.readyState === "loading") { document.addEventListener("DOMContentLoaded", setUp); } else { setUp(); }
}());
