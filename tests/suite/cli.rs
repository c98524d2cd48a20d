//! The binary as a user runs it: setup prints the params path last, prove writes files that verify, a
//! tampered proof fails with a non-zero exit, bad input is one line and a non-zero exit.

use std::path::{Path, PathBuf};
use std::process::{Command, Output};

fn cuzk(cache: &Path, args: &[&str]) -> Output {
    Command::new(env!("CARGO_BIN_EXE_cuzk")).args(args).env("CUZK_CACHE", cache).output().expect("run cuzk")
}

fn temp(name: &str) -> PathBuf {
    let d = std::env::temp_dir().join(format!("cuzk-cli-{name}-{}", std::process::id()));
    let _ = std::fs::remove_dir_all(&d);
    std::fs::create_dir_all(&d).expect("temp dir");
    d
}

fn text(o: &Output) -> (String, String) {
    (String::from_utf8_lossy(&o.stdout).into_owned(), String::from_utf8_lossy(&o.stderr).into_owned())
}

#[test]
fn setup_prove_verify_round_trip() {
    let dir = temp("roundtrip");
    let cache = dir.join("cache");
    let o = cuzk(&cache, &["setup", "--sample", "samples/porep-tiny.toml"]);
    let (out, err) = text(&o);
    assert!(o.status.success(), "{err}");
    let path = PathBuf::from(out.lines().last().expect("a path"));
    assert!(path.starts_with(&cache) && path.exists(), "last line is the params path: {out}");
    // Piped, the generation prints a line as each stage starts, from the first, and as it ends.
    let first = err.lines().next().unwrap_or_default();
    assert!(first.starts_with("generating params for porep-tiny: stage 1 of 8, evaluate"), "{err}");
    // H is made beside the evaluation and reported once, done; the rest start and end; `write` last.
    for stage in ["h", "l", "a", "b_g1", "b_g2", "write"] {
        let starts = err.lines().any(|l| l.contains(&format!(", {stage} 0/")));
        assert!(starts || stage == "h" || stage == "write", "{stage} start: {err}");
        assert!(err.lines().any(|l| l.contains(&format!(", {stage} done in "))), "{stage} end: {err}");
    }

    let outdir = dir.join("out");
    let o = cuzk(
        &cache,
        &[
            "prove",
            "--sample",
            "samples/porep-tiny.toml",
            "--backend",
            "cpu",
            "--set",
            "a1=on,d4=off",
            "--out",
            outdir.to_str().unwrap(),
        ],
    );
    let (out, err) = text(&o);
    assert!(o.status.success(), "{out}{err}");
    for phase in
        ["synthesis", "prep_msm", "ntt_msm_h", "batch_add", "tail_msm", "b_g2_msm", "assemble", "verify"]
    {
        assert!(out.lines().any(|l| l.starts_with(phase)), "phase table lacks {phase}:\n{out}");
    }
    assert!(out.contains("verified: all 2 proofs"), "{out}");
    assert!(out.lines().any(|l| l.starts_with("after synth") && l.contains("per call")), "{out}");
    let proofs = std::fs::read(outdir.join("proofs.bin")).expect("proofs.bin");
    assert_eq!(proofs.len(), 2 * 192);
    assert_eq!(std::fs::read(outdir.join("inputs.bin")).expect("inputs").len() % 32, 0);

    let v = |p: &Path| {
        cuzk(
            &cache,
            &[
                "verify",
                "--vk",
                outdir.join("vk.bin").to_str().unwrap(),
                "--proof",
                p.to_str().unwrap(),
                "--inputs",
                outdir.join("inputs.bin").to_str().unwrap(),
            ],
        )
    };
    let o = v(&outdir.join("proofs.bin"));
    assert!(o.status.success(), "{:?}", text(&o));
    assert!(text(&o).0.contains("all 2 proofs verified"));

    // Swap the two proofs: both valid encodings, neither matches its inputs.
    let swapped = dir.join("swapped.bin");
    std::fs::write(&swapped, [&proofs[192..], &proofs[..192]].concat()).expect("write");
    let o = v(&swapped);
    assert!(!o.status.success());
    assert!(text(&o).0.contains("INVALID"));
    // Truncated proof file: a one-line error.
    std::fs::write(&swapped, &proofs[..100]).expect("write");
    let o = v(&swapped);
    assert!(!o.status.success());
    assert_eq!(text(&o).1.trim().lines().count(), 1, "{:?}", text(&o));
}

#[test]
fn bad_input_is_one_line_and_nonzero() {
    let dir = temp("bad");
    let bad = dir.join("bad.toml");
    std::fs::write(
        &bad,
        "name = \"x\"\n[circuit]\nkind = \"porep\"\nchallenges = 0\nlayers = 1\nnodes_log2 = 3\n",
    )
    .expect("write");
    for args in [
        vec!["info", "--sample", "samples/nope.toml"],
        vec!["prove", "--sample", bad.to_str().unwrap()],
        vec!["prove", "--sample", "samples/porep-tiny.toml", "--set", "a9=on"],
        vec!["verify", "--vk", "nope.bin", "--proof", "nope.bin", "--inputs", "nope.bin"],
    ] {
        let o = cuzk(&dir, &args);
        let (_, err) = text(&o);
        assert_eq!(o.status.code(), Some(1), "{args:?}: {err}");
        assert_eq!(err.trim().lines().count(), 1, "{args:?}: one line expected: {err}");
        assert!(err.starts_with("error: "), "{err}");
        assert!(!err.contains("panicked"), "{err}");
    }
}

/// `--backend gpu` holds on either kind of machine: without a usable GPU (CI) it is one line and exit 1, with
/// one the proof runs and verifies.
#[test]
fn backend_gpu_is_one_line_without_a_gpu_and_proves_with_one() {
    let dir = temp("backend-gpu");
    // With a GPU, the kernels compiled into gpu-check's cache when it names one.
    let cache = std::env::var_os("CUZK_CACHE").map_or_else(|| dir.clone(), PathBuf::from);
    let o = cuzk(&cache, &["prove", "--sample", "samples/porep-tiny.toml", "--backend", "gpu"]);
    let (out, err) = text(&o);
    if cuzk::backend::gpu::discover::discovery().usable() {
        assert!(o.status.success(), "{out}{err}");
        assert!(out.contains("backend gpu") && out.contains("verified: all 2 proofs"), "{out}");
    } else {
        assert_eq!(o.status.code(), Some(1), "{err}");
        assert_eq!(err.trim().lines().count(), 1, "one line expected: {err}");
        assert!(err.starts_with("error: --backend gpu: no usable GPU"), "{err}");
    }
}

/// `bench msm --scalars`: on every shape that stresses bucket methods (one scalar repeated, runs of ±1, only
/// the low window) the MSM equals blst's (the command fails otherwise) and the JSON names the shape.
#[test]
fn bench_msm_shapes_match_blst() {
    let dir = temp("bench-shapes");
    for shape in ["random", "equal", "plus_minus_one", "small"] {
        let flag = shape.replace('_', "-");
        let o =
            cuzk(&dir, &["bench", "msm", "--log-size", "9", "--repeat", "1", "--scalars", &flag, "--json"]);
        assert!(o.status.success(), "{shape}: {:?}", text(&o));
        let v: serde_json::Value = serde_json::from_slice(&o.stdout).expect("json");
        assert_eq!(v["scalars"], shape, "{v}");
    }
}

/// `cuzk bench synth --paths PATHS --json` on porep-tiny, one repeat, as JSON (the command must succeed).
fn synth_paths(dir: &Path, paths: &str) -> serde_json::Value {
    let args = ["bench", "synth", "--sample", "samples/porep-tiny.toml", "--repeat", "1", "--paths", paths];
    let o = cuzk(dir, &[&args[..], &["--json"]].concat());
    assert!(o.status.success(), "{:?}", text(&o));
    serde_json::from_slice(&o.stdout).expect("json")
}

#[test]
fn bench_reports_json() {
    let dir = temp("bench");
    let o = cuzk(&dir, &["bench", "synth", "--sample", "samples/porep-tiny.toml", "--repeat", "2", "--json"]);
    assert!(o.status.success(), "{:?}", text(&o));
    let v: serde_json::Value = serde_json::from_slice(&o.stdout).expect("json");
    let configs = v["configs"].as_array().expect("configs");
    let paths: Vec<&str> = configs.iter().map(|c| c["path"].as_str().unwrap_or("?")).collect();
    assert_eq!(
        paths,
        ["normal", "normal", "normal", "normal", "witness_only", "witness_kept", "pce", "pce", "pce_record"],
        "A1 × A2, then the witness fresh and kept, pce, then the recording"
    );
    let off = configs[0]["constraints_per_sec"].as_f64().unwrap_or(0.0);
    assert_eq!((configs[0]["a1"].as_bool(), configs[0]["a2"].as_bool()), (Some(false), Some(false)));
    for c in configs {
        let (rate, lo, hi) = (
            c["constraints_per_sec"].as_f64().unwrap_or(0.0),
            c["min_per_sec"].as_f64().unwrap_or(0.0),
            c["max_per_sec"].as_f64().unwrap_or(0.0),
        );
        assert!(rate > 0.0 && lo <= rate && rate <= hi, "{c}");
        let ratio = c["vs_pce_off"].as_f64().unwrap_or(0.0);
        assert!((ratio - rate / off).abs() < 1e-9 * ratio.max(1.0), "{c}");
        let normal = c["path"] == "normal";
        assert_eq!(c["a1"].is_null(), !normal, "{c}");
    }
    assert_eq!(configs[6]["threads"], 1, "the issue's figure: pce on one thread");
    assert!(v["pce_bytes_per_constraint"].as_f64().unwrap_or(0.0) > 0.0, "{v}");
    // A real Filecoin circuit adds bellperson's own synthesis of it, timed in the same process (the command
    // fails unless bellperson's rows and aux equal cuzk's).
    let o = cuzk(
        &dir,
        &["bench", "synth", "--sample", "samples/winning-post-2kib.toml", "--repeat", "1", "--json"],
    );
    assert!(o.status.success(), "{:?}", text(&o));
    let v: serde_json::Value = serde_json::from_slice(&o.stdout).expect("json");
    let configs = v["configs"].as_array().expect("configs");
    let tail: Vec<(Option<&str>, Option<u64>)> =
        configs.iter().skip(9).map(|c| (c["path"].as_str(), c["threads"].as_u64())).collect();
    let all = configs[7]["threads"].as_u64();
    assert_eq!(
        tail,
        [(Some("bellperson"), Some(1)), (Some("normal"), all), (Some("bellperson"), all)],
        "bellperson on one thread, then normal and bellperson on every thread: {v}"
    );
    for c in &configs[8..] {
        assert!(c["constraints_per_sec"].as_f64().is_some_and(|r| r > 0.0), "{c}");
    }
    // --paths keeps the reference and the paths named.
    let v = synth_paths(&dir, "pce_record");
    let paths: Vec<&str> =
        v["configs"].as_array().into_iter().flatten().filter_map(|c| c["path"].as_str()).collect();
    assert_eq!(paths, ["normal", "pce_record"], "{v}");
    // witness_only alone runs nothing else (no record, no reference): one row, no ratio, the real row count.
    let w = synth_paths(&dir, "witness_only");
    let rows = w["configs"].as_array().map(|c| c.len());
    assert_eq!((rows, w["constraints"].as_u64()), (Some(1), v["constraints"].as_u64()), "{w}");
    assert!(w["configs"][0]["vs_pce_off"].is_null() && w["configs"][0]["path"] == "witness_only", "{w}");
    let o = cuzk(&dir, &["bench", "msm", "--log-size", "9", "--repeat", "1", "--json"]);
    assert!(o.status.success(), "{:?}", text(&o));
    let v: serde_json::Value = serde_json::from_slice(&o.stdout).expect("json");
    assert!(v["ratio_vs_blst"].as_f64().is_some_and(|r| r > 0.0), "{v}");
    let o = cuzk(&dir, &["bench", "batch_add", "--log-size", "9", "--repeat", "1"]);
    assert!(o.status.success(), "{:?}", text(&o));
    // The machine's floors: measured on the host, and on the GPU where there is one; cached where the console
    // reads them.
    let o = cuzk(&dir, &["bench", "floor", "--json"]);
    assert!(o.status.success(), "{:?}", text(&o));
    let v: serde_json::Value = serde_json::from_slice(&o.stdout).expect("floor json");
    assert!(v["cpu"]["mul64_per_s"].as_f64().is_some_and(|r| r > 1e7), "{v}");
    assert!(v["cpu"]["mem_bytes_per_s"].as_f64().is_some_and(|r| r > 1e7), "{v}");
    // With a usable GPU its floors are measured; without one the reason is given (a driver without NVRTC may
    // still measure).
    let measured = v["gpus"].as_array().is_some_and(|g| !g.is_empty());
    assert!(measured || !cuzk::backend::gpu::discover::discovery().usable(), "{v}");
    assert!(measured || v["gpu_skipped"].is_string(), "{v}");
    let cached: serde_json::Value =
        serde_json::from_slice(&std::fs::read(dir.join("floor.json")).expect("floor.json cached"))
            .expect("json");
    assert_eq!(cached["host"], v["host"]);
}

#[test]
fn without_a_terminal_bare_cuzk_prints_info_and_tui_explains() {
    let cache = temp("notty");
    let o = cuzk(&cache, &[]);
    let (out, err) = text(&o);
    assert!(o.status.success(), "{out}{err}");
    assert!(out.contains("porep-mini"), "{out}");
    assert!(err.contains("stdout is not a terminal"), "{err}");
    let o = cuzk(&cache, &["tui", "--sample", "samples/porep-tiny.toml", "--backend", "cpu"]);
    let (_, err) = text(&o);
    assert_eq!(o.status.code(), Some(1), "{err}");
    assert_eq!(err.trim().lines().count(), 1, "{err}");
    assert!(err.contains("needs a terminal") && err.contains("cuzk info"), "{err}");
}

#[test]
fn a_prove_stopped_by_an_error_still_saves_its_record() {
    let dir = temp("stopped");
    let bad = dir.join("bad.params");
    // Random bytes: the params file's header reads as absurd section lengths.
    let bytes: Vec<u8> = (0..5000u32).map(|i| (i.wrapping_mul(2_654_435_761) >> 13) as u8).collect();
    std::fs::write(&bad, bytes).expect("write");
    let home = dir.join("home");
    let prove = Command::new(env!("CARGO_BIN_EXE_cuzk"))
        .args(["prove", "--sample", "samples/porep-tiny.toml", "--params", &bad.display().to_string()])
        .env("CUZK_CACHE", dir.join("cache"))
        .env("CUZK_HOME", &home)
        .output()
        .expect("run cuzk");
    let (_, err) = text(&prove);
    assert!(!prove.status.success(), "a garbage params file must fail: {err}");
    let last = err.lines().last().unwrap_or_default();
    assert!(last.starts_with("error: params file ") && last.contains("bad.params"), "{err}");
    let note =
        err.lines().find(|l| l.starts_with("note: the stopped run ")).unwrap_or_else(|| panic!("{err}"));
    let path = PathBuf::from(note.rsplit(" is saved to ").next().unwrap_or_default());
    assert!(path.starts_with(&home) && path.exists(), "{note}");
    let record: serde_json::Value =
        serde_json::from_slice(&std::fs::read(&path).expect("record")).expect("json");
    assert_eq!(record["outcome"], "failed", "{record}");
    assert!(record["error"].as_str().is_some_and(|e| e.contains("bad.params")), "{record}");
    // `cuzk runs` lists it as failed.
    let runs =
        Command::new(env!("CARGO_BIN_EXE_cuzk")).arg("runs").env("CUZK_HOME", &home).output().expect("runs");
    let (out, _) = text(&runs);
    assert!(out.lines().any(|l| l.contains("porep-tiny") && l.contains("failed")), "{out}");
}

/// Output into a pipe nobody reads (`cuzk runs | head` after head exits) ends the process quietly, killed by
/// SIGPIPE as other tools are, never with a panic (help, a command's table).
#[test]
fn a_closed_pipe_ends_output_without_a_panic() {
    use std::os::fd::FromRawFd;
    use std::os::unix::process::ExitStatusExt;
    let data = temp("pipe");
    for args in
        [&["bench", "synth", "--help"][..], &["info", "--sample", "samples/porep-tiny.toml"], &["--help"]]
    {
        let mut fds = [0; 2];
        // SAFETY: `fds` has room for the two descriptors pipe() writes.
        assert_eq!(unsafe { libc::pipe(fds.as_mut_ptr()) }, 0, "pipe");
        // SAFETY: both descriptors were just made and are owned here; the read end closes at once.
        let (read, write) =
            unsafe { (std::fs::File::from_raw_fd(fds[0]), std::fs::File::from_raw_fd(fds[1])) };
        drop(read);
        let out = Command::new(env!("CARGO_BIN_EXE_cuzk"))
            .args(args)
            .env("CUZK_HOME", &data)
            .stdout(write)
            .output()
            .expect("run cuzk");
        let (_, err) = text(&out);
        assert!(!err.contains("panicked"), "{args:?}: {err}");
        assert_eq!(out.status.signal(), Some(libc::SIGPIPE), "{args:?}: {:?} {err}", out.status);
    }
    let _ = std::fs::remove_dir_all(&data);
}
