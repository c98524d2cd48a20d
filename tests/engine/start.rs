//! Before and beside a run's first proof: a Filecoin circuit's survey remembered for the build, a bad params
//! file read beside synthesis, and a run that begins while its backend starts.

use super::*;

/// The `.survey` entries under `root`, recursively.
fn survey_files(root: &Path) -> Vec<PathBuf> {
    let mut out = Vec::new();
    let mut dirs = vec![root.to_path_buf()];
    while let Some(d) = dirs.pop() {
        for e in std::fs::read_dir(&d).into_iter().flatten().flatten() {
            let p = e.path();
            if p.is_dir() {
                dirs.push(p);
            } else if p.extension().is_some_and(|x| x == "survey") {
                out.push(p);
            }
        }
    }
    out
}

/// A survey line with `f` applied to its six counts and its checksum made again.
fn replant(line: &str, f: impl Fn(&mut [u64])) -> String {
    use sha2::{Digest, Sha256};
    let (body, _) = line.trim_end().rsplit_once(' ').expect("checksum field");
    let mut fields: Vec<String> = body.split(' ').map(str::to_string).collect();
    let mut n: Vec<u64> = fields[3..].iter().map(|v| v.parse().expect("count")).collect();
    f(&mut n);
    fields.truncate(3);
    fields.extend(n.iter().map(u64::to_string));
    let body = fields.join(" ");
    let sum: String = Sha256::digest(body.as_bytes()).iter().take(8).map(|b| format!("{b:02x}")).collect();
    format!("{body} {sum}\n")
}

/// A Filecoin circuit's survey is remembered beside the params cache for this build: a fresh engine takes
/// what the entry says (a planted entry with other counts is what it reports, so no survey ran), and a
/// corrupt entry (one digit changed, checksum not) is surveyed again and rewritten.
#[test]
fn filecoin_survey_is_remembered_for_the_build() {
    use_test_cache();
    let root = PathBuf::from(std::env::var_os("CUZK_CACHE").expect("cache set"));
    let s = Sample::load(Path::new("samples/c2-2kib.toml")).expect("sample");
    let surveyed = Engine::new().footprint(&s);
    assert!(surveyed.shape.constraints > 2_000_000, "{surveyed:?}");
    // Entries named `cuzk-…` are cuzk's own circuits, remembered by the other tests of this binary.
    let files: Vec<PathBuf> = survey_files(&root)
        .into_iter()
        .filter(|p| !p.file_name().is_some_and(|n| n.to_string_lossy().starts_with("cuzk-")))
        .collect();
    assert_eq!(files.len(), 1, "one entry for the one circuit: {files:?}");
    let good = std::fs::read_to_string(&files[0]).expect("read entry");
    assert!(good.starts_with("cuzk-survey/1 "), "{good}");

    std::fs::write(&files[0], replant(&good, |n| n[5] += 1)).expect("plant");
    let planted = Engine::new().footprint(&s);
    assert_eq!(planted.b_aux, surveyed.b_aux + 1, "the entry was read, not surveyed again");
    assert_eq!(planted.shape, surveyed.shape);

    // The last digit of the last count (b_aux), just before the checksum.
    let at = good.trim_end().rfind(' ').expect("checksum field") - 1;
    let mut bad = good.clone().into_bytes();
    bad[at] = if bad[at] == b'9' { b'8' } else { bad[at] + 1 };
    std::fs::write(&files[0], &bad).expect("corrupt");
    assert_eq!(Engine::new().footprint(&s), surveyed, "a corrupt entry is surveyed again");
    assert_eq!(std::fs::read_to_string(&files[0]).expect("reread"), good, "and rewritten");
}

/// One of cuzk's own circuits is remembered too, once its params' load surveyed it whole (its footprint was
/// extrapolated from the scale knob, which is not remembered): a fresh engine then takes the entry's counts
/// (a planted count is what it reports). The knobs name the entry: another challenge count is another one.
#[test]
fn a_native_survey_is_remembered_once_the_params_surveyed_it() {
    use cuzk::circuits::CircuitSpec;
    use cuzk::engine::footprint::survey_identifier;
    use_test_cache();
    let root = PathBuf::from(std::env::var_os("CUZK_CACHE").expect("cache set"));
    let mut s = Sample::load(Path::new("samples/porep-tiny.toml")).expect("sample");
    // Knob 3 (above 2: extrapolated) and 3 layers: a circuit no other test of this binary proves.
    let CircuitSpec::Porep(k) = &mut s.circuit else { panic!("porep-tiny is a porep sample") };
    (k.challenges, k.layers) = (3, 3);
    let id = survey_identifier(&s).expect("a native circuit is named");
    assert!(id.starts_with("cuzk-"), "{id}");
    let entry = || survey_files(&root).into_iter().find(|p| p.file_stem().is_some_and(|n| *n == *id));
    let extrapolated = Engine::new().footprint(&s);
    assert_eq!(entry(), None, "an extrapolated footprint is not remembered");

    let (_, info) =
        Engine::new().load_params_on(&s, None, &|_, _, _| {}, &CancelToken::new()).expect("params");
    let file = entry().expect("the params' survey is remembered");
    assert_eq!(info.shape, extrapolated.shape, "porep's counts grow linearly in the challenges");
    let good = std::fs::read_to_string(&file).expect("read entry");
    std::fs::write(&file, replant(&good, |n| n[5] += 1)).expect("plant");
    let planted = Engine::new().footprint(&s);
    assert_eq!(planted.b_aux, extrapolated.b_aux + 1, "the entry was read, not extrapolated again");

    let mut other = s.clone();
    let CircuitSpec::Porep(k) = &mut other.circuit else { unreachable!() };
    k.challenges = 4;
    assert_ne!(survey_identifier(&other), Some(id), "another knob, another entry");
}

/// Params read beside the first call's synthesis: a named params file that cannot be read fails the run with
/// the reader's own error (naming the file), not with the job's "params did not load".
#[test]
fn a_bad_params_file_read_beside_synthesis_fails_with_its_own_error() {
    use_test_cache();
    let dir = temp("badparams");
    let bad = dir.join("bad.params");
    std::fs::write(&bad, b"not a params file").expect("write");
    let mut s = Sample::load(Path::new("samples/porep-tiny.toml")).expect("sample");
    s.params_file = Some(bad.clone());
    let backend = CpuBackend::new();
    let spec = RunSpec {
        sample: &s,
        toggles: Toggles::default(),
        backend: &backend,
        repeats: 1,
        mem_budget: 1 << 32,
    };
    let err = Engine::new().run(&spec, &RunCtl::quiet(CancelToken::new())).err().expect("the run fails");
    let msg = err.to_string();
    assert!(msg.contains("bad.params"), "{msg}");
    assert!(!msg.contains("did not load"), "{msg}");
}

/// A backend still starting (`backend::deferred`): the run reads its params and synthesizes meanwhile, and
/// its proofs are the started backend's, byte for byte. The start is held until the run's first `synthesis`
/// has begun, so a run that waited for it before synthesizing would hang (the start gives up after 60 s and
/// the test fails).
#[test]
fn a_run_begins_while_its_backend_starts_and_proves_the_same() {
    use cuzk::backend::deferred::Deferred;
    use cuzk::timeline::{LiveFeed, LiveTap};
    use_test_cache();
    let s = Sample::load(Path::new("samples/porep-tiny.toml")).expect("sample");
    let run = |backend: &dyn cuzk::backend::api::Backend, feed: Option<LiveFeed>| {
        let spec =
            RunSpec { sample: &s, toggles: Toggles::default(), backend, repeats: 1, mem_budget: 1 << 32 };
        let ctl = RunCtl { feed, ..RunCtl::quiet(CancelToken::new()) };
        Engine::new().run(&spec, &ctl).expect("run").record
    };
    let want = run(&CpuBackend::new(), None);

    let feed = LiveFeed::new();
    let released = Arc::new(std::sync::atomic::AtomicBool::new(false));
    let (tap_feed, flag) = (feed.clone(), released.clone());
    let deferred = Deferred::start("cpu", 1, move || {
        let mut tap = LiveTap::new(tap_feed);
        let t0 = std::time::Instant::now();
        while t0.elapsed() < std::time::Duration::from_secs(60) {
            std::thread::sleep(std::time::Duration::from_millis(2));
            let Some(p) = tap.poll() else { continue };
            let synthesis = |ph: Phase| ph == Phase::Synthesis;
            if p.closed.iter().any(|e| synthesis(e.site.phase))
                || p.open.iter().any(|o| synthesis(o.site.phase))
            {
                flag.store(true, std::sync::atomic::Ordering::SeqCst);
                break;
            }
        }
        Ok(Box::new(CpuBackend::new()))
    });
    let got = run(&deferred, Some(feed));
    assert!(released.load(std::sync::atomic::Ordering::SeqCst), "synthesis waited for the backend's start");
    assert!(got.all_verified());
    let hex = |r: &RunRecord| r.proofs.iter().map(|p| p.hex.clone()).collect::<Vec<_>>();
    assert_eq!(hex(&got), hex(&want), "the deferred backend changed the proofs");
    assert_eq!(got.backend, "cpu");
}

/// A start that fails after discovery fails the run at its first device operation, with the start's reason in
/// one line; nothing panics.
#[test]
fn a_backend_start_that_fails_fails_the_run_with_its_reason() {
    use cuzk::backend::api::Backend;
    use cuzk::backend::deferred::Deferred;
    use_test_cache();
    let s = Sample::load(Path::new("samples/porep-tiny.toml")).expect("sample");
    let deferred = Deferred::start("gpu", 1, || Err("context creation failed: test".into()));
    let spec = RunSpec {
        sample: &s,
        toggles: Toggles::default(),
        backend: &deferred,
        repeats: 1,
        mem_budget: 1 << 32,
    };
    let err = match Engine::new().run(&spec, &RunCtl::quiet(CancelToken::new())) {
        Ok(_) => panic!("a run on a backend that never started succeeded"),
        Err(e) => e.to_string(),
    };
    assert!(err.contains("context creation failed: test") && !err.contains('\n'), "{err}");
    assert_eq!(deferred.name(), "gpu");
    assert!(deferred.device().contains("context creation failed: test"));
}
