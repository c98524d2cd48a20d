//! The params cache keyed by the circuit and the seed: an entry of another circuit or another seed (with a
//! checksum sidecar that matches) is named and rebuilt, never used; concurrent processes build an entry once;
//! setup stops soon after a cancel, and Ctrl-C during `cuzk setup` ends it in seconds, leaving no files.

use std::path::{Path, PathBuf};
use std::process::{Command, Output, Stdio};
use std::time::{Duration, Instant};

use cuzk::cs::ShapeCounter;
use cuzk::groth16::cache::checksum_path;
use cuzk::groth16::params_file::{hex, sha256};
use cuzk::vocab::CancelToken;

fn temp(name: &str) -> PathBuf {
    let d = std::env::temp_dir().join(format!("cuzk-pc-{name}-{}", std::process::id()));
    let _ = std::fs::remove_dir_all(&d);
    std::fs::create_dir_all(&d).expect("temp dir");
    d
}

fn cuzk(cache: &Path, args: &[&str]) -> Output {
    Command::new(env!("CARGO_BIN_EXE_cuzk")).args(args).env("CUZK_CACHE", cache).output().expect("run cuzk")
}

/// `cuzk setup`'s last stdout line (the params path) and its stderr.
fn setup(cache: &Path, sample: &str, seed: &str) -> (PathBuf, String) {
    let o = cuzk(cache, &["setup", "--sample", sample, "--seed", seed]);
    let err = String::from_utf8_lossy(&o.stderr).into_owned();
    assert!(o.status.success(), "{err}");
    let out = String::from_utf8_lossy(&o.stdout).into_owned();
    (PathBuf::from(out.lines().last().unwrap_or_default()), err)
}

/// Puts the entry at `from` under the name `to`, with a sidecar that matches it and names `to`: what a user
/// copying cache files around produces, and what the checksum alone cannot catch.
fn transplant(from: &Path, to: &Path) {
    let bytes = std::fs::read(from).expect("params");
    std::fs::write(to, &bytes).expect("write");
    let name = to.file_name().map(|n| n.to_string_lossy().into_owned()).unwrap_or_default();
    std::fs::write(checksum_path(to), format!("{}  {name}\n", hex(&sha256(&bytes)))).expect("sidecar");
}

#[test]
fn entries_of_another_seed_or_circuit_are_named_and_rebuilt() {
    let d = temp("identity");
    let cache = d.join("cache");
    let tiny = "samples/porep-tiny.toml";
    let (mine, err) = setup(&cache, tiny, "7");
    assert!(err.contains("generated"), "{err}");
    let (other_seed, _) = setup(&cache, tiny, "8");
    let merkle = d.join("m.toml");
    std::fs::write(
        &merkle,
        "name = \"m\"\nseed = 7\n[circuit]\nkind = \"poseidon-merkle\"\nheight = 1\npaths = 1\n",
    )
    .expect("sample");
    let (other_circuit, _) = setup(&cache, merkle.to_str().unwrap_or_default(), "7");
    assert!(mine != other_seed && mine != other_circuit);
    let good = std::fs::read(&mine).expect("params");

    for (from, why) in [(&other_seed, "another seed"), (&other_circuit, "another circuit")] {
        transplant(from, &mine);
        let (path, err) = setup(&cache, tiny, "7");
        assert_eq!(path, mine);
        assert!(err.contains(&format!("params file {}", mine.display())) && err.contains(why), "{err}");
        assert!(err.contains("regenerated"), "{err}");
        assert_eq!(std::fs::read(&mine).expect("params"), good, "rebuilt to the right params");
        let (_, err) = setup(&cache, tiny, "7");
        assert!(err.contains("loaded from cache") && !err.contains("warning"), "{err}");
        // And a prove on the repaired entry verifies.
        let o = cuzk(
            &cache,
            &[
                "prove",
                "--sample",
                tiny,
                "--backend",
                "cpu",
                "--data-dir",
                d.join("home").to_str().unwrap_or_default(),
            ],
        );
        assert!(o.status.success(), "{}", String::from_utf8_lossy(&o.stderr));
    }
    // A pair copied whole (sidecar naming the other entry) is caught by the sidecar alone.
    std::fs::copy(&other_seed, &mine).expect("copy");
    std::fs::copy(checksum_path(&other_seed), checksum_path(&mine)).expect("copy sidecar");
    let (_, err) = setup(&cache, tiny, "7");
    assert!(err.contains("names `") && err.contains("regenerated"), "{err}");
}

#[test]
fn concurrent_processes_build_an_entry_once() {
    let d = temp("lock");
    let cache = d.join("cache");
    let spawn = || {
        Command::new(env!("CARGO_BIN_EXE_cuzk"))
            .args(["setup", "--sample", "samples/poseidon-merkle.toml"])
            .env("CUZK_CACHE", &cache)
            .stdout(Stdio::piped())
            .stderr(Stdio::piped())
            .spawn()
            .expect("spawn")
    };
    let (a, b) = (spawn(), spawn());
    let outs = [a.wait_with_output().expect("a"), b.wait_with_output().expect("b")];
    let errs: Vec<String> = outs.iter().map(|o| String::from_utf8_lossy(&o.stderr).into_owned()).collect();
    assert!(outs.iter().all(|o| o.status.success()), "{errs:?}");
    let generated = errs.iter().filter(|e| e.contains(": generated")).count();
    assert_eq!(generated, 1, "exactly one process builds: {errs:?}");
    assert!(errs.iter().any(|e| e.contains("loaded from cache")), "{errs:?}");
    // `circuits/` is the circuit index (the remembered survey), not an entry.
    let names: Vec<String> = std::fs::read_dir(cache.join("params"))
        .expect("params dir")
        .flatten()
        .map(|e| e.file_name().to_string_lossy().into_owned())
        .filter(|n| n != "circuits")
        .collect();
    assert_eq!(names.len(), 3, "params, sidecar and native copy only (lock removed): {names:?}");
    assert!(names.iter().any(|n| n.ends_with(".params.native")), "{names:?}");
}

#[test]
fn setup_hears_a_cancel() {
    let s = cuzk::circuits::Sample::load(Path::new("samples/porep-tiny.toml")).expect("sample");
    let c = s.sector_circuits(0).swap_remove(0);
    let shape = ShapeCounter::count(&c).expect("shape");
    let cancel = CancelToken::new();
    cancel.cancel();
    let t = Instant::now();
    let r = cuzk::groth16::setup::generate_with(&c, shape, 7, &|_, _, _| {}, &cancel);
    assert!(r.is_err(), "a cancelled setup returns no params");
    // Cancelled part-way: the first progress report after "evaluate" cancels, the rest is skipped.
    let token = CancelToken::new();
    let seen = std::sync::Mutex::new(Vec::new());
    let r = cuzk::groth16::setup::generate_with(
        &c,
        shape,
        7,
        &|stage, _, _| {
            seen.lock().unwrap_or_else(|p| p.into_inner()).push(stage.to_string());
            if stage == "h" {
                token.cancel();
            }
        },
        &token,
    );
    assert!(r.is_err());
    let seen = seen.into_inner().unwrap_or_default();
    assert!(!seen.iter().any(|s| s == "b_g2"), "stages after the cancel ran: {seen:?}");
    assert!(t.elapsed() < Duration::from_secs(30));
}

#[test]
fn ctrl_c_during_setup_ends_it_in_seconds_and_leaves_no_files() {
    let d = temp("sigint");
    let cache = d.join("cache");
    let mut child = Command::new(env!("CARGO_BIN_EXE_cuzk"))
        .args(["setup", "--sample", "samples/porep-mini.toml"])
        .env("CUZK_CACHE", &cache)
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()
        .expect("spawn");
    // Wait for setup to be under way (its folder exists once the cache is touched), then interrupt.
    let t = Instant::now();
    while !cache.join("params").exists() && t.elapsed() < Duration::from_secs(30) {
        std::thread::sleep(Duration::from_millis(50));
    }
    std::thread::sleep(Duration::from_millis(1500));
    // SAFETY: kill(2) with a pid of our own child and SIGINT; no memory is involved.
    let sent = unsafe { libc::kill(child.id() as libc::pid_t, libc::SIGINT) };
    assert_eq!(sent, 0);
    let t = Instant::now();
    let out = loop {
        if let Some(status) = child.try_wait().expect("wait") {
            break status;
        }
        assert!(t.elapsed() < Duration::from_secs(10), "setup ignored Ctrl-C for 10 s");
        std::thread::sleep(Duration::from_millis(50));
    };
    let err =
        child.wait_with_output().map(|o| String::from_utf8_lossy(&o.stderr).into_owned()).unwrap_or_default();
    assert_eq!(out.code(), Some(1), "{err}");
    assert!(err.contains("cancelled"), "{err}");
    // The survey made before the setup is remembered in `circuits/`; nothing of the entry is left.
    let left: Vec<String> = std::fs::read_dir(cache.join("params"))
        .map(|r| {
            r.flatten()
                .map(|e| e.file_name().to_string_lossy().into_owned())
                .filter(|n| n != "circuits")
                .collect()
        })
        .unwrap_or_default();
    assert!(left.is_empty(), "no params, lock or temp files: {left:?}");
}

#[test]
fn native_copies_off_writes_none() {
    let d = temp("native-off");
    let cache = d.join("cache");
    let run = |off: bool| {
        let mut c = Command::new(env!("CARGO_BIN_EXE_cuzk"));
        c.args(["setup", "--sample", "samples/porep-tiny.toml"]).env("CUZK_CACHE", &cache);
        if off {
            c.env("CUZK_NATIVE_PARAMS", "off");
        }
        let o = c.output().expect("run cuzk");
        assert!(o.status.success(), "{}", String::from_utf8_lossy(&o.stderr));
        PathBuf::from(String::from_utf8_lossy(&o.stdout).lines().last().unwrap_or_default())
    };
    let path = run(true);
    let copy = cuzk::groth16::params_native::path_of(&path);
    assert!(path.is_file() && !copy.exists(), "CUZK_NATIVE_PARAMS=off wrote a copy");
    // The next load of a process with copies on writes one.
    assert_eq!(run(false), path);
    assert!(copy.is_file(), "no copy after a load with copies on");
}
