//! asmspy scoped tracing for Zig (0.11): a thin layer over libasmspy's
//! scope core, reached by @cImport of include/asmspy/scope.h and linked
//! against libasmspy (-lasmspy). A Scope is NOT RAII: the caller writes
//! `defer scope.deinit()`.
//!
//!     const asmspy = @import("asmspy");
//!     const tr = asmspy.HwTrace{};                 // or .{ .backend = .intel_pt }
//!     var scope = tr.scope(&work, @src(), true);   // region: work's extent; named file:line
//!     defer scope.deinit();                        // ends (prints: emit = true) and frees
//!     _ = work(3);
//!
//! `code`: a function pointer (&work: the extent of its symbol), a Code
//! (Code.window, Code.range(addr, len), Code.function(&f)), a *const Code,
//! or null (the whole window). Read the results inside the block after
//! `scope.end()`; deinit frees them.
//!
//! Hazards: a panic skips `defer`, so the scope is never ended: no listing
//! and no text file are written (never a partial one). Ending the scope on
//! another thread (std.Thread) gives a truncated scope, reason "thread hop".
const std = @import("std");

pub const c = @cImport({
    @cInclude("asmspy/scope.h");
});

/// Flag bits (include/asmspy/scope.h).
pub const QUIET: c_uint = c.ASMSPY_SCOPE_QUIET;
pub const STRONG: c_uint = c.ASMSPY_SCOPE_STRONG;
pub const CEILING: c_uint = c.ASMSPY_SCOPE_CEILING;
pub const INTEL_PT: c_uint = STRONG;
pub const AMD_LBR: c_uint = CEILING;

/// Which backend to arm: `auto` is the ladder (STRONG, then WEAK); the
/// others arm that tier directly and self-skip (tier NONE + reason).
pub const HwBackend = enum {
    auto,
    intel_pt,
    amd_lbr,

    pub fn flags(self: HwBackend) c_uint {
        return switch (self) {
            .auto => 0,
            .intel_pt => STRONG,
            .amd_lbr => CEILING,
        };
    }
};

pub const Tier = enum {
    strong,
    weak,
    ceiling,
    none,

    pub fn name(self: Tier) []const u8 {
        return switch (self) {
            .strong => "STRONG",
            .weak => "WEAK",
            .ceiling => "CEILING",
            .none => "NONE",
        };
    }
};

/// What a scope covers.
pub const Code = union(enum) {
    /// every instruction the thread ran (code = NULL)
    window,
    /// the extent of the sized symbol covering this address (len = 0)
    symbol: usize,
    /// exactly [addr, addr + len)
    range: struct { addr: usize, len: usize },

    pub fn function(f: anytype) Code {
        return .{ .symbol = @intFromPtr(f) };
    }
    pub fn rangeOf(addr: anytype, len: usize) Code {
        return .{ .range = .{ .addr = @intFromPtr(addr), .len = len } };
    }

    /// Anything the `code` argument of scope() accepts.
    pub fn from(code: anytype) Code {
        const T = @TypeOf(code);
        if (T == Code) return code;
        if (T == *const Code or T == *Code) return code.*;
        if (T == @TypeOf(null)) return .window;
        switch (@typeInfo(T)) {
            .Pointer => |p| {
                if (@typeInfo(p.child) == .Fn) return .{ .symbol = @intFromPtr(code) };
                if (p.child == Code) return code.*;
                return .{ .symbol = @intFromPtr(code) };
            },
            .Optional => return if (code) |v| from(v) else .window,
            .Int, .ComptimeInt => return .{ .symbol = code },
            else => @compileError("asmspy: code must be a function pointer, a Code or null, not " ++ @typeName(T)),
        }
    }

    fn raw(self: Code) struct { addr: ?*const anyopaque, len: usize } {
        return switch (self) {
            .window => .{ .addr = null, .len = 0 },
            .symbol => |a| .{ .addr = @ptrFromInt(a), .len = 0 },
            .range => |r| .{ .addr = @ptrFromInt(r.addr), .len = r.len },
        };
    }
};

fn span(p: [*c]const u8) []const u8 {
    return if (p == null) "" else std.mem.span(@as([*:0]const u8, @ptrCast(p)));
}

/// One scope on the calling thread. `defer scope.deinit()`; the accessors
/// are valid after `end()` (and until deinit).
pub const Scope = struct {
    raw: ?*c.asmspy_scope,
    ended: bool = false,

    /// End the capture now (idempotent): render, write the listing file (if asked),
    /// print it if the scope was made with emit = true.
    pub fn end(self: *Scope) void {
        if (self.ended) return;
        self.ended = true;
        if (self.raw) |s| _ = c.asmspy_scope_end(s);
    }

    /// end() if still open, then free the results.
    pub fn deinit(self: *Scope) void {
        self.end();
        if (self.raw) |s| c.asmspy_scope_free(s);
        self.raw = null;
    }

    pub fn text(self: *const Scope) []const u8 {
        return if (self.raw) |s| span(c.asmspy_scope_text(s)) else "";
    }
    pub fn path(self: *const Scope) []const u8 {
        return if (self.raw) |s| span(c.asmspy_scope_path(s)) else "";
    }
    pub fn name(self: *const Scope) []const u8 {
        return if (self.raw) |s| span(c.asmspy_scope_name(s)) else "";
    }
    pub fn reason(self: *const Scope) []const u8 {
        return if (self.raw) |s| span(c.asmspy_scope_reason(s)) else "asmspy_scope_begin returned NULL (out of memory)";
    }
    pub fn insnCount(self: *const Scope) u64 {
        return if (self.raw) |s| c.asmspy_scope_insn_count(s) else 0;
    }
    pub fn truncated(self: *const Scope) bool {
        return if (self.raw) |s| c.asmspy_scope_truncated(s) != 0 else false;
    }
    pub fn gaps(self: *const Scope) u64 {
        return if (self.raw) |s| c.asmspy_scope_gaps(s) else 0;
    }
    pub fn tier(self: *const Scope) Tier {
        const t = if (self.raw) |s| span(c.asmspy_scope_tier(s)) else "NONE";
        if (std.mem.eql(u8, t, "STRONG")) return .strong;
        if (std.mem.eql(u8, t, "WEAK")) return .weak;
        if (std.mem.eql(u8, t, "CEILING")) return .ceiling;
        return .none;
    }
};

/// The entry point: `const tr = asmspy.HwTrace{};` then
/// `var s = tr.scope(code, @src(), emit); defer s.deinit();`.
pub const HwTrace = struct {
    backend: HwBackend = .auto,

    /// Begin a scope named "file:line" from `src` (pass @src()).
    pub fn scope(self: HwTrace, code: anytype, src: std.builtin.SourceLocation, emit: bool) Scope {
        var buf: [512]u8 = undefined;
        const n = std.fmt.bufPrintZ(&buf, "{s}:{d}", .{ src.file, src.line }) catch "zig-scope";
        return self.scopeNamed(n, code, emit);
    }

    /// An explicitly named scope.
    pub fn scopeNamed(self: HwTrace, name: [:0]const u8, code: anytype, emit: bool) Scope {
        const r = Code.from(code).raw();
        const flags = self.backend.flags() | (if (emit) 0 else QUIET);
        return .{ .raw = c.asmspy_scope_begin(name.ptr, r.addr, r.len, flags) };
    }
};
