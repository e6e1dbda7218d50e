// interp_loop.js: a node program for the call tests. Prints its pid, waits
// for SIGUSR2 (node keeps SIGUSR1 for its inspector), then calls into
// libuv and V8 natively (hrtime, JSON, string building) for the given
// number of rounds and prints "checksum <n>"; then lingers `linger` s, or
// with linger "sig" until a second SIGUSR2 (the test checks it meanwhile),
// runs the work once more and prints "done".
const rounds = Number(process.argv[2] || 200);
const linger = process.argv[3] || '0';
let phase = 0;
process.on('SIGUSR2', () => {
  if (phase++ === 1) { // the second signal: run on, then end
    let again = 0;
    for (let r = 0; r < rounds; r++) again += JSON.stringify({ r }).length;
    console.log('done ' + (again > 0));
    process.exit(0);
  }
  let acc = 0;
  for (let r = 0; r < rounds; r++) {
    const t = process.hrtime.bigint();
    acc += JSON.stringify({ r, s: 'x'.repeat(r % 50) }).length;
    acc += Number(process.hrtime.bigint() - t >= 0n);
  }
  console.log('checksum ' + acc);
  if (linger === 'sig') return; // the event loop keeps it alive (setInterval below)
  const end = Date.now() + Number(linger) * 1000;
  const spin = () => {
    if (Date.now() < end) setTimeout(spin, 5);
    else { console.log('done'); process.exit(0); }
  };
  spin();
});
setInterval(() => {}, 1000);
// the pid only once the event loop runs (the signal watcher is armed by then)
setTimeout(() => console.log(process.pid), 50);
