//! The daemon's configuration: a TOML file (`--config`), every key optional and documented in
//! [`CONFIG_DOC`], then the command line's flags over it.

use std::path::{Path, PathBuf};

use serde::Deserialize;

use crate::vocab::{BackendKind, Toggles};

/// Every key of the config file with its meaning and default (README's daemon section shows the same).
pub const CONFIG_DOC: &str = r#"# cuzk daemon configuration (every key optional; flags override them)

# Where Curio dials: host:port (TCP, plaintext) or unix:///path/to/cuzk.sock. Default 127.0.0.1:9820.
listen = "127.0.0.1:9820"
# HTTP GET /status (JSON) and GET /metrics (Prometheus text) on this host:port; "" turns it off. Default off.
http_listen = "127.0.0.1:9821"
# Filecoin's parameter cache, where production v28-*.params live (sets FIL_PROOFS_PARAMETER_CACHE).
# Default: the variable as the daemon finds it. Without production params, cuzk generates its own, whose
# proofs Curio's verifier rejects.
param_cache = "/var/tmp/filecoin-proof-parameters"
# cuzk's own cache: generated params, PCE records, compiled kernels (sets CUZK_CACHE). Default: $CUZK_CACHE,
# else the user cache dir.
cache_dir = "/var/cache/cuzk"
# The run store, where every job's run record goes (sets CUZK_HOME). Default: $CUZK_HOME, else the user
# data dir.
data_dir = "/var/lib/cuzk"
# Circuit SRS loaded at start (Curio's circuit ids: porep-32g, wpost-32g, winning-32g, ...). Default none.
preload = ["porep-32g", "wpost-32g", "winning-32g"]
# What admitted jobs and resident SRS may hold together, e.g. "400G". A job that can never fit is refused
# at submit; one that fits later waits. Default: half the machine's memory.
memory_budget = "400G"
# Jobs proving at once (one synthesizes while another holds the GPU); one more worker runs only CRITICAL
# jobs (WinningPoSt). Default 2.
workers = 2
# auto (a GPU when one works, else the CPU), gpu or cpu. Default auto.
backend = "auto"
# GPUs to use, by CUDA ordinal (sets CUDA_VISIBLE_DEVICES before any GPU is opened). Default: all.
gpus = [0]
# Toggles every job runs with, as `cuzk prove --set` takes them, e.g. "pce=on,batch=1". Default: cuzk's.
set = ""
# Seconds SIGTERM waits for running jobs to finish before cancelling them (queued jobs are cancelled at
# once, new ones refused). Default 600.
drain_timeout_s = 600
# FOR TESTING ONLY: prove every job with this params and randomizer seed, so the same request gives the same
# proof bytes as `cuzk prove --seed N`. A real prover must leave it unset: each job then draws its
# randomizers from the OS.
# seed = 42
"#;

/// The config file as written.
#[derive(Debug, Default, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct FileConfig {
    /// See [`CONFIG_DOC`].
    pub listen: Option<String>,
    /// See [`CONFIG_DOC`].
    pub http_listen: Option<String>,
    /// See [`CONFIG_DOC`].
    pub param_cache: Option<PathBuf>,
    /// See [`CONFIG_DOC`].
    pub cache_dir: Option<PathBuf>,
    /// See [`CONFIG_DOC`].
    pub data_dir: Option<PathBuf>,
    /// See [`CONFIG_DOC`].
    #[serde(default)]
    pub preload: Vec<String>,
    /// See [`CONFIG_DOC`].
    pub memory_budget: Option<String>,
    /// See [`CONFIG_DOC`].
    pub workers: Option<usize>,
    /// See [`CONFIG_DOC`].
    pub backend: Option<String>,
    /// See [`CONFIG_DOC`].
    pub gpus: Option<Vec<u32>>,
    /// See [`CONFIG_DOC`].
    pub set: Option<String>,
    /// See [`CONFIG_DOC`].
    pub drain_timeout_s: Option<u64>,
    /// See [`CONFIG_DOC`].
    pub seed: Option<u64>,
}

/// What the command line gives (each over the file's key of the same name).
#[derive(Clone, Debug, Default)]
pub struct DaemonOptions {
    /// `--config FILE`.
    pub config: Option<PathBuf>,
    /// `--listen ADDR`.
    pub listen: Option<String>,
    /// `--http-listen ADDR`.
    pub http_listen: Option<String>,
    /// `--data-dir DIR`.
    pub data_dir: Option<PathBuf>,
    /// `--memory-budget BYTES`.
    pub memory_budget: Option<String>,
    /// `--workers N`.
    pub workers: Option<usize>,
    /// `--backend KIND`.
    pub backend: Option<String>,
    /// `--seed N` (testing only).
    pub seed: Option<u64>,
    /// `--print-config`: print [`CONFIG_DOC`] and exit.
    pub print_config: bool,
}

/// The configuration in force.
#[derive(Clone, Debug)]
pub struct Config {
    /// Curio's listen address.
    pub listen: String,
    /// The HTTP status address, when on.
    pub http_listen: Option<String>,
    /// FIL_PROOFS_PARAMETER_CACHE to set.
    pub param_cache: Option<PathBuf>,
    /// CUZK_CACHE to set.
    pub cache_dir: Option<PathBuf>,
    /// The run store's folder (`None`: the default).
    pub data_dir: Option<PathBuf>,
    /// SRS to load at start.
    pub preload: Vec<String>,
    /// The memory budget, bytes.
    pub memory_budget: u64,
    /// Jobs at once.
    pub workers: usize,
    /// The backend choice.
    pub backend: BackendKind,
    /// CUDA_VISIBLE_DEVICES to set.
    pub gpus: Option<Vec<u32>>,
    /// Every job's toggles.
    pub toggles: Toggles,
    /// SIGTERM's grace, seconds.
    pub drain_timeout_s: u64,
    /// Testing only: the fixed seed.
    pub seed: Option<u64>,
}

/// The default workers: one synthesizes while the other proves.
pub const DEFAULT_WORKERS: usize = 2;
/// SIGTERM's default grace: a 32 GiB PoRep C2 finishes within it on a GPU.
pub const DEFAULT_DRAIN_S: u64 = 600;

impl Config {
    /// The file (when given) under the flags; one line naming the file and key on any error.
    pub fn load(o: &DaemonOptions) -> Result<Config, String> {
        let file = match &o.config {
            Some(p) => read_file(p)?,
            None => FileConfig::default(),
        };
        let at = |key: &str| match &o.config {
            Some(p) => format!("{}: `{key}`", p.display()),
            None => format!("`{key}`"),
        };
        let budget = o.memory_budget.clone().or(file.memory_budget);
        let memory_budget = match budget {
            Some(s) => {
                crate::engine::budget::parse_bytes(&s).map_err(|e| format!("{}: {e}", at("memory_budget")))?
            }
            None => crate::engine::default_mem_budget(),
        };
        let backend_s = o.backend.clone().or(file.backend).unwrap_or_else(|| "auto".into());
        let backend = backend_s.parse::<BackendKind>().map_err(|e| format!("{}: {e}", at("backend")))?;
        let mut toggles = Toggles::default();
        if let Some(set) = file.set.as_deref().filter(|s| !s.trim().is_empty()) {
            toggles.apply_set(set).map_err(|e| format!("{}: {e}", at("set")))?;
        }
        let workers = o.workers.or(file.workers).unwrap_or(DEFAULT_WORKERS);
        if workers == 0 || workers > crate::engine::service::MAX_WORKERS {
            return Err(format!(
                "{}: {workers}, expected 1..={}",
                at("workers"),
                crate::engine::service::MAX_WORKERS
            ));
        }
        let http = o.http_listen.clone().or(file.http_listen).filter(|s| !s.trim().is_empty());
        Ok(Config {
            listen: o
                .listen
                .clone()
                .or(file.listen)
                .unwrap_or_else(|| format!("127.0.0.1:{}", crate::wire::DEFAULT_PORT)),
            http_listen: http,
            param_cache: file.param_cache,
            cache_dir: file.cache_dir,
            data_dir: o.data_dir.clone().or(file.data_dir),
            preload: file.preload,
            memory_budget,
            workers,
            backend,
            gpus: file.gpus,
            toggles,
            drain_timeout_s: file.drain_timeout_s.unwrap_or(DEFAULT_DRAIN_S),
            seed: o.seed.or(file.seed),
        })
    }
}

fn read_file(p: &Path) -> Result<FileConfig, String> {
    let text = std::fs::read_to_string(p).map_err(|e| format!("{}: cannot read: {e}", p.display()))?;
    toml::from_str(&text).map_err(|e| {
        let msg = e.message().to_string();
        let line = e
            .span()
            .map(|s| text.as_bytes()[..s.start.min(text.len())].iter().filter(|&&b| b == b'\n').count() + 1);
        match line {
            Some(l) => format!("{}:{l}: {msg}", p.display()),
            None => format!("{}: {msg}", p.display()),
        }
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    /// The documented example parses (every key it names exists), and flags win over the file.
    #[test]
    fn documented_config_parses_and_flags_override() {
        let dir = std::env::temp_dir().join(format!("cuzk-daemon-config-{}", std::process::id()));
        let _ = std::fs::create_dir_all(&dir);
        let path = dir.join("daemon.toml");
        std::fs::write(&path, CONFIG_DOC.replace("# seed = 42", "seed = 42")).expect("write");
        let o = DaemonOptions { config: Some(path.clone()), ..DaemonOptions::default() };
        let c = Config::load(&o).expect("documented config");
        assert_eq!(
            (c.listen.as_str(), c.workers, c.seed, c.memory_budget),
            ("127.0.0.1:9820", 2, Some(42), 400 << 30)
        );
        assert_eq!(c.preload, ["porep-32g", "wpost-32g", "winning-32g"]);
        let o = DaemonOptions { listen: Some("unix:///tmp/x.sock".into()), workers: Some(3), ..o };
        let c = Config::load(&o).expect("with flags");
        assert_eq!((c.listen.as_str(), c.workers), ("unix:///tmp/x.sock", 3));
        std::fs::write(&path, "listen = \"a\"\nworkerz = 3\n").expect("write");
        let e = Config::load(&DaemonOptions { config: Some(path.clone()), ..DaemonOptions::default() })
            .expect_err("unknown key");
        assert!(e.contains("daemon.toml:2") && e.contains("workerz"), "{e}");
        std::fs::write(&path, "memory_budget = \"lots\"\n").expect("write");
        let e =
            Config::load(&DaemonOptions { config: Some(path), ..DaemonOptions::default() }).expect_err("bad");
        assert!(e.contains("`memory_budget`"), "{e}");
        let _ = std::fs::remove_dir_all(&dir);
    }
}
