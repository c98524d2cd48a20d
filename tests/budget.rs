//! Memory before it is spent: the footprint extrapolated from two small counts is exact, every estimate is
//! refused with one line naming the estimate, the limit and the knob, `--mem-budget` is honoured (refused
//! below one call with the minimum; the pipeline off below two, and the record says so), and a real run's peak
//! RSS stays under its estimate.

use std::path::Path;

use cuzk::backend::cpu::backend::CpuBackend;
use cuzk::circuits::Sample;
use cuzk::engine::budget::{self, Footprint, MemLimit, PlanError, RunShape};
use cuzk::engine::footprint;
use cuzk::engine::{Engine, EngineError, RunCtl, RunSpec};
use cuzk::vocab::{CancelToken, Toggle};

fn sample(text: &str) -> Sample {
    Sample::parse(Path::new("samples/t.toml"), text).expect("sample")
}

fn porep(challenges: usize) -> Sample {
    sample(&format!(
        "name = \"p\"\n[circuit]\nkind = \"porep\"\nchallenges = {challenges}\nlayers = 3\nnodes_log2 = 6\n\
         hash = \"poseidon\"\n"
    ))
}

/// The full count of circuit 0, the thing the extrapolation must equal.
fn counted(s: &Sample) -> Footprint {
    footprint::count(&s.sector_circuits(0)[0]).expect("count")
}

#[test]
fn footprint_from_two_small_counts_is_exact() {
    let cases = [
        porep(3),
        porep(5),
        sample("name = \"c\"\n[circuit]\nkind = \"sha256-chain\"\ncompressions = 3\n"),
        sample("name = \"m\"\n[circuit]\nkind = \"poseidon-merkle\"\nheight = 2\npaths = 4\n"),
    ];
    for s in &cases {
        let want = counted(s);
        assert_eq!(footprint::footprint(s), want, "{}", s.name);
        assert!(want.a_aux > 0 && want.b_aux > 0 && want.shape.constraints > 0, "{want:?}");
    }
    // The prover's view agrees on the densities (the params' A and B sizes come from them).
    let s = porep(3);
    let asg =
        cuzk::cs::ProvingAssignment::synthesize::<cuzk::cs::VecStore, _>(&s.sector_circuits(0)[0], None)
            .expect("synthesis");
    let fp = counted(&s);
    assert_eq!(fp.a_aux, asg.a_aux_density.popcount());
    assert_eq!(fp.b_aux, asg.b_aux_density.popcount());
    assert_eq!(fp.b_input, asg.b_input_density.popcount());
}

fn limit(bytes: u64) -> MemLimit {
    MemLimit { bytes: Some(bytes), source: "test limit".into() }
}

fn shape<'a>(s: &'a Sample, set: &str, mem_budget: u64) -> RunShape<'a> {
    let mut toggles = s.toggles;
    toggles.apply_set(set).expect("toggles");
    RunShape { sample: s, fp: footprint::footprint(s), toggles, lanes: 1, mem_budget, params_held: false }
}

#[test]
fn over_the_limit_is_one_line_with_estimate_limit_and_knob() {
    let mut s = porep(2);
    s.sectors = 4;
    let r = shape(&s, "batch=2", u64::MAX);
    let e = budget::plan_run(&r, &limit(1 << 20)).expect_err("1 MiB is not enough");
    let m = e.to_string();
    assert!(!m.contains('\n'), "{m}");
    for part in [
        "p: proving needs about",
        "more than the 1.0 MiB test limit",
        "lower `batch` (now 2)",
        "`circuit.challenges` (now 2)",
        "samples/t.toml",
    ] {
        assert!(m.contains(part), "`{part}` missing: {m}");
    }
    // The estimate of a run that fits is below the limit and the plan runs the pipeline.
    let plan = budget::plan_run(&r, &limit(1 << 40)).expect("fits");
    assert!(plan.pipelined && plan.in_flight >= 2 && plan.note.is_none(), "{plan:?}");
    // Arithmetic never wraps: a knob of 10^12 saturates to "more than any machine".
    let huge = Footprint {
        shape: cuzk::cs::Shape { constraints: usize::MAX / 2, inputs: 2, aux: usize::MAX / 2 },
        ..Footprint::default()
    };
    assert_eq!(huge.params_bytes(), u64::MAX);
    assert_eq!(budget::human(u64::MAX), "more than 16 EiB");
}

#[test]
fn a_sector_too_large_for_one_call_is_proved_in_calls_of_partitions_with_the_same_proofs() {
    let mut s = porep(2);
    s.partitions = 3;
    s.sectors = 2;
    let one = footprint::footprint(&s).assignment_bytes();
    // A budget below the sector's three circuits but above two: calls of two partitions, with a note.
    let plan = budget::plan_run(&shape(&s, "pipeline=off", 2 * one + 1), &limit(1 << 40)).expect("two fit");
    assert_eq!(plan.circuits_per_call, 2, "{plan:?}");
    assert!(plan.split_note(&s).is_some_and(|n| n.contains("3 partitions")), "{plan:?}");
    // With the pipeline asked for, two calls of one partition in flight beat one call of two.
    let plan = budget::plan_run(&shape(&s, "", 2 * one + 1), &limit(1 << 40)).expect("one fits twice");
    assert_eq!((plan.circuits_per_call, plan.pipelined), (1, true), "{plan:?}");
    // Not even one partition: refused, naming what one needs.
    let e = budget::plan_run(&shape(&s, "", one - 1), &limit(1 << 40)).expect_err("below one partition");
    assert!(matches!(e, PlanError::Budget(_)), "{e}");
    // The proofs are those of whole-sector calls, byte for byte, and they verify.
    std::env::set_var("CUZK_CACHE", std::env::temp_dir().join(format!("cuzk-budget-{}", std::process::id())));
    let backend = CpuBackend::new();
    let proofs = |mem_budget: u64, set: &str| {
        let mut toggles = s.toggles;
        toggles.apply_set(set).expect("toggles");
        let spec = RunSpec { sample: &s, toggles, backend: &backend, repeats: 1, mem_budget };
        let r = Engine::new().run(&spec, &RunCtl::quiet(CancelToken::new())).expect("run");
        assert_eq!(r.last.verified.as_deref(), Some(&[true; 6][..]), "{set} {mem_budget}");
        (r.last.proofs.iter().map(|p| p.to_bytes()).collect::<Vec<_>>(), r.notes)
    };
    let (whole, notes) = proofs(1 << 40, "");
    assert!(notes.is_empty(), "{notes:?}");
    let (split, notes) = proofs(one + one / 2, "pipeline=off");
    assert!(notes.iter().any(|n| n.contains("proved in calls of 1")), "{notes:?}");
    assert!(split == whole, "calls of one partition changed the proofs");
    let (piped, _) = proofs(2 * one + 1, "");
    assert!(piped == whole, "pipelined calls of one partition changed the proofs");
}

#[test]
fn the_32_gib_sector_is_planned_as_partition_calls_on_a_128_gib_host() {
    // The H200 host's figures (docs/PERF.md, session s): 124.1 GiB available to the process, --mem-budget 110G.
    let s = Sample::load(Path::new("samples/porep-32g.toml")).expect("sample");
    let r = shape(&s, "", 110 << 30);
    let gib = |g: u64| limit(g << 30);
    let plan =
        budget::plan_run(&r, &limit(124 * (1 << 30) + (1 << 27))).expect("fits in calls of partitions");
    assert_eq!((plan.circuits_per_call, plan.in_flight, plan.pipelined), (1, 2, true), "{plan:?}");
    // A larger limit holds a third call in flight (measured: 104 GB in use at three, 88 GB at two).
    let plan = budget::plan_run(&r, &gib(140)).expect("fits");
    assert_eq!((plan.circuits_per_call, plan.in_flight), (1, 3), "{plan:?}");
    // A whole sector in one call would need some 300 GiB: refused only when not even one partition fits.
    let e = budget::plan_run(&r, &gib(64)).expect_err("64 GiB holds no partition beside the params");
    assert!(e.to_string().contains("1 call of 1 of 10 partitions"), "{e}");
}

#[test]
fn mem_budget_is_honoured() {
    let mut s = porep(2);
    s.sectors = 3;
    let call = footprint::footprint(&s).assignment_bytes() * s.circuits_per_sector() as u64;
    // Below one call: refused, naming the smallest budget that runs (and what the pipeline needs).
    let e = budget::plan_run(&shape(&s, "", call - 1), &limit(1 << 40)).expect_err("below one call");
    assert!(matches!(e, PlanError::Budget(_)), "{e}");
    let m = e.to_string();
    assert!(m.contains(&format!("the smallest budget that runs is {}", budget::flag_bytes(call))), "{m}");
    assert!(m.contains("with the pipeline"), "{m}");
    // One call but not two: the pipeline is turned off with a note, not silently.
    let plan = budget::plan_run(&shape(&s, "", call + 1), &limit(1 << 40)).expect("one call fits");
    assert!(!plan.pipelined && plan.in_flight == 1, "{plan:?}");
    assert!(plan.note.as_deref().is_some_and(|n| n.contains("fewer than two calls")), "{plan:?}");
    // The engine records what ran: pipeline off, and the note comes back with the result.
    std::env::set_var("CUZK_CACHE", std::env::temp_dir().join(format!("cuzk-budget-{}", std::process::id())));
    let backend = CpuBackend::new();
    let spec =
        RunSpec { sample: &s, toggles: s.toggles, backend: &backend, repeats: 1, mem_budget: call + 1 };
    let r = Engine::new().run(&spec, &RunCtl::quiet(CancelToken::new())).expect("run");
    assert!(s.toggles.on(Toggle::Pipeline), "the sample asks for the pipeline");
    assert!(!r.record.toggles.on(Toggle::Pipeline), "the record says what ran");
    assert!(!r.last.pipelined);
    assert_eq!(r.notes.len(), 1, "{:?}", r.notes);
    // Below one call the engine refuses before any work, as the planner does.
    let spec = RunSpec { mem_budget: call - 1, ..spec };
    let e = Engine::new().run(&spec, &RunCtl::quiet(CancelToken::new())).err().expect("refused");
    assert!(matches!(&e, EngineError::Memory(p) if matches!(**p, PlanError::Budget(_))), "{e}");
    // Counts are checked, not clamped.
    let spec = RunSpec { repeats: 0, mem_budget: 1 << 40, ..spec };
    let e = Engine::new().run(&spec, &RunCtl::quiet(CancelToken::new())).err().expect("0 repeats");
    assert!(e.to_string().contains("repeat: `0` is out of range"), "{e}");
}

#[test]
fn peak_rss_of_a_real_run_stays_under_its_estimate() {
    // A fresh process, so its peak RSS is the run's alone; an empty cache, so setup runs too.
    let dir = std::env::temp_dir().join(format!("cuzk-budget-rss-{}", std::process::id()));
    let _ = std::fs::remove_dir_all(&dir);
    for set in ["a2=off,pipeline=off", "a2=on,pipeline=on"] {
        let out = std::process::Command::new(env!("CARGO_BIN_EXE_cuzk"))
            .args(["prove", "--sample", "samples/porep-tiny.toml", "--backend", "cpu", "--sectors", "2"])
            .args(["--set", set, "--json", "--data-dir"])
            .arg(dir.join("home"))
            .env("CUZK_CACHE", dir.join(format!("cache-{set}")))
            .output()
            .expect("run cuzk");
        assert!(out.status.success(), "{}", String::from_utf8_lossy(&out.stderr));
        let v: serde_json::Value = serde_json::from_slice(&out.stdout).expect("json");
        let rec =
            cuzk::engine::store::load(Path::new(v["record"].as_str().unwrap_or_default())).expect("record");
        let mut s = Sample::load(Path::new("samples/porep-tiny.toml")).expect("sample");
        s.sectors = 2;
        let backend = CpuBackend::new();
        let spec =
            RunSpec { sample: &s, toggles: rec.toggles, backend: &backend, repeats: 1, mem_budget: 1 << 40 };
        let est = Engine::new().plan(&spec).expect("plan").estimate.total();
        assert!(rec.peak_rss_bytes > 0, "peak RSS is measured on Linux");
        assert!(rec.peak_rss_bytes <= est, "{set}: peak {} above the estimate {est}", rec.peak_rss_bytes);
    }
    let _ = std::fs::remove_dir_all(&dir);
}

#[test]
fn pce_record_is_counted_and_bounds_real_records() {
    // The bound holds for real records of every circuit kind (their own heap bytes, measured).
    let chain = sample("name = \"c\"\n[circuit]\nkind = \"sha256-chain\"\ncompressions = 1\n");
    let pm = sample("name = \"m\"\n[circuit]\nkind = \"poseidon-merkle\"\nheight = 3\npaths = 2\n");
    for s in [porep(2), chain, pm] {
        let c = s.sector_circuits(0).swap_remove(0);
        let (pce, _) = cuzk::cs::Pce::record(&c).expect("record");
        let fp = footprint::footprint(&s);
        assert!(
            pce.heap_bytes() as u64 <= fp.pce_bytes(),
            "{}: record {} B > estimate {} B",
            s.name,
            pce.heap_bytes(),
            fp.pce_bytes()
        );
        assert!(pce.bytes_per_constraint() <= budget::PCE_BYTES_PER_CONSTRAINT as f64);
    }
    // With pce on the proving estimate has a `pce record` part of that size, and is larger by exactly it.
    let s = porep(2);
    let part = |set: &str| {
        let plan = budget::plan_run(&shape(&s, set, u64::MAX), &limit(1 << 40)).expect("fits");
        (plan.estimate.parts.iter().find(|(k, _)| k == "pce record").map(|(_, b)| *b), plan.estimate.total())
    };
    let ((on, total_on), (off, total_off)) = (part("pce=on"), part("pce=off"));
    assert_eq!(on, Some(footprint::footprint(&s).pce_bytes()));
    assert_eq!(off, None);
    assert_eq!(total_on - total_off, footprint::footprint(&s).pce_bytes());
}
