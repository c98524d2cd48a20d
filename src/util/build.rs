//! This build's identity on this machine, for caches whose entries only this build may trust (a survey of a
//! circuit's structure is valid for the code that made it): the crate version and the running executable's
//! size and modification time, so any rebuild reads as another build.

use std::sync::OnceLock;
use std::time::UNIX_EPOCH;

/// The build's identity: `<version>-<exe bytes>-<exe mtime ns>`; the version alone when the executable
/// cannot be looked at (then entries of other builds of this version are trusted).
pub fn id() -> &'static str {
    static ID: OnceLock<String> = OnceLock::new();
    ID.get_or_init(|| {
        let version = env!("CARGO_PKG_VERSION");
        let exe = std::env::current_exe().and_then(std::fs::metadata);
        match exe {
            Ok(m) => {
                let ns = m.modified().ok().and_then(|t| t.duration_since(UNIX_EPOCH).ok());
                format!("{version}-{}-{}", m.len(), ns.map_or(0, |d| d.as_nanos()))
            }
            Err(_) => version.to_string(),
        }
    })
}

#[cfg(test)]
mod tests {
    /// One word (the survey cache's line splits on spaces), stable within a process, naming the version.
    #[test]
    fn id_is_one_stable_word() {
        let id = super::id();
        assert!(id.starts_with(env!("CARGO_PKG_VERSION")), "{id}");
        assert!(!id.contains(char::is_whitespace), "{id}");
        assert_eq!(super::id(), id);
    }
}
