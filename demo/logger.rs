//! The library's own words on stderr: a `log::Log` that writes the warnings and errors of
//! vkpace (and of the crates beside it) as `vkpace demo: <level>: <message>`. vkpace reports
//! what it could not do through the `log` crate; without a logger a user would see a counter
//! in the report move with no line saying why. Warnings and errors only, unless
//! `VKPACE_LOG_LEVEL` names another level (`error`, `warn`, `info`, `debug`, `trace`, `off`).
//! A line is written straight to stderr, so a record costs no allocation (the library warns
//! once per cause, never per frame).

use std::io::Write as _;

use log::{LevelFilter, Log, Metadata, Record};

/// The environment variable naming the level (the pacing layer reads the same one).
const LEVEL_VAR: &str = "VKPACE_LOG_LEVEL";

struct Stderr;

static LOGGER: Stderr = Stderr;

impl Log for Stderr {
    fn enabled(&self, metadata: &Metadata<'_>) -> bool {
        metadata.level() <= log::max_level()
    }

    fn log(&self, record: &Record<'_>) {
        if self.enabled(record.metadata()) {
            let level = match record.level() {
                log::Level::Error => "error",
                log::Level::Warn => "warning",
                log::Level::Info => "info",
                log::Level::Debug => "debug",
                log::Level::Trace => "trace",
            };
            let _ = writeln!(
                std::io::stderr().lock(),
                "vkpace demo: {level}: {}",
                record.args()
            );
        }
    }

    fn flush(&self) {}
}

/// Installs the logger (once, at the start of `main`).
pub fn install() {
    if log::set_logger(&LOGGER).is_ok() {
        let level = std::env::var(LEVEL_VAR).ok();
        let level = level.and_then(|v| v.trim().parse().ok());
        log::set_max_level(level.unwrap_or(LevelFilter::Warn));
    }
}
