//! The Rust binding (bindings/rust) on the known functions of
//! libscope_victim.so: region counts equal callgrind's (SCOPE_EXP_* from
//! test_scope_counts.sh), the auto-name is this file and line, (addr, 1)
//! sees one instruction, a guard dropped on another thread is truncated
//! with the thread-hop reason, and with no plugin every scope is tier NONE
//! while the program's results stay right (a re-run of this binary).
use asmspy::{Code, HwBackend, HwTrace, Tier, QUIET};
use std::ffi::CString;
use std::os::raw::{c_char, c_int, c_void};
use std::process::Command;
use std::time::Instant;

#[link(name = "dl")]
extern "C" {
    fn dlopen(filename: *const c_char, flag: c_int) -> *mut c_void;
    fn dlsym(handle: *mut c_void, symbol: *const c_char) -> *mut c_void;
}

type WorkFn = extern "C" fn(i64) -> i64;

struct Victim {
    work: WorkFn,
    helper: WorkFn,
}

fn victim() -> Victim {
    let path = std::env::var("SCOPE_VICTIM_LIB").expect("SCOPE_VICTIM_LIB");
    let c = CString::new(path.clone()).unwrap();
    let h = unsafe { dlopen(c.as_ptr(), 2) };
    assert!(!h.is_null(), "cannot dlopen {}", path);
    let sym = |n: &str| {
        let cn = CString::new(n).unwrap();
        let p = unsafe { dlsym(h, cn.as_ptr()) };
        assert!(!p.is_null(), "no symbol {}", n);
        unsafe { std::mem::transmute::<*mut c_void, WorkFn>(p) }
    };
    Victim { work: sym("work"), helper: sym("helper") }
}

fn expect_work(n: i64) -> i64 {
    (0..5).map(|i| (n + i) * 3 + 1).sum()
}

fn env_num(k: &str) -> Option<u64> {
    std::env::var(k).ok().and_then(|v| v.parse().ok())
}

struct Checks {
    failures: u32,
}
impl Checks {
    fn check(&mut self, ok: bool, what: &str) {
        println!("{} {}", if ok { "ok  " } else { "FAIL" }, what);
        if !ok {
            self.failures += 1;
        }
    }
}

/// Re-run of this binary with no plugin reachable: nothing can trace.
fn no_plugin(v: &Victim, c: &mut Checks) {
    let t = HwTrace::scope(&Code::function(v.work as *const c_void), false);
    let r = (v.work)(7);
    let res = t.finish();
    println!("# no plugin: tier {}, reason: {}", res.tier, res.reason);
    c.check(res.tier == Tier::None, "no plugin: tier NONE");
    c.check(!res.reason.is_empty(), "no plugin: the reason is recorded");
    c.check(r == expect_work(7), "no plugin: work(7) still returns its value");
    let t = HwTrace::scope_with(&Code::Window, true, HwBackend::IntelPt);
    let r = (v.work)(2);
    drop(t);
    c.check(r == expect_work(2), "no plugin: a dropped IntelPt scope changes nothing");
}

/// Re-run with ASMSPY_LIB pointing nowhere: the library cannot load.
fn no_lib(v: &Victim, c: &mut Checks) {
    let t = HwTrace::scope(&Code::Window, true);
    let r = (v.work)(5);
    let res = t.finish();
    println!("# no lib: tier {}, reason: {}", res.tier, res.reason);
    if res.tier != Tier::None {
        println!("# skipped: libasmspy.so.0 is installed on this system (the fallback loaded it)");
    } else {
        c.check(res.reason.contains("cannot load libasmspy"), "no lib: tier NONE, the loader's reason");
    }
    c.check(r == expect_work(5), "no lib: work(5) still returns its value");
}

fn rerun(mode: &str, env: &[(&str, &str)]) -> bool {
    let exe = std::env::current_exe().unwrap();
    let mut cmd = Command::new(exe);
    cmd.arg(mode);
    for (k, v) in env {
        cmd.env(k, v);
    }
    match cmd.status() {
        Ok(s) => s.success(),
        Err(e) => {
            println!("# cannot re-run: {}", e);
            false
        }
    }
}

fn main() {
    let v = victim();
    let mut c = Checks { failures: 0 };
    let mode = std::env::args().nth(1).unwrap_or_default();
    if mode == "--no-plugin" || mode == "--no-lib" {
        if mode == "--no-plugin" {
            no_plugin(&v, &mut c);
        } else {
            no_lib(&v, &mut c);
        }
        std::process::exit(if c.failures > 0 { 1 } else { 0 });
    }
    let (exp_work, exp_helper) = match (env_num("SCOPE_EXP_WORK_SELF"), env_num("SCOPE_EXP_HELPER_X5")) {
        (Some(w), Some(h)) => (w, h),
        _ => {
            println!("SKIP: run through test_scope_counts.sh (the callgrind oracle)");
            std::process::exit(77);
        }
    };
    let work_code = Code::function(v.work as *const c_void);

    // (1) region = work's extent
    let (t, line) = (HwTrace::scope(&work_code, false), line!());
    let r = (v.work)(7);
    let res = t.finish();
    println!("# rust region work: {} insns, tier {} ({}), oracle {}", res.insn_count, res.tier, res.reason, exp_work);
    c.check(res.tier == Tier::Weak, "tier WEAK");
    c.check(res.insn_count == exp_work, &format!("region work {} == callgrind work (self) {}", res.insn_count, exp_work));
    c.check(!res.truncated, "not truncated");
    c.check(r == expect_work(7), "work(7) returns its value under the scope");
    let want = format!("test_scope_rust.rs:{}", line);
    c.check(res.name.contains(&want), &format!("auto-named from the caller: {} (want {})", res.name, want));
    c.check(!res.path.is_empty() && std::fs::metadata(&res.path).is_ok(), &format!("the listing was written to {}", res.path));

    // (2) region = helper's extent, over work(3): helper x5
    let t = HwTrace::scope(&Code::function(v.helper as *const c_void), false);
    (v.work)(3);
    let h = t.finish();
    println!("# rust region helper: {} insns, oracle {}", h.insn_count, exp_helper);
    c.check(h.insn_count == exp_helper, &format!("region helper {} == callgrind helper x5 {}", h.insn_count, exp_helper));

    // (3) whole window >= work + helper
    let t = HwTrace::scope(&Code::Window, false);
    (v.work)(3);
    let w = t.finish();
    println!("# rust whole window: {} insns (work+helper {})", w.insn_count, exp_work + exp_helper);
    c.check(w.insn_count >= exp_work + exp_helper && !w.truncated, "whole window >= work + helper x5, not truncated");

    // (4) an explicit (addr, 1) range: work's first instruction, once
    let t = HwTrace::scope(&Code::range(v.work as *const c_void, 1), false);
    (v.work)(1);
    let p = t.finish();
    c.check(p.insn_count == 1, &format!("(work, 1) range sees exactly 1 instruction ({})", p.insn_count));

    // (5) thread hop: the guard moves into a std::thread and ends there
    let t = HwTrace::scope(&Code::Window, false);
    let r = (v.work)(2);
    let hop = std::thread::spawn(move || t.finish()).join().unwrap();
    println!("# rust hop (finish on another thread): truncated {}, {} insns, reason: {}", hop.truncated, hop.insn_count, hop.reason);
    c.check(hop.truncated && hop.reason.contains("thread hop"), "guard finished on another thread -> truncated, thread-hop reason");
    c.check(r == expect_work(2), "the hopping thread kept running correctly");
    //     ... and a plain Drop there: the written listing says so
    let t = HwTrace::scope_named("rust-hop-drop", &Code::Window, QUIET);
    (v.work)(2);
    std::thread::spawn(move || drop(t)).join().unwrap();
    // the listing file is opt-in: ASMSPY_SCOPE_FILE names the directory (meson sets it)
    let tmp = std::env::var("ASMSPY_SCOPE_FILE").ok().filter(|s| s.len() > 1).unwrap_or_else(|| "/nonexistent".into());
    let file = format!("{}/asmspy-scope-rust-hop-drop-{}.txt", tmp, std::process::id());
    let body = std::fs::read_to_string(&file).unwrap_or_default();
    println!("# rust hop (Drop on another thread): {}", body.lines().last().unwrap_or("(no file)"));
    c.check(body.contains("TRUNCATED: thread hop"), &format!("guard dropped on another thread -> {} says TRUNCATED: thread hop", file));

    // a panic unwinding through the guard: Drop still runs, the scope ends
    // (a silent hook: the default one would format a backtrace under the
    // single-stepper when RUST_BACKTRACE is set, slow and beside the point)
    let prev_hook = std::panic::take_hook();
    std::panic::set_hook(Box::new(|_| {}));
    let work_fn = v.work;
    let caught = std::panic::catch_unwind(move || {
        let _t = HwTrace::scope_named("rust-unwind", &Code::function(work_fn as *const c_void), QUIET);
        if work_fn(7) == expect_work(7) {
            panic!("boom inside the scope");
        }
    });
    std::panic::set_hook(prev_hook);
    let file = format!("{}/asmspy-scope-rust-unwind-{}.txt", tmp, std::process::id());
    let body = std::fs::read_to_string(&file).unwrap_or_default();
    let last = body.lines().last().unwrap_or("(no file)").to_string();
    println!("# rust panic unwinding through the guard: {}", last);
    let want = format!("{} instructions, tier WEAK", exp_work);
    c.check(caught.is_err() && last.contains(&want) && !last.contains("TRUNCATED"),
            &format!("panic inside a scope: Drop ran while unwinding, the listing is complete ({})", want));

    // (7) overhead: begin + end of an empty region scope, quiet
    let iters = 200u32;
    let t0 = Instant::now();
    for _ in 0..iters {
        let _t = HwTrace::scope(&work_code, false);
    }
    let us = t0.elapsed().as_secs_f64() * 1e6 / iters as f64;
    println!("# overhead rust: {:.1} us per scope (begin+end, empty region)", us);

    // (6) no plugin / no library: separate runs of this binary
    c.check(
        rerun("--no-plugin", &[("ASMSPY_PLUGIN_PATH_ONLY", "1"), ("ASMSPY_PLUGIN_PATH", "/nonexistent")]),
        "no-plugin run (ASMSPY_PLUGIN_PATH_ONLY=1 ASMSPY_PLUGIN_PATH=/nonexistent)",
    );
    c.check(rerun("--no-lib", &[("ASMSPY_LIB", "/nonexistent/libasmspy.so")]), "no-library run (ASMSPY_LIB=/nonexistent)");
    std::process::exit(if c.failures > 0 { 1 } else { 0 });
}
