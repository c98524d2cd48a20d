//! The engine on real runs: the captured timeline, pipelining and batching visible in the events, the run
//! store's atomicity and addressing, and the exports of a real run; `start` covers what a run does before
//! and beside its first proof (the remembered survey, the params read beside synthesis, the backend started
//! beside the run).

mod start;

use std::path::{Path, PathBuf};
use std::process::Command;
use std::sync::Arc;

use cuzk::backend::cpu::backend::CpuBackend;
use cuzk::circuits::Sample;
use cuzk::engine::ablate::AblateEvent;
use cuzk::engine::compare::{NoVerdict, WALL};
use cuzk::engine::store::RunStore;
use cuzk::engine::{Engine, RunCtl, RunSpec};
use cuzk::timeline::export::{render, Format};
use cuzk::timeline::record::{RecordEvent, RunRecord};
use cuzk::timeline::{Capture, CaptureOpts};
use cuzk::util::write_atomic;
use cuzk::vocab::{CancelToken, DeviceTimer, Phase, Probe, Site, Toggle, Toggles};

fn temp(name: &str) -> PathBuf {
    let d = std::env::temp_dir().join(format!("cuzk-engine-{name}-{}", std::process::id()));
    let _ = std::fs::remove_dir_all(&d);
    std::fs::create_dir_all(&d).expect("temp dir");
    d
}

/// Every test of this file shares one params cache (the same sample's params are built once).
fn use_test_cache() {
    std::env::set_var(
        "CUZK_CACHE",
        std::env::temp_dir().join(format!("cuzk-engine-cache-{}", std::process::id())),
    );
}

fn toggles(set: &str) -> Toggles {
    let mut t = Toggles::default();
    t.apply_set(set).expect("toggles");
    t
}

/// A run of porep-tiny on its own engine (so tests run concurrently, as two runs of one process may).
fn record(sectors: usize, toggles: Toggles, repeats: usize) -> RunRecord {
    use_test_cache();
    let mut s = Sample::load(Path::new("samples/porep-tiny.toml")).expect("sample");
    s.sectors = sectors;
    let backend = CpuBackend::new();
    let spec = RunSpec { sample: &s, toggles, backend: &backend, repeats, mem_budget: 1 << 32 };
    Engine::new().run(&spec, &RunCtl::quiet(CancelToken::new())).expect("run").record
}

/// Phases of a proof call after its synthesis.
const PROVING: [Phase; 6] =
    [Phase::PrepMsm, Phase::NttMsmH, Phase::BatchAdd, Phase::TailMsm, Phase::BG2Msm, Phase::Assemble];

fn is(e: &RecordEvent, p: Phase) -> bool {
    e.phase == p.name()
}

/// `a` starts before `b` ends.
fn starts_before_end(a: &RecordEvent, b: &RecordEvent) -> bool {
    a.start_us < b.start_us + b.dur_us
}

/// Some synthesis of call k+1 starts before a proving phase of call k ends: without the pipeline every
/// synthesis waits for the previous call's proof. (Not "overlaps": with `pce` a porep-tiny synthesis takes
/// about a millisecond and can end before the previous call's proving starts, which made the check flaky
/// on a loaded machine.)
fn pipelined(r: &RunRecord) -> bool {
    r.events.iter().filter(|e| is(e, Phase::Synthesis)).any(|s| {
        r.events
            .iter()
            .filter(|p| PROVING.iter().any(|ph| is(p, *ph)))
            .any(|p| p.batch.is_some() && p.batch.map(|b| b + 1) == s.batch && starts_before_end(s, p))
    })
}

#[test]
fn pipeline_overlaps_synthesis_with_the_previous_call() {
    let on = record(4, toggles("pipeline=on,verify=off"), 1);
    assert!(on.all_verified() || on.proofs.iter().all(|p| p.verified.is_none()));
    assert!(pipelined(&on), "pipeline on: no synthesis overlapped the previous call's proving");
    let off = record(4, toggles("pipeline=off,verify=off"), 1);
    assert!(!pipelined(&off), "pipeline off: synthesis overlapped proving");
    // Same seed, same proofs either way.
    assert_eq!(
        on.proofs.iter().map(|p| &p.hex).collect::<Vec<_>>(),
        off.proofs.iter().map(|p| &p.hex).collect::<Vec<_>>()
    );
}

#[test]
fn batch_two_proves_two_sectors_in_one_call() {
    let r = record(2, toggles("batch=2"), 1);
    assert!(r.all_verified());
    let calls: Vec<&RecordEvent> = r.events.iter().filter(|e| is(e, Phase::PrepMsm)).collect();
    assert_eq!(calls.len(), 1, "one proof call for both sectors");
    assert_eq!(calls[0].args.get("circuits").map(String::as_str), Some("4"), "2 sectors × 2 partitions");
    let ntt: Vec<_> = r.events.iter().filter(|e| is(e, Phase::NttMsmH)).collect();
    assert_eq!(ntt.len(), 4);
    assert!(ntt.iter().all(|e| e.batch == Some(0)));
    let r1 = record(2, toggles("batch=1"), 1);
    assert_eq!(r1.events.iter().filter(|e| is(e, Phase::PrepMsm)).count(), 2);
    assert_eq!(r.proofs, r1.proofs, "batching changes speed, not proofs");
}

#[test]
fn real_run_timeline_and_exports() {
    let r = record(1, Toggles::default(), 2);
    assert_eq!(r.repeats.len(), 2);
    assert!(r.all_verified());
    for phase in [
        Phase::Synthesis,
        Phase::PrepMsm,
        Phase::NttMsmH,
        Phase::NttH,
        Phase::MsmH,
        Phase::TailMsm,
        Phase::BG2Msm,
        Phase::Assemble,
        Phase::Verify,
    ]
    .map(Phase::name)
    {
        for rep in 0..2 {
            assert!(
                r.events.iter().any(|e| e.phase == phase && e.repeat == rep && e.dur_us > 0),
                "{phase} missing in repeat {rep}"
            );
            assert!(r.repeats[rep as usize].phases.get(phase).is_some_and(|t| t.sum_us > 0));
        }
    }
    // Setup (params loading here, or generating) lies outside the repeats and their walls, on its own lane.
    assert!(r.events.iter().any(|e| e.phase == "srs_load" && e.lane == "setup"), "no srs_load on `setup`");
    assert!(r.repeats.iter().all(|rep| rep.phases.keys().all(|p| !cuzk::vocab::is_setup_phase(p))));
    assert!(r.wall_median_us() < r.wall_us, "the proving wall excludes setup");
    one_wall_everywhere(&r);
    // Chrome trace: object form, ts everywhere, a thread_name per lane, no overlap without nesting per tid.
    let chrome: serde_json::Value = serde_json::from_str(&render(&r, Format::Chrome)).expect("chrome json");
    let evs = chrome["traceEvents"].as_array().expect("traceEvents");
    assert!(evs.iter().all(|e| e.get("ts").is_some()));
    let names: Vec<&str> = evs
        .iter()
        .filter(|e| e["name"] == "thread_name")
        .filter_map(|e| e["args"]["name"].as_str())
        .collect();
    for lane in r.lanes() {
        assert!(names.iter().any(|n| n.starts_with(&lane)), "lane {lane} has no thread_name");
    }
    let xs: Vec<&serde_json::Value> = evs.iter().filter(|e| e["ph"] == "X").collect();
    assert_eq!(xs.len(), r.events.len());
    for a in &xs {
        assert!(a["dur"].as_f64().unwrap_or(0.0) > 0.0);
        for b in &xs {
            if std::ptr::eq(*a, *b) || a["tid"] != b["tid"] {
                continue;
            }
            let (s1, d1, s2, d2) = (
                a["ts"].as_f64().unwrap_or(0.0),
                a["dur"].as_f64().unwrap_or(0.0),
                b["ts"].as_f64().unwrap_or(0.0),
                b["dur"].as_f64().unwrap_or(0.0),
            );
            let overlap = s1 < s2 + d2 && s2 < s1 + d1;
            let nested = (s1 <= s2 && s2 + d2 <= s1 + d1) || (s2 <= s1 && s1 + d1 <= s2 + d2);
            assert!(
                !overlap || nested,
                "overlap without nesting on tid {}: {} and {}",
                a["tid"],
                a["name"],
                b["name"]
            );
        }
    }
    let csv = render(&r, Format::Csv);
    let samples: usize = r.counters.iter().map(|c| c.samples.len()).sum();
    assert_eq!(csv.lines().count(), r.events.len() + samples + 1);
    // The memory sampler ran: host RSS from before the first phase to after the last, every 5 ms (change
    // points kept), so every phase instance longer than 10 ms has a sample inside it.
    let rss = r.counters.iter().find(|c| c.name == "host_rss").expect("host_rss sampled");
    let end = r.events.iter().map(|e| e.start_us + e.dur_us).max().unwrap_or(0);
    let first = r.events.iter().map(|e| e.start_us).min().unwrap_or(0);
    // Before the first phase (not a fixed 1 ms after the capture began: a loaded machine may preempt the
    // caller between the two, which once made this fail).
    let (s0, s1) = (rss.samples.first().map(|s| s.0), rss.samples.last().map(|s| s.0));
    assert!(
        s0.is_some_and(|t| t <= first) && s1.is_some_and(|t| t >= end),
        "{s0:?}..{s1:?} vs {first}..{end}"
    );
    assert!(rss.peak() > 0 && r.counters.iter().all(|c| c.name != "host_pinned"), "the CPU pins nothing");
    let svg = render(&r, Format::Svg);
    assert!(svg.trim_start().starts_with("<svg") || svg.trim_start().starts_with("<?xml"));
    assert!(svg.trim_end().ends_with("</svg>"));
    for lane in r.lanes() {
        assert!(svg.contains(&format!(">{lane}<")), "svg row label for {lane}");
    }
}

/// The prove table, the SVG title, the Chrome trace and `runs --json` report one wall: the median of the
/// repeats' proving walls (setup outside it).
fn one_wall_everywhere(r: &RunRecord) {
    let walls: Vec<f64> = r.repeats.iter().map(|x| x.wall_us as f64).collect();
    let median = (walls.iter().sum::<f64>() / walls.len() as f64).round() as u64; // two repeats: their mean
    assert_eq!(r.wall_median_us(), median);
    let table = cuzk::cli::prove::phase_table(r);
    let wall_row = table.lines().find(|l| l.starts_with("wall")).expect("wall row");
    assert!(wall_row.contains(&format!("{:.1}", median as f64 / 1e3)), "{wall_row:?} vs {median} µs");
    assert!(table.lines().any(|l| l.starts_with("srs_load") && l.ends_with("setup")), "{table}");
    let chrome: serde_json::Value = serde_json::from_str(&render(r, Format::Chrome)).expect("chrome json");
    assert_eq!(chrome["otherData"]["wall_us"], median.to_string());
    let svg = render(r, Format::Svg);
    let title = svg.lines().find(|l| l.contains("class=\"title\"")).expect("svg title");
    let shown = match median {
        us if us < 1_000_000 => format!("{:.2} ms", us as f64 / 1e3),
        us => format!("{:.3} s", us as f64 / 1e6),
    };
    assert!(title.contains(&format!("wall {shown} (median)")), "{title}");
}

#[test]
fn store_addresses_runs_and_skips_corrupt_files() {
    let dir = temp("store");
    let store = RunStore::open(Some(&dir)).expect("store");
    let a = record(1, toggles("verify=off"), 1);
    let mut b = a.clone();
    // Another run id of the same second (ids are `YYYYMMDD-HHMMSS-` and hex: they name files).
    let last = if a.id.ends_with('f') { "0" } else { "f" };
    b.id = format!("{}{last}", &a.id[..a.id.len() - 1]);
    b.started = format!("{}~", a.started);
    store.save(&a).expect("save a");
    store.save(&b).expect("save b");
    // A record is never overwritten, and a record whose id is not a run id is never written.
    assert!(store.save(&a).is_err(), "saving an existing id again");
    let mut evil = a.clone();
    evil.id = "../evil".into();
    assert!(store.save(&evil).is_err() && !dir.join("evil.json").exists());
    assert_eq!(store.resolve("last").expect("last").id, b.id);
    assert_eq!(store.resolve("last~1").expect("last~1").id, a.id);
    assert_eq!(store.resolve(&b.id).expect("id").id, b.id);
    assert!(store.resolve(&a.id[..8]).is_err(), "a prefix shared by two runs is ambiguous");
    assert!(store.resolve("last~5").is_err());
    assert!(store.resolve("zzz").is_err());
    let path = store.runs_dir().join(format!("{}.json", a.id));
    assert_eq!(store.resolve(path.to_str().expect("utf8")).expect("path").id, a.id);
    // A corrupt file is skipped with a warning; a stray temp file from a killed write is ignored.
    std::fs::write(store.runs_dir().join("broken.json"), b"{\"schema\": \"cuzk.run/1\", \"id\": ")
        .expect("write");
    std::fs::write(store.runs_dir().join(".x.json.tmp-1"), b"partial").expect("write");
    let (runs, warnings) = store.list();
    assert_eq!(runs.len(), 2);
    assert_eq!(warnings.len(), 1);
    assert!(warnings[0].contains("broken.json"), "{warnings:?}");
    // Atomic replace: the old content stays whole until the new one is complete.
    write_atomic(&path, b"new").expect("write");
    assert_eq!(std::fs::read(&path).expect("read"), b"new");
    let leftover = format!(".{}.json.tmp", a.id);
    let names: Vec<String> = std::fs::read_dir(store.runs_dir())
        .expect("dir")
        .flatten()
        .map(|e| e.file_name().to_string_lossy().into_owned())
        .collect();
    assert!(!names.iter().any(|n| n.starts_with(&leftover)), "temp file left behind: {names:?}");
}

fn cuzk(home: &Path, args: &[&str]) -> std::process::Output {
    Command::new(env!("CARGO_BIN_EXE_cuzk"))
        .args(args)
        .env("CUZK_HOME", home)
        .env("CUZK_CACHE", home.join("cache"))
        .output()
        .expect("run cuzk")
}

#[test]
fn cli_compare_export_and_errors() {
    let home = temp("cli");
    for set in ["d4=on", "d4=off"] {
        let o = cuzk(
            &home,
            &[
                "prove",
                "--sample",
                "samples/porep-tiny.toml",
                "--backend",
                "cpu",
                "--set",
                set,
                "--repeat",
                "2",
            ],
        );
        assert!(o.status.success(), "{}", String::from_utf8_lossy(&o.stderr));
    }
    let o = cuzk(&home, &["compare", "last~1", "last"]);
    let out = String::from_utf8_lossy(&o.stdout);
    assert!(o.status.success());
    for phase in ["synthesis", "tail_msm", "wall"] {
        assert!(out.contains(phase), "{out}");
    }
    assert!(out.lines().all(|l| l.chars().count() <= 100), "compare fits 100 columns:\n{out}");
    let o = cuzk(&home, &["compare", "last~1", "last", "--json"]);
    let v: serde_json::Value = serde_json::from_slice(&o.stdout).expect("compare json");
    assert!(v["phases"].as_array().is_some_and(|a| !a.is_empty()));
    // Two repeats a side: Δ but no verdicts; the runs' toggles that differ from the defaults are listed.
    assert!(out.lines().any(|l| l.starts_with("synthesis") && l.ends_with("n=2")), "{out}");
    assert!(out.contains("toggles: d4=off"), "{out}");
    let o = cuzk(&home, &["runs"]);
    let listed = String::from_utf8_lossy(&o.stdout);
    assert!(listed.lines().any(|l| l.ends_with(" d4=off")), "toggles that differ, never cut:\n{listed}");
    // A run of another circuit shape (porep-mini against porep-tiny): one line says so, no Δ, no verdicts.
    let store = RunStore::open(Some(&home)).expect("store");
    let mut other = store.resolve("last").expect("last run");
    // Another valid id (same second, the largest random part) so that it is `last`.
    other.id = format!("{}ffffffffffff", &other.id[..other.id.len() - 12]);
    other.sample.name = "porep-mini".into();
    other.sample.constraints = 219_498;
    store.save(&other).expect("save");
    let o = cuzk(&home, &["compare", "last~1", "last"]);
    let out = String::from_utf8_lossy(&o.stdout);
    assert!(o.status.success());
    assert_eq!(out.lines().filter(|l| l.contains("different circuit shapes")).count(), 1, "{out}");
    for word in ["slower", "faster", "within noise", "%"] {
        assert!(!out.lines().skip(1).any(|l| l.contains(word)), "{word} in:\n{out}");
    }
    std::fs::remove_file(home.join("runs").join(format!("{}.json", other.id))).expect("remove");
    let o = cuzk(&home, &["export", "last", "--format", "svg"]);
    assert!(o.status.success());
    let p = PathBuf::from(String::from_utf8_lossy(&o.stdout).trim());
    assert!(p.starts_with(home.join("exports")) && p.exists(), "{p:?}");
    let o = cuzk(&home, &["runs", "--json"]);
    assert_eq!(
        serde_json::from_slice::<serde_json::Value>(&o.stdout).expect("runs json").as_array().map(Vec::len),
        Some(2)
    );
    for args in [
        vec!["export", "nope", "--format", "csv"],
        vec!["export", "last", "--format", "pdf"],
        vec!["compare", "last", "missing.json"],
    ] {
        let o = cuzk(&home, &args);
        let err = String::from_utf8_lossy(&o.stderr);
        assert_eq!(o.status.code(), Some(1), "{args:?}");
        assert_eq!(err.trim().lines().count(), 1, "{args:?}: {err}");
    }
}

#[test]
fn killed_run_leaves_no_corrupt_record() {
    let home = temp("kill");
    let mut child = Command::new(env!("CARGO_BIN_EXE_cuzk"))
        .args(["prove", "--sample", "samples/porep-tiny.toml", "--backend", "cpu", "--repeat", "50"])
        .env("CUZK_HOME", &home)
        .env("CUZK_CACHE", home.join("cache"))
        .stdout(std::process::Stdio::null())
        .stderr(std::process::Stdio::null())
        .spawn()
        .expect("spawn");
    std::thread::sleep(std::time::Duration::from_millis(2500));
    let _ = child.kill();
    let _ = child.wait();
    let store = RunStore::open(Some(&home)).expect("store");
    let (runs, warnings) = store.list();
    assert!(warnings.is_empty(), "{warnings:?}");
    assert!(runs.is_empty(), "a killed run must not leave a record");
}

/// A device timer that reports a fixed start and 5 µs, as a device's events would.
struct FiveMicros(std::time::Instant);

impl DeviceTimer for FiveMicros {
    fn stop(self: Box<Self>) -> Result<(std::time::Instant, std::time::Duration), String> {
        Ok((self.0, std::time::Duration::from_micros(5)))
    }
}

#[test]
fn capture_counts_drops_and_takes_device_events() {
    let cap = Capture::begin(CaptureOpts { capacity: 2, ..CaptureOpts::default() });
    let probe = Probe::new(cap.sink(), CancelToken::new());
    std::thread::sleep(std::time::Duration::from_millis(20)); // let the collector start, then flood
    let t0 = std::time::Instant::now();
    for i in 0..2000 {
        drop(probe.open_timed(Site::new(Phase::MsmH).circuit(i).device(1), Box::new(FiveMicros(t0))));
    }
    drop(probe.open(Site::new(Phase::TailMsm).circuit(3)));
    let (events, dropped) = cap.finish();
    assert!(dropped > 0, "a full channel must count drops, not block");
    assert_eq!(events.len() as u64 + dropped, 2001);
    let msm = events.iter().filter(|e| e.site.phase == Phase::MsmH);
    assert!(msm.clone().count() > 0);
    assert!(msm.clone().all(|e| e.site.device == Some(1) && e.dur_us == 5));
}

/// Two engines in one process, running at the same time on different toggles (no shared lock): each record
/// is complete (every phase of every circuit, proofs verified) and holds only its own run's events.
#[test]
fn two_engines_run_concurrently_and_keep_their_events_apart() {
    use_test_cache();
    let sample = Arc::new(Sample::load(Path::new("samples/porep-tiny.toml")).expect("sample"));
    let configs = [toggles("a1=on,batch=1"), toggles("a1=off,d4=off,pipeline=off")];
    let runs: Vec<RunRecord> = std::thread::scope(|s| {
        let hs: Vec<_> = configs
            .iter()
            .map(|t| {
                let sample = sample.clone();
                s.spawn(move || {
                    let mut sample = (*sample).clone();
                    sample.sectors = 2;
                    let backend = CpuBackend::new();
                    let spec = RunSpec {
                        sample: &sample,
                        toggles: *t,
                        backend: &backend,
                        repeats: 1,
                        mem_budget: 1 << 32,
                    };
                    Engine::new().run(&spec, &RunCtl::quiet(CancelToken::new())).expect("run").record
                })
            })
            .collect();
        hs.into_iter().map(|h| h.join().expect("run thread")).collect()
    });
    for (r, t) in runs.iter().zip(&configs) {
        assert_eq!(r.toggles, *t);
        assert!(r.all_verified(), "{}", r.id);
        assert_eq!(r.proofs.len(), 4);
        // 2 sectors × 2 partitions: exactly one instance of each per-circuit phase per circuit.
        for phase in
            [Phase::Synthesis, Phase::NttMsmH, Phase::NttH, Phase::MsmH, Phase::BatchAdd, Phase::TailMsm]
        {
            let mut circuits: Vec<u64> =
                r.events.iter().filter(|e| is(e, phase)).filter_map(|e| e.circuit).collect();
            circuits.sort_unstable();
            assert_eq!(circuits, vec![0, 1, 2, 3], "{}: {phase} instances", r.id);
        }
        // Per-call phases: two calls (batch 1), each with its first circuit.
        let prep: Vec<&RecordEvent> = r.events.iter().filter(|e| is(e, Phase::PrepMsm)).collect();
        assert_eq!(prep.len(), 2, "{}: prep_msm per call", r.id);
        assert_eq!(r.events.iter().filter(|e| is(e, Phase::Verify)).count(), 1);
        // Events lie inside the run's own wall clock.
        assert!(r.events.iter().all(|e| e.start_us + e.dur_us <= r.wall_us + 1_000), "{}", r.id);
    }
    assert_ne!(runs[0].id, runs[1].id);
    assert_eq!(runs[0].proofs, runs[1].proofs, "same seed, other toggles: same proofs");
}

#[test]
fn ablate_and_timing_log() {
    let home = temp("ablate");
    let o = cuzk(
        &home,
        &["ablate", "--sample", "samples/porep-tiny.toml", "--backend", "cpu", "--repeat", "1", "--json"],
    );
    assert!(o.status.success(), "{}", String::from_utf8_lossy(&o.stderr));
    let v: serde_json::Value = serde_json::from_slice(&o.stdout).expect("ablate json");
    let flipped: Vec<&str> = Toggle::ablated_on(false).map(Toggle::id).collect();
    assert_eq!(flipped, ["a1", "a2", "a4", "d4", "pipeline", "pce"], "b1 is not flipped on the CPU");
    assert!(v["toggles"]["b1"].is_null(), "{v}");
    for t in flipped {
        // One round: Δ is shown, but no verdict below 3 repeats a side.
        let wall = &v["toggles"][t]["phases"]["wall"];
        assert!(wall["delta_pct"].is_number() && wall["verdict"].is_null(), "{t}: {v}");
        assert_eq!(wall["no_verdict"], "n=1", "{t}: {v}");
    }
    let store = RunStore::open(Some(&home)).expect("store");
    assert_eq!(store.list().0.len(), 7, "baseline + 6 flipped runs saved");
    let o =
        cuzk(&home, &["prove", "--sample", "samples/porep-tiny.toml", "--backend", "cpu", "--timing-log"]);
    let err = String::from_utf8_lossy(&o.stderr);
    for phase in ["synthesis", "ntt_msm_h", "tail_msm", "verify"] {
        assert!(
            err.lines().any(|l| l.starts_with(&format!("CUZK_TIMING: {phase} dur_ms="))),
            "{phase}: {err}"
        );
    }
}

/// `after_synthesis_us` (prove --json's `after_synthesis_ms`): one figure per call and repeat, at least the
/// proving phases of that call (on the CPU they run one after another, all after the call's last synthesis)
/// and within the repeat's wall.
#[test]
fn after_synthesis_covers_each_calls_proving_phases() {
    let rec = record(2, toggles("pipeline=on,batch=1"), 2);
    let after = rec.after_synthesis_us();
    assert_eq!(after.len(), 2, "one list per repeat");
    for (r, calls) in after.iter().enumerate() {
        assert_eq!(calls.len(), 2, "two calls (sectors=2, batch=1) in repeat {r}");
        for (call, &us) in calls.iter().enumerate() {
            let proving: u64 = rec
                .events
                .iter()
                .filter(|e| e.repeat == r as u32 && e.batch == Some(call as u64))
                .filter(|e| PROVING.iter().any(|&p| is(e, p)))
                .map(|e| e.dur_us)
                .sum();
            assert!(proving > 0, "call {call} of repeat {r} has proving phases");
            assert!(us >= proving, "call {call}: after synthesis {us} µs < its proving phases {proving} µs");
            assert!(us <= rec.repeats[r].wall_us, "call {call}: {us} µs beyond the wall");
        }
    }
}

/// The ablation the CLI and the console share, on real runs: each round measures the baseline and every
/// toggle once before the next round begins (so drift hits all alike), B1 is never flipped on the CPU, each
/// step flips exactly its toggle, the matrix streams after every measurement once the baseline has one (what
/// the console's Ablation view shows while it runs), and each configuration's record has a repeat per round.
#[test]
fn ablation_interleaves_rounds_and_streams_its_matrix() {
    use_test_cache();
    let s = Sample::load(Path::new("samples/porep-tiny.toml")).expect("sample");
    let backend = CpuBackend::new();
    let base = Toggles::default();
    let spec = RunSpec { sample: &s, toggles: base, backend: &backend, repeats: 2, mem_budget: 1 << 32 };
    let (mut started, mut progress, mut finished) = (Vec::new(), Vec::new(), Vec::new());
    let a = Engine::new()
        .ablate(&spec, &RunCtl::quiet(CancelToken::new()), None, &mut |ev| match ev {
            AblateEvent::Started(step) => started.push(step),
            AblateEvent::Progress(m) => progress.push((m.done, m.entries.len())),
            AblateEvent::Finished(step, rec, saved) => {
                assert!(saved.is_none(), "no store given: nothing saved");
                finished.push((step.flipped, rec.repeats.len()));
            }
            AblateEvent::Measured(..) => {}
        })
        .expect("ablate");
    let configs = 1 + Toggle::ablated_on(false).count();
    assert_eq!(started.len(), 2 * configs);
    for (round, steps) in started.chunks(configs).enumerate() {
        let mut seen: Vec<usize> = steps.iter().map(|st| st.index).collect();
        seen.sort_unstable();
        assert_eq!(seen, (1..=configs).collect::<Vec<_>>(), "round {round} runs every configuration once");
        assert!(steps.iter().all(|st| st.round == round + 1));
    }
    for st in &started {
        assert_ne!(st.flipped, Some(Toggle::B1), "b1 flipped on the CPU");
        assert_eq!(st.toggles, st.flipped.map_or(base, |t| base.flipped(t)), "{}", st.label());
    }
    let first_base = started.iter().position(|st| st.flipped.is_none()).expect("a baseline step");
    assert_eq!(
        progress.len(),
        2 * configs - first_base,
        "a matrix after every measurement from the baseline's"
    );
    assert!(progress.windows(2).all(|w| w[1].0 .0 == w[0].0 .0 + 1 && w[1].1 >= w[0].1), "{progress:?}");
    assert_eq!(progress.last().map(|p| p.0), Some((2 * configs, 2 * configs)));
    assert_eq!(finished.len(), configs);
    assert!(finished.iter().all(|f| f.1 == 2), "a repeat per round: {finished:?}");
    assert_eq!(a.entries.len(), configs - 1);
    for e in &a.entries {
        let wall = e.rows.iter().find(|r| r.phase == WALL).expect("wall row");
        assert_eq!(
            wall.no_verdict,
            Some(NoVerdict::FewRepeats(2)),
            "{}: two rounds give no verdict",
            e.toggle
        );
    }
}
