//! The engine on the device, as a one-shot `cuzk prove` runs it: the backend still starting when the run
//! begins (`select_deferred`), the params read from the cache with each section put on the device as it is
//! decoded. The proofs are the CPU engine's, byte for byte.

use super::*;
use cuzk::engine::{Engine, RunCtl, RunSpec};
use cuzk::timeline::record::RunRecord;
use cuzk::vocab::{CancelToken, Phase};

fn run(sample: &Sample, backend: &dyn Backend) -> RunRecord {
    let spec = RunSpec { sample, toggles: Toggles::default(), backend, repeats: 1, mem_budget: 1 << 32 };
    Engine::new().run(&spec, &RunCtl::quiet(CancelToken::new())).unwrap_or_else(|e| panic!("run: {e}")).record
}

#[test]
fn staged_srs_on_a_starting_backend_proves_as_the_cpu() {
    let Some(_g) = gpu("staged_srs_on_a_starting_backend_proves_as_the_cpu") else { return };
    std::env::set_var(
        "CUZK_CACHE",
        std::env::temp_dir().join(format!("cuzk-gpu-staged-{}", std::process::id())),
    );
    let s = Sample::load(Path::new("samples/porep-tiny.toml")).expect("sample");
    // The CPU run makes the params (cached); the device run, on a fresh engine, reads them from the cache.
    let want = run(&s, &CpuBackend::new());
    let selected = cuzk::backend::select::select_deferred(BackendKind::Gpu).expect("a GPU was found above");
    let got = run(&s, selected.backend.as_ref());
    let hex = |r: &RunRecord| r.proofs.iter().map(|p| p.hex.clone()).collect::<Vec<_>>();
    assert!(got.all_verified());
    assert_eq!(hex(&got), hex(&want), "the staged SRS changed the proofs");
    assert_eq!(got.backend, "gpu");
    // Every G1 query went up on its own, inside the load's window (before the call's own begin).
    let of = |p: Phase| got.events.iter().filter(move |e| e.phase == p.name());
    let load = of(Phase::SrsLoad).next().expect("srs_load");
    let staged: Vec<_> = of(Phase::SrsUpload)
        .filter_map(|e| e.args.get("query").map(|q| (q.as_str(), e.start_us)))
        .filter(|(q, _)| ["h", "l", "a", "b_g1"].contains(q))
        .collect();
    let mut queries: Vec<_> = staged.iter().map(|(q, _)| *q).collect();
    queries.sort_unstable();
    assert_eq!(queries, ["a", "b_g1", "h", "l"], "each G1 query staged once: {staged:?}");
    assert!(
        staged.iter().all(|(_, t)| *t < load.start_us + load.dur_us),
        "staged under the load: {staged:?}"
    );
}
