'use strict';
/* asmspy scoped tracing for Node: a callback scope over libasmspy.
 *
 *   const asmspy = require('asmspy');            // this directory
 *   const lib = asmspy.openLibrary('./libscope_victim.so');
 *   const work = lib.func('work');               // long work(long), callable
 *   const tr = new asmspy.HwTrace();
 *   const t = tr.scope(work, () => work(3));     // region: work's extent
 *   console.log(t.insnCount, t.tier, t.path, t.value);
 *
 * The engine is a small Node-API addon (asmspy_node.node, built by meson from
 * src/asmspy_node.c against node's own headers); the addon dlopens libasmspy
 * ($ASMSPY_LIB, else libasmspy.so.0 / libasmspy.so through the loader).
 * Addon lookup: $ASMSPY_NODE_ADDON, else asmspy_node.node next to this file.
 * A scope that cannot trace (no addon, no libasmspy, no usable backend) is a
 * recorded no-op: tier 'NONE' and a reason; fn still runs, nothing throws. */

const path = require('path');

let addon = null;
let addonError = '';
{
  const candidates = [process.env.ASMSPY_NODE_ADDON, path.join(__dirname, 'asmspy_node.node')];
  const errors = [];
  for (const c of candidates) {
    if (!c) continue;
    try {
      addon = require(c);
      break;
    } catch (e) {
      errors.push(`${c}: ${e.message.split('\n')[0]}`);
    }
  }
  if (!addon) addonError = 'asmspy: cannot load the Node addon (' + errors.join('; ') + ')';
}

/* Flag bits mirror include/asmspy/scope.h. */
const QUIET = 1;
const STRONG = 2; /* every branch in hardware (Intel PT) */
const CEILING = 4; /* sampled branch edges (AMD LBR); never auto-chosen */

/* Which backend tier a scope asks for. Auto = the ladder (STRONG, then WEAK). */
const HwBackend = Object.freeze({ Auto: 0, IntelPt: STRONG, AmdLbr: CEILING });

/* Why nothing can be traced in this process ('' when libasmspy is loaded). */
function loadError() {
  if (!addon) return addonError;
  const st = addon.loadStatus();
  return st.loaded ? '' : 'asmspy: cannot load libasmspy (' + st.error + ')';
}

/* [address BigInt, length] for the accepted `code` forms:
 *   null / undefined          -> whole window (0n, 0)
 *   BigInt / Number address   -> the extent of the symbol covering it
 *   NativeFunction (.address) -> its symbol's extent
 *   [addr, len] / {address, length} -> exactly [addr, addr + len) */
function codeRange(code) {
  if (code === null || code === undefined) return [0n, 0n];
  if (Array.isArray(code)) return [BigInt(code[0]), BigInt(code[1])];
  if (typeof code === 'bigint' || typeof code === 'number') return [BigInt(code), 0n];
  if (typeof code === 'object' || typeof code === 'function') {
    if (code.address !== undefined) {
      return [BigInt(code.address), BigInt(code.length !== undefined && typeof code !== 'function' ? code.length : 0)];
    }
  }
  throw new TypeError('asmspy: code must be null, an address, a NativeFunction, [addr, len] or {address, length}');
}

/* "file:line" of the frame that called `fn` (Error.captureStackTrace drops
 * every frame from `fn` up; prepareStackTrace hands back V8's CallSite
 * objects, so no string parsing of "at ... (file:line:col)"). */
function callerName(fn) {
  const saved = Error.prepareStackTrace;
  const savedLimit = Error.stackTraceLimit;
  let site = null;
  try {
    Error.stackTraceLimit = 1;
    Error.prepareStackTrace = (_, sites) => sites;
    const holder = {};
    Error.captureStackTrace(holder, fn);
    site = holder.stack && holder.stack[0];
  } finally {
    Error.prepareStackTrace = saved;
    Error.stackTraceLimit = savedLimit;
  }
  if (!site) return 'node:?';
  let file = site.getFileName() || site.getEvalOrigin() || '<anonymous>';
  if (file.startsWith('file://')) file = decodeURIComponent(file.slice(7));
  return `${file}:${site.getLineNumber()}`;
}

/* One scope. Results (text, path, insnCount, truncated, gaps, tier, reason,
 * name) are set by end(); before that tier is 'OPEN'. */
class Scope {
  constructor(name, code, flags) {
    this.name = name;
    this.text = '';
    this.path = '';
    this.insnCount = 0;
    this.truncated = false;
    this.gaps = 0;
    this.tier = 'OPEN';
    this.reason = '';
    this.value = undefined;
    this._h = 0n;
    const err = loadError();
    if (err) {
      this.tier = 'NONE';
      this.reason = err;
      return;
    }
    const [addr, len] = codeRange(code);
    this._h = addon.begin(name, addr, len, flags);
    if (this._h === 0n) {
      this.tier = 'NONE';
      this.reason = 'asmspy_scope_begin returned NULL (out of memory)';
    }
  }

  /* The raw handle, for ending the scope elsewhere (Scope.adopt in a
   * worker_threads Worker). Hands the scope over: this object no longer ends it. */
  detach() {
    const h = this._h;
    this._h = 0n;
    return h;
  }

  /* A Scope for a handle begun elsewhere (another thread): ending it here is
   * a thread hop, and the core returns it truncated. */
  static adopt(handle, name = 'adopted') {
    const s = Object.create(Scope.prototype);
    Object.assign(s, { name, text: '', path: '', insnCount: 0, truncated: false, gaps: 0,
                       tier: 'OPEN', reason: '', value: undefined, _h: BigInt(handle) });
    return s;
  }

  /* Disarm, render, read the results, free. Idempotent. */
  end() {
    if (this._h !== 0n) {
      const h = this._h;
      this._h = 0n;
      Object.assign(this, addon.end(h));
    }
    return this;
  }
}
/* Explicit resource management: `using s = tr.begin(code)` on runtimes
 * that have the syntax (Node 24+). Node 20 has neither the syntax nor,
 * before 20.4, Symbol.dispose: there, use tr.scope(code, fn). */
if (typeof Symbol.dispose === 'symbol') Scope.prototype[Symbol.dispose] = Scope.prototype.end;

class HwTrace {
  /* options: { backend: HwBackend.* (default Auto), quiet: true (no stdout;
   * default false: the listing is also written to stdout on end, as in C
   * and Python; ASMSPY_SCOPE_EMIT=0 silences every scope) } */
  constructor(options = {}) {
    this.backend = options.backend || HwBackend.Auto;
    this.quiet = !!options.quiet;
  }

  _flags(options) {
    const backend = options && options.backend !== undefined ? options.backend : this.backend;
    const quiet = options && options.quiet !== undefined ? !!options.quiet : this.quiet;
    return (quiet ? QUIET : 0) | backend;
  }

  /* Run fn() inside a scope; returns the ended Scope (fn's return value in
   * .value). The scope ends in `finally`: if fn throws, the scope is still
   * ended and the exception propagates. fn must finish synchronously: a
   * returned Promise's continuations run after the scope ended. */
  scope(code, fn, options) {
    if (typeof code === 'function' && fn === undefined && code.address === undefined) {
      fn = code;
      code = null;
    }
    const s = new Scope((options && options.name) || callerName(HwTrace.prototype.scope),
                        code, this._flags(options));
    try {
      s.value = fn();
    } finally {
      s.end();
    }
    return s;
  }

  /* Explicit form: const s = tr.begin(code); ...; s.end(). */
  begin(code, options) {
    return new Scope((options && options.name) || callerName(HwTrace.prototype.begin),
                     code, this._flags(options));
  }
}

/* Native code without a registry package: dlopen/dlsym through the addon.
 * lib.func(name) is a JS function calling `long name(long)`, with .address. */
function openLibrary(file) {
  if (!addon) throw new Error(addonError);
  const h = addon.dlopen(file);
  return {
    handle: h,
    address: (name) => addon.dlsym(h, name),
    func(name) {
      const addr = addon.dlsym(h, name);
      const f = (x) => addon.callLong(addr, x);
      f.address = addr;
      return f;
    },
  };
}

module.exports = { HwTrace, HwBackend, Scope, openLibrary, loadError, QUIET, STRONG, CEILING,
                   INTEL_PT: STRONG, AMD_LBR: CEILING };
