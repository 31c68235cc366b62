//! The library's own words on stderr: a `log::Log` that writes vkpace's warnings and errors
//! behind the layer's prefix. The library reports what it could not do through the `log`
//! crate (results in a time domain it could not calibrate, a present passed through unpaced);
//! without a logger those lines go nowhere, and a user sees a counter move with no reason.
//!
//! Installed once, when the layer makes its first present pacer (the library speaks only
//! through pacers). The layer is a shared library with its own copy of `log`, so the
//! application's logger (if any) is a different one; where this copy already has a logger,
//! `set_logger` fails and that logger stays. Warnings and errors only, unless
//! `VKPACE_LOG_LEVEL` names another level (`error`, `warn`, `info`, `debug`, `trace`, `off`).
//! A line is written straight to stderr, so a record costs no allocation (the library warns
//! once per cause, never per frame).

use std::io::Write as _;
use std::sync::Once;

use log::{LevelFilter, Log, Metadata, Record};

/// The environment variable naming the level.
pub const LEVEL_VAR: &str = "VKPACE_LOG_LEVEL";

/// Writes each record as `<prefix>: <level>: <message>`.
struct Stderr;

static LOGGER: Stderr = Stderr;

impl Log for Stderr {
    fn enabled(&self, metadata: &Metadata<'_>) -> bool {
        metadata.level() <= log::max_level()
    }

    fn log(&self, record: &Record<'_>) {
        if self.enabled(record.metadata()) {
            let _ = writeln!(
                std::io::stderr().lock(),
                "{}: {}: {}",
                crate::GUARD.layer(),
                level_word(record.level()),
                record.args()
            );
        }
    }

    fn flush(&self) {}
}

/// The level as a user reads it.
fn level_word(level: log::Level) -> &'static str {
    match level {
        log::Level::Error => "error",
        log::Level::Warn => "warning",
        log::Level::Info => "info",
        log::Level::Debug => "debug",
        log::Level::Trace => "trace",
    }
}

/// The level `value` names (case-insensitive); warnings and errors where it names none.
pub fn level_of(value: Option<&str>) -> LevelFilter {
    value
        .and_then(|v| v.trim().parse().ok())
        .unwrap_or(LevelFilter::Warn)
}

/// Installs the logger once per process (a logger already installed stays).
pub(crate) fn install() {
    static ONCE: Once = Once::new();
    ONCE.call_once(|| {
        if log::set_logger(&LOGGER).is_ok() {
            let level = std::env::var(LEVEL_VAR).ok();
            log::set_max_level(level_of(level.as_deref()));
        }
    });
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn warnings_and_errors_unless_the_variable_names_a_level() {
        assert_eq!(level_of(None), LevelFilter::Warn);
        assert_eq!(level_of(Some("nonsense")), LevelFilter::Warn);
        assert_eq!(level_of(Some("info")), LevelFilter::Info);
        assert_eq!(level_of(Some(" ERROR ")), LevelFilter::Error);
        assert_eq!(level_of(Some("off")), LevelFilter::Off);
    }
}
