'use strict';
/* The Node binding (bindings/node) against the callgrind oracle
 * (SCOPE_EXP_* from test_scope_counts.sh): region counts of work/helper in
 * libscope_victim.so, the whole window, an (addr, 1) range, the auto-name,
 * the thread hop through worker_threads (both directions), the per-scope
 * overhead (printed only). `node test_scope_node.js noplugin` is the
 * nothing-can-trace run (ASMSPY_PLUGIN_PATH_ONLY=1, ASMSPY_PLUGIN_PATH=/nonexistent). */
const { Worker } = require('worker_threads');
const asmspy = require('asmspy');

let failures = 0;
function check(ok, what) {
  console.log((ok ? 'ok   ' : 'FAIL ') + what);
  if (!ok) failures++;
}
/* the line this is called from, to compare with the auto-name */
function here() {
  const e = {};
  Error.captureStackTrace(e, here);
  return Number(/:(\d+):\d+\)?$/m.exec(e.stack.split('\n')[1])[1]);
}

const lib = asmspy.openLibrary(process.env.SCOPE_VICTIM_LIB);
const work = lib.func('work');
const helper = lib.func('helper');
const tr = new asmspy.HwTrace({ quiet: true }); /* no stdout listing */
const expected7 = work(7); /* outside any scope */

if (process.argv[2] === 'noplugin') {
  const t = tr.scope(work, () => work(7));
  console.log(`# node no-plugin: tier ${t.tier}, reason: ${t.reason}`);
  check(t.tier === 'NONE', 'no plugin: tier NONE');
  check(t.reason.length > 0, 'no plugin: the reason is recorded');
  check(t.value === expected7 && t.value === 140, 'no plugin: work(7) still returns ' + t.value);
  check(!t.truncated && t.insnCount === 0, 'no plugin: an empty, complete no-op');
  process.exit(failures ? 1 : 0);
}

const expWork = Number(process.env.SCOPE_EXP_WORK_SELF);
const expHelper = Number(process.env.SCOPE_EXP_HELPER_X5);
if (!expWork || !expHelper) {
  console.log('SKIP: run through test_scope_counts.sh (the callgrind oracle)');
  process.exit(77);
}

/* (1) region work: exact, WEAK, complete, auto-named "file:line" */
const t = tr.scope(work, () => work(7)), line = here();
console.log(`# node region work: ${t.insnCount} insns, tier ${t.tier} (callgrind ${expWork})`);
check(t.tier === 'WEAK', 'tier WEAK: ' + t.tier + ' ' + t.reason);
check(t.insnCount === expWork, `region work == callgrind work (self): ${t.insnCount} vs ${expWork}`);
check(!t.truncated, 'not truncated');
check(t.value === expected7, "fn's return value comes back in .value");
check(t.name.endsWith(`test_scope_node.js:${line}`), 'auto-named from the caller: ' + t.name);

/* (2) helper region: 5 calls per work() */
const h = tr.scope(helper, () => work(3));
check(h.insnCount === expHelper, `region helper == callgrind helper x5: ${h.insnCount} vs ${expHelper}`);

/* (3) whole window: everything the thread ran, V8 included */
const w = tr.scope(null, () => work(3));
check(w.insnCount >= expWork + expHelper && !w.truncated,
      `whole window ${w.insnCount} >= work+helper ${expWork + expHelper}`);

/* (4) an explicit (addr, 1) range: work's first instruction, once */
const p = tr.scope([work.address, 1], () => work(1));
check(p.insnCount === 1, 'an [address, 1] range sees exactly one instruction: ' + p.insnCount);

/* explicit begin/end form, and an explicit backend that cannot arm here */
const e = tr.begin(work);
work(2);
e.end();
check(e.insnCount === expWork, 'begin()/end() form: ' + e.insnCount);
if (typeof Symbol.dispose === 'symbol') { /* what `using s = tr.begin(work)` calls (Node 24+) */
  const d = tr.begin(work);
  work(2);
  d[Symbol.dispose]();
  check(d.insnCount === expWork, '[Symbol.dispose]() ends the scope: ' + d.insnCount);
}
const pt = tr.scope(work, () => work(2), { backend: asmspy.HwBackend.IntelPt });
check(pt.tier === 'STRONG' || (pt.tier === 'NONE' && pt.reason.length > 0),
      `HwBackend.IntelPt: ${pt.tier} (${pt.reason.slice(0, 60)}...)`);
check(pt.value === work(2), 'a scope that cannot arm still runs fn');

/* (7) per-scope overhead: begin+end of an empty region scope */
/* each costs the V8 glue between begin and end, single-stepped; the first
 * few runs of a call site also step V8's feedback/inline-cache setup
 * (tens of thousands of instructions): warm it up, then time it */
const N = 20;
for (let i = 0; i < 5; i++) tr.begin(work).end();
const t0 = process.hrtime.bigint();
for (let i = 0; i < N; i++) tr.begin(work).end();
const us = Number(process.hrtime.bigint() - t0) / 1e3 / N;
console.log(`# overhead node: ${us.toFixed(1)} us per scope (begin+end, empty region)`);

/* (5) thread hop: a scope begun on one JS thread and ended on another */
const workerSrc = `
  const { parentPort } = require('worker_threads');
  const asmspy = require(${JSON.stringify(require.resolve('asmspy'))});
  const lib = asmspy.openLibrary(process.env.SCOPE_VICTIM_LIB);
  const work = lib.func('work');
  parentPort.on('message', (m) => {
    if (m.end !== undefined) {          // end, here, a scope the main thread began
      const s = asmspy.Scope.adopt(m.end).end();
      parentPort.postMessage({ ended: { tier: s.tier, truncated: s.truncated, reason: s.reason,
                                        insnCount: s.insnCount } });
    } else if (m.begin) {               // begin one here for the main thread to end
      const s = new asmspy.HwTrace({ quiet: true }).begin(work);
      work(1);
      parentPort.postMessage({ handle: s.detach() });
    } else if (m.exact) {               // a whole scope on this thread: exact
      const s = new asmspy.HwTrace({ quiet: true }).scope(work, () => work(5));
      parentPort.postMessage({ exact: s.insnCount, tier: s.tier, truncated: s.truncated });
    } else if (m.quit) process.exit(0);
  });
  parentPort.postMessage({ ready: true });`;

function next(worker) {
  return new Promise((resolve) => worker.once('message', resolve));
}

(async () => {
  const worker = new Worker(workerSrc, { eval: true });
  await next(worker);

  /* main begins, the Worker ends */
  const s = tr.begin(work);
  work(1);
  const reply = next(worker);
  worker.postMessage({ end: s.detach() });
  const r = (await reply).ended;
  console.log(`# node hop main->worker: tier ${r.tier}, truncated ${r.truncated}: ${r.reason}`);
  check(r.truncated && /thread hop/.test(r.reason), 'main -> Worker: truncated, "thread hop"');
  check(r.insnCount === 0, 'a hopped scope presents no partial listing');

  /* the Worker begins, main ends */
  worker.postMessage({ begin: true });
  const b = await next(worker);
  const m = asmspy.Scope.adopt(b.handle).end();
  console.log(`# node hop worker->main: truncated ${m.truncated}: ${m.reason}`);
  check(m.truncated && /thread hop/.test(m.reason), 'Worker -> main: truncated, "thread hop"');

  /* a scope begun and ended on the Worker's own thread is exact */
  worker.postMessage({ exact: true });
  const x = await next(worker);
  check(x.exact === expWork && !x.truncated, `a scope inside a Worker is exact: ${x.exact}`);

  /* and the main thread still traces exactly after the hops */
  const again = tr.scope(work, () => work(9));
  check(again.insnCount === expWork && !again.truncated, 'main thread exact after the hops');

  worker.postMessage({ quit: true });
  await new Promise((resolve) => worker.once('exit', resolve));
  process.exit(failures ? 1 : 0);
})().catch((err) => {
  console.log('FAIL ' + (err && err.stack));
  process.exit(1);
});
