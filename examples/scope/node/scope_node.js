'use strict';
/* Node scope example: trace libc's labs() called through the asmspy addon.
 * Run from the source root after `ninja -C build` (see docs/scope/node.md):
 *   NODE_PATH=build/tests/scope/node/node_modules ASMSPY_LIB=build/host/libasmspy.so \
 *     node examples/scope/node/scope_node.js
 */
const asmspy = require('asmspy');

const libc = asmspy.openLibrary('libc.so.6');
const labs = libc.func('labs'); // long labs(long), with .address
const tr = new asmspy.HwTrace({ quiet: true }); // print t.text ourselves
const t = tr.scope(labs, () => labs(-42)); // region: labs's extent; auto-named file:line
console.log(t.text);
console.log(`labs(-42) = ${t.value}: ${t.insnCount} insns, tier ${t.tier}, scope ${t.name}`);
console.log(`written to ${t.path}${t.truncated ? ' (truncated: ' + t.reason + ')' : ''}`);
if (t.tier === 'NONE') console.log(`not captured: ${t.reason}`); // a no-op: say why
