//! Embeds every `cuda/*.cu` and `cuda/*.cuh` file into the binary (the CUDA backend hands them to NVRTC at
//! run time), so the kernels travel with `target/release/cuzk` and a build needs no CUDA toolkit.

use std::fmt::Write as _;
use std::path::Path;

fn main() {
    let dir = Path::new(env!("CARGO_MANIFEST_DIR")).join("cuda");
    println!("cargo:rerun-if-changed={}", dir.display());
    let mut files: Vec<_> = std::fs::read_dir(&dir)
        .map(|rd| rd.filter_map(Result::ok).map(|e| e.path()).collect())
        .unwrap_or_default();
    files.retain(|p| matches!(p.extension().and_then(|e| e.to_str()), Some("cu" | "cuh")));
    files.sort();
    let mut out = String::from(
        "/// Every embedded kernel source: (file name, text).\npub const SOURCES: &[(&str, &str)] = &[\n",
    );
    for p in &files {
        println!("cargo:rerun-if-changed={}", p.display());
        let name = p.file_name().and_then(|n| n.to_str()).unwrap_or_default();
        let _ = writeln!(out, "    ({name:?}, include_str!({:?})),", p.display().to_string());
    }
    out.push_str("];\n");
    let dest = Path::new(&std::env::var("OUT_DIR").unwrap_or_else(|_| ".".into())).join("kernels.rs");
    if let Err(e) = std::fs::write(&dest, out) {
        panic!("build.rs: cannot write {}: {e}", dest.display());
    }
}
