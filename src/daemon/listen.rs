//! Where the daemon listens: `host:port` (TCP) or `unix:///path` (a unix socket), as Curio dials.

use std::path::{Path, PathBuf};

/// A parsed listen address.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum Listen {
    /// TCP, `host:port`.
    Tcp(String),
    /// A unix socket at this path.
    Unix(PathBuf),
}

/// Parses `host:port`, `tcp://host:port`, `:port` (all interfaces), `unix:///path` or `unix:path`.
pub fn parse(addr: &str) -> Result<Listen, String> {
    let a = addr.trim();
    if let Some(rest) = a.strip_prefix("unix://").or_else(|| a.strip_prefix("unix:")) {
        if rest.is_empty() {
            return Err(format!("listen {addr:?}: empty socket path"));
        }
        return Ok(Listen::Unix(PathBuf::from(rest)));
    }
    let hostport = a.strip_prefix("tcp://").unwrap_or(a);
    let hostport =
        if hostport.starts_with(':') { format!("0.0.0.0{hostport}") } else { hostport.to_string() };
    match hostport.rsplit_once(':') {
        Some((h, p)) if !h.is_empty() && p.parse::<u16>().is_ok() => Ok(Listen::Tcp(hostport)),
        _ => Err(format!("listen {addr:?}: expected host:port or unix:///path/to/cuzk.sock")),
    }
}

/// Binds a unix socket at `path`, replacing a stale one a killed daemon left (nobody accepts on it); a live
/// one is an error naming it.
pub fn bind_unix(path: &Path) -> Result<tokio::net::UnixListener, String> {
    if path.exists() {
        if std::os::unix::net::UnixStream::connect(path).is_ok() {
            return Err(format!("{}: another daemon is listening on this socket", path.display()));
        }
        std::fs::remove_file(path)
            .map_err(|e| format!("{}: cannot remove the stale socket: {e}", path.display()))?;
    }
    if let Some(dir) = path.parent().filter(|d| !d.as_os_str().is_empty()) {
        std::fs::create_dir_all(dir).map_err(|e| format!("{}: cannot create: {e}", dir.display()))?;
    }
    tokio::net::UnixListener::bind(path).map_err(|e| format!("{}: cannot listen: {e}", path.display()))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn addresses() {
        assert_eq!(parse("127.0.0.1:9820"), Ok(Listen::Tcp("127.0.0.1:9820".into())));
        assert_eq!(parse(":9820"), Ok(Listen::Tcp("0.0.0.0:9820".into())));
        assert_eq!(parse("tcp://[::1]:1"), Ok(Listen::Tcp("[::1]:1".into())));
        assert_eq!(parse("unix:///run/curio/cuzk.sock"), Ok(Listen::Unix("/run/curio/cuzk.sock".into())));
        for bad in ["", "9820", "host:", "host:99999", "unix://"] {
            assert!(parse(bad).is_err(), "{bad}");
        }
    }
}
