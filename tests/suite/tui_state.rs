//! The console's state machine without a terminal: keys → commands, toggle n/a rules, prompts, views,
//! worker messages → log lines the end-to-end test and users read.

use cuzk::timeline::record::{ProofEntry, RunRecord};
use cuzk::tui::keys::Key;
use cuzk::tui::state::Msg;
use cuzk::tui::state::{App, BackendMeta, Command, RunState, SampleMeta, View};
use cuzk::tui::theme::{Theme, ThemeSet};
use cuzk::vocab::{Toggle, Toggles};

fn app(backend: &str) -> App {
    App::new(
        SampleMeta {
            name: "porep-tiny".into(),
            path: "samples/porep-tiny.toml".into(),
            circuits: 2,
            proof: None,
        },
        BackendMeta { name: backend.into(), device: "dev".into(), reason: "requested".into() },
        Toggles::default(),
        Vec::new(),
        ThemeSet {
            themes: vec![Theme::default_dark(), Theme { name: "other".into(), ..Theme::default_dark() }],
            errors: vec!["themes/x.toml: key `y`: expected a color".into()],
        },
    )
}

fn record(id: &str, verified: Option<bool>) -> RunRecord {
    let json = format!(
        r#"{{"schema":"cuzk.run/1","id":"{id}","started":"2026-01-01T00:00:00Z",
        "sample":{{"name":"porep-tiny","path":"p","constraints":9981,"circuits":2,"seed":7}},
        "toggles":{{}},"backend":"cpu","devices":["cpu"],"host":{{"cpu":"c","threads":2,"memory_bytes":1}},
        "events":[],"repeats":[{{"wall_us":1500000,"phases":{{}}}}],"wall_us":1500000,"peak_rss_bytes":0,
        "dropped_events":3,"proofs":[],"version":"0.1.0"}}"#
    );
    let mut r: RunRecord = serde_json::from_str(&json).expect("fixture record");
    r.proofs = vec![ProofEntry { hex: String::new(), verified }; 2];
    r
}

fn finish(a: &mut App, id: &str) {
    a.apply(Msg::Started { label: String::new(), toggles: a.toggles, repeats: 1 });
    a.apply(Msg::Finished { record: Box::new(record(id, Some(true))), saved: Ok("x".into()) });
}

fn last_log(a: &App) -> &str {
    a.log.last().map(|l| l.text.as_str()).unwrap_or("")
}

#[test]
fn theme_errors_reach_the_log_and_t_cycles() {
    let mut a = app("cpu");
    assert!(a.log.iter().any(|l| l.text.contains("themes/x.toml: key `y`")));
    assert_eq!(a.theme().name, "dark");
    a.handle_key(Key::Char('t'));
    assert_eq!(a.theme().name, "other");
    a.handle_key(Key::Char('t'));
    assert_eq!(a.theme().name, "dark");
    a.set_theme("nope");
    assert!(last_log(&a).contains("unknown theme `nope`"), "{}", last_log(&a));
}

#[test]
fn r_runs_and_a_busy_console_refuses_a_second_job() {
    let mut a = app("cpu");
    assert_eq!(a.handle_key(Key::Char('r')), Some(Command::Run { toggles: Toggles::default(), repeats: 1 }));
    a.apply(Msg::Started { label: String::new(), toggles: Toggles::default(), repeats: 1 });
    assert!(a.running());
    assert_eq!(a.handle_key(Key::Char('r')), None);
    assert_eq!(a.handle_key(Key::Char('a')), None);
    assert!(last_log(&a).contains("in progress"));
    assert_eq!(a.handle_key(Key::Char('x')), Some(Command::Cancel));
    a.apply(Msg::Cancelled);
    assert_eq!(a.state, RunState::Idle);
    assert_eq!(a.handle_key(Key::Char('q')), Some(Command::Quit));
    assert!(a.quit);
    assert_eq!(app("cpu").handle_key(Key::CtrlC), Some(Command::Quit));
}

#[test]
fn repeat_prompt_asks_n() {
    let mut a = app("cpu");
    assert_eq!(a.handle_key(Key::Char('R')), None);
    assert!(a.prompt.is_some());
    assert_eq!(a.handle_key(Key::Char('q')), None, "letters do not quit from the prompt");
    a.handle_key(Key::Char('1'));
    a.handle_key(Key::Char('2'));
    a.handle_key(Key::Backspace);
    a.handle_key(Key::Char('5'));
    assert_eq!(a.handle_key(Key::Enter), Some(Command::Run { toggles: Toggles::default(), repeats: 15 }));
    assert_eq!(a.repeats, 15);
    assert_eq!(
        a.handle_key(Key::Char('a')),
        Some(Command::Ablate { toggles: Toggles::default(), repeats: 15 }),
        "an ablation runs as many rounds as the last R"
    );
    a.handle_key(Key::Char('R'));
    assert_eq!(a.handle_key(Key::Enter), None, "empty prompt");
    assert!(last_log(&a).contains("repeats"));
    a.handle_key(Key::Char('R'));
    a.handle_key(Key::Esc);
    assert!(a.prompt.is_none());
}

#[test]
fn toggles_flip_and_gpu_only_ones_are_na_on_the_cpu() {
    let mut a = app("cpu");
    a.handle_key(Key::Char('1'));
    assert!(a.toggles.on(Toggle::A1));
    assert!(last_log(&a).contains("A1 on"));
    a.handle_key(Key::Char('4'));
    assert!(!a.toggles.on(Toggle::B1));
    assert!(last_log(&a).contains("B1: GPU only"), "{}", last_log(&a));
    a.handle_key(Key::Char('7'));
    assert!(a.toggles.on(Toggle::SrsResident), "srs_resident is n/a: unchanged");
    a.handle_key(Key::Char('8'));
    assert!(!a.toggles.on(Toggle::Verify));
    let mut g = app("gpu");
    g.handle_key(Key::Char('4'));
    assert!(g.toggles.on(Toggle::B1));
    assert!(a.toggles.on(Toggle::Pce), "pce is on by default");
    a.handle_key(Key::Char('9'));
    assert!(!a.toggles.on(Toggle::Pce), "key 9 flips pce, which applies on the CPU");
    assert!(last_log(&a).contains("PCE off"), "{}", last_log(&a));
    a.handle_key(Key::Char('0'));
    assert!(a.toggles.on(Toggle::B2) && last_log(&a).contains("B2: GPU only"), "{}", last_log(&a));
    g.handle_key(Key::Char('0'));
    assert!(!g.toggles.on(Toggle::B2), "key 0 flips the tenth toggle, b2");
    a.handle_key(Key::Char('!'));
    assert!(a.toggles.on(Toggle::G2d) && last_log(&a).contains("G2D: GPU only"), "{}", last_log(&a));
    g.handle_key(Key::Char('!'));
    assert!(!g.toggles.on(Toggle::G2d), "key ! (shift-1) flips the eleventh toggle, g2d (on by default)");
    g.handle_key(Key::Char('@'));
    assert!(!g.toggles.on(Toggle::Dpool), "key @ (shift-2) flips the twelfth toggle, dpool (on by default)");
    g.handle_key(Key::Char('#'));
    assert!(
        !g.toggles.on(Toggle::Streams),
        "key # (shift-3) flips the thirteenth toggle, streams (on by default)"
    );
    a.handle_key(Key::Char('#'));
    assert!(a.toggles.on(Toggle::Streams) && last_log(&a).contains("GPU only"), "{}", last_log(&a));
    g.handle_key(Key::Char('$'));
    assert!(
        !g.toggles.on(Toggle::Msm2s),
        "key $ (shift-4) flips the fourteenth toggle, msm2s (on by default)"
    );
    a.handle_key(Key::Char('$'));
    assert!(a.toggles.on(Toggle::Msm2s) && last_log(&a).contains("GPU only"), "{}", last_log(&a));
    g.handle_key(Key::Char('%'));
    assert!(
        g.toggles.on(Toggle::Shift),
        "key % (shift-5) flips the fifteenth toggle, shift (off by default)"
    );
    a.handle_key(Key::Char('%'));
    assert!(!a.toggles.on(Toggle::Shift) && last_log(&a).contains("GPU only"), "{}", last_log(&a));
    g.handle_key(Key::Char('^'));
    assert!(
        !g.toggles.on(Toggle::Hpipe),
        "key ^ (shift-6) flips the sixteenth toggle, hpipe (on by default)"
    );
    a.handle_key(Key::Char('^'));
    assert!(a.toggles.on(Toggle::Hpipe) && last_log(&a).contains("GPU only"), "{}", last_log(&a));
    g.handle_key(Key::Char('&'));
    assert!(
        !g.toggles.on(Toggle::Tailseq),
        "key & (shift-7) flips the seventeenth toggle, tailseq (on by default)"
    );
    a.handle_key(Key::Char('&'));
    assert!(a.toggles.on(Toggle::Tailseq) && last_log(&a).contains("GPU only"), "{}", last_log(&a));
    assert_eq!(a.handle_key(Key::Char('r')), Some(Command::Run { toggles: a.toggles, repeats: 1 }));
}

#[test]
fn finished_runs_log_wall_time_and_verify_result() {
    let mut a = app("cpu");
    finish(&mut a, "r1");
    assert!(a.log.iter().any(|l| l.text == "run #1 finished: wall 1.50 s · verified ✓"), "{:?}", a.log);
    assert!(last_log(&a).contains("3 timeline events dropped"));
    a.apply(Msg::Started { label: String::new(), toggles: a.toggles, repeats: 1 });
    a.apply(Msg::Finished { record: Box::new(record("r2", Some(false))), saved: Err("disk full".into()) });
    assert!(a.log.iter().any(|l| l.text.starts_with("run #2 finished: wall 1.50 s · verify FAILED")));
    assert!(last_log(&a).contains("not saved: disk full"));
    a.apply(Msg::Started { label: String::new(), toggles: a.toggles, repeats: 1 });
    a.apply(Msg::Failed("boom".into()));
    assert_eq!(a.state, RunState::Failed);
    assert_eq!(last_log(&a), "run #3 failed: boom");
    assert_eq!(a.runs.len(), 2);
}

#[test]
fn compare_baseline_export_and_views() {
    let mut a = app("cpu");
    a.handle_key(Key::Char('c'));
    assert_eq!(a.view, View::Live);
    assert!(last_log(&a).contains("compare needs a baseline"));
    assert_eq!(a.handle_key(Key::Char('E')), None);
    finish(&mut a, "r1");
    finish(&mut a, "r2");
    finish(&mut a, "r3");
    a.handle_key(Key::Char('c'));
    assert_eq!(a.view, View::Compare);
    assert_eq!(a.compare_pair(), Some((1, 2)), "previous vs last without a baseline");
    a.handle_key(Key::Esc);
    a.handle_key(Key::F(2));
    assert_eq!(a.view, View::History);
    a.handle_key(Key::Up);
    a.handle_key(Key::Up);
    a.handle_key(Key::Up);
    a.handle_key(Key::Char('b'));
    assert_eq!(a.baseline.as_deref(), Some("r1"));
    a.handle_key(Key::Down);
    match a.handle_key(Key::Char('E')) {
        Some(Command::Export(r)) => assert_eq!(r.id, "r2"),
        other => panic!("{other:?}"),
    }
    a.handle_key(Key::Enter);
    assert_eq!(a.view, View::Compare);
    assert_eq!(a.compare_pair(), Some((0, 1)));
    a.handle_key(Key::Tab);
    assert_eq!(a.view, View::Ablation);
    a.handle_key(Key::BackTab);
    a.handle_key(Key::BackTab);
    assert_eq!(a.view, View::History);
    a.handle_key(Key::F(5));
    assert_eq!(a.view, View::Help);
    a.handle_key(Key::Esc);
    assert_eq!(a.view, View::Live);
    match a.handle_key(Key::Char('E')) {
        Some(Command::Export(r)) => assert_eq!(r.id, "r3", "Live exports the run shown"),
        other => panic!("{other:?}"),
    }
    a.apply(Msg::Exported {
        id: "r3".into(),
        paths: vec!["/d/exports/r3.svg".into(), "/d/exports/r3.csv".into()],
    });
    assert_eq!(last_log(&a), "exported run r3: /d/exports/r3.svg, /d/exports/r3.csv");
}

#[test]
fn details_popup_opens_and_closes() {
    let mut a = app("cpu");
    a.handle_key(Key::Enter);
    assert!(a.details.is_none(), "nothing to show without a run");
    let mut r = record("r1", Some(true));
    r.events.push(cuzk::timeline::record::RecordEvent {
        phase: "prep_msm".into(),
        lane: "prep_msm".into(),
        circuit: None,
        device: None,
        batch: None,
        repeat: 0,
        start_us: 10,
        dur_us: 100,
        args: Default::default(),
    });
    a.apply(Msg::Started { label: String::new(), toggles: a.toggles, repeats: 1 });
    a.apply(Msg::Finished { record: Box::new(r), saved: Ok("x".into()) });
    a.handle_key(Key::Enter);
    assert_eq!(a.details.as_ref().map(|e| e.phase.as_str()), Some("prep_msm"));
    assert_eq!(a.handle_key(Key::Char('r')), None, "popup swallows keys");
    a.handle_key(Key::Esc);
    assert!(a.details.is_none());
}

/// Without an R, an ablation runs three interleaved rounds: fewer would give no verdicts at all.
#[test]
fn ablation_defaults_to_three_rounds_and_streams_its_matrix() {
    let mut a = app("cpu");
    assert_eq!(
        a.handle_key(Key::Char('a')),
        Some(Command::Ablate { toggles: Toggles::default(), repeats: 3 })
    );
    a.apply(Msg::Started {
        label: "ablate round 1/3 · 1/6: baseline".into(),
        toggles: a.toggles,
        repeats: 1,
    });
    a.apply(Msg::StepDone { label: "ablate round 1/3 · 1/6: baseline".into(), wall_us: 1_234_000 });
    assert!(a.live.is_none() && a.running(), "between measurements the ablation is still running");
    assert_eq!(last_log(&a), "ablate round 1/3 · 1/6: baseline: wall 1.23 s");
    a.apply(Msg::AblationProgress { baseline: "b".into(), entries: Vec::new(), done: (1, 18) });
    assert_eq!(a.ablation.as_ref().and_then(|x| x.progress), Some((1, 18)));
    assert_eq!(a.runs.len(), 0, "measurements are not runs of their own");
}

/// `d` asks before deleting; only `y` sends the command; the deletion keeps marks and indices right.
#[test]
fn delete_asks_first_and_keeps_indices() {
    let mut a = app("cpu");
    finish(&mut a, "r1");
    finish(&mut a, "r2");
    finish(&mut a, "r3");
    a.handle_key(Key::F(2));
    a.handle_key(Key::Up);
    a.handle_key(Key::Char('b'));
    a.handle_key(Key::Char('d'));
    assert_eq!(a.handle_key(Key::Char('n')), None, "anything but y keeps the run");
    assert!(last_log(&a).contains("kept"));
    a.handle_key(Key::Char('d'));
    assert_eq!(a.handle_key(Key::Char('y')), Some(Command::Delete("r2".into())));
    a.apply(Msg::Deleted { id: "r2".into(), result: Ok(()) });
    assert_eq!(a.runs.iter().map(|r| r.id.as_str()).collect::<Vec<_>>(), ["r1", "r3"]);
    assert_eq!((a.baseline.clone(), a.shown), (None, Some(1)), "the baseline went with it; r3 still shown");
    a.apply(Msg::Deleted { id: "r3".into(), result: Err("permission denied".into()) });
    assert!(last_log(&a).contains("not deleted: permission denied"));
}

/// `/` filters the History by sample, toggle or backend, live as it is typed; Esc clears it.
#[test]
fn filter_history_and_lanes() {
    let mut a = app("cpu");
    finish(&mut a, "r1");
    a.toggles.set(Toggle::A1, true);
    a.apply(Msg::Started { label: String::new(), toggles: a.toggles, repeats: 1 });
    let mut r = record("r2", Some(true));
    r.toggles = a.toggles;
    a.apply(Msg::Finished { record: Box::new(r), saved: Ok("x".into()) });
    a.handle_key(Key::F(2));
    a.handle_key(Key::Char('/'));
    for c in "a1=on".chars() {
        a.handle_key(Key::Char(c));
    }
    assert_eq!(a.history_rows(), vec![1]);
    a.handle_key(Key::Enter);
    assert_eq!(a.history_filter, "a1=on");
    a.handle_key(Key::Esc);
    assert_eq!(a.history_rows(), vec![0, 1]);
    a.handle_key(Key::Esc);
    assert_eq!(a.view, View::Live);
    a.handle_key(Key::Char('/'));
    a.handle_key(Key::Char('z'));
    assert_eq!(a.lane_filter, "z");
    assert!(a.timeline_lanes().is_empty());
}
