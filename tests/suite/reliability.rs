//! The release audit's defects, as a user meets them: huge but in-range knobs refused before any allocation,
//! counts bounded everywhere, user numbers never overflowing, record ids never becoming paths, empty proof
//! files rejected, what a kill leaves removed on the next start, output paths checked before the work, a
//! failed cache write not losing the proof, one exit code and one line for every error.

use std::path::{Path, PathBuf};
use std::process::{Command, Output};
use std::time::{Duration, Instant};

fn temp(name: &str) -> PathBuf {
    let d = std::env::temp_dir().join(format!("cuzk-rel-{name}-{}", std::process::id()));
    let _ = std::fs::remove_dir_all(&d);
    std::fs::create_dir_all(&d).expect("temp dir");
    d
}

/// Runs cuzk with its cache and data dir under `dir` and a fixed memory limit (so refusals do not depend on
/// the machine's size).
fn cuzk(dir: &Path, args: &[&str]) -> Output {
    Command::new(env!("CARGO_BIN_EXE_cuzk"))
        .args(args)
        .env("CUZK_CACHE", dir.join("cache"))
        .env("CUZK_HOME", dir.join("home"))
        .env("CUZK_MEM_LIMIT", "16G")
        .output()
        .expect("run cuzk")
}

fn stderr(o: &Output) -> String {
    String::from_utf8_lossy(&o.stderr).into_owned()
}

/// Exit 1 and one `error: ` line (no panic, no abort), containing every `part`. Progress lines of a step over a
/// second ("… …" then "…: done in N s") may come before it; nothing else may.
fn fails_with(o: &Output, parts: &[&str]) -> String {
    let all = stderr(o);
    assert_eq!(o.status.code(), Some(1), "exit code: {all}");
    let progress = |l: &str| l.ends_with('…') || l.contains(": done in ");
    let err: String = all.trim().lines().filter(|l| !progress(l)).collect::<Vec<_>>().join("\n");
    assert_eq!(err.lines().count(), 1, "one line: {all}");
    assert!(err.starts_with("error: ") && !err.contains("panicked"), "{err}");
    for p in parts {
        assert!(err.contains(p), "`{p}` missing: {err}");
    }
    err
}

fn write(dir: &Path, name: &str, text: &str) -> String {
    let p = dir.join(name);
    std::fs::write(&p, text).expect("write");
    p.display().to_string()
}

#[test]
fn huge_in_range_knobs_are_refused_before_allocating() {
    let d = temp("huge");
    let porep = write(
        &d,
        "huge.toml",
        "name = \"huge\"\n[circuit]\nkind = \"porep\"\nchallenges = 64\nlayers = 11\nnodes_log2 = 30\n",
    );
    let chain = write(
        &d,
        "chain.toml",
        "name = \"chain\"\n[circuit]\nkind = \"sha256-chain\"\ncompressions = 2000\n",
    );
    let t = Instant::now();
    // Synthesis is refused; the default (extrapolating so large a circuit) needs no such memory.
    let o = cuzk(&d, &["info", "--sample", &porep, "--method", "synthesize"]);
    fails_with(
        &o,
        &[
            "huge: info",
            "needs about",
            "more than the 16.0 GiB CUZK_MEM_LIMIT=16G",
            "`circuit.challenges` (now 64)",
        ],
    );
    for cmd in ["prove", "setup", "ablate"] {
        let o = cuzk(&d, &[cmd, "--sample", &chain]);
        fails_with(&o, &["chain: ", "needs about", "`circuit.compressions` (now 2000)"]);
    }
    for op in ["msm", "setup"] {
        let o = cuzk(&d, &["bench", op, "--log-size", "26"]);
        fails_with(&o, &["needs about", "lower --log-size (now 26)"]);
    }
    // Refusals come from estimates, not from trying: all of the above in well under a minute.
    assert!(t.elapsed() < Duration::from_secs(60), "{:?}", t.elapsed());
    // Many sectors cost pipeline depth, not memory per call: 1024 sectors of porep-tiny plan fine, and a
    // budget below one partition (a sector's partitions are proved in smaller calls when they must) is
    // refused with the smallest that works.
    let o = cuzk(
        &d,
        &[
            "prove",
            "--sample",
            "samples/porep-tiny.toml",
            "--backend",
            "cpu",
            "--sectors",
            "2",
            "--mem-budget",
            "64K",
        ],
    );
    fails_with(&o, &["--mem-budget 65536", "the smallest budget that runs is", "with the pipeline"]);
}

#[test]
fn counts_are_bounded_everywhere() {
    let d = temp("counts");
    let tiny = ["--sample", "samples/porep-tiny.toml", "--backend", "cpu"];
    let cases: Vec<(Vec<&str>, &str)> = vec![
        (vec!["prove", "--sectors", "0"], "1..=1024"),
        (vec!["prove", "--sectors", "18446744073709551615"], "1..=1024"),
        (vec!["prove", "--sectors", "99999999999999999999999"], "1..=1024"),
        (vec!["prove", "--sectors", "1000000000"], "1..=1024"),
        (vec!["prove", "--repeat", "0"], "1..=1000"),
        (vec!["ablate", "--repeat", "0"], "1..=1000"),
        (vec!["prove", "--set", "batch=0"], "batch"),
        (vec!["prove", "--set", "batch=18446744073709551616"], "batch"),
        (vec!["prove", "--mem-budget", "16777216T"], "more than 2^64"),
        (vec!["prove", "--frobnicate"], "--frobnicate"),
    ];
    for (args, part) in cases {
        let args: Vec<&str> = args.iter().chain(tiny.iter()).copied().collect();
        fails_with(&cuzk(&d, &args), &[part]);
    }
    for args in [["bench", "msm", "--repeat", "0"], ["bench", "ntt", "--log-size", "28"]] {
        fails_with(&cuzk(&d, &args), &["expected an integer in"]);
    }
    // No record was written by any refusal.
    assert!(
        !d.join("home/runs").exists() || std::fs::read_dir(d.join("home/runs")).map_or(0, |r| r.count()) == 0
    );
    // --help still exits 0.
    let o = cuzk(&d, &["prove", "--help"]);
    assert_eq!(o.status.code(), Some(0));
}

fn record(id: &str) -> String {
    format!(
        r#"{{"schema":"cuzk.run/1","id":"{id}","started":"2026-01-01T00:00:00.000Z",
        "sample":{{"name":"t","path":"x","constraints":3,"circuits":1,"seed":1}},"toggles":{{"batch":1}},
        "backend":"cpu","devices":[],"host":{{"cpu":"c","threads":1,"memory_bytes":1}},"events":[],
        "repeats":[{{"wall_us":9,"phases":{{}}}}],"wall_us":9,"peak_rss_bytes":0,"dropped_events":0,
        "proofs":[],"version":"0"}}"#
    )
}

#[test]
fn the_run_store_takes_any_name_and_never_writes_outside() {
    let d = temp("store");
    let runs = d.join("home/runs");
    std::fs::create_dir_all(&runs).expect("runs");
    write(&runs, "20260101-000000-0123456789ab.json", &record("20260101-000000-0123456789ab"));
    for spec in ["last~18446744073709551615", "last~18446744073709551614", "last~1", "last~-1", "nope"] {
        fails_with(&cuzk(&d, &["compare", spec, "last"]), &["no run matches"]);
        fails_with(&cuzk(&d, &["export", spec, "--format", "svg"]), &["no run matches"]);
    }
    fails_with(&cuzk(&d, &["compare", "", "last"]), &["empty run name"]);
    assert!(cuzk(&d, &["compare", "last", "last~0"]).status.success());
    // Ids are file names: a record whose id is a path is refused on read, and nothing is written.
    for bad in ["../../x", "/tmp/cuzk-rel-abs-x", "20260101-000000-../../x"] {
        let f = write(&d, "evil.json", &record(bad));
        fails_with(&cuzk(&d, &["export", &f, "--format", "svg"]), &["field `id`", "is not a run id"]);
    }
    assert!(!d.join("x.svg").exists() && !Path::new("/tmp/cuzk-rel-abs-x.svg").exists());
    assert!(
        !d.join("home/exports").exists()
            || std::fs::read_dir(d.join("home/exports")).map_or(0, |r| r.count()) == 0
    );
    // An unreadable runs folder is an error, not an empty list.
    let e = temp("store-bad");
    std::fs::create_dir_all(e.join("home")).expect("home");
    std::fs::write(e.join("home/runs"), b"not a folder").expect("file");
    fails_with(&cuzk(&e, &["runs"]), &["runs", "cannot read folder"]);
    let o = cuzk(&d, &["runs"]);
    assert!(
        o.status.success() && String::from_utf8_lossy(&o.stdout).contains("20260101-000000-0123456789ab")
    );
}

#[test]
fn verify_needs_proofs_and_matching_inputs() {
    let d = temp("verify");
    let out = d.join("out");
    let o = cuzk(
        &d,
        &[
            "prove",
            "--sample",
            "samples/porep-tiny.toml",
            "--backend",
            "cpu",
            "--out",
            out.to_str().unwrap_or_default(),
        ],
    );
    assert!(o.status.success(), "{}", stderr(&o));
    let (vk, proofs, inputs) = (out.join("vk.bin"), out.join("proofs.bin"), out.join("inputs.bin"));
    let s = |p: &Path| p.display().to_string();
    let empty = write(&d, "empty.bin", "");
    fails_with(
        &cuzk(&d, &["verify", "--vk", &s(&vk), "--proof", &empty, "--inputs", &empty]),
        &["no proofs"],
    );
    // One proof less than the inputs: a count mismatch, not a partial verdict.
    let bytes = std::fs::read(&proofs).expect("proofs");
    let one = d.join("one.bin");
    std::fs::write(&one, &bytes[..192]).expect("write");
    fails_with(
        &cuzk(&d, &["verify", "--vk", &s(&vk), "--proof", &s(&one), "--inputs", &s(&inputs)]),
        &["public inputs for 1 proofs"],
    );
    assert!(cuzk(&d, &["verify", "--vk", &s(&vk), "--proof", &s(&proofs), "--inputs", &s(&inputs)])
        .status
        .success());
}

/// A pid that no longer runs.
fn dead_pid() -> u32 {
    let mut c = Command::new("true").spawn().expect("spawn true");
    let pid = c.id();
    let _ = c.wait();
    pid
}

#[test]
fn a_start_removes_what_killed_processes_left_and_out_is_one_set() {
    let d = temp("stale");
    let pid = dead_pid();
    let params = d.join("cache/params");
    let runs = d.join("home/runs");
    for dir in [&params, &runs] {
        std::fs::create_dir_all(dir).expect("dir");
    }
    let stale = [
        params.join(format!(".v1-0-0.params.tmp-{pid}-0")),
        runs.join(format!(".20260101-000000-ab.json.tmp-{pid}-3")),
        d.join(format!(".out.tmp-{pid}-1")),
    ];
    std::fs::write(&stale[0], vec![0u8; 4096]).expect("stale params");
    std::fs::write(&stale[1], b"{").expect("stale record");
    std::fs::create_dir_all(&stale[2]).expect("stale out");
    std::fs::write(stale[2].join("proofs.bin"), b"half").expect("stale out file");
    // A live process's temp file stays (this test process is alive).
    let live = runs.join(format!(".x.json.tmp-{}-0", std::process::id()));
    std::fs::write(&live, b"busy").expect("live");
    let out = d.join("out");
    // Inside the --out folder too: a killed per-file write of an older version.
    std::fs::create_dir_all(&out).expect("out");
    let inner = out.join(format!(".proofs.bin.tmp-{pid}-0"));
    std::fs::write(&inner, b"half").expect("stale inner");
    let o = cuzk(
        &d,
        &[
            "prove",
            "--sample",
            "samples/porep-tiny.toml",
            "--backend",
            "cpu",
            "--out",
            out.to_str().unwrap_or_default(),
        ],
    );
    assert!(o.status.success(), "{}", stderr(&o));
    for p in stale.iter().chain([&inner]) {
        assert!(!p.exists(), "{} left", p.display());
    }
    assert!(live.exists(), "a live process's temp file was removed");
    let mut names: Vec<String> = std::fs::read_dir(&out)
        .expect("out")
        .flatten()
        .map(|e| e.file_name().to_string_lossy().into_owned())
        .collect();
    names.sort();
    assert_eq!(names, ["inputs.bin", "proofs.bin", "vk.bin"]);
    // A second run replaces the set whole and leaves nothing beside it.
    let o = cuzk(
        &d,
        &[
            "prove",
            "--sample",
            "samples/porep-tiny.toml",
            "--backend",
            "cpu",
            "--seed",
            "9",
            "--out",
            out.to_str().unwrap_or_default(),
        ],
    );
    assert!(o.status.success(), "{}", stderr(&o));
    let beside: Vec<String> = std::fs::read_dir(&d)
        .expect("dir")
        .flatten()
        .map(|e| e.file_name().to_string_lossy().into_owned())
        .filter(|n| n.contains(".tmp-"))
        .collect();
    assert!(beside.is_empty(), "{beside:?}");
    let s = |n: &str| out.join(n).display().to_string();
    assert!(cuzk(
        &d,
        &["verify", "--vk", &s("vk.bin"), "--proof", &s("proofs.bin"), "--inputs", &s("inputs.bin")]
    )
    .status
    .success());
}

#[test]
fn output_paths_are_checked_before_the_work() {
    let d = temp("paths");
    let foreign = d.join("mine");
    std::fs::create_dir_all(&foreign).expect("dir");
    std::fs::write(foreign.join("notes.txt"), b"keep").expect("file");
    let file = d.join("file");
    std::fs::write(&file, b"x").expect("file");
    let sub = |p: &Path| p.join("sub").display().to_string();
    // porep-mini would take a minute: each refusal must come in seconds, before setup or synthesis.
    let mini = ["prove", "--sample", "samples/porep-mini.toml", "--backend", "cpu"];
    let cases: Vec<(Vec<String>, &str)> = vec![
        (vec!["--out".into(), foreign.display().to_string()], "notes.txt"),
        (vec!["--out".into(), file.display().to_string()], "not a folder"),
        (vec!["--out".into(), sub(&file)], "--out"),
        (vec!["--export".into(), sub(&file)], "--export"),
        (vec!["--data-dir".into(), sub(&file)], "cannot create folder"),
    ];
    for (extra, part) in cases {
        let t = Instant::now();
        let args: Vec<&str> = mini.iter().copied().chain(extra.iter().map(String::as_str)).collect();
        fails_with(&cuzk(&d, &args), &[part]);
        assert!(t.elapsed() < Duration::from_secs(20), "{extra:?} took {:?}", t.elapsed());
    }
    assert_eq!(std::fs::read(foreign.join("notes.txt")).expect("kept"), b"keep");
    assert!(!d.join("cache/params").exists(), "no setup ran");
}

#[test]
fn a_cache_that_cannot_be_written_costs_the_cache_not_the_proof() {
    let d = temp("nocache");
    std::fs::write(d.join("cache"), b"a file where the cache folder should be").expect("file");
    let o = cuzk(&d, &["prove", "--sample", "samples/porep-tiny.toml", "--backend", "cpu"]);
    let err = stderr(&o);
    assert!(o.status.success(), "{err}");
    assert!(err.contains("warning: params not cached, using them from memory"), "{err}");
    assert!(String::from_utf8_lossy(&o.stdout).contains("verified: all 2 proofs"));
    // `cuzk setup` exists to fill the cache: there the same failure is the command's error (after its
    // progress lines).
    let o = cuzk(&d, &["setup", "--sample", "samples/porep-tiny.toml"]);
    let err = stderr(&o);
    assert_eq!(o.status.code(), Some(1), "{err}");
    let last = err.trim().lines().last().unwrap_or_default();
    assert!(last.starts_with("error: params not cached") && !last.contains("invalid"), "{err}");
}

#[test]
fn sample_errors_name_the_table_and_seeds_take_the_whole_u64() {
    let d = temp("sample");
    let bad = write(
        &d,
        "bad.toml",
        "name = \"t\"\n[circuit]\nkind = \"porep\"\nchallenges = \"x\"\nlayers = 1\nnodes_log2 = 3\n",
    );
    fails_with(&cuzk(&d, &["info", "--sample", &bad]), &["bad.toml:4", "key `circuit.challenges`"]);
    let unknown = write(&d, "unknown.toml", "name = \"t\"\n[circuit]\nkind = \"porep\"\ncolour = 1\n");
    fails_with(&cuzk(&d, &["info", "--sample", &unknown]), &["key `circuit.colour`", "unknown field"]);
    let big = write(
        &d,
        "big.toml",
        "name = \"t\"\nseed = \"18446744073709551615\"\n[circuit]\nkind = \"sha256-chain\"\ncompressions = 1\n",
    );
    let s = cuzk::circuits::Sample::load(Path::new(&big)).expect("a seed above i64::MAX as a string");
    assert_eq!(s.seed, u64::MAX);
    let neg = write(
        &d,
        "neg.toml",
        "name = \"t\"\nseed = -1\n[circuit]\nkind = \"sha256-chain\"\ncompressions = 1\n",
    );
    fails_with(&cuzk(&d, &["info", "--sample", &neg]), &["key `seed`", "negative"]);
}

#[test]
fn a_broken_theme_named_on_the_command_line_shows_its_own_error() {
    let d = temp("theme");
    std::fs::write(d.join("mine.toml"), "[colors]\nfg = \"blurple\"\n").expect("theme");
    let set = cuzk::tui::theme::ThemeSet::load(Some(&d));
    let e = set.find("mine").expect_err("broken theme");
    assert!(e.contains("mine.toml") && e.contains("colors.fg") && !e.contains("available"), "{e}");
    let e = set.find("nosuch").expect_err("unknown theme");
    assert!(e.contains("available: dark"), "{e}");
}
