// interp_loop.js: a node program for the call tests. Prints its pid, waits
// for SIGUSR2 (node keeps SIGUSR1 for its inspector), then calls into
// libuv and V8 natively (hrtime, JSON, string building) for the given
// number of rounds and prints "checksum <n>"; then lingers `linger` s.
const rounds = Number(process.argv[2] || 200);
const linger = Number(process.argv[3] || 0);
process.on('SIGUSR2', () => {
  let acc = 0;
  for (let r = 0; r < rounds; r++) {
    const t = process.hrtime.bigint();
    acc += JSON.stringify({ r, s: 'x'.repeat(r % 50) }).length;
    acc += Number(process.hrtime.bigint() - t >= 0n);
  }
  console.log('checksum ' + acc);
  const end = Date.now() + linger * 1000;
  const spin = () => {
    if (Date.now() < end) setTimeout(spin, 5);
    else { console.log('done'); process.exit(0); }
  };
  spin();
});
setInterval(() => {}, 1000);
// the pid only once the event loop runs (the signal watcher is armed by then)
setTimeout(() => console.log(process.pid), 50);
