//! Concurrent synthesis across calls: with three synthesis workers (forced through `CUZK_SYNTH_WORKERS`,
//! which is why this file is its own test binary: the variable is set before any job reads it), calls are
//! synthesized at the same time on their own timeline rows, handed to the prover in order, and the proofs
//! are byte-identical to a run with the pipeline off.

use std::path::Path;

use cuzk::backend::cpu::backend::CpuBackend;
use cuzk::circuits::Sample;
use cuzk::engine::{Engine, RunCtl, RunSpec};
use cuzk::timeline::record::{RecordEvent, RunRecord};
use cuzk::vocab::{CancelToken, Phase, Toggles};

fn record(sectors: usize, set: &str) -> RunRecord {
    let mut t = Toggles::default();
    t.apply_set(set).expect("toggles");
    let mut s = Sample::load(Path::new("samples/porep-tiny.toml")).expect("sample");
    s.sectors = sectors;
    let backend = CpuBackend::new();
    let spec = RunSpec { sample: &s, toggles: t, backend: &backend, repeats: 1, mem_budget: 1 << 32 };
    Engine::new().run(&spec, &RunCtl::quiet(CancelToken::new())).expect("run").record
}

fn overlaps(a: &RecordEvent, b: &RecordEvent) -> bool {
    a.start_us < b.start_us + b.dur_us && b.start_us < a.start_us + a.dur_us
}

#[test]
fn three_workers_synthesize_calls_at_once_and_prove_them_in_order() {
    std::env::set_var("CUZK_SYNTH_WORKERS", "3");
    std::env::set_var(
        "CUZK_CACHE",
        std::env::temp_dir().join(format!("cuzk-synth-workers-cache-{}", std::process::id())),
    );
    let sectors = 6;
    let on = record(sectors, "pipeline=on");
    let off = record(sectors, "pipeline=off");
    assert!(on.all_verified() && off.all_verified());
    let hex = |r: &RunRecord| r.proofs.iter().map(|p| p.hex.clone()).collect::<Vec<_>>();
    assert_eq!(hex(&on), hex(&off), "synthesis workers changed the proofs");
    assert_eq!(on.proofs.len(), sectors * 2, "porep-tiny has two partitions per sector");

    let synth: Vec<&RecordEvent> = on.events.iter().filter(|e| e.phase == Phase::Synthesis.name()).collect();
    // Calls synthesized at the same time: two synthesis spans of different calls overlap, on different rows.
    let concurrent =
        synth.iter().any(|a| synth.iter().any(|b| a.batch != b.batch && overlaps(a, b) && a.lane != b.lane));
    assert!(concurrent, "no two calls were synthesized at once: {synth:#?}");
    // No row holds two overlapping spans (each worker has its own rows).
    for a in &synth {
        for b in &synth {
            if !std::ptr::eq(*a, *b) && a.lane == b.lane {
                assert!(!overlaps(a, b), "two synthesis spans overlap on row {}", a.lane);
            }
        }
    }
    // Proving follows call order: call k's assembly ends before call k+1's starts.
    let asm: Vec<&RecordEvent> = on.events.iter().filter(|e| e.phase == Phase::Assemble.name()).collect();
    assert_eq!(asm.len(), sectors);
    for w in asm.windows(2) {
        assert!(w[0].batch < w[1].batch && w[0].start_us + w[0].dur_us <= w[1].start_us, "{w:#?}");
    }
}
