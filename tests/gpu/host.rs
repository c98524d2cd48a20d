//! What needs no device: backend selection and its reasons, `--backend gpu` from the CLI (an error without a
//! GPU, a run with one), the NVRTC compile of every module, the kernel cache.

use super::*;

#[test]
fn selection_says_why() {
    let d = discover::discovery();
    let auto = select(BackendKind::Auto).unwrap_or_else(|e| panic!("auto never fails: {e}"));
    assert!(auto.reason.starts_with("auto: "), "{}", auto.reason);
    match select(BackendKind::Gpu) {
        Ok(s) => {
            assert!(d.usable());
            assert_eq!(s.backend.name(), "gpu");
            assert_eq!(auto.backend.name(), "gpu");
        }
        Err(e) => {
            assert!(!d.usable());
            let msg = e.to_string();
            assert!(msg.starts_with("--backend gpu: no usable GPU: "), "{msg}");
            assert!(!msg.contains('\n'), "{msg}");
            assert_eq!(auto.backend.name(), "cpu", "{}", auto.reason);
            eprintln!("\n*** no GPU here: auto → cpu ({}) ***\n", auto.reason);
        }
    }
}

fn cuzk_bin() -> PathBuf {
    match std::env::var_os("CUZK_BIN") {
        Some(p) => PathBuf::from(p),
        None => PathBuf::from(env!("CARGO_BIN_EXE_cuzk")),
    }
}

/// `--backend gpu` on either kind of machine: without a usable GPU one line and exit 1, with one the command
/// runs (and `prove` verifies its proofs).
#[test]
fn cli_backend_gpu_is_one_line_without_a_gpu_and_runs_with_one() {
    let bin = cuzk_bin();
    assert!(bin.exists(), "{} not found: set CUZK_BIN to the cuzk binary", bin.display());
    let usable = discover::discovery().usable();
    let tmp = std::env::temp_dir().join(format!("cuzk-gpu-cli-{}", std::process::id()));
    // gpu-check's cache holds the compiled kernels; else a fresh one.
    let cache = std::env::var_os("CUZK_CACHE").map_or_else(|| tmp.join("cache"), PathBuf::from);
    for args in [
        &["bench", "msm", "--backend", "gpu", "--log-size", "4"][..],
        &["prove", "--sample", "samples/porep-tiny.toml", "--backend", "gpu"],
    ] {
        let o = std::process::Command::new(&bin)
            .args(args)
            .env("CUZK_CACHE", &cache)
            .env("CUZK_HOME", tmp.join("home"))
            .output()
            .unwrap_or_else(|e| panic!("{e}"));
        let (out, err) = (String::from_utf8_lossy(&o.stdout), String::from_utf8_lossy(&o.stderr));
        if usable {
            assert!(o.status.success(), "{args:?} with a GPU: {out}{err}");
            assert!(args[0] != "prove" || out.contains("verified: all"), "{args:?}: {out}");
        } else {
            assert_eq!(o.status.code(), Some(1), "{args:?}: {err}");
            assert_eq!(err.trim().lines().count(), 1, "{args:?}: {err}");
            assert!(err.starts_with("error: --backend gpu: no usable GPU"), "{err}");
        }
    }
    let _ = std::fs::remove_dir_all(&tmp);
}

#[test]
fn nvrtc_compiles_every_module() {
    let found = if discover::nvrtc_present() {
        Ok(())
    } else {
        Err(format!("libnvrtc not found (set {} or CUDA_HOME, or LD_LIBRARY_PATH)", discover::NVRTC_LIB_ENV))
    };
    if require::gpu("nvrtc_compiles_every_module", found).is_none() {
        return;
    }
    // The device's own arch when there is one, else the H200's (sm_90): one compile per module (each takes
    // a while: the curve arithmetic is fully inlined).
    let arch = discover::discovery().devices.first().map_or((9, 0), |d| d.arch);
    for m in cuzk::backend::gpu::Module::ALL {
        let t = std::time::Instant::now();
        let cubin =
            compile::compile_cubin(m, arch).unwrap_or_else(|e| panic!("sm_{}{}: {e}", arch.0, arch.1));
        assert!(cubin.starts_with(b"\x7fELF"), "{m:?} is not a cubin");
        // CUZK_PREBUILD_KERNELS=DIR: also store the cubin in DIR/kernels as the kernel cache names it, so a
        // device machine with the same NVRTC loads it instead of compiling (device time is scarce).
        if let (Some(dir), Some(v)) = (std::env::var_os("CUZK_PREBUILD_KERNELS"), discover::nvrtc_version()) {
            let name = compile::cache_name(m, arch, v).unwrap_or_else(|e| panic!("{e}"));
            let path = Path::new(&dir).join("kernels").join(name);
            compile::write_cached(&path, &cubin).unwrap_or_else(|e| panic!("{e}"));
            eprintln!("NVRTC: cached {}", path.display());
        }
        eprintln!(
            "NVRTC: cuda/{} → sm_{}{} cubin, {} bytes, {:.1} s",
            m.file(),
            arch.0,
            arch.1,
            cubin.len(),
            t.elapsed().as_secs_f64()
        );
    }
}

#[test]
fn kernel_cache_detects_corruption() {
    let dir = std::env::temp_dir().join(format!("cuzk-kcache-{}", std::process::id()));
    let p = dir.join("x.cubin");
    compile::write_cached(&p, b"\x7fELF cubin bytes").unwrap_or_else(|e| panic!("{e}"));
    assert_eq!(compile::read_cached(&p).as_deref(), Some(&b"\x7fELF cubin bytes"[..]));
    let mut bytes = std::fs::read(&p).unwrap_or_else(|e| panic!("{e}"));
    bytes[2] ^= 1;
    std::fs::write(&p, &bytes).unwrap_or_else(|e| panic!("{e}"));
    assert_eq!(compile::read_cached(&p), None, "a flipped bit must be detected");
    std::fs::write(&p, &bytes[..10]).unwrap_or_else(|e| panic!("{e}"));
    assert_eq!(compile::read_cached(&p), None, "a truncated file must be detected");
    let _ = std::fs::remove_dir_all(&dir);
    // Sources resolve their includes (no `#include` left for NVRTC to miss).
    for m in cuzk::backend::gpu::Module::ALL {
        if let Ok(src) = compile::source(m) {
            assert!(!src.contains("#include \""), "{m:?} still includes a file");
        }
    }
}
