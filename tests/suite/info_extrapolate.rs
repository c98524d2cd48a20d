//! `cuzk info` on the real-shape PoRep sample (`samples/porep-32g.toml`, 1.3·10^8 constraints per partition)
//! extrapolates the shape from counts at 1 and 2 challenges instead of synthesizing the partition, and its
//! figures agree with an exact count of a smaller sample of the same knobs.

use std::path::{Path, PathBuf};
use std::process::{Command, Output};

fn temp(name: &str) -> PathBuf {
    let d = std::env::temp_dir().join(format!("cuzk-info-{name}-{}", std::process::id()));
    let _ = std::fs::remove_dir_all(&d);
    std::fs::create_dir_all(&d).expect("temp dir");
    d
}

fn cuzk(dir: &Path, args: &[&str]) -> Output {
    Command::new(env!("CARGO_BIN_EXE_cuzk"))
        .args(args)
        .env("CUZK_CACHE", dir.join("cache"))
        .env("CUZK_HOME", dir.join("home"))
        .output()
        .expect("run cuzk")
}

fn json(o: &Output) -> serde_json::Value {
    assert!(o.status.success(), "{}", String::from_utf8_lossy(&o.stderr));
    serde_json::from_slice(&o.stdout).expect("json")
}

fn num(v: &serde_json::Value, key: &str) -> u64 {
    v[key].as_u64().unwrap_or_else(|| panic!("{key} missing: {v}"))
}

/// The sample's knobs with another challenge count.
const KNOBS: &str =
    "layers = 11\nnodes_log2 = 30\nbase_parents = 6\nexpander_parents = 8\nhash = \"sha256\"\n\
                     layout = \"stacked\"\n";

#[test]
fn porep_32g_info_extrapolates_and_agrees_with_an_exact_count() {
    let d = temp("32g");
    let v = json(&cuzk(&d, &["info", "--sample", "samples/porep-32g.toml", "--json"]));
    assert_eq!(v["method"], "extrapolated", "{v}");
    let ex = &v["extrapolation"];
    assert_eq!((ex["knob"].as_str(), ex["value"].as_u64()), (Some("circuit.challenges"), Some(18)), "{v}");
    let c1 = ex["constraints_at_1_and_2"][0].as_u64().expect("c1");
    let c2 = ex["constraints_at_1_and_2"][1].as_u64().expect("c2");
    assert!(c2 > c1 && c1 > 1_000_000, "{v}");
    let constraints = num(&v, "constraints");
    assert_eq!(constraints, c1 + 17 * (c2 - c1), "affine in the challenges: {v}");
    assert_eq!(num(&v, "domain"), constraints.next_power_of_two(), "{v}");
    // The real partition: 130 278 869 constraints on 2^27; ours within 1% (README, "The PoRep circuit").
    assert_eq!(num(&v, "domain"), 1 << 27, "{v}");
    let real = 130_278_869f64;
    assert!((constraints as f64 / real - 1.0).abs() < 0.01, "{constraints} against the real {real}");
    // The constant one, replica_id, comm_d, comm_r and 18 path indices per challenge, as the real partition.
    assert_eq!(num(&v, "public_inputs"), 328, "{v}");
    assert_eq!(num(&v, "circuits_per_sector"), 10, "{v}");
    assert!(v["synthesis_ms"].is_null() && v["pce_bytes"].is_null(), "no witness figures: {v}");

    // Three challenges at the same knobs, counted whole, land on the same line.
    let three = d.join("porep-3.toml");
    std::fs::write(&three, format!("name = \"p3\"\n[circuit]\nkind = \"porep\"\nchallenges = 3\n{KNOBS}"))
        .expect("write");
    let three = three.display().to_string();
    let w = json(&cuzk(&d, &["info", "--sample", &three, "--method", "count", "--json"]));
    assert_eq!(w["method"], "counted", "{w}");
    assert_eq!(num(&w, "constraints"), c1 + 2 * (c2 - c1), "{w}");
    assert_eq!(num(&w, "public_inputs"), 1 + 3 + 3 * 18, "{w}");
    let density = |x: &serde_json::Value, k: &str| x[k].as_f64().unwrap_or(-1.0);
    for k in ["a_aux_density_pct", "b_aux_density_pct"] {
        let (big, small) = (density(&v, k), density(&w, k));
        assert!(big > 0.0 && (big - small).abs() < 1.0, "{k}: {big} vs {small}");
    }

    // The table says how it got there.
    let o = cuzk(&d, &["info", "--sample", "samples/porep-32g.toml"]);
    assert!(o.status.success(), "{}", String::from_utf8_lossy(&o.stderr));
    let table = String::from_utf8_lossy(&o.stdout);
    for part in ["extrapolated from circuit.challenges = 1", "2^27", "10 × 1 sectors"] {
        assert!(table.contains(part), "`{part}` missing:\n{table}");
    }
}
