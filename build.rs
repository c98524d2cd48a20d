//! Embeds every `cuda/*.cu` and `cuda/*.cuh` file into the binary (the CUDA backend hands them to NVRTC at
//! run time), so the kernels travel with `target/release/cuzk` and a build needs no CUDA toolkit.

use std::fmt::Write as _;
use std::path::Path;

fn main() {
    // The package's folder as cargo gives it to this run, not as it was when the script was compiled: a
    // script built for another checkout sharing the target folder embedded nothing (docs/PERF.md, session an).
    let root = std::env::var("CARGO_MANIFEST_DIR").unwrap_or_else(|_| ".".into());
    let dir = Path::new(&root).join("cuda");
    println!("cargo:rerun-if-changed={}", dir.display());
    let mut files: Vec<_> = match std::fs::read_dir(&dir) {
        Ok(rd) => rd.filter_map(Result::ok).map(|e| e.path()).collect(),
        Err(e) => panic!("build.rs: cannot read the kernels' folder {}: {e}", dir.display()),
    };
    files.retain(|p| matches!(p.extension().and_then(|e| e.to_str()), Some("cu" | "cuh")));
    files.sort();
    if files.is_empty() {
        panic!(
            "build.rs: {} holds no .cu or .cuh file: a build without kernels cannot run on a GPU",
            dir.display()
        );
    }
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
