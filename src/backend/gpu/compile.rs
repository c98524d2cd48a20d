//! Kernel sources and their compilation: the `cuda/` files are embedded at build time (build.rs), includes
//! are resolved textually here (NVRTC gets one self-contained source per module), NVRTC compiles for the
//! device's own arch straight to CUBIN, and the cubin is cached on disk keyed by source hash, arch and NVRTC
//! version. Cache files carry a SHA-256 trailer, so a truncated or corrupt file is detected and rebuilt.

use std::ffi::CString;
use std::path::{Path, PathBuf};

use sha2::{Digest, Sha256};

use super::error::{GResult, GpuError};
use super::kernels::Module;

mod embedded {
    include!(concat!(env!("OUT_DIR"), "/kernels.rs"));
}

/// The cache root override shared with the params cache (`$CUZK_CACHE/kernels/`).
pub use crate::util::dirs::CACHE_ENV;

fn embedded_file(name: &str) -> Option<&'static str> {
    embedded::SOURCES.iter().find(|(n, _)| *n == name).map(|(_, s)| *s)
}

/// The module's source with every `#include "x"` of an embedded file inlined once (`#pragma once`
/// semantics; the headers use it).
pub fn source(module: Module) -> GResult<String> {
    let mut seen = Vec::new();
    let mut out = String::new();
    inline(module.file(), &mut seen, &mut out, module)?;
    Ok(out)
}

fn inline(name: &str, seen: &mut Vec<String>, out: &mut String, module: Module) -> GResult<()> {
    if seen.iter().any(|s| s == name) {
        return Ok(());
    }
    seen.push(name.to_string());
    let text = embedded_file(name).ok_or_else(|| GpuError::Compile {
        module: module.file(),
        log: format!("cuda/{name} is not embedded in this build"),
    })?;
    for line in text.lines() {
        let t = line.trim_start();
        if let Some(rest) = t.strip_prefix("#include") {
            let inc = rest.trim().trim_matches(|c| c == '"' || c == '<' || c == '>');
            if embedded_file(inc).is_some() {
                inline(inc, seen, out, module)?;
                continue;
            }
        }
        if t.starts_with("#pragma once") {
            continue;
        }
        out.push_str(line);
        out.push('\n');
    }
    Ok(())
}

/// NVRTC options for `arch` (compute capability): a real `sm_XY` target so the output is CUBIN for this
/// device, C++17 for the headers.
pub fn options(arch: (u32, u32)) -> Vec<String> {
    vec![format!("--gpu-architecture=sm_{}{}", arch.0, arch.1), "-std=c++17".into()]
}

/// Compiles `module` with NVRTC for `arch` and returns the cubin; a failure carries NVRTC's log.
/// Needs only libnvrtc (no driver, no device), so it also serves the CI compile check.
pub fn compile_cubin(module: Module, arch: (u32, u32)) -> GResult<Vec<u8>> {
    use cudarc::nvrtc::{result as nr, sys as ns};
    if !super::discover::nvrtc_present() {
        return Err(GpuError::Unavailable("NVRTC not found".into()));
    }
    let err = |log: String| GpuError::Compile { module: module.file(), log };
    let src = CString::new(source(module)?).map_err(|e| err(e.to_string()))?;
    let name = CString::new(module.file()).map_err(|e| err(e.to_string()))?;
    let prog = nr::create_program(&src, Some(&name)).map_err(|e| err(format!("{e:?}")))?;
    // SAFETY: `prog` was created above and is destroyed once, at the end; `src`/`name` outlive it.
    let result = unsafe {
        let compiled = nr::compile_program(prog, &options(arch));
        let log = nr::get_program_log(prog)
            .map(|l| {
                let bytes: Vec<u8> = l.iter().map(|&c| c as u8).take_while(|&c| c != 0).collect();
                String::from_utf8_lossy(&bytes).trim().to_string()
            })
            .unwrap_or_default();
        match compiled {
            Err(e) => Err(err(if log.is_empty() { format!("{e:?}") } else { log })),
            Ok(()) => {
                let mut size = 0usize;
                let r = ns::nvrtcGetCUBINSize(prog, &mut size);
                if r != ns::nvrtcResult::NVRTC_SUCCESS || size == 0 {
                    Err(err(format!("no CUBIN ({r:?}); is sm_{}{} a real architecture?", arch.0, arch.1)))
                } else {
                    let mut cubin = vec![0u8; size];
                    let r = ns::nvrtcGetCUBIN(prog, cubin.as_mut_ptr().cast());
                    if r == ns::nvrtcResult::NVRTC_SUCCESS {
                        Ok(cubin)
                    } else {
                        Err(err(format!("nvrtcGetCUBIN: {r:?}")))
                    }
                }
            }
        }
    };
    // SAFETY: `prog` is live and destroyed exactly once.
    let _ = unsafe { nr::destroy_program(prog) };
    result
}

/// The kernel cache folder: `$CUZK_CACHE/kernels` or `<user cache dir>/cuzk/kernels`; `None` when neither
/// exists (then kernels are compiled every process).
pub fn cache_dir() -> Option<PathBuf> {
    crate::util::dirs::cache_root().map(|r| r.join("kernels"))
}

/// The cache file name: module, arch, NVRTC version and the first 16 hex digits of the source's SHA-256.
pub fn cache_name(module: Module, arch: (u32, u32), nvrtc: (i32, i32)) -> GResult<String> {
    let mut h = Sha256::new();
    h.update(source(module)?.as_bytes());
    for o in options(arch) {
        h.update(o.as_bytes());
    }
    let digest = h.finalize();
    let hex: String = digest.iter().take(8).map(|b| format!("{b:02x}")).collect();
    let stem = module.file().trim_end_matches(".cu");
    Ok(format!("{stem}-sm{}{}-nvrtc{}.{}-{hex}.cubin", arch.0, arch.1, nvrtc.0, nvrtc.1))
}

/// Bytes of the SHA-256 trailer after the cubin in a cache file.
const TRAILER: usize = 32;

/// Reads a cached cubin, `None` when absent or when its trailer does not match (corrupt, truncated).
pub fn read_cached(path: &Path) -> Option<Vec<u8>> {
    let mut bytes = std::fs::read(path).ok()?;
    if bytes.len() <= TRAILER {
        return None;
    }
    let body = bytes.len() - TRAILER;
    let sum = Sha256::digest(&bytes[..body]);
    if sum[..] != bytes[body..] {
        return None;
    }
    bytes.truncate(body);
    Some(bytes)
}

/// Writes a cubin with its SHA-256 trailer atomically.
pub fn write_cached(path: &Path, cubin: &[u8]) -> GResult<()> {
    let cache_err =
        |e: std::io::Error| GpuError::Cache { path: path.display().to_string(), msg: e.to_string() };
    if let Some(dir) = path.parent() {
        std::fs::create_dir_all(dir).map_err(cache_err)?;
    }
    let mut bytes = cubin.to_vec();
    bytes.extend_from_slice(&Sha256::digest(cubin));
    crate::util::write_atomic(path, &bytes).map_err(cache_err)
}

/// The cubin of `module` for `arch`: from the cache when present and intact, else compiled and cached.
/// Returns the cubin and the cache path (if any) so a cubin the driver rejects can be evicted and rebuilt.
pub fn cubin(module: Module, arch: (u32, u32)) -> GResult<(Vec<u8>, Option<PathBuf>)> {
    let nvrtc =
        super::discover::nvrtc_version().ok_or_else(|| GpuError::Unavailable("NVRTC not found".into()))?;
    let path = match cache_dir() {
        Some(dir) => Some(dir.join(cache_name(module, arch, nvrtc)?)),
        None => None,
    };
    if let Some(bin) = path.as_deref().and_then(read_cached) {
        return Ok((bin, path));
    }
    // Progress for the one long step before a GPU run: minutes on a small host (docs/PERF.md). Printed on
    // stderr so it shows before the console takes the terminal and never mixes into `--json` output.
    eprintln!(
        "cuzk: compiling {} for sm_{}{} with NVRTC (first use; cached afterwards)…",
        module.file(),
        arch.0,
        arch.1
    );
    let t0 = std::time::Instant::now();
    let bin = compile_cubin(module, arch)?;
    eprintln!("cuzk: compiled {} in {:.1} s", module.file(), t0.elapsed().as_secs_f64());
    if let Some(p) = &path {
        if let Err(e) = write_cached(p, &bin) {
            tracing::warn!("{e}");
        }
    }
    Ok((bin, path))
}
