//! Rust scope example: the Drop guard around a small known function.
//! From the source root, after `./run.sh` (or `ninja -C build`):
//!   ASMSPY_LIB=$PWD/build/host/libasmspy.so cargo run --offline --release \
//!     --manifest-path examples/scope/rust/Cargo.toml
use asmspy::{Code, HwTrace};

/// Collatz steps from n down to 1: a loop with a data-dependent branch.
#[no_mangle]
#[inline(never)]
pub extern "C" fn collatz_steps(mut n: u64) -> u32 {
    let mut steps = 0;
    while n > 1 {
        n = if n % 2 == 0 { n / 2 } else { 3 * n + 1 };
        steps += 1;
    }
    steps
}

fn main() {
    let n = std::env::args().count() as u64 + 5; // 6, not a constant the compiler can fold
    let r;
    {
        let _t = HwTrace::scope(&Code::function(collatz_steps as *const ()), true); // region: its extent
        r = collatz_steps(n);
    } // Drop: the scope ends here and prints the assembly that ran
    println!("collatz_steps({}) = {}", n, r);

    let t = HwTrace::scope(&Code::function(collatz_steps as *const ()), false); // quiet
    let r2 = collatz_steps(n + 1);
    let res = t.finish(); // end now, keep the results
    println!("collatz_steps({}) = {}: {} insns, tier {} ({}), written to {}", n + 1, r2, res.insn_count, res.tier, res.name, res.path);
    if res.tier.to_string() == "NONE" {
        println!("not captured: {}", res.reason); // a no-op: say why
    }
}
