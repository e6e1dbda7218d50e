//! Zig scope example: `tr.scope(&code, @src(), emit)` + `defer scope.deinit()`
//! around a small known function. From the source root, after `./run.sh`
//! (or `ninja -C build`), with Zig 0.11:
//!   zig build-exe -Iinclude --mod asmspy::bindings/zig/asmspy.zig --deps asmspy \
//!     examples/scope/zig/scope_zig.zig -lc -Lbuild/host -lasmspy -rpath $PWD/build/host \
//!     -femit-bin=/tmp/scope_zig && /tmp/scope_zig
const std = @import("std");
const asmspy = @import("asmspy");

/// Collatz steps from n down to 1: a loop with a data-dependent branch.
/// `export` keeps a sized symbol, so the region is the function's extent.
export fn collatz_steps(start: u64) u32 {
    var n = start;
    var steps: u32 = 0;
    while (n > 1) : (steps += 1) {
        n = if (n % 2 == 0) n / 2 else 3 * n + 1;
    }
    return steps;
}

pub fn main() void {
    const out = std.io.getStdOut().writer();
    const tr = asmspy.HwTrace{}; // .{ .backend = .intel_pt } to ask for Intel PT
    const n: u64 = std.os.argv.len + 5; // 6, not a constant the compiler can fold
    var r: u32 = undefined;
    {
        var scope = tr.scope(&collatz_steps, @src(), true); // region: its extent; emit
        defer scope.deinit(); // ends here and prints the assembly that ran
        r = collatz_steps(n);
    }
    out.print("collatz_steps({d}) = {d}\n", .{ n, r }) catch {};

    var scope = tr.scope(&collatz_steps, @src(), false); // quiet
    defer scope.deinit();
    const r2 = collatz_steps(n + 1);
    scope.end(); // end now to read the results before deinit
    out.print("collatz_steps({d}) = {d}: {d} insns, tier {s} ({s}), written to {s}\n", .{ n + 1, r2, scope.insnCount(), scope.tier().name(), scope.name(), scope.path() }) catch {};
    if (scope.tier() == .none) out.print("not captured: {s}\n", .{scope.reason()}) catch {}; // a no-op: say why
}
