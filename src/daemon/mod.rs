//! `cuzk daemon`: the long-running prover Curio hands its SNARKs to. Serves Curio's `cuzk.v1.ProvingEngine`
//! and cuzk's `cuzk.console.v1.Watch` over gRPC (TCP or a unix socket, plaintext, 256 MiB messages),
//! `GET /status` and `GET /metrics` over HTTP, and drains on SIGTERM. The proving itself is
//! `engine::service`; this module maps the wire to it and runs the servers.

pub mod config;
mod http;
pub mod listen;
pub mod prometheus;
pub mod proving;
pub mod request;
mod routes;
pub mod stop;
pub mod watch;

use std::process::ExitCode;
use std::sync::Arc;
use std::time::Duration;

use tokio_stream::wrappers::{TcpListenerStream, UnixListenerStream};

pub use config::{Config, DaemonOptions, CONFIG_DOC};

use crate::backend::select::select;
use crate::engine::budget::human;
use crate::engine::sample::DEFAULT_SEED;
use crate::engine::service::{Service, ServiceConfig};
use crate::engine::store::RunStore;
use crate::wire::console::watch_server::WatchServer;
use crate::wire::v1::proving_engine_server::ProvingEngineServer;
use crate::wire::MAX_MESSAGE_BYTES;
use listen::Listen;

/// How long the servers get to close their connections once the service has drained.
const CLOSE_GRACE: Duration = Duration::from_secs(5);

/// Runs the daemon until SIGTERM/SIGINT; errors are one line on stderr and exit code 1.
pub fn main(opts: DaemonOptions) -> ExitCode {
    if opts.print_config {
        print!("{CONFIG_DOC}");
        return ExitCode::SUCCESS;
    }
    match run(&opts) {
        Ok(()) => ExitCode::SUCCESS,
        Err(e) => {
            eprintln!("error: {e}");
            ExitCode::FAILURE
        }
    }
}

fn run(opts: &DaemonOptions) -> Result<(), String> {
    let cfg = Config::load(opts)?;
    // The environment first, while the process has one thread: the engine and the GPU read it.
    if let Some(p) = &cfg.param_cache {
        std::env::set_var(crate::engine::FIL_PARAMS_ENV, p);
    }
    if let Some(p) = &cfg.cache_dir {
        std::env::set_var("CUZK_CACHE", p);
    }
    if let Some(g) = &cfg.gpus {
        let list: Vec<String> = g.iter().map(u32::to_string).collect();
        std::env::set_var("CUDA_VISIBLE_DEVICES", list.join(","));
    }
    let at = listen::parse(&cfg.listen)?;
    let store = RunStore::open(cfg.data_dir.as_deref()).map_err(|e| e.to_string())?;
    store.check_writable().map_err(|e| e.to_string())?;
    let selected = select(cfg.backend).map_err(|e| e.to_string())?;
    eprintln!(
        "cuzk daemon: backend {} ({}; {})",
        selected.backend.name(),
        selected.backend.device(),
        selected.reason
    );
    if cfg.seed.is_some() {
        eprintln!(
            "cuzk daemon: WARNING: `seed` is set: every proof's randomizers are fixed (for testing only)"
        );
    }
    let service = Service::start(ServiceConfig {
        backend: Arc::from(selected.backend),
        toggles: cfg.toggles,
        memory_budget: cfg.memory_budget,
        workers: cfg.workers,
        seed: cfg.seed,
        store,
    })?;
    let rt = tokio::runtime::Builder::new_multi_thread()
        .worker_threads(4)
        .thread_name("cuzk-rpc")
        .enable_all()
        .build()
        .map_err(|e| format!("cannot start the async runtime: {e}"))?;
    let r = rt.block_on(serve(&cfg, at, service.clone()));
    service.shutdown();
    service.join(CLOSE_GRACE);
    rt.shutdown_timeout(CLOSE_GRACE);
    r
}

async fn serve(cfg: &Config, at: Listen, service: Service) -> Result<(), String> {
    let (stop_tx, stop_rx) = tokio::sync::watch::channel(false);
    let proving =
        proving::Proving { service: service.clone(), params_seed: cfg.seed.unwrap_or(DEFAULT_SEED) };
    let proving = ProvingEngineServer::new(proving)
        .max_decoding_message_size(MAX_MESSAGE_BYTES)
        .max_encoding_message_size(MAX_MESSAGE_BYTES);
    let watcher = watch::Watcher { service: service.clone(), stopping: stop_rx.clone() };
    let watcher = WatchServer::new(watcher)
        .max_decoding_message_size(MAX_MESSAGE_BYTES)
        .max_encoding_message_size(MAX_MESSAGE_BYTES);
    let routes = routes::Routes { a: proving, b: watcher };
    let server = || tonic::transport::Server::builder();
    if let Some(h) = &cfg.http_listen {
        let l = tokio::net::TcpListener::bind(h)
            .await
            .map_err(|e| format!("http_listen {h}: cannot listen: {e}"))?;
        let bound = l.local_addr().map(|a| a.to_string()).unwrap_or_else(|_| h.clone());
        eprintln!("cuzk daemon: http on {bound} (GET /status, /metrics)");
        tokio::spawn(http::serve(l, service.clone(), stop_rx.clone()));
    }
    let budget = human(cfg.memory_budget);
    let stopped = stop::until_stopped(stop_rx.clone());
    tokio::spawn(signals(service.clone(), Duration::from_secs(cfg.drain_timeout_s), stop_tx));
    let preload = cfg.preload.clone();
    let svc = service.clone();
    tokio::task::spawn_blocking(move || {
        for id in preload {
            match svc.preload(&id) {
                Ok((_, ms)) => eprintln!("cuzk daemon: preloaded {id} in {ms} ms"),
                Err(e) => eprintln!("cuzk daemon: preload {id}: {e}"),
            }
        }
    });
    let served = match at {
        Listen::Tcp(addr) => {
            let l = tokio::net::TcpListener::bind(&addr)
                .await
                .map_err(|e| format!("listen {addr}: cannot listen: {e}"))?;
            let bound = l.local_addr().map(|a| a.to_string()).unwrap_or(addr);
            eprintln!("cuzk daemon: listening on {bound} (memory budget {budget}, {} workers)", cfg.workers);
            server().serve_with_incoming_shutdown(routes, TcpListenerStream::new(l), stopped).await
        }
        Listen::Unix(path) => {
            let l = listen::bind_unix(&path)?;
            eprintln!(
                "cuzk daemon: listening on unix://{} (memory budget {budget}, {} workers)",
                path.display(),
                cfg.workers
            );
            let r = server().serve_with_incoming_shutdown(routes, UnixListenerStream::new(l), stopped).await;
            let _ = std::fs::remove_file(&path);
            r
        }
    };
    served.map_err(|e| format!("gRPC server: {e}"))?;
    eprintln!("cuzk daemon: stopped");
    Ok(())
}

/// Waits for SIGTERM or SIGINT, drains the service (running jobs finish within `grace`, then are cancelled),
/// then tells the servers to stop.
async fn signals(service: Service, grace: Duration, stop: tokio::sync::watch::Sender<bool>) {
    use tokio::signal::unix::{signal, SignalKind};
    let (Ok(mut term), Ok(mut int)) = (signal(SignalKind::terminate()), signal(SignalKind::interrupt()))
    else {
        eprintln!("cuzk daemon: cannot watch SIGTERM/SIGINT; stop it with SIGKILL");
        return;
    };
    tokio::select! {
        _ = term.recv() => eprintln!("cuzk daemon: SIGTERM: draining (new jobs refused, running jobs finish within {} s)", grace.as_secs()),
        _ = int.recv() => eprintln!("cuzk daemon: SIGINT: draining (new jobs refused, running jobs finish within {} s)", grace.as_secs()),
    }
    let r = tokio::task::spawn_blocking(move || service.drain(grace)).await;
    if let Ok(r) = r {
        eprintln!(
            "cuzk daemon: drained: {} finished, {} cancelled while running, {} dropped from the queue",
            r.finished, r.cancelled, r.dropped
        );
    }
    let _ = stop.send(true);
}
