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
        .env_remove("CUZK_SYNTH_WORKERS");
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
