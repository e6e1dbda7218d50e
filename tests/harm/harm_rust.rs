// harm_rust: panics caught by catch_unwind, and std::backtrace::Backtrace::
// force_capture() (which symbolizes: it maps the executable's debug info).
// harm.sh builds it with `rustc -C opt-level=2 -g` (cargo's release
// profile plus debug info) into a temp dir. Each round: 2000 calls of
// checked(), every 7th panics and is caught; 5 backtraces captured, each
// must name harm_marker. The round's checksum must equal the one computed
// at start; prints the harm.h protocol (`<pid> ready reference=X`, `round N
// OK|CORRUPT ...`).
use std::backtrace::Backtrace;
use std::io::Write;
use std::panic;

#[inline(never)]
fn checked(x: u64) -> u64 {
    if x % 7 == 0 {
        panic!("harm panic {}", x);
    }
    x.wrapping_mul(0x9E3779B97F4A7C15) ^ (x >> 5)
}

#[inline(never)]
fn harm_marker(depth: u32) -> String {
    if depth > 0 {
        return harm_marker(depth - 1);
    }
    Backtrace::force_capture().to_string()
}

fn round_work() -> (u64, String) {
    let mut sum = 0u64;
    let mut caught = 0u64;
    for i in 0..2000u64 {
        match panic::catch_unwind(|| checked(i)) {
            Ok(v) => sum = sum.wrapping_add(v),
            Err(_) => caught += 1,
        }
    }
    let mut bad = String::new();
    for d in 0..5 {
        let bt = harm_marker(d);
        if !bt.contains("harm_marker") {
            bad = format!("a backtrace without harm_marker: {}", bt.replace('\n', " | "));
        }
    }
    (sum.wrapping_add(caught << 48), bad)
}

fn main() {
    panic::set_hook(Box::new(|_| {}));
    let (want, bad0) = round_work();
    let mut out: Box<dyn Write> = match std::env::var("HARM_OUT") {
        Ok(p) => Box::new(std::fs::File::create(p).expect("HARM_OUT")),
        Err(_) => Box::new(std::io::stdout()),
    };
    writeln!(out, "{} ready reference={}", std::process::id(), want).unwrap();
    if !bad0.is_empty() {
        writeln!(out, "round 0 CORRUPT before any tracer: {}", bad0).unwrap();
    }
    out.flush().unwrap();
    let mut r = 1u64;
    loop {
        let (got, bad) = round_work();
        if got != want {
            writeln!(out, "round {} CORRUPT checksum: got {} want {}", r, got, want).unwrap();
        } else if !bad.is_empty() {
            writeln!(out, "round {} CORRUPT {}", r, bad).unwrap();
        } else {
            writeln!(out, "round {} OK", r).unwrap();
        }
        out.flush().unwrap();
        r += 1;
    }
}
