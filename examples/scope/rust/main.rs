//! Rust scope example: the Drop guard around a small known function.
//! From the source root, after `./run.sh` (or `ninja -C build`):
//!   ASMSPY_LIB=$PWD/build/host/libasmspy.so cargo run --offline --release \
//!     --manifest-path examples/scope/rust/Cargo.toml
use asmspy::{Code, HwTrace};

#[no_mangle]
#[inline(never)]
pub extern "C" fn square_sum(n: i64) -> i64 {
    let (mut s, mut i) = (0i64, 0i64);
    while i < n {
        s = s.wrapping_add(i.wrapping_mul(i));
        i += 1;
    }
    s
}

fn main() {
    let n = std::env::args().count() as i64 + 3; // 4, not a constant the compiler can fold
    let r;
    {
        let _t = HwTrace::scope(&Code::function(square_sum as *const ()), true); // region: its extent
        r = square_sum(n);
    } // Drop: the scope ends here and prints the assembly that ran
    println!("square_sum({}) = {}", n, r);

    let t = HwTrace::scope(&Code::function(square_sum as *const ()), false); // quiet
    square_sum(n);
    let res = t.finish(); // end now, keep the results
    println!("{} insns, tier {} ({}), written to {}", res.insn_count, res.tier, res.name, res.path);
}
