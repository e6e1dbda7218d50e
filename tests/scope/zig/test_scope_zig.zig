//! The Zig binding (bindings/zig) on the known functions of
//! libscope_victim.so: region counts equal callgrind's (SCOPE_EXP_* from
//! test_scope_counts.sh), the auto-name is this file and line from @src(),
//! (addr, 1) sees one instruction, a thread that ends/deinits the scope
//! gives a truncated scope with the thread-hop reason, a panic inside a
//! scope writes no listing at all (a child process), and with no plugin
//! every scope is tier NONE while work()'s result stays right.
const std = @import("std");
const asmspy = @import("asmspy");

extern fn work(n: c_long) c_long;
extern fn helper(x: c_long) c_long;

var failures: u32 = 0;

fn check(ok: bool, comptime fmt: []const u8, args: anytype) void {
    const out = std.io.getStdOut().writer();
    out.print("{s} ", .{if (ok) "ok  " else "FAIL"}) catch {};
    out.print(fmt ++ "\n", args) catch {};
    if (!ok) failures += 1;
}

fn expectWork(n: c_long) c_long {
    var acc: c_long = 0;
    var i: c_long = 0;
    while (i < 5) : (i += 1) acc += (n + i) * 3 + 1;
    return acc;
}

fn envNum(k: []const u8) ?u64 {
    const v = std.os.getenv(k) orelse return null;
    return std.fmt.parseInt(u64, v, 10) catch null;
}

fn hopEnd(s: *asmspy.Scope) void {
    s.end(); // on another thread than the one that began it
}

fn hopDeinit(s: *asmspy.Scope) void {
    s.deinit();
}

const tr = asmspy.HwTrace{};

/// Child mode: panic inside a scope; `defer s.deinit()` never runs.
fn panicChild() noreturn {
    var s = tr.scopeNamed("zig-panic", &work, false);
    defer s.deinit();
    _ = work(3);
    @panic("boom inside the scope (the deferred deinit is skipped)");
}

/// Child mode: the same without the panic (the control: the file appears).
fn calmChild() void {
    var s = tr.scopeNamed("zig-panic", &work, false);
    defer s.deinit();
    _ = work(3);
}

fn noPlugin() void {
    {
        var s = tr.scope(&work, @src(), false);
        defer s.deinit();
        const r = work(7);
        s.end();
        std.io.getStdOut().writer().print("# no plugin: tier {s}, reason: {s}\n", .{ s.tier().name(), s.reason() }) catch {};
        check(s.tier() == .none, "no plugin: tier NONE", .{});
        check(s.reason().len > 0, "no plugin: the reason is recorded", .{});
        check(r == expectWork(7), "no plugin: work(7) still returns its value", .{});
    }
    {
        const pt = asmspy.HwTrace{ .backend = .intel_pt };
        var s = pt.scope(null, @src(), true);
        defer s.deinit();
        check(work(2) == expectWork(2), "no plugin: an intel_pt whole-window scope changes nothing", .{});
    }
}

fn runChild(alloc: std.mem.Allocator, mode: []const u8, env: *const std.process.EnvMap) !std.ChildProcess.Term {
    const self_exe = try std.fs.selfExePathAlloc(alloc);
    defer alloc.free(self_exe);
    var child = std.ChildProcess.init(&.{ self_exe, mode }, alloc);
    child.env_map = env;
    return child.spawnAndWait();
}

fn countScopeFiles(dir_path: []const u8) !usize {
    var dir = try std.fs.openIterableDirAbsolute(dir_path, .{});
    defer dir.close();
    var it = dir.iterate();
    var n: usize = 0;
    while (try it.next()) |e| {
        if (std.mem.startsWith(u8, e.name, "asmspy-scope-")) n += 1;
    }
    return n;
}

pub fn main() !void {
    var gpa = std.heap.GeneralPurposeAllocator(.{}){};
    const alloc = gpa.allocator();
    const out = std.io.getStdOut().writer();
    var args = try std.process.argsWithAllocator(alloc);
    defer args.deinit();
    _ = args.next();
    const mode = args.next() orelse "";
    if (std.mem.eql(u8, mode, "--panic")) panicChild();
    if (std.mem.eql(u8, mode, "--calm")) return calmChild();
    if (std.mem.eql(u8, mode, "--no-plugin")) {
        noPlugin();
        std.process.exit(if (failures > 0) 1 else 0);
    }
    const exp_work = envNum("SCOPE_EXP_WORK_SELF") orelse {
        try out.print("SKIP: run through test_scope_counts.sh (the callgrind oracle)\n", .{});
        std.process.exit(77);
    };
    const exp_helper = envNum("SCOPE_EXP_HELPER_X5") orelse std.process.exit(77);

    // (1) region = work's extent
    {
        const line = @src().line + 1;
        var s = tr.scope(&work, @src(), false);
        defer s.deinit();
        const r = work(7);
        s.end();
        try out.print("# zig region work: {d} insns, tier {s} ({s}), oracle {d}\n", .{ s.insnCount(), s.tier().name(), s.reason(), exp_work });
        check(s.tier() == .weak, "tier WEAK", .{});
        check(s.insnCount() == exp_work, "region work {d} == callgrind work (self) {d}", .{ s.insnCount(), exp_work });
        check(!s.truncated(), "not truncated", .{});
        check(r == expectWork(7), "work(7) returns its value under the scope", .{});
        var want_buf: [64]u8 = undefined;
        const want = try std.fmt.bufPrint(&want_buf, "test_scope_zig.zig:{d}", .{line});
        check(std.mem.indexOf(u8, s.name(), want) != null, "auto-named from @src(): {s} (want {s})", .{ s.name(), want });
        check(s.path().len > 0, "the listing was written to {s}", .{s.path()});
    }
    // (2) region = helper's extent over work(3): helper x5
    {
        var s = tr.scope(&helper, @src(), false);
        defer s.deinit();
        _ = work(3);
        s.end();
        try out.print("# zig region helper: {d} insns, oracle {d}\n", .{ s.insnCount(), exp_helper });
        check(s.insnCount() == exp_helper, "region helper {d} == callgrind helper x5 {d}", .{ s.insnCount(), exp_helper });
    }
    // (3) whole window >= work + helper x5
    {
        var s = tr.scope(null, @src(), false);
        defer s.deinit();
        _ = work(3);
        s.end();
        try out.print("# zig whole window: {d} insns (work+helper {d})\n", .{ s.insnCount(), exp_work + exp_helper });
        check(s.insnCount() >= exp_work + exp_helper and !s.truncated(), "whole window >= work + helper x5, not truncated", .{});
    }
    // (4) an explicit (addr, 1) range
    {
        const code = asmspy.Code.rangeOf(&work, 1);
        var s = tr.scope(&code, @src(), false);
        defer s.deinit();
        _ = work(1);
        s.end();
        check(s.insnCount() == 1, "(work, 1) range sees exactly 1 instruction ({d})", .{s.insnCount()});
    }
    // (5) thread hop: a std.Thread ends the scope / calls deinit
    {
        var s = tr.scope(null, @src(), false);
        defer s.deinit();
        const r = work(2);
        const th = try std.Thread.spawn(.{}, hopEnd, .{&s});
        th.join();
        try out.print("# zig hop (end on a std.Thread): truncated {}, {d} insns, reason: {s}\n", .{ s.truncated(), s.insnCount(), s.reason() });
        check(s.truncated() and std.mem.indexOf(u8, s.reason(), "thread hop") != null, "scope ended on another thread -> truncated, thread-hop reason", .{});
        check(r == expectWork(2), "the hopping thread kept running correctly", .{});
    }
    {
        var s = tr.scopeNamed("zig-hop-deinit", null, false);
        _ = work(2);
        const th = try std.Thread.spawn(.{}, hopDeinit, .{&s});
        th.join();
        // the listing file is opt-in: ASMSPY_SCOPE_FILE names the directory (meson sets it)
        const tmp = std.os.getenv("ASMSPY_SCOPE_FILE") orelse "/nonexistent";
        const file = try std.fmt.allocPrint(alloc, "{s}/asmspy-scope-zig-hop-deinit-{d}.txt", .{ tmp, std.os.linux.getpid() });
        defer alloc.free(file);
        const body = std.fs.cwd().readFileAlloc(alloc, file, 1 << 20) catch "";
        defer if (body.len > 0) alloc.free(body);
        check(std.mem.indexOf(u8, body, "TRUNCATED: thread hop") != null, "deinit on a std.Thread -> {s} says TRUNCATED: thread hop", .{file});
    }
    // (7) overhead: begin + end of an empty region scope, quiet
    {
        const iters: u64 = 200;
        var timer = try std.time.Timer.start();
        var i: u64 = 0;
        while (i < iters) : (i += 1) {
            var s = tr.scope(&work, @src(), false);
            s.deinit();
        }
        const ns = timer.read();
        try out.print("# overhead zig: {d:.1} us per scope (begin+end, empty region)\n", .{@as(f64, @floatFromInt(ns)) / 1000.0 / @as(f64, @floatFromInt(iters))});
    }
    // (6) no plugin: a separate run of this binary
    {
        var env = try std.process.getEnvMap(alloc);
        defer env.deinit();
        try env.put("ASMSPY_PLUGIN_PATH_ONLY", "1");
        try env.put("ASMSPY_PLUGIN_PATH", "/nonexistent");
        const term = try runChild(alloc, "--no-plugin", &env);
        check(term == .Exited and term.Exited == 0, "no-plugin run (ASMSPY_PLUGIN_PATH_ONLY=1 ASMSPY_PLUGIN_PATH=/nonexistent): {any}", .{term});
    }
    // the Zig hazard: a panic inside a scope skips the deferred deinit, so
    // no trace is emitted at all (no text file, never a partial one)
    {
        var tmp_buf: [64]u8 = undefined;
        const base = std.os.getenv("TMPDIR") orelse "/tmp";
        var prng = std.rand.DefaultPrng.init(@intCast(std.time.nanoTimestamp() & 0xffffffff));
        const dir = try std.fmt.bufPrint(&tmp_buf, "{s}/zig-panic-{x}", .{ if (base.len > 0) base else "/tmp", prng.random().int(u32) });
        try std.fs.makeDirAbsolute(dir);
        defer std.fs.deleteTreeAbsolute(dir) catch {};
        var env = try std.process.getEnvMap(alloc);
        defer env.deinit();
        try env.put("ASMSPY_SCOPE_FILE", dir); // the children's listings land in dir
        const term = try runChild(alloc, "--panic", &env);
        const n = try countScopeFiles(dir);
        try out.print("# zig panic child: {any}, scope files in {s}: {d}\n", .{ term, dir, n });
        check(term == .Signal, "the panicking child died of its panic (abort)", .{});
        check(n == 0, "panic inside a scope: no scope text file written (deinit skipped)", .{});
        const term2 = try runChild(alloc, "--calm", &env);
        const n2 = try countScopeFiles(dir);
        check(term2 == .Exited and term2.Exited == 0 and n2 == 1, "control: the same scope without the panic writes its file ({d})", .{n2});
    }
    std.process.exit(if (failures > 0) 1 else 0);
}
