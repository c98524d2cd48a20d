//! Every sample-file error class gives a one-line message naming the file, the line and the key.

use std::path::Path;

use cuzk::circuits::{CircuitSpec, Sample};

fn err(text: &str) -> String {
    let e = Sample::parse(Path::new("samples/x.toml"), text).expect_err("sample should be rejected");
    let msg = e.to_string();
    assert!(!msg.contains('\n'), "message must be one line: {msg}");
    assert!(msg.starts_with("samples/x.toml"), "message must name the file: {msg}");
    msg
}

const GOOD: &str = "name = \"t\"\n[circuit]\nkind = \"porep\"\nchallenges = 1\nlayers = 2\nnodes_log2 = 6\n";

#[test]
fn good_sample_parses_with_defaults() {
    let s = Sample::parse(Path::new("x.toml"), GOOD).expect("valid");
    match s.circuit {
        CircuitSpec::Porep(k) => {
            assert_eq!((k.challenges, k.layers, k.nodes_log2), (1, 2, 6));
            assert_eq!((k.base_parents, k.expander_parents), (6, 8));
        }
        _ => panic!("wrong kind"),
    }
    assert_eq!((s.partitions, s.sectors), (1, 1));
}

#[test]
fn missing_file() {
    let e = Sample::load(Path::new("samples/does-not-exist.toml")).expect_err("missing");
    let msg = e.to_string();
    assert!(msg.starts_with("samples/does-not-exist.toml: cannot read sample file"), "{msg}");
}

#[test]
fn bad_toml_reports_line() {
    let msg = err("name = \"t\"\n[circuit\nkind = \"porep\"\n");
    assert!(msg.starts_with("samples/x.toml:2:"), "{msg}");
    assert!(msg.contains("table header"), "{msg}");
}

#[test]
fn unknown_key_is_named_with_its_line() {
    let msg = err(&format!("{GOOD}colour = 3\n"));
    assert!(msg.starts_with("samples/x.toml:7:"), "{msg}");
    assert!(msg.contains("unknown field `colour`"), "{msg}");
    let msg = err(&format!("speed = 1\n{GOOD}"));
    assert!(msg.starts_with("samples/x.toml:1:") && msg.contains("`speed`"), "{msg}");
}

#[test]
fn unknown_kind() {
    let msg = err("name = \"t\"\n[circuit]\nkind = \"groth17\"\n");
    assert!(msg.starts_with("samples/x.toml:3:") && msg.contains("unknown variant `groth17`"), "{msg}");
}

#[test]
fn wrong_type_names_the_key() {
    let msg = err(&GOOD.replace("layers = 2", "layers = \"two\""));
    assert!(msg.starts_with("samples/x.toml:5:"), "{msg}");
    assert!(msg.contains("key `circuit.layers`") && msg.contains("invalid type"), "{msg}");
}

#[test]
fn knob_out_of_range() {
    let msg = err(&GOOD.replace("layers = 2", "layers = 12"));
    assert_eq!(msg, "samples/x.toml:5: key `circuit.layers`: 12 is out of range (expected 1..=11)");
    let msg = err(&GOOD.replace("nodes_log2 = 6", "nodes_log2 = 7"));
    assert!(msg.starts_with("samples/x.toml:6: key `circuit.nodes_log2`: 7 is not a multiple of 3"), "{msg}");
    let msg = err(&format!("partitions = 0\n{GOOD}"));
    assert!(msg.starts_with("samples/x.toml:1: key `partitions`: 0 is out of range"), "{msg}");
}

#[test]
fn missing_and_foreign_knobs() {
    let msg = err("name = \"t\"\n[circuit]\nkind = \"sha256-chain\"\n");
    assert_eq!(msg, "samples/x.toml: key `circuit.compressions`: missing (required for this kind)");
    let msg = err("name = \"t\"\n[circuit]\nkind = \"sha256-chain\"\ncompressions = 2\nlayers = 3\n");
    assert_eq!(msg, "samples/x.toml:5: key `circuit.layers`: does not apply to kind sha256-chain");
}

#[test]
fn bad_toggle_in_sample() {
    let msg = err(&format!("{GOOD}[toggles]\nd5 = true\n"));
    assert!(msg.starts_with("samples/x.toml:8:") && msg.contains("unknown field `d5`"), "{msg}");
}

#[test]
fn shipped_samples_load() {
    for f in std::fs::read_dir("samples").expect("samples dir") {
        let p = f.expect("entry").path();
        if p.extension().is_some_and(|e| e == "toml") {
            Sample::load(&p).unwrap_or_else(|e| panic!("{e}"));
        }
    }
}

#[test]
fn stacked_layout_needs_an_unopened_node_and_names_its_key() {
    let tight = "name = \"t\"\npartitions = 8\n[circuit]\nkind = \"porep\"\nchallenges = 1\nlayers = 1\nnodes_log2 = 3\n\
                 layout = \"stacked\"\n";
    let msg = err(tight);
    assert!(msg.contains("layout") && msg.contains("more than partitions × challenges = 8"), "{msg}");
    let msg = err(&format!("{GOOD}layout = \"woven\"\n"));
    assert!(msg.contains("unknown variant `woven`"), "{msg}");
    assert!(Sample::parse(Path::new("x.toml"), &tight.replace("partitions = 8", "partitions = 7")).is_ok());
}
