// A stand-in of Foundry VTT's roll path (issue 29), the bar for Tafelrunde's roll:
// Node + socket.io + node-postgres. Sign-in once per connection (the handshake's token is
// looked up), a membership check per roll, server dice, one INSERT that takes the
// campaign's next gap-free seq, and a broadcast to the campaign's room. No rules, no
// visibility per viewer, no resume: what Foundry's server does for a public roll.
//
//   BENCH_DATABASE_URL=postgresql://postgres@127.0.0.1/bench_node PORT=9000 node server.js
"use strict";
const http = require("http");
const crypto = require("crypto");
const { Server } = require("socket.io");
const { Pool } = require("pg");

const pool = new Pool({ connectionString: process.env.BENCH_DATABASE_URL, max: 20 });
const server = http.createServer();
const io = new Server(server, { transports: ["websocket"], serveClient: false });

const MEMBER = "SELECT role FROM node_member WHERE user_id = $1 AND campaign_id = $2";
const APPEND = `
  WITH next AS (
    UPDATE node_campaign SET last_seq = last_seq + 1 WHERE id = $1 RETURNING last_seq
  )
  INSERT INTO node_event (campaign_id, seq, actor_id, payload)
  SELECT $1, last_seq, $2, $3 FROM next RETURNING seq`;

io.use(async (socket, next) => {
  try {
    const found = await pool.query("SELECT id FROM node_user WHERE token = $1", [
      String(socket.handshake.auth.token || ""),
    ]);
    if (found.rows.length === 0) return next(new Error("unauthorized"));
    socket.data.userId = found.rows[0].id;
    next();
  } catch (err) {
    next(err);
  }
});

async function isMember(userId, campaignId) {
  return (await pool.query(MEMBER, [userId, campaignId])).rows.length > 0;
}

io.on("connection", (socket) => {
  socket.on("join", async (campaignId, ack) => {
    if (!(await isMember(socket.data.userId, campaignId))) return ack({ error: "not a member" });
    socket.join(`c${campaignId}`);
    ack({ ok: true });
  });
  socket.on("roll", async (msg, ack) => {
    try {
      const campaignId = Number(msg.campaign);
      if (!(await isMember(socket.data.userId, campaignId))) return ack({ error: "not a member" });
      const faces = [crypto.randomInt(1, 21), crypto.randomInt(1, 21)];
      const payload = {
        expression: "2d20+3",
        faces,
        total: faces[0] + faces[1] + 3,
        label: String(msg.label || ""),
        nonce: msg.nonce,
      };
      const added = await pool.query(APPEND, [campaignId, socket.data.userId, payload]);
      const seq = added.rows[0].seq;
      io.to(`c${campaignId}`).emit("roll", { seq, actor: socket.data.userId, ...payload });
      ack({ seq });
    } catch (err) {
      ack({ error: String(err) });
    }
  });
});

const port = Number(process.env.PORT || 9000);
server.listen(port, "127.0.0.1");
process.on("SIGINT", () => {
  io.close();
  pool.end().finally(() => process.exit(0));
});
