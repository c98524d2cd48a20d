//! Where `tracing` events go: a line on stderr per event at or above the level `CUZK_LOG` names.
//!
//! Why: the engine and the GPU backend report fallbacks they recover from (a stream that could not be made,
//! a cache entry rebuilt, a survey not remembered) as `tracing` events; without a subscriber they vanish.
//! This is the whole subscriber cuzk needs (events only, no span bookkeeping: phases have their own spans in
//! `vocab::Probe`), so `tracing-subscriber` is not pulled in for it.

use std::fmt::Write as _;

use tracing::field::{Field, Visit};
use tracing::span::{Attributes, Id, Record};
use tracing::{Event, Level, Metadata, Subscriber};

/// The environment variable naming the most verbose level printed: `off`, `error`, `warn` (the default),
/// `info`, `debug` or `trace`.
pub const LOG_ENV: &str = "CUZK_LOG";

/// The level `value` names (`None` for `off`), or an error naming what was expected.
pub fn parse_level(value: &str) -> Result<Option<Level>, String> {
    Ok(Some(match value.trim().to_ascii_lowercase().as_str() {
        "off" | "none" => return Ok(None),
        "error" => Level::ERROR,
        "warn" | "" => Level::WARN,
        "info" => Level::INFO,
        "debug" => Level::DEBUG,
        "trace" => Level::TRACE,
        other => return Err(format!("{LOG_ENV}={other}: expected off, error, warn, info, debug or trace")),
    }))
}

/// A subscriber that hands each enabled event, formatted as one line, to `sink`.
pub struct LineSubscriber<F: Fn(&str) + Send + Sync + 'static> {
    max: Level,
    sink: F,
}

impl<F: Fn(&str) + Send + Sync + 'static> LineSubscriber<F> {
    /// Events at `max` or above (more severe) go to `sink`.
    pub fn new(max: Level, sink: F) -> Self {
        LineSubscriber { max, sink }
    }
}

/// Collects an event's fields: the message first, then `name=value` for the others.
struct Line(String);

impl Visit for Line {
    fn record_debug(&mut self, field: &Field, value: &dyn std::fmt::Debug) {
        if field.name() == "message" {
            let _ = write!(self.0, "{value:?}");
        } else {
            let _ = write!(self.0, " {}={value:?}", field.name());
        }
    }
}

impl<F: Fn(&str) + Send + Sync + 'static> Subscriber for LineSubscriber<F> {
    fn enabled(&self, metadata: &Metadata<'_>) -> bool {
        *metadata.level() <= self.max
    }

    fn new_span(&self, _span: &Attributes<'_>) -> Id {
        Id::from_u64(1)
    }

    fn record(&self, _span: &Id, _values: &Record<'_>) {}

    fn record_follows_from(&self, _span: &Id, _follows: &Id) {}

    fn event(&self, event: &Event<'_>) {
        let mut line = Line(String::new());
        event.record(&mut line);
        let level = event.metadata().level().as_str().to_ascii_lowercase();
        (self.sink)(&format!("cuzk {level}: {}", line.0));
    }

    fn enter(&self, _span: &Id) {}

    fn exit(&self, _span: &Id) {}
}

/// Sends `tracing` events to stderr at the level `CUZK_LOG` names (warn when unset). Not for the console,
/// whose screen stderr lines would tear. A bad `CUZK_LOG` is reported on stderr and the default kept.
pub fn init_stderr() {
    let level = match std::env::var(LOG_ENV) {
        Ok(v) => parse_level(&v).unwrap_or_else(|e| {
            eprintln!("warning: {e}; using warn");
            Some(Level::WARN)
        }),
        Err(_) => Some(Level::WARN),
    };
    if let Some(max) = level {
        // Fails only when a subscriber is already set (then that one stays).
        let _ = tracing::subscriber::set_global_default(LineSubscriber::new(max, |l: &str| eprintln!("{l}")));
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use std::sync::{Arc, Mutex};

    #[test]
    fn levels_parse_and_bad_names_are_named() {
        assert_eq!(parse_level("DEBUG"), Ok(Some(Level::DEBUG)));
        assert_eq!(parse_level("off"), Ok(None));
        assert_eq!(parse_level(""), Ok(Some(Level::WARN)));
        let e = parse_level("loud").unwrap_err();
        assert!(e.contains("CUZK_LOG=loud") && e.contains("expected off"), "{e}");
    }

    #[test]
    fn events_at_or_above_the_level_become_lines() {
        let lines = Arc::new(Mutex::new(Vec::<String>::new()));
        let sink = lines.clone();
        let sub = LineSubscriber::new(Level::WARN, move |l: &str| sink.lock().unwrap().push(l.to_string()));
        tracing::subscriber::with_default(sub, || {
            tracing::warn!("GPU{}: stream refused", 0);
            tracing::error!(bytes = 12, "write failed");
            tracing::debug!("not shown");
        });
        let got = lines.lock().unwrap().clone();
        assert_eq!(got, ["cuzk warn: GPU0: stream refused", "cuzk error: write failed bytes=12"]);
    }
}
