//! `cuzk tui --attach` against a real daemon child (unix socket), without a terminal: the console's attach
//! client feeding its model as the event loop would. A sample submitted the way `r` does arrives as a job
//! whose phases fill the Live view with the names, lanes and durations of the run record the daemon saved;
//! detaching leaves the daemon serving (a second client gets its status, `--once` prints its screen); a
//! daemon killed and started again is reported gone, then attached again.

use crate::harness;

use std::path::Path;
use std::process::Command as Process;
use std::time::Duration;

use cuzk::engine::store::RunStore;
use cuzk::timeline::record::RecordEvent;
use cuzk::tui::attach::{address, attached_app, submit_path, Client, ClientConfig};
use cuzk::tui::keys::Key;
use cuzk::tui::source::Source;
use cuzk::tui::state::daemon::Link;
use cuzk::tui::state::{App, Command, LiveRun, Msg};
use cuzk::tui::theme::{Theme, ThemeSet};
use harness::{rt, Daemon};
use tokio::sync::mpsc::UnboundedReceiver;

/// porep-tiny's params generated on a cold cache, then its proof, on a slow shared machine.
const JOB: Duration = Duration::from_secs(300);
/// Dialing, a status, a reconnect.
const LINK: Duration = Duration::from_secs(30);

/// Applies messages until `done` holds; the live run just before each `Finished` is kept.
async fn until(
    app: &mut App,
    rx: &mut UnboundedReceiver<Msg>,
    limit: Duration,
    last_live: &mut Option<LiveRun>,
    done: impl Fn(&App) -> bool,
) {
    let deadline = tokio::time::Instant::now() + limit;
    while !done(app) {
        let m = tokio::time::timeout_at(deadline, rx.recv())
            .await
            .unwrap_or_else(|_| panic!("timed out; log: {:#?}", app.log))
            .expect("the client runs");
        if matches!(m, Msg::Finished { .. } | Msg::Streamed { .. }) {
            *last_live = app.live.clone();
        }
        app.apply(m);
    }
}

/// Spans as (phase, lane, circuit, start from the earliest, duration), sorted.
fn spans(events: &[RecordEvent]) -> Vec<(String, String, Option<u64>, u64, u64)> {
    let t0 = events.iter().map(|e| e.start_us).min().unwrap_or(0);
    let mut v: Vec<_> = events
        .iter()
        .map(|e| (e.phase.clone(), e.lane.clone(), e.circuit, e.start_us - t0, e.dur_us))
        .collect();
    v.sort();
    v
}

fn link(app: &App) -> Link {
    app.attached.as_ref().map_or(Link::Connecting, |a| a.link.clone())
}

#[test]
fn attach_submit_watch_detach_and_reconnect() {
    let tmp = tempfile::tempdir().expect("tempdir");
    let home = tmp.path().join("home");
    let listen = format!("unix://{}", tmp.path().join("run/cuzk.sock").display());
    let d = Daemon::start(&listen, &home, &[]);
    let addr = address(&d.addr).expect("the daemon's address");
    let store = RunStore::open(Some(&home)).expect("store");
    let sample = submit_path(Path::new("samples/porep-tiny.toml"));
    let themes = ThemeSet { themes: vec![Theme::default_dark()], errors: vec![] };
    let mut app = attached_app(&addr, &sample, store.list().0, themes.clone());
    let rt = rt();
    let (tx, mut rx) = tokio::sync::mpsc::unbounded_channel();
    let cfg = ClientConfig { addr: addr.clone(), sample: sample.clone(), store: Some(store.clone()) };
    let client = Client::spawn(rt.handle(), cfg, tx);
    let mut last_live = None;
    rt.block_on(async {
        until(&mut app, &mut rx, LINK, &mut last_live, |a| {
            link(a) == Link::Up && a.attached.as_ref().is_some_and(|x| x.info.is_some())
        })
        .await;
        assert_eq!(app.backend.name, "cpu", "the daemon's backend");
        let cmd = app.handle_key(Key::Char('r')).expect("r submits");
        assert!(matches!(cmd, Command::Run { .. }));
        client.send(cmd);
        until(&mut app, &mut rx, JOB, &mut last_live, |a| a.runs.len() == 1 && !a.running()).await;
    });
    let log: Vec<&str> = app.log.iter().map(|l| l.text.as_str()).collect();
    assert!(log.iter().any(|l| l.starts_with("submitted: job ")), "{log:#?}");
    assert!(log.iter().any(|l| l.contains("finished") && l.contains("verified")), "{log:#?}");
    // The record shown is the one the daemon saved in the shared home.
    let rec = app.runs[0].clone();
    assert_eq!(store.resolve(&rec.id).expect("the daemon's record"), rec);
    assert_eq!(rec.sample.name, "porep-tiny");
    // What the Live view had at the end: every span of the record, same names, lanes and durations.
    let live = last_live.expect("the run was followed");
    assert_eq!(spans(&live.closed), spans(&rec.events), "live spans vs the run record");
    assert!(live.open.is_empty());
    assert!(
        live.closed.iter().any(|e| e.phase == "synthesis")
            && live.closed.iter().any(|e| e.phase == "assemble")
    );
    assert!(!live.counters.is_empty(), "memory samples arrived");
    assert_eq!(app.toggles, rec.toggles, "the toggles shown are the daemon's");

    // Detach: the daemon keeps serving; a second client gets its status, and `--once` prints the console.
    client.send(Command::Quit);
    drop(client);
    rt.block_on(async {
        let s = d
            .client()
            .get_status(cuzk::wire::v1::GetStatusRequest {})
            .await
            .expect("status after detaching")
            .into_inner();
        assert!(s.total_proofs_completed >= 1, "{s:?}");
    });
    let o = Process::new(env!("CARGO_BIN_EXE_cuzk"))
        .args(["tui", "--attach", &d.addr, "--once"])
        .env("CUZK_HOME", &home)
        .output()
        .expect("cuzk tui --once");
    let screen = String::from_utf8_lossy(&o.stdout);
    assert!(o.status.success(), "{screen}\n{}", String::from_utf8_lossy(&o.stderr));
    assert!(screen.contains(&format!("attached {addr}")), "{screen}");
    assert!(screen.contains("queue 0 waiting, 0 running") && screen.contains("1 done, 0 failed"), "{screen}");
    let bad = Process::new(env!("CARGO_BIN_EXE_cuzk"))
        .args(["tui", "--attach", "nowhere", "--once"])
        .output()
        .expect("cuzk tui");
    let err = String::from_utf8_lossy(&bad.stderr);
    assert!(!bad.status.success() && err.contains("--attach \"nowhere\": expected host:port"), "{err}");

    // The daemon goes away: said, the last state kept; started again on the same socket: attached again.
    let mut app = attached_app(&addr, &sample, store.list().0, themes);
    let (tx, mut rx) = tokio::sync::mpsc::unbounded_channel();
    let cfg = ClientConfig { addr: addr.clone(), sample, store: Some(store.clone()) };
    let client = Client::spawn(rt.handle(), cfg, tx);
    rt.block_on(until(&mut app, &mut rx, LINK, &mut None, |a| link(a) == Link::Up));
    let runs = app.runs.len();
    drop(d);
    rt.block_on(until(&mut app, &mut rx, LINK, &mut None, |a| matches!(link(a), Link::Lost(_))));
    assert_eq!(app.runs.len(), runs, "the last state stays");
    assert!(app.log.iter().any(|l| l.text.contains("gone") && l.text.contains("dialing again")));
    let _d = Daemon::start(&listen, &home, &[]);
    rt.block_on(until(&mut app, &mut rx, LINK, &mut None, |a| link(a) == Link::Up));
    let ups = app.log.iter().filter(|l| l.text.starts_with("attached to the daemon")).count();
    assert_eq!(ups, 2, "{:#?}", app.log);
    drop(client);
}
