//! Repeat statistics, the noise verdict and the compare/ablate tables.

use std::collections::BTreeMap;

use cuzk::cli::tables::{ablation_json, compare_json, render_ablation, render_compare};
use cuzk::engine::compare::{compare, delta_text, shape_mismatch, AblationEntry, NoVerdict, WALL};
use cuzk::engine::stats::{summarize, t_critical_975, verdict, welch, Verdict};
use cuzk::timeline::record::{HostInfo, PhaseTotals, RepeatSummary, RunRecord, SampleInfo, SCHEMA};
use cuzk::vocab::Toggles;
use rand::{Rng, SeedableRng};
use rand_chacha::ChaCha8Rng;

/// `n` samples uniform in `center ± spread`.
fn samples(seed: u64, n: usize, center: f64, spread: f64) -> Vec<f64> {
    let mut rng = ChaCha8Rng::seed_from_u64(seed);
    (0..n).map(|_| center + rng.gen_range(-spread..=spread)).collect()
}

#[test]
fn summary_basics() {
    assert_eq!(summarize(&[]), None);
    let s = summarize(&[4.0, 1.0, 3.0, 2.0]).unwrap();
    assert_eq!((s.n, s.median, s.min, s.max, s.mean), (4, 2.5, 1.0, 4.0, 2.5));
    // variance = (2.25 + 0.25 + 0.25 + 2.25) / 3 = 5/3
    assert!((s.stddev - (5.0f64 / 3.0).sqrt()).abs() < 1e-12);
    let one = summarize(&[7.0]).unwrap();
    assert_eq!((one.n, one.median, one.stddev), (1, 7.0, 0.0));
    assert_eq!(summarize(&[3.0, 1.0, 2.0]).unwrap().median, 2.0);
}

#[test]
fn clear_changes_are_detected() {
    for seed in 0..20 {
        let base = samples(seed, 5, 100.0, 2.0);
        let slow = samples(seed + 1000, 5, 120.0, 2.0);
        let fast = samples(seed + 2000, 5, 80.0, 2.0);
        assert_eq!(verdict(&base, &slow), Verdict::Slower, "seed {seed}");
        assert_eq!(verdict(&base, &fast), Verdict::Faster, "seed {seed}");
        assert_eq!(verdict(&slow, &base), Verdict::Faster, "seed {seed}");
    }
}

#[test]
fn changes_inside_the_spread_are_noise() {
    for seed in 0..20 {
        let base = samples(seed, 5, 100.0, 10.0);
        let cand = samples(seed + 1000, 5, 103.0, 10.0);
        assert_eq!(verdict(&base, &cand), Verdict::WithinNoise, "seed {seed}");
        assert_eq!(verdict(&base, &base), Verdict::WithinNoise, "seed {seed}");
    }
    // +5% of medians, but the candidate's median lies inside the baseline's range.
    assert_eq!(verdict(&[90.0, 100.0, 110.0], &[95.0, 105.0, 115.0]), Verdict::WithinNoise);
}

#[test]
fn band_and_zero_spread() {
    let base = [100.0; 5];
    assert_eq!(verdict(&base, &[100.5; 5]), Verdict::WithinNoise, "0.5% is inside the 1% band");
    assert_eq!(verdict(&base, &[102.0; 5]), Verdict::Slower, "2% with no spread counts");
    assert_eq!(verdict(&base, &[98.0; 5]), Verdict::Faster);
    assert_eq!(verdict(&[], &base), Verdict::WithinNoise);
}

#[test]
fn welch_test_can_veto() {
    // Medians are outside each other's ranges, but one wild candidate repeat makes the means
    // indistinguishable: t ≈ 1.08 with df ≈ 2 (critical 4.303).
    let base = [100.0, 101.0, 102.0];
    let cand = [103.0, 104.0, 200.0];
    let w = welch(&base, &cand).unwrap();
    assert!(!w.rejects(), "{w:?}");
    assert_eq!(verdict(&base, &cand), Verdict::WithinNoise);
    // Without the outlier the same medians are a change.
    assert_eq!(verdict(&base, &[103.0, 104.0, 105.0]), Verdict::Slower);
    // With n = 2 there is no Welch test: range and band decide.
    assert_eq!(verdict(&base[..2], &cand[..2]), Verdict::Slower);
}

#[test]
fn single_samples_need_five_percent() {
    assert_eq!(verdict(&[100.0], &[120.0]), Verdict::Slower);
    assert_eq!(verdict(&[100.0], &[80.0]), Verdict::Faster);
    assert_eq!(verdict(&[100.0], &[103.0]), Verdict::WithinNoise);
    assert_eq!(verdict(&[100.0], &[97.0]), Verdict::WithinNoise);
    // One single-sample side is enough to demand 5%.
    assert_eq!(verdict(&[100.0; 5], &[103.0]), Verdict::WithinNoise);
    assert_eq!(verdict(&[100.0; 5], &[106.0]), Verdict::Slower);
}

#[test]
fn welch_matches_hand_computation() {
    let base = [10.0, 12.0, 14.0]; // mean 12, s² = (4 + 0 + 4) / 2 = 4
    let cand = [20.0, 24.0, 28.0, 32.0]; // mean 26, s² = (36 + 4 + 4 + 36) / 3 = 80/3
    let (qb, qc) = (4.0 / 3.0, (80.0 / 3.0) / 4.0); // s²/n per side
    let t = (26.0 - 12.0) / f64::sqrt(qb + qc);
    let df = (qb + qc) * (qb + qc) / (qb * qb / 2.0 + qc * qc / 3.0);
    let w = welch(&base, &cand).unwrap();
    assert!((w.t - t).abs() < 1e-12, "{} vs {t}", w.t);
    assert!((w.df - df).abs() < 1e-12, "{} vs {df}", w.df);
    assert!((t - 4.949747).abs() < 1e-6 && (df - 4.075472).abs() < 1e-6);
    assert!(w.rejects(), "t 4.95 > crit(4.08) ≈ 2.77");
    assert!(welch(&[1.0], &cand).is_none());
}

#[test]
fn t_quantiles() {
    assert!((t_critical_975(1.0) - 12.706).abs() < 1e-9);
    assert!((t_critical_975(10.0) - 2.228).abs() < 1e-9);
    assert!((t_critical_975(30.0) - 2.042).abs() < 1e-9);
    let mid = t_critical_975(4.5);
    assert!(mid < 2.776 && mid > 2.571, "{mid}");
    assert!((t_critical_975(1000.0) - 1.962).abs() < 1e-3);
    assert!((t_critical_975(1e9) - 1.96).abs() < 1e-6);
    assert!((t_critical_975(f64::INFINITY) - 1.96).abs() < 1e-12);
    let mut last = f64::INFINITY;
    for i in 2..500 {
        let q = t_critical_975(i as f64 / 2.0);
        assert!(q <= last && q >= 1.96, "not monotone at df {}", i as f64 / 2.0);
        last = q;
    }
}

#[test]
fn verdict_words() {
    assert_eq!(Verdict::WithinNoise.to_string(), "within noise");
    assert_eq!(Verdict::Faster.to_string(), "faster");
    assert_eq!(serde_json::to_value(Verdict::WithinNoise).unwrap(), "within_noise");
    assert_eq!(serde_json::to_value(Verdict::Slower).unwrap(), "slower");
    let back: Verdict = serde_json::from_str("\"faster\"").unwrap();
    assert_eq!(back, Verdict::Faster);
}

/// A record whose repeats have the given wall times (ms) and per-phase sums (ms).
fn record(id: &str, walls: &[f64], phases: &[(&str, &[f64])]) -> RunRecord {
    let repeats = walls
        .iter()
        .enumerate()
        .map(|(i, w)| {
            let mut map = BTreeMap::new();
            for (name, vals) in phases {
                let us = (vals[i] * 1000.0) as u64;
                map.insert(name.to_string(), PhaseTotals { count: 1, sum_us: us, span_us: us });
            }
            RepeatSummary { wall_us: (w * 1000.0) as u64, phases: map }
        })
        .collect();
    RunRecord {
        schema: SCHEMA.to_string(),
        id: id.to_string(),
        started: "2025-01-01T00:00:00Z".to_string(),
        sample: SampleInfo::default(),
        toggles: Toggles::default(),
        backend: "cpu".to_string(),
        devices: Vec::new(),
        host: HostInfo::default(),
        events: Vec::new(),
        repeats,
        wall_us: 0,
        peak_rss_bytes: 0,
        dropped_events: 0,
        proofs: Vec::new(),
        outcome: Default::default(),
        error: String::new(),
        counters: Vec::new(),
        version: "test".to_string(),
    }
}

fn records() -> (RunRecord, RunRecord) {
    let base = record(
        "base-run",
        &[1000.0, 1010.0, 990.0],
        &[
            ("verify", &[50.0, 51.0, 49.0]),
            ("synthesis", &[400.0, 404.0, 396.0]),
            ("zz_custom", &[5.0, 5.0, 5.0]),
            ("pin_abc", &[10.0, 10.0, 10.0]),
            ("tail_msm", &[200.0, 202.0, 198.0]),
        ],
    );
    let cand = record(
        "cand-run",
        &[800.0, 805.0, 795.0],
        &[
            ("synthesis", &[480.0, 485.0, 475.0]),
            ("verify", &[50.0, 51.0, 49.0]),
            ("tail_msm", &[100.0, 101.0, 99.0]),
            ("zz_custom", &[5.0, 5.0, 5.0]),
            ("batch_add", &[7.0, 7.0, 7.0]),
        ],
    );
    (base, cand)
}

#[test]
fn compare_rows() {
    let (base, cand) = records();
    let rows = compare(&base, &cand);
    let names: Vec<&str> = rows.iter().map(|r| r.phase.as_str()).collect();
    assert_eq!(names, ["synthesis", "pin_abc", "batch_add", "tail_msm", "verify", "zz_custom", WALL]);
    let row = |p: &str| rows.iter().find(|r| r.phase == p).unwrap();

    let syn = row("synthesis");
    assert_eq!(syn.base.unwrap().median, 400.0);
    assert_eq!(syn.cand.unwrap().median, 480.0);
    assert!((syn.delta_pct.unwrap() - 20.0).abs() < 1e-9);
    assert!((syn.ratio.unwrap() - 1.2).abs() < 1e-12);
    assert_eq!(syn.verdict, Some(Verdict::Slower));

    let tail = row("tail_msm");
    assert!((tail.delta_pct.unwrap() + 50.0).abs() < 1e-9);
    assert_eq!(tail.verdict, Some(Verdict::Faster));
    assert_eq!(row("verify").verdict, Some(Verdict::WithinNoise));

    let pin = row("pin_abc");
    assert!(pin.cand.is_none() && pin.base.is_some() && pin.verdict.is_none() && pin.delta_pct.is_none());
    let add = row("batch_add");
    assert!(add.base.is_none() && add.cand.unwrap().median == 7.0 && add.ratio.is_none());

    let wall = rows.last().unwrap();
    assert_eq!((wall.base.unwrap().n, wall.base.unwrap().min, wall.cand.unwrap().max), (3, 990.0, 805.0));
    assert!((wall.ratio.unwrap() - 0.8).abs() < 1e-12);
    assert_eq!(wall.verdict, Some(Verdict::Faster));
}

#[test]
fn phase_missing_from_some_repeats_counts_zero() {
    // The baseline pins a/b/c in repeat 0 only; the candidate in every repeat.
    let walls = [100.0; 5];
    let base = record("b", &walls, &[("pin_abc", &[30.0, 0.0, 0.0, 0.0, 0.0])]);
    let mut base2 = base.clone();
    for r in base2.repeats.iter_mut().skip(1) {
        r.phases.clear();
    }
    let cand = record("c", &walls, &[("pin_abc", &[35.0; 5])]);
    let rows = compare(&base2, &cand);
    assert_eq!(rows[0].phase, "pin_abc");
    assert_eq!(rows[0].base.unwrap().median, 0.0);
    assert_eq!(rows[0].base.unwrap().n, 5);
    assert_eq!(rows[0].delta_pct, None, "no percentage against a zero median");
    // base mean 6, s²/n = 36; cand 35 flat: t = 29/6 ≈ 4.8 > 2.776 (df 4).
    assert_eq!(rows[0].verdict, Some(Verdict::Slower));
    assert_eq!(rows[1].phase, WALL);
    assert_eq!(rows[1].verdict, Some(Verdict::WithinNoise));
}

#[test]
fn setup_phases_are_outside_the_comparison() {
    // Records before `params_gen` existed counted `srs_load` into their first repeat.
    let walls = [100.0; 3];
    let base = record("b", &walls, &[("srs_load", &[3000.0, 0.0, 0.0]), ("synthesis", &[50.0; 3])]);
    let cand = record("c", &walls, &[("params_gen", &[9000.0, 0.0, 0.0]), ("synthesis", &[50.0; 3])]);
    let names: Vec<String> = compare(&base, &cand).into_iter().map(|r| r.phase).collect();
    assert_eq!(names, ["synthesis", WALL]);
}

/// Two single-repeat runs: Δ shows, the verdict does not (n=1), however large the change.
#[test]
fn no_verdict_below_three_repeats_a_side() {
    let base = record("b", &[100.0], &[("synthesis", &[40.0]), ("tail_msm", &[40.0])]);
    let cand = record("c", &[150.0], &[("synthesis", &[60.0]), ("tail_msm", &[40.0])]);
    for r in compare(&base, &cand) {
        assert_eq!(r.verdict, None, "{}", r.phase);
        assert_eq!(r.no_verdict, Some(NoVerdict::FewRepeats(1)), "{}", r.phase);
        assert!(r.delta_pct.is_some(), "{}: Δ is still shown", r.phase);
    }
    let text = render_compare(&compare(&base, &cand), "b", "c");
    let syn = text.lines().find(|l| l.starts_with("synthesis")).unwrap();
    assert!(syn.contains("+50.0%") && syn.ends_with("n=1"), "{syn:?}");
    let two = record("b2", &[100.0, 101.0], &[("synthesis", &[40.0, 41.0])]);
    let three = record("c3", &[150.0; 3], &[("synthesis", &[60.0; 3])]);
    assert_eq!(compare(&two, &three)[0].no_verdict, Some(NoVerdict::FewRepeats(2)));
}

/// Rows below 1 ms, or below 1% of the wall, get no verdict: `batch_add` 0.0 vs 0.0 ms was "+50% slower".
#[test]
fn rows_below_the_floor_get_no_verdict() {
    let walls = [1000.0; 3];
    let base = record("b", &walls, &[("batch_add", &[0.02, 0.02, 0.02]), ("prep_msm", &[5.0; 3])]);
    let cand = record("c", &walls, &[("batch_add", &[0.03, 0.03, 0.03]), ("prep_msm", &[9.0; 3])]);
    let rows = compare(&base, &cand);
    for p in ["batch_add", "prep_msm"] {
        let r = rows.iter().find(|r| r.phase == p).unwrap();
        assert_eq!((r.verdict, r.no_verdict), (None, Some(NoVerdict::BelowFloor)), "{p}");
    }
    assert_eq!(rows.last().unwrap().verdict, Some(Verdict::WithinNoise), "the wall always gets one");
}

/// Runs of different circuit shapes: medians only, no Δ, no verdict, and one line saying why.
#[test]
fn other_shapes_get_numbers_without_verdicts() {
    let walls = [100.0; 3];
    let base = record("b", &walls, &[("batch_add", &[0.01; 3])]);
    let mut cand = record("c", &[900.0; 3], &[("batch_add", &[907.0; 3])]);
    cand.sample.constraints = 219_498;
    cand.sample.name = "porep-mini".into();
    let rows = compare(&base, &cand);
    for r in &rows {
        assert_eq!((r.verdict, r.delta_pct, r.no_verdict), (None, None, Some(NoVerdict::OtherShape)));
        assert!(r.base.is_some() && r.cand.is_some());
    }
    let why = shape_mismatch(&base, &cand).expect("shapes differ");
    assert!(why.contains("porep-mini") && why.contains("no verdicts") && !why.contains('\n'), "{why}");
    assert_eq!(shape_mismatch(&base, &base), None);
    assert_eq!(delta_text(9_072_500.0), ">+999%");
}

#[test]
fn compare_table_and_json() {
    let (base, cand) = records();
    let rows = compare(&base, &cand);
    let text = render_compare(&rows, "base-run", "cand-run");
    for line in text.lines() {
        assert!(line.chars().count() <= 100, "too wide: {line:?}");
    }
    for r in &rows {
        assert!(text.lines().any(|l| l.starts_with(r.phase.as_str())), "missing {}", r.phase);
    }
    let syn = text.lines().find(|l| l.starts_with("synthesis")).unwrap();
    for cell in ["400.0", "396.0-404.0", "480.0", "+20.0%", "1.200", "slower"] {
        assert!(syn.contains(cell), "{cell} not in {syn:?}");
    }
    assert!(text.lines().find(|l| l.starts_with("pin_abc")).unwrap().contains("base only"));
    assert!(text.lines().find(|l| l.starts_with("verify")).unwrap().ends_with("within noise"));
    assert!(text.contains("base-run") && text.contains("cand-run"));

    let json = compare_json(&rows);
    let arr = json.as_array().unwrap();
    assert_eq!(arr.len(), rows.len());
    let s = &arr[0];
    assert_eq!(s["phase"], "synthesis");
    assert_eq!(s["base"]["median_ms"], 400.0);
    assert_eq!(s["base"]["min_ms"], 396.0);
    assert_eq!(s["base"]["max_ms"], 404.0);
    assert_eq!(s["base"]["n"], 3);
    assert_eq!(s["cand"]["median_ms"], 480.0);
    assert!((s["delta_pct"].as_f64().unwrap() - 20.0).abs() < 1e-9);
    assert!((s["ratio"].as_f64().unwrap() - 1.2).abs() < 1e-12);
    assert_eq!(s["verdict"], "slower");
    let pin = &arr[1];
    assert!(pin["cand"].is_null() && pin["delta_pct"].is_null() && pin["verdict"].is_null());
    assert_eq!(arr.last().unwrap()["phase"], "wall");
    assert_eq!(arr[4]["verdict"], "within_noise");
}

#[test]
fn ablation_matrix() {
    let (base, cand) = records();
    let toggles = ["a1", "a2", "a4", "b1", "srs_resident", "pipeline"];
    let entries: Vec<AblationEntry> = toggles
        .iter()
        .map(|t| AblationEntry {
            toggle: t.to_string(),
            record_id: format!("20250101T000000Z-{t}"),
            rows: compare(&base, &cand),
        })
        .collect();
    let text = render_ablation("20250101T000000Z-baseline", &entries);
    for line in text.lines() {
        assert!(line.chars().count() <= 100, "too wide: {line:?}");
        assert!(line.is_ascii(), "not ASCII: {line:?}");
    }
    let header = text.lines().find(|l| l.starts_with("phase")).unwrap();
    for t in toggles {
        assert!(header.contains(t), "{t} not in header");
    }
    let syn = text.lines().find(|l| l.starts_with("synthesis")).unwrap();
    assert_eq!(syn.matches("+20.0%s").count(), 6, "{syn:?}");
    let tail = text.lines().find(|l| l.starts_with("tail_msm")).unwrap();
    assert_eq!(tail.matches("-50.0%f").count(), 6, "{tail:?}");
    assert_eq!(text.lines().find(|l| l.starts_with("verify")).unwrap().matches("+0.0%~").count(), 6);
    assert_eq!(text.lines().find(|l| l.starts_with("pin_abc")).unwrap().matches("gone").count(), 6);
    assert_eq!(text.lines().find(|l| l.starts_with("batch_add")).unwrap().matches("new").count(), 6);
    let order: Vec<&str> = text.lines().filter_map(|l| l.split_whitespace().next()).collect();
    let pos = |p: &str| order.iter().position(|x| *x == p).unwrap();
    assert!(pos("synthesis") < pos("tail_msm") && pos("tail_msm") < pos("zz_custom"));
    assert!(pos("zz_custom") < pos("wall"));

    let json = ablation_json(&entries);
    let a4 = &json["a4"];
    assert_eq!(a4["record"], "20250101T000000Z-a4");
    assert!((a4["phases"]["synthesis"]["delta_pct"].as_f64().unwrap() - 20.0).abs() < 1e-9);
    assert_eq!(a4["phases"]["synthesis"]["verdict"], "slower");
    assert_eq!(a4["phases"]["wall"]["verdict"], "faster");
    assert!(a4["phases"]["pin_abc"]["verdict"].is_null());
    assert_eq!(json.as_object().unwrap().len(), 6);
}

/// `prove --repeat` reports what `compare` reports, in columns that say so: per phase the median over repeats
/// with min–max (not the mean, not the maximum), the wall the median of the repeats' walls, and setup phases
/// apart (their time, no instance count, outside the wall's percentages).
#[test]
fn prove_table_shows_the_median_and_range_compare_reports() {
    let mut rng = ChaCha8Rng::seed_from_u64(15);
    for _ in 0..20 {
        let n = rng.gen_range(3..8);
        // Skewed samples: one slow outlier per run, so the mean and the maximum differ from the median.
        let skewed = |rng: &mut ChaCha8Rng, center: f64| -> Vec<f64> {
            let mut v: Vec<f64> = (0..n).map(|_| center * rng.gen_range(0.9..1.1)).collect();
            v[rng.gen_range(0..n)] *= 3.0;
            v
        };
        let syn = skewed(&mut rng, 400.0);
        let tail = skewed(&mut rng, 150.0);
        let walls: Vec<f64> = syn.iter().zip(&tail).map(|(a, b)| a + b + 10.0).collect();
        let mut rec = record("r", &walls, &[("synthesis", &syn), ("tail_msm", &tail)]);
        rec.events.push(cuzk::timeline::record::RecordEvent {
            phase: "srs_load".into(),
            lane: "setup".into(),
            circuit: None,
            device: None,
            batch: None,
            repeat: 0,
            start_us: 0,
            dur_us: 30_000,
            args: BTreeMap::new(),
        });
        let table = cuzk::cli::prove::phase_table(&rec);
        let head = table.lines().next().unwrap_or_default();
        assert!(
            head.contains("ms/repeat") && head.contains("ms each") && head.contains("min–max ms"),
            "{head}"
        );
        let rows = compare(&rec, &rec);
        for (phase, samples) in [("synthesis", &syn), ("tail_msm", &tail), (WALL, &walls)] {
            let r = rows.iter().find(|r| r.phase == phase).and_then(|r| r.cand).expect("compare row");
            let line = table.lines().find(|l| l.starts_with(phase)).unwrap_or_else(|| panic!("{table}"));
            let cells: Vec<&str> = line.split_whitespace().collect();
            let median = if phase == WALL { cells[1] } else { cells[2] };
            assert_eq!(median, format!("{:.1}", r.median), "{phase}: {line}");
            if phase != WALL {
                // "ms each": the repeat's sum over its instances (the count column).
                let count: f64 = cells[1].parse().expect("count");
                assert_eq!(cells[3], format!("{:.1}", r.median / count), "{phase}: {line}");
            }
            assert!(line.ends_with(&format!("{:.1}–{:.1}", r.min, r.max)), "{phase}: {line}");
            let mean = samples.iter().sum::<f64>() / n as f64;
            assert!((r.median - mean).abs() > 0.05 && r.median < r.max, "the samples tell median from mean");
        }
        let setup = table.lines().find(|l| l.starts_with("srs_load")).expect("setup row");
        assert_eq!(setup.split_whitespace().collect::<Vec<_>>(), ["srs_load", "30.0", "setup"], "{setup}");
    }
}

/// The device lanes' busy and idle time: the union of a `gpu<d>` lane's spans (overlaps counted once) and
/// the gaps between its first and last span; other lanes (the host's, the SRS copy's) and spans of another
/// repeat do not count; the table's rows say the same.
#[test]
fn device_lanes_busy_and_idle() {
    let mut rng = ChaCha8Rng::seed_from_u64(21);
    for _ in 0..20 {
        let mut rec = record("d", &[1000.0, 1000.0], &[("ntt_msm_h", &[10.0, 10.0])]);
        let ev = |lane: &str, device: Option<u64>, repeat: u32, start_us: u64, dur_us: u64| {
            cuzk::timeline::record::RecordEvent {
                phase: "ntt_msm_h".into(),
                lane: lane.into(),
                circuit: None,
                device,
                batch: None,
                repeat,
                start_us,
                dur_us,
                args: BTreeMap::new(),
            }
        };
        // Repeat 0 on gpu0: spans at random, some overlapping; covered time counted on a 1-µs grid here.
        let mut grid = vec![false; 200_000];
        let (mut first, mut last) = (u64::MAX, 0);
        for _ in 0..rng.gen_range(1..12) {
            let (s, d) = (rng.gen_range(0..150_000u64), rng.gen_range(1..40_000u64));
            rec.events.push(ev("gpu0", Some(0), 0, s, d));
            grid[s as usize..(s + d) as usize].iter_mut().for_each(|g| *g = true);
            (first, last) = (first.min(s), last.max(s + d));
        }
        let covered = grid.iter().filter(|&&g| g).count() as u64;
        // Not the lane's: the SRS copies (device set, other lane), host work, another repeat's spans.
        rec.events.push(ev("srs", Some(0), 0, 0, 190_000));
        rec.events.push(ev("prep_msm", None, 0, 0, 190_000));
        rec.events.push(ev("gpu0", Some(0), 1, 5_000, 1_000));
        let (b0, i0) = (covered as f64 / 1e3, (last - first - covered) as f64 / 1e3);
        assert_eq!(rec.device_lanes_ms(), vec![("gpu0".to_string(), vec![b0, 1.0], vec![i0, 0.0])]);
        let (lane, busy, idle) = cuzk::cli::prove::device_medians(&rec).remove(0);
        assert_eq!(lane, "gpu0");
        assert!((busy - (b0 + 1.0) / 2.0).abs() < 1e-9 && (idle - i0 / 2.0).abs() < 1e-9, "{busy} {idle}");
        let table = cuzk::cli::prove::phase_table(&rec);
        let row = |name: &str| {
            let line = table.lines().find(|l| l.starts_with(name)).unwrap_or_else(|| panic!("{table}"));
            line.split_whitespace().nth(2).unwrap_or_default().to_string()
        };
        assert_eq!(row("gpu0 busy"), format!("{busy:.1}"));
        assert_eq!(row("gpu0 idle"), format!("{idle:.1}"));
    }
    // A run without a device lane gets no rows.
    let cpu = record("c", &[10.0], &[("ntt_msm_h", &[5.0])]);
    assert!(cuzk::cli::prove::device_medians(&cpu).is_empty());
    assert!(!cuzk::cli::prove::phase_table(&cpu).contains("busy"));
}

/// `compare` (the CLI's table and the console's) gets each device lane's busy and idle rows before the wall,
/// from every repeat; a record without the lane gives that side no samples.
#[test]
fn compare_has_device_lane_rows() {
    let ev = |repeat: u32, start_us: u64, dur_us: u64| cuzk::timeline::record::RecordEvent {
        phase: "ntt_msm_h".into(),
        lane: "gpu0".into(),
        circuit: None,
        device: Some(0),
        batch: None,
        repeat,
        start_us,
        dur_us,
        args: BTreeMap::new(),
    };
    let walls = [100.0, 100.0, 100.0];
    let mut base = record("b", &walls, &[("ntt_msm_h", &[20.0, 20.0, 20.0])]);
    let mut cand = record("c", &walls, &[("ntt_msm_h", &[20.0, 20.0, 20.0])]);
    for r in 0..3u32 {
        // base: busy 20 ms with 60 ms idle between; candidate: busy 20 ms with 5 + r ms idle.
        base.events.extend([ev(r, 0, 10_000), ev(r, 70_000, 10_000)]);
        cand.events.extend([ev(r, 0, 10_000), ev(r, 15_000 + 1_000 * u64::from(r), 10_000)]);
    }
    let rows = compare(&base, &cand);
    let names: Vec<&str> = rows.iter().map(|r| r.phase.as_str()).collect();
    assert_eq!(names, ["ntt_msm_h", "gpu0 busy", "gpu0 idle", WALL]);
    let idle = &rows[2];
    assert_eq!(idle.base.as_ref().map(|s| s.median), Some(60.0));
    assert_eq!(idle.cand.as_ref().map(|s| s.median), Some(6.0));
    assert_eq!(idle.verdict, Some(Verdict::Faster), "{idle:?}");
    let cpu = record("x", &walls, &[("ntt_msm_h", &[20.0, 20.0, 20.0])]);
    let rows = compare(&cpu, &cand);
    let idle = rows.iter().find(|r| r.phase == "gpu0 idle").expect("row");
    assert!(idle.base.is_none() && idle.cand.is_some() && idle.verdict.is_none(), "{idle:?}");
}
