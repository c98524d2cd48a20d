//! The NTT kernels' per-thread bodies (cuda/ntt_stage.cuh, cuda/ntt_perm.cuh) compiled as host C++ and run
//! over every block and thread against naive DFTs and Python's big integers (`cuda/hostcheck/ntt_check.sh`):
//! forward, inverse and coset transforms and compute_h on both launch paths, so a kernel edit is checked
//! without a GPU. Sizes up to 2^14 here (the turn kernel from 2^11, radix-8 passes from 2^13); the script's
//! defaults go to 2^16.

use crate::require;

use std::path::Path;
use std::process::Command;

#[test]
fn ntt_kernel_bodies_match_naive_transforms_on_the_host() {
    if !require::host_tools("ntt_kernel_bodies_match_naive_transforms_on_the_host", &["g++", "python3"]) {
        return;
    }
    let root = Path::new(env!("CARGO_MANIFEST_DIR"));
    let bin = std::env::temp_dir().join(format!("cuzk-ntt-host-{}", std::process::id()));
    let out = Command::new("bash")
        .arg(root.join("cuda/hostcheck/ntt_check.sh"))
        .args(["10", "14"])
        .env("NTT_HOST_BIN", &bin)
        .output()
        .unwrap_or_else(|e| panic!("running ntt_check.sh: {e}"));
    let _ = std::fs::remove_file(&bin);
    let (so, se) = (String::from_utf8_lossy(&out.stdout), String::from_utf8_lossy(&out.stderr));
    assert!(out.status.success(), "ntt_check.sh failed:\n{so}{se}");
    assert!(se.contains(" checks, 0 failures"), "host bodies: {se}");
    assert!(so.contains(" mismatches") && so.contains(", 0 mismatches"), "python cases: {so}");
}
