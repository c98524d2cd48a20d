//! The engine on the device, as a one-shot `cuzk prove` runs it: the backend still starting when the run
//! begins (`select_deferred`), the params read from the cache's native copy and put on the device while the
//! first call runs (`Backend::stage_set`), or decoded from the params file with each section put there as it
//! comes. The proofs are the CPU engine's, byte for byte, and each section goes up once. And a lane's call
//! begun while its set is staged: each operation waits for its section, then matches the CPU.

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
    let cache = std::env::temp_dir().join(format!("cuzk-gpu-staged-{}", std::process::id()));
    std::env::set_var("CUZK_CACHE", &cache);
    let s = Sample::load(Path::new("samples/porep-tiny.toml")).expect("sample");
    // The CPU run makes the params (cached); the device run, on a fresh engine, reads them from the cache.
    let want = run(&s, &CpuBackend::new());
    let selected = cuzk::backend::select::select_deferred(BackendKind::Gpu).expect("a GPU was found above");
    let got = run(&s, selected.backend.as_ref());
    let hex = |r: &RunRecord| r.proofs.iter().map(|p| p.hex.clone()).collect::<Vec<_>>();
    assert!(got.all_verified());
    assert_eq!(hex(&got), hex(&want), "the staged SRS changed the proofs");
    assert_eq!(got.backend, "gpu");
    // The native copy (written by the CPU run's build) was read, then each section went up once, on its own.
    assert_eq!(uploads(&got), ["a", "b_g1", "b_g2", "h", "l"], "each section staged once");
    assert!(got.events.iter().any(|e| e.phase == Phase::SrsLoad.name()), "srs_load");

    // Without the copy the params file is decoded and each section staged as it comes, also once each.
    let copies: Vec<PathBuf> =
        walk(&cache).into_iter().filter(|p| p.extension().is_some_and(|e| e == "native")).collect();
    assert!(!copies.is_empty(), "the CPU run's build wrote a native copy under {}", cache.display());
    copies.iter().for_each(|c| std::fs::remove_file(c).expect("remove the native copy"));
    let selected = cuzk::backend::select::select_deferred(BackendKind::Gpu).expect("a GPU was found above");
    let decoded = run(&s, selected.backend.as_ref());
    assert_eq!(hex(&decoded), hex(&want), "the SRS staged while decoding changed the proofs");
    assert_eq!(uploads(&decoded), ["a", "b_g1", "b_g2", "h", "l"], "each section staged once");
}

/// The queries of the run's `srs_upload` spans, sorted (B_G2 only where it went up).
fn uploads(r: &RunRecord) -> Vec<String> {
    let mut q: Vec<String> = r
        .events
        .iter()
        .filter(|e| e.phase == Phase::SrsUpload.name())
        .filter(|e| e.args.get("uploaded").is_none_or(|u| u == "true"))
        .filter_map(|e| e.args.get("query").cloned())
        .collect();
    q.sort_unstable();
    q
}

fn walk(d: &Path) -> Vec<PathBuf> {
    let Ok(rd) = std::fs::read_dir(d) else { return Vec::new() };
    rd.flatten().flat_map(|e| if e.path().is_dir() { walk(&e.path()) } else { vec![e.path()] }).collect()
}

#[test]
fn a_call_begun_while_its_set_is_staged_waits_for_each_section() {
    use cuzk::backend::api::{ParamsId, Query};
    use cuzk::timeline::{Capture, CaptureOpts};
    use cuzk::vocab::CancelToken;
    let Some(g) = gpu("a_call_begun_while_its_set_is_staged_waits_for_each_section") else { return };
    let lane = g.first();
    // H large enough that its copy is still under way when the call begins.
    let (h, l, a, b1) =
        (g1_points(1 << 18, 81), g1_points(40_000, 82), g1_points(30_000, 83), g1_points(20_000, 84));
    let b_g2 = g2_points(5_000, 85);
    let srs = SrsRef { id: ParamsId::fresh(), h: &h, l: &l, a: &a, b_g1: &b1, b_g2: &b_g2 };
    let opts = CallOpts { g2_device: true, srs_resident: true, ..CallOpts::default() };
    let r = &mut rng(86);
    let (sh, sl) = (scalars(h.len(), r, true), scalars(l.len(), r, true));
    let bits: Vec<u64> = (0..b_g2.len().div_ceil(64)).map(|_| r.gen::<u64>()).collect();
    let ones: Vec<u64> = (0..b1.len().div_ceil(64)).map(|_| r.gen::<u64>()).collect();
    let cpu = CpuBackend::new();
    let ok = |e: cuzk::backend::api::BackendError| -> G1Projective { panic!("{e}") };
    let want = (
        cpu.msm_g1(Bases::host(&l), &sl, None).unwrap_or_else(ok),
        cpu.msm_g1(Bases::host(&h), &sh, None).unwrap_or_else(ok),
        cpu.batch_add_g1(Bases::host(&b1), &ones).unwrap_or_else(ok),
        cpu.batch_add_g2(&b_g2, &bits).unwrap_or_else(|e| panic!("{e}")),
    );
    let cap = Capture::begin(CaptureOpts::default());
    let probe = Probe::new(cap.sink(), CancelToken::new());
    let (tx, rx) = std::sync::mpsc::channel();
    let got = std::thread::scope(|s| {
        let stager = s.spawn(|| lane.stage_set(&probe, opts, srs, &|| tx.send(()).unwrap_or(())));
        rx.recv().expect("stage_set called ready");
        lane.begin_call(&probe, opts, srs).unwrap_or_else(|e| panic!("{e}"));
        // L is staged after H: its MSM waits for it; then H's, B_G1's sum and B_G2's on the device.
        let got = (
            lane.msm_g1(srs.bases(Query::L, 0), &sl, None).unwrap_or_else(ok),
            lane.msm_g1(srs.bases(Query::H, 0), &sh, None).unwrap_or_else(ok),
            lane.batch_add_g1(srs.bases(Query::BG1, 0), &ones).unwrap_or_else(ok),
            lane.batch_add_b_g2(srs, 0, &bits).unwrap_or_else(|e| panic!("{e}")),
        );
        lane.end_call();
        stager.join().expect("stager").unwrap_or_else(|e| panic!("stage_set: {e}"));
        got
    });
    assert_eq!(got.0.to_affine(), want.0.to_affine(), "msm over L");
    assert_eq!(got.1.to_affine(), want.1.to_affine(), "msm over H");
    assert_eq!(got.2.to_affine(), want.2.to_affine(), "batch addition over B_G1");
    assert_eq!(got.3.to_affine(), want.3.to_affine(), "batch addition over B_G2");
    let (events, _) = cap.finish();
    let mut up: Vec<String> = events
        .iter()
        .filter(|e| e.site.phase == Phase::SrsUpload)
        .filter_map(|e| e.site.args.iter().find(|(k, _)| *k == "query").map(|(_, v)| v.clone()))
        .collect();
    up.sort_unstable();
    assert_eq!(up, ["a", "b_g1", "b_g2", "h", "l"], "each section up once, by the stager");
    assert_eq!(lane.g2().uploads(), 1, "B_G2 uploaded once");
    // Staged and resident: the next call uploads nothing and its MSM still matches.
    let cap = Capture::begin(CaptureOpts::default());
    let probe = Probe::new(cap.sink(), CancelToken::new());
    lane.stage_set(&probe, opts, srs, &|| ()).unwrap_or_else(|e| panic!("{e}"));
    lane.begin_call(&probe, opts, srs).unwrap_or_else(|e| panic!("{e}"));
    let again = lane.msm_g1(srs.bases(Query::H, 0), &sh, None).unwrap_or_else(ok);
    lane.end_call();
    assert_eq!(again.to_affine(), want.1.to_affine());
    let (events, _) = cap.finish();
    assert!(events.iter().all(|e| e.site.phase != Phase::SrsUpload), "a resident set went up again");
}

#[test]
fn a_set_staged_without_room_for_b_g2_keeps_it_on_the_host() {
    use cuzk::backend::api::{ParamsId, Query};
    use cuzk::timeline::{Capture, CaptureOpts};
    use cuzk::vocab::CancelToken;
    let Some(g) = gpu("a_set_staged_without_room_for_b_g2_keeps_it_on_the_host") else { return };
    let lane = g.first();
    let (h, l, a, b1) =
        (g1_points(1 << 14, 91), g1_points(3_000, 92), g1_points(2_000, 93), g1_points(1_000, 94));
    let b_g2 = g2_points(2_000, 95);
    let srs = SrsRef { id: ParamsId::fresh(), h: &h, l: &l, a: &a, b_g1: &b1, b_g2: &b_g2 };
    let opts = CallOpts { g2_device: true, srs_resident: true, ..CallOpts::default() };
    let r = &mut rng(96);
    let sh = scalars(h.len(), r, true);
    let bits: Vec<u64> = (0..b_g2.len().div_ceil(64)).map(|_| r.gen::<u64>()).collect();
    let cpu = CpuBackend::new();
    let want_h = cpu.msm_g1(Bases::host(&h), &sh, None).unwrap_or_else(|e| panic!("{e}"));
    let want_g2 = cpu.batch_add_g2(&b_g2, &bits).unwrap_or_else(|e| panic!("{e}"));
    lane.g2().limit(Some(1024));
    let uploads = lane.g2().uploads();
    let cap = Capture::begin(CaptureOpts::default());
    let probe = Probe::new(cap.sink(), CancelToken::new());
    lane.stage_set(&probe, opts, srs, &|| ()).unwrap_or_else(|e| panic!("{e}"));
    lane.begin_call(&probe, opts, srs).unwrap_or_else(|e| panic!("{e}"));
    let got_h = lane.msm_g1(srs.bases(Query::H, 0), &sh, None).unwrap_or_else(|e| panic!("{e}"));
    let got_g2 = lane.batch_add_b_g2(srs, 0, &bits).unwrap_or_else(|e| panic!("{e}"));
    lane.end_call();
    lane.g2().limit(None);
    assert_eq!(got_h.to_affine(), want_h.to_affine(), "msm over H");
    assert_eq!(got_g2.to_affine(), want_g2.to_affine(), "B_G2 added on the host");
    assert_eq!(lane.g2().uploads(), uploads, "B_G2 went up past the limit");
    let (events, _) = cap.finish();
    // `begin_call` still tries B_G2 (a span with uploaded=false, the fallback said once); none went up.
    let arg = |e: &cuzk::timeline::Captured, k: &str| {
        e.site.args.iter().find(|(n, _)| *n == k).map(|(_, v)| v.clone())
    };
    let g2_up = events
        .iter()
        .filter(|e| e.site.phase == Phase::SrsUpload && arg(e, "query").as_deref() == Some("b_g2"))
        .filter(|e| arg(e, "uploaded").as_deref() != Some("false"))
        .count();
    assert_eq!(g2_up, 0, "a b_g2 upload span without room");
}
