//! `cuzk tui --attach ADDR`: the console over a running daemon. The client reads the daemon's
//! `cuzk.console.v1.Watch` stream into the console's messages ([`feed`]), submits the sample on `r`
//! (`Watch.Submit`), cancels the followed job on `x` (Curio's `CancelProof`), and dials again when the daemon
//! goes away. Detaching closes the stream and nothing else: the daemon keeps its jobs.

pub mod feed;

use std::path::{Path, PathBuf};
use std::time::Duration;

use tokio::sync::mpsc::{unbounded_channel, UnboundedReceiver, UnboundedSender};

use super::app::Screen;
use super::setup;
use super::source::Source;
use super::state::daemon::{Attached, Link};
use super::state::{App, BackendMeta, Command, Level, Msg};
use super::view;
use super::worker::{delete_record, export_record};
use crate::engine::store::{self, RunStore};
use crate::timeline::record::RunRecord;
use crate::wire::console::{SubmitSampleRequest, WatchEvent, WatchRequest};
use crate::wire::dial;
use crate::wire::v1::CancelProofRequest;
use feed::Feed;

/// How long a dial (and the stream's first answer) may take before it counts as failed.
const DIAL_TIMEOUT: Duration = Duration::from_secs(5);
/// The pause between dials while the daemon is away (the log says the same figure).
const REDIAL: Duration = Duration::from_secs(2);
/// `--once`: the longest wait for the backlog and the first live event after it (a status comes every second).
const ONCE_WAIT: Duration = Duration::from_secs(3);
/// `--once`'s screen.
const ONCE_SIZE: (u16, u16) = (120, 40);

/// How the console attaches.
pub struct Open<'a> {
    /// The daemon: `host:port`, `tcp://host:port` or `unix:///path`, as `cuzk daemon --listen` takes it.
    pub addr: &'a str,
    /// The sample `r` submits.
    pub sample: &'a Path,
    /// Theme name.
    pub theme: Option<&'a str>,
    /// Print the screen once and leave.
    pub once: bool,
}

/// What the client needs.
pub struct ClientConfig {
    /// The daemon's address.
    pub addr: String,
    /// The sample file `r` submits, as the daemon will open it.
    pub sample: String,
    /// This console's run store: completed jobs' records are read from it when the daemon shares the home.
    pub store: Option<RunStore>,
}

/// The console's handle on the attach client (a task on the console's runtime).
pub struct Client {
    tx: UnboundedSender<Command>,
}

impl Source for Client {
    fn send(&self, cmd: Command) {
        let _ = self.tx.send(cmd);
    }

    fn gone(&self) -> String {
        "the attach client stopped".into()
    }
}

impl Client {
    /// Starts the client on `rt`; messages arrive on `out`. Dropping the handle (or `Command::Quit`) detaches.
    pub fn spawn(rt: &tokio::runtime::Handle, cfg: ClientConfig, out: UnboundedSender<Msg>) -> Client {
        let (tx, rx) = unbounded_channel();
        rt.spawn(client(cfg, out, rx));
        Client { tx }
    }
}

/// The sample path as the daemon should open it: absolute when it exists here (a daemon on this host with
/// another working folder finds it), else as given.
pub fn submit_path(sample: &Path) -> String {
    std::fs::canonicalize(sample).unwrap_or_else(|_| sample.to_path_buf()).display().to_string()
}

/// A console model attached to `addr` (no daemon state yet), over the stored runs.
pub fn attached_app(addr: &str, sample: &str, runs: Vec<RunRecord>, themes: super::theme::ThemeSet) -> App {
    let (mut meta, _) = setup::sample_meta(Path::new(sample));
    meta.circuits = 0;
    let backend = BackendMeta { name: "daemon".into(), device: addr.into(), reason: "attached".into() };
    let mut app = App::new(meta, backend, Default::default(), runs, themes);
    app.attached = Some(Attached::new(addr, sample));
    // The daemon's latest run, whatever it proved (not only runs of the console's sample).
    app.shown = app.runs.len().checked_sub(1);
    app
}

/// Opens the attached console (or prints its screen once).
pub fn open(how: &Open) -> Result<(), String> {
    let addr = address(how.addr)?;
    let how = &Open { addr: &addr, ..*how };
    if !how.once && !super::term::stdout_is_terminal() {
        return Err("the console needs a terminal on stdout (`--once` prints its screen instead)".into());
    }
    let mut setup = setup::open(how.theme)?;
    let sample = submit_path(how.sample);
    let mut app = attached_app(how.addr, &sample, setup.runs.clone(), setup.themes.clone());
    setup.dress(&mut app, how.theme);
    let n = app.runs.len();
    app.push_log(
        Level::Info,
        format!(
            "attaching to {} · {n} runs in {} · r submits {sample} · ? help",
            how.addr,
            setup.store.runs_dir().display()
        ),
    );
    let rt = tokio::runtime::Builder::new_multi_thread()
        .worker_threads(2)
        .thread_name("cuzk-attach")
        .enable_all()
        .build()
        .map_err(|e| format!("cannot start the console's runtime: {e}"))?;
    let cfg = ClientConfig { addr: how.addr.to_string(), sample, store: Some(setup.store.clone()) };
    if how.once {
        rt.block_on(once(&cfg, &mut app))?;
        print!("{}", view::text(&app, ONCE_SIZE.0, ONCE_SIZE.1));
        return Ok(());
    }
    let (tx, rx) = unbounded_channel();
    let client = Client::spawn(rt.handle(), cfg, tx);
    let mut screen = Screen::enter().map_err(|e| format!("terminal: {e}"))?;
    let result = screen.run(&rt, &mut app, &client, rx, &mut setup.prefs);
    drop(screen);
    drop(client);
    rt.shutdown_timeout(Duration::from_secs(1));
    result.map_err(|e| format!("terminal: {e}"))
}

/// The daemon's address as `wire::dial` takes it, from the forms `cuzk daemon --listen` accepts: `host:port`,
/// `tcp://host:port`, `:port` (this host), `unix:///path` or `unix:path`; anything else is a one-line error.
pub fn address(addr: &str) -> Result<String, String> {
    let a = addr.trim();
    let bad = || format!("--attach {addr:?}: expected host:port or unix:///path/to/cuzk.sock");
    if let Some(path) = a.strip_prefix("unix://").or_else(|| a.strip_prefix("unix:")) {
        return if path.is_empty() { Err(bad()) } else { Ok(format!("unix://{path}")) };
    }
    let hostport = a.strip_prefix("tcp://").or_else(|| a.strip_prefix("http://")).unwrap_or(a);
    let hostport =
        if hostport.starts_with(':') { format!("127.0.0.1{hostport}") } else { hostport.to_string() };
    match hostport.rsplit_once(':') {
        Some((h, p)) if !h.is_empty() && p.parse::<u16>().is_ok() => Ok(hostport),
        _ => Err(bad()),
    }
}

/// The record of `run_id` in `store`, when the daemon saved it there (this console shares its home).
pub fn lookup(store: Option<&RunStore>, run_id: &str) -> Option<(RunRecord, PathBuf)> {
    if !store::is_run_id(run_id) {
        return None;
    }
    let path = store?.runs_dir().join(format!("{run_id}.json"));
    store::load(&path).ok().map(|r| (r, path))
}

/// Opens the watch stream: the backlog, then live events.
async fn dial_stream(addr: &str) -> Result<tonic::Streaming<WatchEvent>, String> {
    let mut w = dial::watch(addr)?;
    match tokio::time::timeout(DIAL_TIMEOUT, w.stream(WatchRequest { no_phases: false })).await {
        Ok(Ok(r)) => Ok(r.into_inner()),
        Ok(Err(s)) => Err(reason(&s)),
        Err(_) => Err(format!("no answer within {} s", DIAL_TIMEOUT.as_secs())),
    }
}

/// A gRPC status as one line (a dead daemon's `transport error` says little: the code says more).
fn reason(s: &tonic::Status) -> String {
    match s.code() {
        tonic::Code::Unavailable => format!("unreachable ({})", s.message()),
        _ => s.message().to_string(),
    }
}

/// `--once`: the backlog and the events up to the first one after it, applied to `app`.
pub async fn once(cfg: &ClientConfig, app: &mut App) -> Result<(), String> {
    let mut stream = dial_stream(&cfg.addr).await.map_err(|e| format!("daemon at {}: {e}", cfg.addr))?;
    app.apply(Msg::Link(Link::Up));
    let mut feed = Feed::new();
    let store = cfg.store.clone();
    let look = move |id: &str| lookup(store.as_ref(), id);
    let deadline = tokio::time::Instant::now() + ONCE_WAIT;
    let mut first_seq = None;
    while let Ok(m) = tokio::time::timeout_at(deadline, stream.message()).await {
        let ev = match m {
            Ok(Some(ev)) => ev,
            Ok(None) => break,
            Err(s) => return Err(format!("daemon at {}: {}", cfg.addr, reason(&s))),
        };
        let seq = ev.seq;
        for msg in feed.event(ev, &look) {
            app.apply(msg);
        }
        // Backlog events carry the sequence number of the moment the stream opened; the first later one is
        // live: the snapshot is complete.
        match first_seq {
            None => first_seq = Some(seq),
            Some(s) if seq > s => break,
            Some(_) => {}
        }
    }
    Ok(())
}

/// The client's loop: dial, stream, carry out commands; dial again when the daemon goes away; end on quit.
async fn client(cfg: ClientConfig, out: UnboundedSender<Msg>, mut cmds: UnboundedReceiver<Command>) {
    let mut feed = Feed::new();
    let send = |m: Msg| out.send(m).is_ok();
    let mut first = true;
    loop {
        let why = match dial_stream(&cfg.addr).await {
            Ok(mut stream) => {
                for m in feed.reset() {
                    send(m);
                }
                if !first {
                    if let Some(s) = &cfg.store {
                        send(Msg::Stored(s.list().0));
                    }
                }
                first = false;
                send(Msg::Link(Link::Up));
                let store = cfg.store.clone();
                let look = move |id: &str| lookup(store.as_ref(), id);
                loop {
                    tokio::select! {
                        m = stream.message() => match m {
                            Ok(Some(ev)) => {
                                for msg in feed.event(ev, &look) {
                                    if !send(msg) {
                                        return;
                                    }
                                }
                            }
                            Ok(None) => break "it closed the stream (stopping?)".to_string(),
                            Err(s) => break reason(&s),
                        },
                        c = cmds.recv() => match c {
                            None | Some(Command::Quit) => return,
                            Some(cmd) => {
                                if let Some(m) = command(&cfg, feed.following(), cmd).await {
                                    send(m);
                                }
                            }
                        },
                    }
                }
            }
            Err(e) => e,
        };
        if !send(Msg::Link(Link::Lost(why))) {
            return;
        }
        let pause = tokio::time::sleep(REDIAL);
        tokio::pin!(pause);
        loop {
            tokio::select! {
                _ = &mut pause => break,
                c = cmds.recv() => match c {
                    None | Some(Command::Quit) => return,
                    Some(cmd @ (Command::Export(_) | Command::Delete(_))) => {
                        if let Some(m) = command(&cfg, None, cmd).await {
                            send(m);
                        }
                    }
                    Some(_) => {
                        send(Msg::Log(Level::Warn, "not connected to the daemon: dialing again".into()));
                    }
                },
            }
        }
    }
}

/// Carries out one command against the daemon (or this console's run store); what to tell the console.
async fn command(cfg: &ClientConfig, following: Option<&str>, cmd: Command) -> Option<Msg> {
    match cmd {
        Command::Run { .. } => {
            let mut w = dial::watch(&cfg.addr).ok()?;
            let req = SubmitSampleRequest { sample: cfg.sample.clone(), sectors: 0, priority: String::new() };
            Some(match w.submit(req).await {
                Ok(r) => Msg::Log(Level::Info, format!("submitted: job {}", r.into_inner().job_id)),
                Err(s) => Msg::Log(Level::Error, format!("submit refused: {}", reason(&s))),
            })
        }
        Command::Cancel => {
            let job = following?.to_string();
            let mut p = dial::proving(&cfg.addr).ok()?;
            Some(match p.cancel_proof(CancelProofRequest { job_id: job.clone() }).await {
                Ok(_) => Msg::Log(Level::Info, format!("job {job}: cancel sent to the daemon")),
                Err(s) => Msg::Log(Level::Error, format!("job {job}: cancel refused: {}", reason(&s))),
            })
        }
        Command::Export(rec) => Some(match &cfg.store {
            Some(s) => export_record(s, &rec),
            None => Msg::Log(Level::Warn, "no run store here to export into".into()),
        }),
        Command::Delete(id) => Some(match &cfg.store {
            Some(s) => delete_record(s, id),
            None => Msg::Log(Level::Warn, "no run store here".into()),
        }),
        Command::Ablate { .. } => {
            Some(Msg::Log(Level::Warn, "attached: ablation runs in-process only".into()))
        }
        Command::Quit => None,
    }
}

#[cfg(test)]
mod tests {
    use super::address;

    #[test]
    fn addresses_as_the_daemon_listens() {
        assert_eq!(address("127.0.0.1:9820").as_deref(), Ok("127.0.0.1:9820"));
        assert_eq!(address(" tcp://[::1]:1 ").as_deref(), Ok("[::1]:1"));
        assert_eq!(address(":9820").as_deref(), Ok("127.0.0.1:9820"));
        assert_eq!(address("unix:///run/curio/cuzk.sock").as_deref(), Ok("unix:///run/curio/cuzk.sock"));
        assert_eq!(address("unix:rel.sock").as_deref(), Ok("unix://rel.sock"));
        for bad in ["", "9820", "host:", "host:99999", "unix://"] {
            let e = address(bad).expect_err(bad);
            assert!(e.starts_with("--attach") && e.contains("unix:///"), "{e}");
        }
    }
}
