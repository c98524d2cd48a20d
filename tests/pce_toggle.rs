//! The `pce` toggle end to end on the CPU backend: proofs byte-identical to normal synthesis (the independent
//! reference: the same run with `pce` off) for several toggle combinations and samples over several sectors,
//! the record made once per shape and reused (`pce_record` once, `spmv` per later circuit), the disk record
//! reused by a fresh engine, a corrupt or foreign disk record warned about and rebuilt, and a record of
//! another shape never used.

use std::path::{Path, PathBuf};

use cuzk::backend::cpu::backend::CpuBackend;
use cuzk::circuits::Sample;
use cuzk::cs::{Pce, PceError, ShapeCounter};
use cuzk::engine::{pce_file, Engine, RunCtl, RunResult, RunSpec};
use cuzk::groth16::prover::{synthesize_with, PceSlot, ProveError};
use cuzk::timeline::record::{RecordEvent, RunRecord};
use cuzk::vocab::{CancelToken, Phase, Probe, Toggle, Toggles};

fn temp(name: &str) -> PathBuf {
    let d = std::env::temp_dir().join(format!("cuzk-pce-{name}-{}", std::process::id()));
    let _ = std::fs::remove_dir_all(&d);
    std::fs::create_dir_all(&d).expect("temp dir");
    d
}

/// Every test of this file shares one params cache (each sample's params are built once).
fn use_test_cache() {
    std::env::set_var(
        "CUZK_CACHE",
        std::env::temp_dir().join(format!("cuzk-pce-cache-{}", std::process::id())),
    );
}

fn toggles(set: &str) -> Toggles {
    let mut t = Toggles::default();
    t.apply_set(set).expect("toggles");
    t
}

fn tiny(sectors: usize) -> Sample {
    let mut s = Sample::load(Path::new("samples/porep-tiny.toml")).expect("sample");
    s.sectors = sectors;
    s
}

/// A one-compression SHA-256 chain, one partition per sector.
fn chain(sectors: usize) -> Sample {
    let text = format!(
        "name = \"chain-1\"\nseed = 3\npartitions = 1\nsectors = {sectors}\n[circuit]\nkind = \"sha256-chain\"\n\
         compressions = 1\n"
    );
    Sample::parse(Path::new("chain-1.toml"), &text).expect("sample")
}

fn run(engine: &Engine, s: &Sample, t: Toggles, repeats: usize) -> RunResult {
    use_test_cache();
    let backend = CpuBackend::new();
    let spec = RunSpec { sample: s, toggles: t, backend: &backend, repeats, mem_budget: 1 << 32 };
    engine.run(&spec, &RunCtl::quiet(CancelToken::new())).expect("run")
}

fn of(r: &RunRecord, p: Phase) -> Vec<&RecordEvent> {
    r.events.iter().filter(|e| e.phase == p.name()).collect()
}

fn proofs(r: &RunRecord) -> Vec<&str> {
    r.proofs.iter().map(|p| p.hex.as_str()).collect()
}

/// Every `inner` event lies inside a `synthesis` event of the same circuit and lane.
fn nested_in_synthesis(r: &RunRecord, inner: Phase) {
    for e in of(r, inner) {
        assert!(
            of(r, Phase::Synthesis).iter().any(|s| s.circuit == e.circuit
                && s.lane == e.lane
                && s.start_us <= e.start_us
                && e.start_us + e.dur_us <= s.start_us + s.dur_us),
            "{inner} of circuit {:?} outside its synthesis",
            e.circuit
        );
    }
}

#[test]
fn proofs_are_identical_with_pce_on_and_off_and_the_record_is_reused() {
    let repeats = 2;
    for (s, sets) in [
        (tiny(2), ["", "pipeline=off,a1=on,a2=on", "batch=2,d4=off,a4=off"]),
        (chain(2), ["", "pipeline=off", "batch=2,a2=on"]),
    ] {
        // One reference per sample, normal synthesis with default toggles: toggles never change proofs, so
        // every pce=on run, whatever its other toggles, must give exactly these bytes.
        let off = run(&Engine::new().with_pce_dir(None), &s, toggles("pce=off"), repeats);
        let off = &off.record;
        assert!(off.all_verified(), "{}: a proof failed with pce off", s.name);
        assert!(!off.toggles.on(Toggle::Pce));
        // Normal synthesis never touches a record.
        assert!(of(off, Phase::PceRecord).is_empty() && of(off, Phase::Spmv).is_empty(), "{}", s.name);
        for set in sets {
            let on = run(&Engine::new().with_pce_dir(None), &s, toggles(&format!("{set},pce=on")), repeats);
            let on = &on.record;
            let what = format!("{} [{set}]", s.name);
            assert!(on.all_verified(), "{what}: a proof failed");
            assert_eq!(proofs(on), proofs(off), "{what}: pce changed the proofs");
            assert!(on.toggles.on(Toggle::Pce));
            // With pce the first circuit records it, every other circuit of every repeat is witness-only
            // synthesis + SpMV.
            let circuits = s.sectors * s.circuits_per_sector() * repeats;
            let rec = of(on, Phase::PceRecord);
            assert_eq!(rec.len(), 1, "{what}: pce_record once");
            assert_eq!(rec[0].args.get("source").map(String::as_str), Some("record"), "{what}");
            assert_eq!((rec[0].circuit, rec[0].repeat), (Some(0), 0), "{what}: recorded from circuit 0");
            // A later circuit whose synthesis began while circuit 0 recorded is synthesized normally (its
            // span says so); every other one takes the record.
            let elsewhere = of(on, Phase::Synthesis)
                .iter()
                .filter(|e| e.args.get("pce").map(String::as_str) == Some("recorded elsewhere"))
                .count();
            assert_eq!(of(on, Phase::Spmv).len() + elsewhere, circuits - 1, "{what}: spmv per later circuit");
            assert_eq!(of(on, Phase::Synthesis).len(), circuits, "{what}: synthesis per circuit");
            nested_in_synthesis(on, Phase::Spmv);
            nested_in_synthesis(on, Phase::PceRecord);
        }
    }
}

#[test]
fn disk_record_is_reused_and_a_corrupt_one_rebuilt() {
    let dir = temp("disk");
    let s = tiny(2);
    let t = toggles("pce=on");
    let reference = run(&Engine::new().with_pce_dir(None), &s, toggles("pce=off"), 1);
    let want = proofs(&reference.record);

    // First engine: records and stores.
    let first = run(&Engine::new().with_pce_dir(Some(dir.clone())), &s, t, 1);
    let file = pce_file(&dir, first.params_info.digest);
    let bytes = std::fs::read(&file).expect("record stored");
    let stored = Pce::from_bytes_expecting(&bytes, first.params_info.shape, first.params_info.digest)
        .expect("the stored record is valid");
    let circuit = s.sector_circuits(0).swap_remove(0);
    assert_eq!(
        (stored.shape(), stored.digest()),
        ShapeCounter::count_with_digest(&circuit).expect("count"),
        "the file is keyed by the circuit's own structure digest"
    );
    assert!(first.warnings.is_empty(), "{:?}", first.warnings);
    assert_eq!(proofs(&first.record), want);

    // A fresh engine (empty memory) loads it: no recording, every circuit from the SpMV; a record of the
    // same digest in the format before (v1: a SHA-256 trailer) is removed, one of another digest kept.
    let digest = first.params_info.digest;
    let old = dir.join(format!("pce-v1-{digest:016x}.bin"));
    let other = dir.join(format!("pce-v1-{:016x}.bin", digest ^ 1));
    std::fs::write(&old, b"an older record").expect("v1 file");
    std::fs::write(&other, b"another shape's older record").expect("v1 file");
    let second = run(&Engine::new().with_pce_dir(Some(dir.clone())), &s, t, 1);
    assert!(!old.exists() && other.exists(), "the v1 record of this digest goes, another digest's stays");
    let rec = of(&second.record, Phase::PceRecord);
    assert_eq!(rec.len(), 1);
    assert_eq!(rec[0].args.get("source").map(String::as_str), Some("disk"));
    assert_eq!(of(&second.record, Phase::Spmv).len(), 4, "all 4 circuits from the loaded record");
    assert!(second.warnings.is_empty(), "{:?}", second.warnings);
    assert_eq!(proofs(&second.record), want);

    // A flipped byte: detected by the checksum, one warning line naming the file, recorded again.
    let mut bad = bytes.clone();
    let mid = bad.len() / 2;
    bad[mid] ^= 0x10;
    std::fs::write(&file, &bad).expect("corrupt");
    let third = run(&Engine::new().with_pce_dir(Some(dir.clone())), &s, t, 1);
    assert_eq!(third.warnings.len(), 1, "{:?}", third.warnings);
    let w = &third.warnings[0];
    assert!(!w.contains('\n') && w.contains(&file.display().to_string()) && w.contains("rebuilt"), "{w}");
    assert!(w.contains(&PceError::Checksum.to_string()), "{w}");
    let sources: Vec<_> =
        of(&third.record, Phase::PceRecord).iter().filter_map(|e| e.args.get("source").cloned()).collect();
    assert_eq!(sources, ["disk", "record"]);
    assert_eq!(std::fs::read(&file).expect("rewritten"), bytes, "the rebuilt record is the original");
    assert_eq!(proofs(&third.record), want);
    let _ = std::fs::remove_dir_all(&dir);
}

#[test]
fn a_record_of_another_shape_is_never_used() {
    let dir = temp("foreign");
    let (tiny_s, chain_s) = (tiny(1), chain(2));
    let tiny_c = tiny_s.sector_circuits(0);
    let chain_c = chain_s.sector_circuits(0);
    let (tiny_shape, tiny_digest) = ShapeCounter::count_with_digest(&tiny_c[0]).expect("count");
    let (chain_shape, chain_digest) = ShapeCounter::count_with_digest(&chain_c[0]).expect("count");
    assert_ne!(tiny_digest, chain_digest);
    let (tiny_pce, _) = Pce::record(&tiny_c[0]).expect("record");

    // A slot refuses a record of another shape, and records nothing from a circuit of another shape.
    let slot = PceSlot::new(chain_shape, chain_digest);
    assert!(matches!(slot.put(tiny_pce.clone().into()), Err(PceError::WrongCircuit { .. })));
    assert!(slot.get().is_none());
    let err = synthesize_with(&Probe::silent(), &tiny_c, &toggles("pce=on"), None, 0, Some(&slot), None)
        .map(|_| ())
        .expect_err("a circuit of another shape");
    assert!(matches!(err, ProveError::Pce { circuit: 0, source: PceError::WrongCircuit { .. } }), "{err}");
    assert!(slot.get().is_none(), "the foreign record was not kept");
    // The record itself refuses a witness of another shape.
    assert!(tiny_pce.synthesize(&chain_c[0]).is_err());

    // On disk: porep-tiny's record under the chain's file name is detected, warned about and replaced.
    let file = pce_file(&dir, chain_digest);
    std::fs::write(&file, tiny_pce.to_bytes()).expect("write");
    let reference = run(&Engine::new().with_pce_dir(None), &chain_s, toggles("pce=off"), 1);
    let r = run(&Engine::new().with_pce_dir(Some(dir.clone())), &chain_s, toggles("pce=on"), 1);
    assert_eq!(r.params_info.digest, chain_digest);
    assert_eq!(r.warnings.len(), 1, "{:?}", r.warnings);
    assert!(r.warnings[0].contains(&format!("{tiny_digest:#018x}")), "{}", r.warnings[0]);
    assert_eq!(proofs(&r.record), proofs(&reference.record));
    let now = std::fs::read(&file).expect("rewritten");
    let (chain_pce, _) = Pce::record(&chain_c[0]).expect("record");
    assert_eq!(now, chain_pce.to_bytes(), "the file now holds the chain's own record");
    assert_eq!(tiny_pce.shape(), tiny_shape);
    let _ = std::fs::remove_dir_all(&dir);
}

/// While one call records a shape, a call of the same shape synthesizes normally rather than wait for the
/// record: its `synthesis` span says so, it has no `spmv`, and its assignment is normal synthesis's, value
/// for value (so its proof is the same bytes); the recording call still fills the slot.
#[test]
fn a_call_synthesizes_normally_while_another_records_its_shape() {
    use cuzk::groth16::prover::synthesize;
    use cuzk::timeline::{Capture, CaptureOpts};
    use std::time::{Duration, Instant};
    // 20 compressions (~0.5 M rows): the record takes long enough for the second call to find it under way.
    let text = "name = \"chain-20\"\nseed = 3\npartitions = 1\nsectors = 2\n[circuit]\n\
                kind = \"sha256-chain\"\ncompressions = 20\n";
    let s = Sample::parse(Path::new("chain-20.toml"), text).expect("sample");
    let (c0, c1) = (s.sector_circuits(0), s.sector_circuits(1));
    let (shape, digest) = ShapeCounter::count_with_digest(&c0[0]).expect("count");
    let slot = PceSlot::new(shape, digest);
    let t = toggles("pce=on");
    let cap = Capture::begin(CaptureOpts::default());
    let probe = Probe::new(cap.sink(), CancelToken::new());
    let (recorded, meanwhile) = std::thread::scope(|sc| {
        let a = sc.spawn(|| synthesize_with(&Probe::silent(), &c0, &t, None, 0, Some(&slot), None));
        let t0 = Instant::now();
        while !slot.is_recording() && !a.is_finished() {
            assert!(t0.elapsed() < Duration::from_secs(60), "the first call never began recording");
            std::thread::sleep(Duration::from_millis(1));
        }
        assert!(slot.is_recording(), "the first call ended before it was seen recording");
        let b = synthesize_with(&probe, &c1, &t, None, 1, Some(&slot), None);
        (a.join().expect("recording thread"), b)
    });
    recorded.expect("the recording call");
    assert!(!slot.is_recording());
    assert!(slot.get().is_some_and(|p| p.matches(shape, digest)), "the first call filled the slot");
    let got = meanwhile.expect("the second call").swap_remove(0);
    let want =
        synthesize(&Probe::silent(), &c1, &toggles("pce=off"), None, 1).expect("normal").swap_remove(0);
    assert!(got.a == want.a && got.b == want.b && got.c == want.c, "a/b/c differ");
    assert_eq!(got.aux_assignment, want.aux_assignment);
    assert_eq!(got.input_assignment, want.input_assignment);
    assert_eq!(
        (got.a_aux_density, got.b_input_density, got.b_aux_density),
        (want.a_aux_density, want.b_input_density, want.b_aux_density)
    );
    drop(probe);
    let (events, _) = cap.finish();
    assert!(!events.iter().any(|e| e.site.phase == Phase::Spmv), "no SpMV in the second call");
    let synth: Vec<_> = events.iter().filter(|e| e.site.phase == Phase::Synthesis).collect();
    assert_eq!(synth.len(), 1, "{synth:?}");
    assert_eq!(synth[0].site.circuit, Some(1));
    assert!(synth[0].site.args.iter().any(|(k, v)| *k == "pce" && v == "recorded elsewhere"), "{synth:?}");
}

/// A slot that records in striped passes (`PceSlot::set_record_passes`, what the engine picks for cuzk's own
/// circuits from 2^20 rows): the record is the one-pass record, every circuit's assignment (circuit 0's now
/// from the SpMV too) is normal synthesis's, and the `pce_record` span names its passes.
#[test]
fn a_striped_recording_gives_the_one_pass_record_and_normal_assignments() {
    use cuzk::cs::{Pce, RecordOptions};
    use cuzk::groth16::prover::synthesize;
    use cuzk::timeline::{Capture, CaptureOpts};
    let text = "name = \"chain-3\"\nseed = 7\npartitions = 3\n[circuit]\nkind = \"sha256-chain\"\ncompressions = 3\n";
    let s = Sample::parse(Path::new("chain-3.toml"), text).expect("sample");
    let cs = s.sector_circuits(0);
    let (shape, digest) = ShapeCounter::count_with_digest(&cs[0]).expect("count");
    let slot = PceSlot::new(shape, digest);
    slot.set_record_passes(3);
    let cap = Capture::begin(CaptureOpts::default());
    let probe = Probe::new(cap.sink(), CancelToken::new());
    let got = synthesize_with(&probe, &cs, &toggles("pce=on"), None, 0, Some(&slot), None).expect("striped");
    let want = synthesize(&Probe::silent(), &cs, &toggles("pce=off"), None, 0).expect("normal");
    for (i, (g, w)) in got.iter().zip(&want).enumerate() {
        assert!(g.a == w.a && g.b == w.b && g.c == w.c, "circuit {i}: a/b/c differ");
        assert_eq!(g.aux_assignment, w.aux_assignment, "circuit {i}");
        assert_eq!(g.input_assignment, w.input_assignment, "circuit {i}");
    }
    let (one, _) = Pce::record_with(&cs[0], RecordOptions::default()).expect("one pass");
    assert!(slot.get().is_some_and(|p| *p == one), "the striped record is the one-pass record");
    drop(probe);
    let (events, _) = cap.finish();
    let rec: Vec<_> = events.iter().filter(|e| e.site.phase == Phase::PceRecord).collect();
    assert_eq!(rec.len(), 1, "{rec:?}");
    assert!(rec[0].site.args.iter().any(|(k, v)| *k == "passes" && v == "3"), "{rec:?}");
    let spmv = events.iter().filter(|e| e.site.phase == Phase::Spmv).count();
    assert_eq!(spmv, 3, "circuit 0's assignment comes from the SpMV as the others'");
}

/// A fresh record is stored on a thread of its own: the call returns with the assignments, and once
/// `wait_stored` returns the file holds the record byte for byte. A store that cannot be made (its folder is
/// a file) adds one warning line naming the file, and the call's assignments are unaffected.
#[test]
fn a_record_is_stored_beside_the_call_and_a_failed_store_is_one_warning() {
    let dir = temp("store");
    let s = tiny(1);
    let cs = s.sector_circuits(0);
    let (shape, digest) = ShapeCounter::count_with_digest(&cs[0]).expect("count");
    let want = cuzk::groth16::prover::synthesize(&Probe::silent(), &cs, &toggles("pce=off"), None, 0)
        .expect("normal");
    let file = pce_file(&dir, digest);
    let slot = PceSlot::with_file(shape, digest, file.clone());
    let got = synthesize_with(&Probe::silent(), &cs, &toggles("pce=on"), None, 0, Some(&slot), None)
        .expect("recorded");
    assert!(got.iter().zip(&want).all(|(g, w)| g.a == w.a && g.b == w.b && g.c == w.c));
    slot.wait_stored();
    assert!(slot.take_warnings().is_empty());
    let stored = std::fs::read(&file).expect("stored once waited for");
    assert_eq!(stored, slot.get().expect("the record").to_bytes(), "the file is the record");

    let blocker = dir.join("not-a-folder");
    std::fs::write(&blocker, b"a file where the folder should be").expect("blocker");
    let bad = blocker.join("pce.bin");
    let slot = PceSlot::with_file(shape, digest, bad.clone());
    let got = synthesize_with(&Probe::silent(), &cs, &toggles("pce=on"), None, 0, Some(&slot), None)
        .expect("recorded, store or not");
    assert!(got.iter().zip(&want).all(|(g, w)| g.a == w.a && g.b == w.b && g.c == w.c));
    slot.wait_stored();
    // The failed read before the recording warns too ("unreadable"); the store adds exactly one line.
    let w = slot.take_warnings();
    let stores: Vec<_> = w.iter().filter(|l| l.contains("not stored")).collect();
    assert_eq!(stores.len(), 1, "{w:?}");
    assert!(stores[0].contains(&bad.display().to_string()) && !stores[0].contains('\n'), "{w:?}");
    let _ = std::fs::remove_dir_all(&dir);
}
