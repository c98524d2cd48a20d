//! No parser of a user file panics, on any input: the sample parser, the params reader, the run-record
//! reader, the proof, vk and inputs readers and the theme parser, each on arbitrary bytes and on mutations of
//! a valid input (flipped bytes, truncations, insertions). Property tests on stable Rust (proptest), with
//! small case counts so CI stays fast; `fuzz/` has cargo-fuzz targets of the same entry points for longer runs.

use std::path::Path;

use blstrs::{G1Affine, G1Projective, G2Affine, G2Projective, Scalar};
use cuzk::circuits::Sample;
use cuzk::engine::store::parse_record;
use cuzk::groth16::params_file::parse_params;
use cuzk::groth16::proof::{decode_inputs, decode_proofs};
use cuzk::groth16::{Parameters, PointCheck, VerifyingKey};
use cuzk::tui::theme::ThemeSet;
use group::{Curve, Group};
use proptest::prelude::*;

fn config(cases: u32) -> ProptestConfig {
    ProptestConfig { cases, failure_persistence: None, ..ProptestConfig::default() }
}

/// A byte string edited by a few operations: flip, set, truncate, insert.
#[derive(Clone, Debug)]
enum Edit {
    Flip(usize, u8),
    Set(usize, u8),
    Truncate(usize),
    Insert(usize, Vec<u8>),
}

fn edits() -> impl Strategy<Value = Vec<Edit>> {
    let edit = prop_oneof![
        (any::<usize>(), 1u8..).prop_map(|(i, b)| Edit::Flip(i, b)),
        (any::<usize>(), any::<u8>()).prop_map(|(i, b)| Edit::Set(i, b)),
        any::<usize>().prop_map(Edit::Truncate),
        (any::<usize>(), proptest::collection::vec(any::<u8>(), 1..16)).prop_map(|(i, v)| Edit::Insert(i, v)),
    ];
    proptest::collection::vec(edit, 1..6)
}

fn apply(mut b: Vec<u8>, edits: &[Edit]) -> Vec<u8> {
    for e in edits {
        let n = b.len().max(1);
        match e {
            Edit::Flip(i, x) if !b.is_empty() => b[i % n] ^= x,
            Edit::Set(i, x) if !b.is_empty() => b[i % n] = *x,
            Edit::Truncate(i) => b.truncate(i % (b.len() + 1)),
            Edit::Insert(i, v) => {
                let at = i % (b.len() + 1);
                b.splice(at..at, v.iter().copied());
            }
            _ => {}
        }
    }
    b
}

/// Text-ish bytes: mostly the characters that matter to TOML and JSON.
fn texty() -> impl Strategy<Value = String> {
    proptest::collection::vec(
        prop_oneof![
            Just('='),
            Just('"'),
            Just('['),
            Just(']'),
            Just('\n'),
            Just('.'),
            Just('{'),
            Just('}'),
            Just(':'),
            Just(','),
            Just('-'),
            Just('0'),
            Just('9'),
            any::<char>()
        ],
        0..200,
    )
    .prop_map(|v| v.into_iter().collect())
}

const SAMPLE: &str =
    "name = \"t\"\nseed = \"18446744073709551615\"\npartitions = 2\nsectors = 3\n[circuit]\n\
                      kind = \"porep\"\nchallenges = 2\nlayers = 2\nnodes_log2 = 6\nhash = \"poseidon\"\n\
                      [toggles]\na1 = true\nbatch = 2\n";

#[test]
fn the_seed_corpus_is_valid() {
    let s = Sample::parse(Path::new("x.toml"), SAMPLE).expect("valid sample");
    assert_eq!(s.seed, u64::MAX, "a seed above i64::MAX is written as a string");
    assert!(parse_params(&params_bytes(), "mem", PointCheck::OnCurve).is_ok());
    assert!(parse_record(record_json().as_bytes(), "mem").is_ok());
    assert!(ThemeSet::parse_source("t.toml", THEME).is_ok());
}

proptest! {
    #![proptest_config(config(96))]

    #[test]
    fn sample_parser_never_panics(text in texty()) {
        let _ = Sample::parse(Path::new("x.toml"), &text);
    }

    #[test]
    fn sample_parser_survives_edits(e in edits()) {
        let bytes = apply(SAMPLE.as_bytes().to_vec(), &e);
        let text = String::from_utf8_lossy(&bytes);
        if let Err(err) = Sample::parse(Path::new("x.toml"), &text) {
            let m = err.to_string();
            prop_assert!(!m.contains('\n') && m.starts_with("x.toml"), "{}", m);
        }
    }
}

/// A small params image: vk with 2 IC points, 3 H, 2 L, 3 A, 2 B.
fn params_bytes() -> Vec<u8> {
    let g1 = |k: u64| (G1Projective::generator() * Scalar::from(k + 2)).to_affine();
    let g2 = |k: u64| (G2Projective::generator() * Scalar::from(k + 2)).to_affine();
    let g1s = |n: u64, off: u64| -> Vec<G1Affine> { (0..n).map(|i| g1(i + off)).collect() };
    let vk = VerifyingKey {
        alpha_g1: g1(1),
        beta_g1: g1(2),
        beta_g2: g2(3),
        gamma_g2: g2(4),
        delta_g1: g1(5),
        delta_g2: g2(6),
        ic: g1s(2, 10),
    };
    let b_g2: Vec<G2Affine> = (0..2).map(|i| g2(i + 40)).collect();
    let p = Parameters::new(vk, g1s(3, 20), g1s(2, 25), g1s(3, 30), g1s(2, 35), b_g2);
    let mut out = Vec::new();
    p.write(&mut out).expect("write to a Vec");
    out
}

proptest! {
    #![proptest_config(config(48))]

    #[test]
    fn params_reader_never_panics(bytes in proptest::collection::vec(any::<u8>(), 0..2048)) {
        let _ = parse_params(&bytes, "mem", PointCheck::OnCurve);
    }

    #[test]
    fn params_reader_survives_edits(e in edits()) {
        let bytes = apply(params_bytes(), &e);
        let _ = parse_params(&bytes, "mem", PointCheck::Subgroup);
    }

    #[test]
    fn proof_vk_and_inputs_readers_never_panic(bytes in proptest::collection::vec(any::<u8>(), 0..1200)) {
        let _ = decode_proofs(&bytes, "mem");
        let _ = decode_inputs(&bytes, "mem");
        let _ = VerifyingKey::read(&bytes[..]);
    }
}

fn record_json() -> String {
    let id = "20260101-000000-0123456789ab";
    format!(
        r#"{{"schema":"cuzk.run/1","id":"{id}","started":"2026-01-01T00:00:00.000Z",
        "sample":{{"name":"t","path":"x","constraints":3,"circuits":1,"seed":18446744073709551615}},
        "toggles":{{"a1":false,"batch":1}},"backend":"cpu","devices":["d"],
        "host":{{"cpu":"c","threads":1,"memory_bytes":1}},
        "events":[{{"phase":"synthesis","lane":"synthesis c0","circuit":0,"repeat":0,"start_us":0,"dur_us":5}},
        {{"phase":"ntt_msm_h","lane":"cpu","circuit":0,"batch":0,"repeat":0,"start_us":5,"dur_us":4,"args":{{"n":"8"}}}},
        {{"phase":"ntt_h","lane":"cpu","circuit":0,"repeat":1,"start_us":18446744073709551610,"dur_us":9}}],
        "repeats":[{{"wall_us":9,"phases":{{"synthesis":{{"count":1,"sum_us":5,"span_us":5}}}}}},
        {{"wall_us":18446744073709551615,"phases":{{"ntt_h":{{"count":18446744073709551615,"sum_us":9,"span_us":9}}}}}}],
        "wall_us":9,"peak_rss_bytes":0,"dropped_events":0,"proofs":[],"version":"0"}}"#
    )
}

proptest! {
    #![proptest_config(config(96))]

    #[test]
    fn record_reader_never_panics(text in texty()) {
        let _ = parse_record(text.as_bytes(), "mem");
    }

    #[test]
    fn record_reader_survives_edits_and_keeps_ids_safe(e in edits()) {
        let bytes = apply(record_json().into_bytes(), &e);
        if let Ok(r) = parse_record(&bytes, "mem") {
            // Whatever the edit, an id that parses is one a file name can be built from.
            prop_assert!(cuzk::engine::store::is_run_id(&r.id), "{}", r.id);
            prop_assert!(!r.id.contains('/') && !r.id.contains(".."));
            // And what reads a record (exports, compare) takes any numbers in it.
            for f in cuzk::timeline::export::Format::ALL {
                let _ = cuzk::timeline::export::render(&r, f);
            }
            let _ = cuzk::engine::compare::compare(&r, &r);
        }
    }
}

proptest! {
    #![proptest_config(config(256))]

    #[test]
    fn counts_and_byte_sizes_never_wrap(text in "[0-9A-Za-z -]{0,24}") {
        if let Ok(n) = cuzk::vocab::limits::SECTORS.parse(&text) {
            prop_assert!((1..=1024).contains(&n));
        }
        if let Ok(b) = cuzk::engine::budget::parse_bytes(&text) {
            let digits: String = text.trim().chars().filter(char::is_ascii_digit).collect();
            let n: u64 = digits.parse().unwrap_or(0);
            prop_assert!(b >= n, "{} → {}", text, b);
        }
    }
}

const THEME: &str =
    "name = \"t\"\n[colors]\nfg = \"#ffffff\"\nbad = \"red\"\n[phases]\nsynthesis = \"#102030\"\n";

proptest! {
    #![proptest_config(config(96))]

    #[test]
    fn theme_parser_never_panics(text in texty()) {
        let _ = ThemeSet::parse_source("t.toml", &text);
    }

    #[test]
    fn theme_parser_survives_edits(e in edits()) {
        let bytes = apply(THEME.as_bytes().to_vec(), &e);
        if let Err(m) = ThemeSet::parse_source("t.toml", &String::from_utf8_lossy(&bytes)) {
            prop_assert!(!m.contains('\n') && m.starts_with("t.toml"), "{}", m);
        }
    }
}
