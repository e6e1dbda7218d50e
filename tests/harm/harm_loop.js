// harm_loop.js: node's fixed loop for harm.sh (traced in node itself, or
// --module=libnode where node maps it). Rounds forever (one per tick, so
// libuv's functions run between them); harm.h's protocol.
const fs = require('fs');
const out = process.env.HARM_OUT ? fs.openSync(process.env.HARM_OUT, 'w') : 1;
function roundWork() {
  let s = 0;
  const m = new Map();
  for (let i = 0; i < 20000; i++) {
    s = (s * 31 + i * i) % 1000000007;
    m.set(String(i % 500), s);
  }
  let t = 0;
  for (const v of m.values()) t = (t + v) % 1000003;
  return s + t + JSON.stringify([...m.keys()].slice(0, 50)).length;
}
const want = roundWork();
fs.writeSync(out, `${process.pid} ready reference=${want}\n`);
let r = 1;
function tick() {
  const got = roundWork();
  fs.writeSync(out, got === want ? `round ${r} OK\n` : `round ${r} CORRUPT checksum: got ${got} want ${want}\n`);
  r++;
  setImmediate(tick);
}
tick();
