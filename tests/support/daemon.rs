//! A `cuzk daemon` child for the tests that talk to one: started on a unix socket or a loopback port with a
//! fixed seed on the CPU backend (`CUZK_DAEMON_BACKEND` names another: gpu-check's device run), its address
//! read from its stderr, killed when dropped. The binary is `CUZK_BIN` when set (the device has no build
//! tree), else the one cargo built.
#![allow(dead_code)]

use std::io::{BufRead, BufReader};
use std::path::{Path, PathBuf};
use std::process::{Child, Command, Stdio};
use std::sync::{Arc, Mutex};
use std::time::{Duration, Instant};

use cuzk::wire::v1 as pb;

/// One params cache for every daemon of these tests (the cache is safe for concurrent processes).
pub fn cache() -> PathBuf {
    std::env::var_os("CUZK_CACHE")
        .map_or_else(|| std::env::temp_dir().join("cuzk-daemon-tests-cache"), PathBuf::from)
}

pub struct Daemon {
    pub child: Child,
    pub addr: String,
    pub http: Option<String>,
    log: Arc<Mutex<String>>,
}

impl Daemon {
    pub fn start(listen: &str, home: &Path, extra: &[&str]) -> Daemon {
        let bin = std::env::var_os("CUZK_BIN")
            .map_or_else(|| PathBuf::from(env!("CARGO_BIN_EXE_cuzk")), PathBuf::from);
        let backend = std::env::var("CUZK_DAEMON_BACKEND").unwrap_or_else(|_| "cpu".into());
        let mut child = Command::new(bin)
            .args(["daemon", "--listen", listen, "--seed", "42", "--backend", &backend, "--data-dir"])
            .arg(home)
            .args(extra)
            .env("CUZK_CACHE", cache())
            .env_remove("FIL_PROOFS_PARAMETER_CACHE")
            .stdout(Stdio::null())
            .stderr(Stdio::piped())
            .spawn()
            .expect("start cuzk daemon");
        let log = Arc::new(Mutex::new(String::new()));
        let (tx, rx) = std::sync::mpsc::channel();
        let stderr = child.stderr.take().expect("stderr");
        let l = log.clone();
        std::thread::spawn(move || {
            for line in BufReader::new(stderr).lines().map_while(Result::ok) {
                l.lock().unwrap_or_else(|p| p.into_inner()).push_str(&format!("{line}\n"));
                let _ = tx.send(line);
            }
        });
        let (mut addr, mut http) = (None, None);
        let deadline = Instant::now() + Duration::from_secs(60);
        while addr.is_none() {
            let line =
                rx.recv_timeout(deadline.saturating_duration_since(Instant::now())).expect("daemon started");
            if let Some(a) = line.split("listening on ").nth(1) {
                addr = a.split(' ').next().map(str::to_string);
            }
            if let Some(h) = line.split("http on ").nth(1) {
                http = h.split(' ').next().map(str::to_string);
            }
        }
        Daemon { child, addr: addr.unwrap_or_default(), http, log }
    }

    pub fn client(&self) -> pb::proving_engine_client::ProvingEngineClient<tonic::transport::Channel> {
        cuzk::wire::dial::proving(&self.addr).expect("channel")
    }

    pub fn signal(&self, sig: &str) {
        let ok = Command::new("kill").args([sig, &self.child.id().to_string()]).status().expect("kill");
        assert!(ok.success());
    }

    pub fn log(&self) -> String {
        self.log.lock().unwrap_or_else(|p| p.into_inner()).clone()
    }
}

impl Drop for Daemon {
    fn drop(&mut self) {
        let _ = self.child.kill();
        let _ = self.child.wait();
    }
}

pub fn rt() -> tokio::runtime::Runtime {
    tokio::runtime::Builder::new_multi_thread().worker_threads(2).enable_all().build().expect("runtime")
}
