// Load for server.js, as bench/loadgen.py puts it on the service: CAMPS campaigns with
// VIEWERS watching each and one roller per campaign; RATE rolls/s in all, round-robin
// over the campaigns, open loop, latency from each roll's scheduled send time to its
// arrival at each viewer. Prints "ready" once every socket has joined, waits for "go" on
// stdin (the driver reads the server's CPU then), and prints one JSON line of results.
//
//   node loadgen.js URL CAMPS VIEWERS RATE DURATION WARMUP
"use strict";
const readline = require("readline");
const { io } = require("socket.io-client");

const [url, camps, viewers, rate, duration, warmup] = process.argv.slice(2);
const CAMPS = Number(camps), VIEWERS = Number(viewers), RATE = Number(rate);
const DURATION = Number(duration), WARMUP = Number(warmup);

const now = () => Number(process.hrtime.bigint()) / 1e6; // ms
const userId = (c, v) => (c - 1) * (VIEWERS + 1) + v + 1; // as bench/node_standin.py seeds

function connect(id, campaign) {
  return new Promise((resolve, reject) => {
    const s = io(url, { transports: ["websocket"], auth: { token: `tok${id}` }, forceNew: true });
    s.on("connect_error", reject);
    s.on("connect", () =>
      s.emit("join", campaign, (r) => (r.ok ? resolve(s) : reject(new Error(r.error))))
    );
  });
}

async function main() {
  const watchers = [];
  const rollers = [];
  for (let c = 1; c <= CAMPS; c++) {
    for (let v = 0; v < VIEWERS; v++) {
      const w = { campaign: c, got: new Map(), dup: 0, socket: await connect(userId(c, v), c) };
      w.socket.on("roll", (e) => {
        if (w.got.has(e.nonce)) w.dup++;
        else w.got.set(e.nonce, now());
      });
      watchers.push(w);
    }
    rollers.push(await connect(userId(c, VIEWERS), c));
  }
  process.stdout.write("ready\n");
  await new Promise((resolve) => readline.createInterface({ input: process.stdin }).once("line", resolve));

  const sent = new Map(); // nonce -> [campaign, scheduled ms]
  let errors = 0;
  const n = Math.max(1, Math.round(RATE * DURATION));
  const t0 = now() + 50;
  const acks = [];
  for (let i = 0; i < n; i++) {
    const due = t0 + (i * 1000) / RATE;
    const wait = due - now();
    if (wait > 0) await new Promise((r) => setTimeout(r, wait));
    const c = (i % CAMPS) + 1;
    const nonce = `${c}:${i}`;
    sent.set(nonce, [c, due]);
    acks.push(
      new Promise((resolve) =>
        rollers[c - 1].emit("roll", { campaign: c, nonce, label: "Probe" }, (r) => {
          if (r.error) errors++;
          resolve();
        })
      )
    );
  }
  await Promise.all(acks);
  const want = (w) => [...sent.values()].filter(([c]) => c === w.campaign).length;
  const deadline = now() + 10000;
  while (now() < deadline && watchers.some((w) => w.got.size < want(w))) {
    await new Promise((r) => setTimeout(r, 50));
  }
  await new Promise((r) => setTimeout(r, 300)); // late duplicates
  const latencies = [];
  let lost = 0, dup = 0, deliveries = 0;
  for (const w of watchers) {
    dup += w.dup;
    deliveries += w.got.size;
    for (const [nonce, [c, due]] of sent) {
      if (c !== w.campaign) continue;
      const at = w.got.get(nonce);
      if (at === undefined) lost++;
      else if (due >= t0 + WARMUP * 1000) latencies.push(at - due);
    }
  }
  latencies.sort((a, b) => a - b);
  const pct = (p) =>
    latencies.length ? latencies[Math.min(latencies.length - 1, Math.round((p / 100) * (latencies.length - 1)))] : null;
  process.stdout.write(
    JSON.stringify({
      posted: sent.size, post_errors: errors, deliveries, measured: latencies.length,
      lost, dup, p50: pct(50), p95: pct(95), p99: pct(99),
    }) + "\n"
  );
  for (const s of [...watchers.map((w) => w.socket), ...rollers]) s.close();
  process.exit(0);
}

main().catch((err) => {
  process.stderr.write(String(err.stack || err) + "\n");
  process.exit(1);
});
