//! asmspy scoped tracing for Rust: a `Drop` guard over libasmspy's scope
//! core (`include/asmspy/scope.h`). The guard begins the scope when it is
//! made and ends it when it is dropped; what ran in between comes back as
//! Capstone-rendered assembly.
//!
//! ```no_run
//! use asmspy::{Code, HwTrace};
//! # extern "C" fn work(n: i64) -> i64 { n }
//! {
//!     let _t = HwTrace::scope(&Code::function(work as *const ()), true); // region: work's extent
//!     work(3);
//! } // Drop: the scope ends here and the listing is printed (emit = true)
//!
//! let t = HwTrace::scope(&Code::Window, false); // whole window, quiet
//! work(3);
//! let r = t.finish(); // end now and keep the results
//! println!("{} insns, tier {}", r.insn_count, r.tier);
//! ```
//!
//! * `code`: [`Code::Window`] (everything the thread ran: faithful but
//!   noisy), [`Code::function`] (the extent of the symbol covering the
//!   address), [`Code::range`] (exactly `[addr, addr + len)`).
//! * `emit`: print the listing to stdout when the scope ends. A listing file
//!   (`asmspy-scope-<name>-<pid>.txt`) is written only when `ASMSPY_SCOPE_FILE`
//!   asks for one (`1`: a private directory; a directory: there); `path()`
//!   is `""` otherwise (docs/scope.md).
//! * Auto-name: `#[track_caller]` + `std::panic::Location::caller()`, so the
//!   scope is named `file.rs:LINE` of the call to `HwTrace::scope`.
//! * libasmspy is loaded lazily with `dlopen`: `$ASMSPY_LIB` (a path), then
//!   `libasmspy.so.0`, then `libasmspy.so` through the normal loader path.
//!   When none loads, every scope is a recorded no-op: tier `NONE` with the
//!   loader's message as the reason. Nothing here panics.
//! * Thread scope: capture follows the thread that made the guard.
//!   `ScopedTrace` is `Send` on purpose, so it can be moved to another
//!   thread; ending it there gives a truncated scope whose reason says
//!   `thread hop: ...` (the core's check), never a partial listing.
#![deny(unsafe_op_in_unsafe_fn)]

use std::borrow::Cow;
use std::ffi::{CStr, CString};
use std::fmt;
use std::os::raw::{c_char, c_int, c_uint, c_void};
use std::sync::atomic::{AtomicPtr, Ordering};
use std::sync::Once;

/// Flag bits, the same values as `include/asmspy/scope.h`.
pub const QUIET: u32 = 1;
/// Ask for the STRONG tier (every branch in hardware: Intel PT) directly.
pub const STRONG: u32 = 2;
/// Ask for the CEILING tier (sampled branch edges: AMD LBR) directly.
pub const CEILING: u32 = 4;
/// The older names of the same bits.
pub const INTEL_PT: u32 = STRONG;
pub const AMD_LBR: u32 = CEILING;

/// Which backend to arm. `Auto` is the ladder (STRONG, then WEAK); the
/// others arm that tier directly and self-skip (tier NONE with the reason)
/// when it is not available.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum HwBackend {
    Auto,
    /// `ASMSPY_SCOPE_STRONG`: exact, silicon-gated (bare-metal Intel PT).
    IntelPt,
    /// `ASMSPY_SCOPE_CEILING`: sampled branch edges, never auto-chosen.
    AmdLbr,
}

impl HwBackend {
    pub fn flags(self) -> u32 {
        match self {
            HwBackend::Auto => 0,
            HwBackend::IntelPt => STRONG,
            HwBackend::AmdLbr => CEILING,
        }
    }
}

/// What a scope covers.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Code {
    /// The whole window: every instruction the thread ran (code = NULL).
    Window,
    /// The extent of the sized symbol covering this address (len = 0).
    Symbol(usize),
    /// Exactly `[addr, addr + len)`.
    Range(usize, usize),
}

impl Code {
    /// A native function's extent: `Code::function(work as *const ())`.
    pub fn function<T>(f: *const T) -> Code {
        Code::Symbol(f as usize)
    }
    /// An explicit address range.
    pub fn range<T>(addr: *const T, len: usize) -> Code {
        Code::Range(addr as usize, len)
    }
    fn raw(&self) -> (*const c_void, usize) {
        match *self {
            Code::Window => (std::ptr::null(), 0),
            Code::Symbol(a) => (a as *const c_void, 0),
            Code::Range(a, n) => (a as *const c_void, n),
        }
    }
}

/// The tier a scope ran at (`asmspy_scope_tier`).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Tier {
    /// Every branch in hardware (Intel PT).
    Strong,
    /// Every instruction by EFLAGS.TF (single-step): the universal floor.
    Weak,
    /// Sampled branch edges (AMD LBR), only when asked for.
    Ceiling,
    /// Not captured: `reason()` says why. The program ran normally.
    None,
}

impl Tier {
    pub fn as_str(self) -> &'static str {
        match self {
            Tier::Strong => "STRONG",
            Tier::Weak => "WEAK",
            Tier::Ceiling => "CEILING",
            Tier::None => "NONE",
        }
    }
    fn parse(s: &str) -> Tier {
        match s {
            "STRONG" => Tier::Strong,
            "WEAK" => Tier::Weak,
            "CEILING" => Tier::Ceiling,
            _ => Tier::None,
        }
    }
}

impl fmt::Display for Tier {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(self.as_str())
    }
}

// ---- libasmspy through dlopen ------------------------------------------

type BeginFn = unsafe extern "C" fn(*const c_char, *const c_void, usize, c_uint) -> *mut c_void;
type EndFn = unsafe extern "C" fn(*mut c_void) -> c_int;
type FreeFn = unsafe extern "C" fn(*mut c_void);
type StrFn = unsafe extern "C" fn(*const c_void) -> *const c_char;
type U64Fn = unsafe extern "C" fn(*const c_void) -> u64;
type IntFn = unsafe extern "C" fn(*const c_void) -> c_int;

struct Lib {
    begin: BeginFn,
    end: EndFn,
    free: FreeFn,
    text: StrFn,
    path: StrFn,
    tier: StrFn,
    reason: StrFn,
    name: StrFn,
    insn_count: U64Fn,
    gaps: U64Fn,
    truncated: IntFn,
}

// glibc >= 2.34 has dlopen in libc itself; "dl" keeps older ones linking.
#[link(name = "dl")]
extern "C" {
    fn dlopen(filename: *const c_char, flag: c_int) -> *mut c_void;
    fn dlsym(handle: *mut c_void, symbol: *const c_char) -> *mut c_void;
    fn dlerror() -> *mut c_char;
}
const RTLD_NOW: c_int = 2;

fn dl_error() -> String {
    // SAFETY: dlerror returns NULL or a NUL-terminated thread-local string.
    let e = unsafe { dlerror() };
    if e.is_null() {
        "unknown dlopen error".to_string()
    } else {
        unsafe { CStr::from_ptr(e) }.to_string_lossy().into_owned()
    }
}

fn load() -> Result<Lib, String> {
    let mut names: Vec<String> = Vec::new();
    if let Ok(p) = std::env::var("ASMSPY_LIB") {
        if !p.is_empty() {
            names.push(p);
        }
    }
    names.push("libasmspy.so.0".into());
    names.push("libasmspy.so".into());
    let mut errors = Vec::new();
    for n in names {
        let c = match CString::new(n.clone()) {
            Ok(c) => c,
            Err(_) => continue,
        };
        // SAFETY: a valid C string; the handle is kept for the process.
        let h = unsafe { dlopen(c.as_ptr(), RTLD_NOW) };
        if h.is_null() {
            errors.push(dl_error());
            continue;
        }
        return resolve(h);
    }
    Err(format!("cannot load libasmspy ({})", errors.join("; ")))
}

fn resolve(h: *mut c_void) -> Result<Lib, String> {
    macro_rules! sym {
        ($name:literal, $ty:ty) => {{
            // SAFETY: the symbol is looked up by its scope.h name and cast to
            // the prototype scope.h declares for it.
            let p = unsafe { dlsym(h, concat!($name, "\0").as_ptr() as *const c_char) };
            if p.is_null() {
                return Err(format!("libasmspy has no {} ({})", $name, dl_error()));
            }
            unsafe { std::mem::transmute::<*mut c_void, $ty>(p) }
        }};
    }
    Ok(Lib {
        begin: sym!("asmspy_scope_begin", BeginFn),
        end: sym!("asmspy_scope_end", EndFn),
        free: sym!("asmspy_scope_free", FreeFn),
        text: sym!("asmspy_scope_text", StrFn),
        path: sym!("asmspy_scope_path", StrFn),
        tier: sym!("asmspy_scope_tier", StrFn),
        reason: sym!("asmspy_scope_reason", StrFn),
        name: sym!("asmspy_scope_name", StrFn),
        insn_count: sym!("asmspy_scope_insn_count", U64Fn),
        gaps: sym!("asmspy_scope_gaps", U64Fn),
        truncated: sym!("asmspy_scope_truncated", IntFn),
    })
}

static LOAD: Once = Once::new();
static LIB: AtomicPtr<Result<Lib, String>> = AtomicPtr::new(std::ptr::null_mut());

/// libasmspy, loaded once (lazily, on the first scope) and kept for the
/// process lifetime (like the core's engine).
fn lib() -> Result<&'static Lib, &'static str> {
    LOAD.call_once(|| LIB.store(Box::into_raw(Box::new(load())), Ordering::Release));
    let p = LIB.load(Ordering::Acquire);
    if p.is_null() {
        return Err("libasmspy not loaded");
    }
    // SAFETY: set once from a leaked Box inside call_once, never freed.
    match unsafe { &*p } {
        Ok(l) => Ok(l),
        Err(e) => Err(e.as_str()),
    }
}

// ---- the scope -----------------------------------------------------------

/// Entry points. `HwTrace::scope(&code, emit)` is the seed's construct.
pub struct HwTrace;

impl HwTrace {
    /// Begin a scope named after the caller (`file.rs:LINE`), ended when
    /// the returned guard is dropped (or by `end()` / `finish()`).
    #[track_caller]
    pub fn scope(code: &Code, emit: bool) -> ScopedTrace {
        HwTrace::scope_with(code, emit, HwBackend::Auto)
    }

    /// The same with an explicit backend choice.
    #[track_caller]
    pub fn scope_with(code: &Code, emit: bool, backend: HwBackend) -> ScopedTrace {
        let loc = std::panic::Location::caller();
        let name = format!("{}:{}", loc.file(), loc.line());
        let flags = backend.flags() | if emit { 0 } else { QUIET };
        ScopedTrace::begin(name, code, flags)
    }

    /// An explicitly named scope with raw flags (QUIET | STRONG | CEILING).
    pub fn scope_named(name: &str, code: &Code, flags: u32) -> ScopedTrace {
        ScopedTrace::begin(name.to_string(), code, flags)
    }
}

/// One scope on the calling thread. Ends (if still open) and frees the
/// core's handle on `Drop`. The accessors are valid after `end()`.
#[must_use = "the scope ends when this guard is dropped: bind it to a named variable (`let _t = ...`); `let _ = ...` ends it at once"]
pub struct ScopedTrace {
    raw: *mut c_void,
    name: String,
    flags: u32,
    ended: bool,
    /// why there is no handle (libasmspy missing, or begin returned NULL)
    none_reason: Option<String>,
}

// Send on purpose: the guard may be moved to another thread (a thread hop).
// The core checks the tid at end and reports such a scope as truncated
// ("thread hop: ..."), discarding the capture; ending/freeing on another
// thread is otherwise safe in the core. Not Sync: one owner at a time.
unsafe impl Send for ScopedTrace {}

fn cstr<'a>(p: *const c_char) -> Cow<'a, str> {
    if p.is_null() {
        Cow::Borrowed("")
    } else {
        // SAFETY: the core's strings are NUL-terminated and live until free.
        unsafe { CStr::from_ptr(p) }.to_string_lossy()
    }
}

impl ScopedTrace {
    fn begin(name: String, code: &Code, flags: u32) -> ScopedTrace {
        let mut t = ScopedTrace { raw: std::ptr::null_mut(), name, flags, ended: false, none_reason: None };
        let lib = match lib() {
            Ok(l) => l,
            Err(e) => {
                t.none_reason = Some(e.to_string());
                return t;
            }
        };
        let cname = match CString::new(t.name.replace('\0', "_")) {
            Ok(c) => c,
            Err(_) => CString::new("rust-scope").unwrap_or_default(),
        };
        let (addr, len) = code.raw();
        // SAFETY: valid name and a range the core only compares against.
        t.raw = unsafe { (lib.begin)(cname.as_ptr(), addr, len, flags as c_uint) };
        if t.raw.is_null() {
            t.none_reason = Some("asmspy_scope_begin returned NULL (out of memory)".into());
        }
        t
    }

    /// End the capture now (idempotent): render, write the listing file (if asked), and
    /// print it when the scope was made with emit = true.
    pub fn end(&mut self) -> &mut Self {
        if !self.ended {
            self.ended = true;
            if let (false, Ok(lib)) = (self.raw.is_null(), lib()) {
                // SAFETY: a live handle from asmspy_scope_begin.
                unsafe { (lib.end)(self.raw) };
            } else if self.flags & QUIET == 0 && std::env::var("ASMSPY_SCOPE_EMIT").map_or(true, |v| v != "0") {
                print!("# scope {}: 0 instructions, tier NONE\n# not captured: {}\n", self.name, self.reason());
            }
        }
        self
    }

    /// End now and return the results as owned values (the guard is
    /// consumed; its handle is freed).
    pub fn finish(mut self) -> TraceResult {
        self.end();
        TraceResult {
            name: self.name().into_owned(),
            text: self.text().into_owned(),
            path: self.path().into_owned(),
            insn_count: self.insn_count(),
            truncated: self.truncated(),
            gaps: self.gaps(),
            tier: self.tier(),
            reason: self.reason().into_owned(),
        }
    }

    fn with<R>(&self, none: R, f: impl FnOnce(&Lib, *const c_void) -> R) -> R {
        match (self.raw.is_null(), lib()) {
            (false, Ok(l)) => f(l, self.raw),
            _ => none,
        }
    }

    /// The rendered listing plus its summary line ("" before end).
    pub fn text(&self) -> Cow<'_, str> {
        self.with(Cow::Borrowed(""), |l, s| cstr(unsafe { (l.text)(s) }))
    }
    /// The file the listing was written to, or "".
    pub fn path(&self) -> Cow<'_, str> {
        self.with(Cow::Borrowed(""), |l, s| cstr(unsafe { (l.path)(s) }))
    }
    /// The scope's name (the auto-name `file.rs:LINE`, or the given one).
    pub fn name(&self) -> Cow<'_, str> {
        let n = self.with(Cow::Borrowed(""), |l, s| cstr(unsafe { (l.name)(s) }));
        if n.is_empty() {
            Cow::Borrowed(self.name.as_str())
        } else {
            n
        }
    }
    /// Instructions in the listing.
    pub fn insn_count(&self) -> u64 {
        self.with(0, |l, s| unsafe { (l.insn_count)(s) })
    }
    /// A partial capture (thread hop, buffer full, ...): `reason()` says why.
    pub fn truncated(&self) -> bool {
        self.with(false, |l, s| unsafe { (l.truncated)(s) } != 0)
    }
    /// Untraced stretches stepped over (thread creation inside the scope).
    pub fn gaps(&self) -> u64 {
        self.with(0, |l, s| unsafe { (l.gaps)(s) })
    }
    pub fn tier(&self) -> Tier {
        self.with(Tier::None, |l, s| Tier::parse(&cstr(unsafe { (l.tier)(s) })))
    }
    /// Why this tier, or why truncated.
    pub fn reason(&self) -> Cow<'_, str> {
        if let Some(r) = &self.none_reason {
            return Cow::Borrowed(r.as_str());
        }
        self.with(Cow::Borrowed(""), |l, s| cstr(unsafe { (l.reason)(s) }))
    }
}

impl Drop for ScopedTrace {
    fn drop(&mut self) {
        self.end();
        if let (false, Ok(lib)) = (self.raw.is_null(), lib()) {
            // SAFETY: the handle is freed once, here.
            unsafe { (lib.free)(self.raw) };
            self.raw = std::ptr::null_mut();
        }
    }
}

/// A finished scope's results (`ScopedTrace::finish`).
#[derive(Clone, Debug)]
pub struct TraceResult {
    pub name: String,
    pub text: String,
    pub path: String,
    pub insn_count: u64,
    pub truncated: bool,
    pub gaps: u64,
    pub tier: Tier,
    pub reason: String,
}
