//! The environment settings that change speed are recorded with each run, and `cuzk compare` names the ones
//! that differ between two runs (a run with other pool sizes or worker counts must not read as the same run).

use std::path::PathBuf;
use std::process::Command;

fn temp(name: &str) -> PathBuf {
    let d = std::env::temp_dir().join(format!("cuzk-settings-{name}-{}", std::process::id()));
    let _ = std::fs::remove_dir_all(&d);
    std::fs::create_dir_all(&d).unwrap_or_else(|e| panic!("temp dir: {e}"));
    d
}

#[test]
fn compare_names_the_settings_that_differ() {
    let dir = temp("compare");
    let run = |workers: Option<&str>| {
        let mut c = Command::new(env!("CARGO_BIN_EXE_cuzk"));
        c.args([
            "prove",
            "--sample",
            "samples/porep-tiny.toml",
            "--backend",
            "cpu",
            "--set",
            "verify=off",
            "--json",
        ])
        .env("CUZK_CACHE", dir.join("cache"))
        .env("CUZK_HOME", dir.join("home"))
        .env_remove("CUZK_SYNTH_WORKERS")
        .env_remove("CUZK_ALLOC");
        if let Some(w) = workers {
            c.env("CUZK_SYNTH_WORKERS", w);
        }
        let o = c.output().unwrap_or_else(|e| panic!("run cuzk: {e}"));
        assert!(o.status.success(), "{}", String::from_utf8_lossy(&o.stderr));
        let v: serde_json::Value =
            serde_json::from_slice(&o.stdout).unwrap_or_else(|e| panic!("prove --json: {e}"));
        v["record"].as_str().unwrap_or_else(|| panic!("no record path: {v}")).to_string()
    };
    let (a, b) = (run(None), run(Some("1")));
    let rec: serde_json::Value = serde_json::from_str(&std::fs::read_to_string(&b).unwrap_or_default())
        .unwrap_or_else(|e| panic!("{b}: {e}"));
    assert_eq!(rec["host"]["settings"]["CUZK_SYNTH_WORKERS"], "1", "the record holds the setting");
    let o = Command::new(env!("CARGO_BIN_EXE_cuzk"))
        .args(["compare", &a, &b, "--json"])
        .env("CUZK_HOME", dir.join("home"))
        .output()
        .unwrap_or_else(|e| panic!("run cuzk: {e}"));
    assert!(o.status.success(), "{}", String::from_utf8_lossy(&o.stderr));
    let v: serde_json::Value =
        serde_json::from_slice(&o.stdout).unwrap_or_else(|e| panic!("compare --json: {e}"));
    assert_eq!(
        v["settings_differ"],
        serde_json::json!([{"name": "CUZK_SYNTH_WORKERS", "base": "-", "candidate": "1"}]),
        "{v}"
    );
    let o = Command::new(env!("CARGO_BIN_EXE_cuzk"))
        .args(["compare", &a, &a])
        .env("CUZK_HOME", dir.join("home"))
        .output()
        .unwrap_or_else(|e| panic!("run cuzk: {e}"));
    let out = String::from_utf8_lossy(&o.stdout);
    assert!(o.status.success() && !out.contains("setting "), "a run against itself: {out}");
    let _ = std::fs::remove_dir_all(&dir);
}

/// The binary's allocator is the C library's unless `CUZK_ALLOC=mimalloc`, a run's record names mimalloc when
/// it served the run, and an unknown value is a one-line error before anything runs.
#[test]
fn the_allocator_is_chosen_by_cuzk_alloc_and_recorded() {
    let dir = temp("alloc");
    // A verified proof with variable `var` set to `val` (`None`: unset; CUZK_ALLOC unset unless it is `var`).
    let run_with = |var: &str, val: Option<&str>| {
        let mut c = Command::new(env!("CARGO_BIN_EXE_cuzk"));
        c.args(["prove", "--sample", "samples/porep-tiny.toml", "--backend", "cpu", "--json"])
            .env("CUZK_CACHE", dir.join("cache"))
            .env("CUZK_HOME", dir.join("home"))
            .env_remove("CUZK_ALLOC")
            .env_remove(var);
        if let Some(a) = val {
            c.env(var, a);
        }
        c.output().unwrap_or_else(|e| panic!("run cuzk: {e}"))
    };
    let run = |alloc: Option<&str>| run_with("CUZK_ALLOC", alloc);
    // The record's value of setting `name`, "(absent)" when it holds none.
    let setting_of = |o: std::process::Output, name: &str| {
        assert!(o.status.success(), "{}", String::from_utf8_lossy(&o.stderr));
        let v: serde_json::Value =
            serde_json::from_slice(&o.stdout).unwrap_or_else(|e| panic!("prove --json: {e}"));
        assert_eq!(v["verified"], true, "{v}");
        let path = v["record"].as_str().unwrap_or_else(|| panic!("no record path: {v}")).to_string();
        let rec: serde_json::Value =
            serde_json::from_str(&std::fs::read_to_string(&path).unwrap_or_default())
                .unwrap_or_else(|e| panic!("{path}: {e}"));
        rec["host"]["settings"][name].as_str().unwrap_or("(absent)").to_string()
    };
    let allocator_of = |o| setting_of(o, "CUZK_ALLOC");
    // The default is recorded as nothing (as every record before the setting), the other allocator by name.
    assert_eq!(allocator_of(run(None)), "(absent)");
    assert_eq!(allocator_of(run(Some("mimalloc"))), "mimalloc");
    assert_eq!(allocator_of(run(Some("system"))), "(absent)");
    let o = run(Some("jemalloc"));
    let err = String::from_utf8_lossy(&o.stderr);
    assert_eq!(o.status.code(), Some(1), "{err}");
    assert_eq!(err.trim(), "error: CUZK_ALLOC=\"jemalloc\": expected system or mimalloc");
    // glibc's thresholds: `off` keeps glibc's own and is recorded; an unknown value is a one-line error.
    let tuned = |v: &str| run_with("CUZK_MALLOC_TUNE", Some(v));
    assert_eq!(setting_of(tuned("off"), "CUZK_MALLOC_TUNE"), "off", "the record holds the setting");
    let o = tuned("maybe");
    let err = String::from_utf8_lossy(&o.stderr);
    assert_eq!(o.status.code(), Some(1), "{err}");
    assert_eq!(err.trim(), "error: CUZK_MALLOC_TUNE=\"maybe\": expected on or off");
    let _ = std::fs::remove_dir_all(&dir);
}
