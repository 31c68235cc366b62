//! The layer's settings for one application: environment variables first, then the
//! configuration file's section for the executable, then its global section, then the
//! defaults. A bad value never stops the application: it is reported ([`SettingError`]) and
//! the setting keeps the value the next source gives it.
//!
//! | key (file) | environment | values | default |
//! | --- | --- | --- | --- |
//! | `fps` | `VKPACE_FPS` | a frame rate, fractions allowed (`40`, `59.94`); `0` or `off`: no cap | none |
//! | `mode` | `VKPACE_MODE` | `grid` (frames in flight, the cap on the refresh grid where it divides it, each frame started just in time for it), `low-latency` (as `grid`, each frame started by a lead aiming at a small miss rate), `off` (no pacing) | `grid` |
//! | `frames_in_flight` | `VKPACE_FRAMES_IN_FLIGHT` | 1, 2 or 3 | 2 |
//! | `repair` | `VKPACE_REPAIR` | `1`/`0` (`on`/`off`, `true`/`false`): repair reused present semaphores | on |
//! | `log` | `VKPACE_LOG` | a path: one CSV line per frame | none |
//! | `force` | `VKPACE_FORCE` | `1`/`0`: pace even where another frame limiter is active | off |
//!
//! The file is `$VKPACE_CONFIG`, else `$XDG_CONFIG_HOME/vkpace/pacing.conf`, else
//! `$HOME/.config/vkpace/pacing.conf` ([`config_path`]): `key = value` lines, `#` comments, and
//! sections `[name]` whose keys apply only to the executable of that file name:
//!
//! ```text
//! # every application
//! fps = 60
//! [vkcube]
//! fps = 30
//! mode = low-latency
//! ```

mod dxvk;
mod file;
mod identity;
mod mangohud;
mod peers;

use std::path::{Path, PathBuf};

pub use file::{parse_file, FileEntry};
pub use identity::{Engine, Identity};
pub use peers::{decide, detect_peers, Decision, Peer};

/// How the layer paces.
#[derive(Copy, Clone, Debug, PartialEq, Eq)]
pub enum Mode {
    /// vkpace's frames-in-flight pacing; a cap that divides the refresh is kept on the refresh
    /// grid where the surface offers present timing, each frame started by a lead learned from
    /// the frames' own start-to-ready times (`PacingPolicy::Grid`), else by the CPU limiter.
    Grid,
    /// vkpace's low-latency policy: as [`Mode::Grid`], but on the refresh grid each frame
    /// starts by a lead aiming at a small miss rate (`PacingPolicy::LowLatency`); the layer
    /// learns no GPU times, so elsewhere it paces as [`Mode::Grid`] does.
    LowLatency,
    /// No pacing (the layer passes everything through).
    Off,
}

/// What the layer does for one application.
#[derive(Clone, Debug, PartialEq)]
pub struct Settings {
    /// The frame rate cap, frames per second.
    pub fps: Option<f64>,
    /// How it paces.
    pub mode: Mode,
    /// Frames the CPU may run ahead of the GPU, 1..=3; `None`: vkpace's default.
    pub frames_in_flight: Option<usize>,
    /// Repair present semaphores the application reuses too early.
    pub repair: bool,
    /// Where the per-frame CSV log goes.
    pub log: Option<PathBuf>,
    /// Pace even where another frame limiter is active.
    pub force: bool,
}

impl Default for Settings {
    fn default() -> Self {
        Self {
            fps: None,
            mode: Mode::Grid,
            frames_in_flight: None,
            repair: true,
            log: None,
            force: false,
        }
    }
}

/// A setting that could not be taken: the application goes on with the value the next source
/// (or the default) gives.
#[derive(Debug, Clone, PartialEq, thiserror::Error)]
#[non_exhaustive]
pub enum SettingError {
    /// A value the key does not take.
    #[error("{source_name}: {key} = {value:?} is not {expected}; ignored")]
    InvalidValue {
        /// The environment variable, or the file and line.
        source_name: String,
        /// The setting.
        key: String,
        /// The value given.
        value: String,
        /// What the setting takes.
        expected: &'static str,
    },
    /// A key the layer does not know (a typo the user should hear of).
    #[error("{source_name}: unknown setting {key:?}; ignored")]
    UnknownKey {
        /// The file and line.
        source_name: String,
        /// The key as written.
        key: String,
    },
    /// A line of the file that is neither `key = value`, a `[section]`, a comment nor blank.
    #[error("{source_name}: {line:?} is not `key = value` or `[executable]`; ignored")]
    Malformed {
        /// The file and line.
        source_name: String,
        /// The line as written.
        line: String,
    },
}

/// The environment variable of each key.
const KEYS: [(&str, &str); 6] = [
    ("fps", "VKPACE_FPS"),
    ("mode", "VKPACE_MODE"),
    ("frames_in_flight", "VKPACE_FRAMES_IN_FLIGHT"),
    ("repair", "VKPACE_REPAIR"),
    ("log", "VKPACE_LOG"),
    ("force", "VKPACE_FORCE"),
];

impl Settings {
    /// The settings of executable `exe` (its file name) from `env` (an environment lookup)
    /// and the configuration file's text, if any; with every value not taken.
    pub fn resolve(
        env: impl Fn(&str) -> Option<String>,
        file_text: Option<&str>,
        exe: &str,
    ) -> (Self, Vec<SettingError>) {
        let mut settings = Self::default();
        let mut errors = Vec::new();
        if let Some(text) = file_text {
            let (entries, file_errors) = parse_file(text);
            errors.extend(file_errors);
            // The global section first, then the executable's: later values win.
            let global = entries.iter().filter(|e| e.section.is_none());
            let own = entries.iter().filter(|e| e.section.as_deref() == Some(exe));
            for e in global.chain(own) {
                let source_name = format!("pacing.conf line {}", e.line);
                if let Err(err) = settings.set(&e.key, &e.value, source_name) {
                    errors.push(err);
                }
            }
        }
        for (key, var) in KEYS {
            if let Some(value) = env(var) {
                if let Err(err) = settings.set(key, &value, var.to_string()) {
                    errors.push(err);
                }
            }
        }
        (settings, errors)
    }

    /// Sets `key` from `value` (read from `source_name`).
    fn set(&mut self, key: &str, value: &str, source_name: String) -> Result<(), SettingError> {
        let value = value.trim();
        let invalid = |expected| SettingError::InvalidValue {
            source_name: source_name.clone(),
            key: key.to_string(),
            value: value.to_string(),
            expected,
        };
        match key {
            "fps" => self.fps = parse_fps(value).ok_or_else(|| invalid(FPS_EXPECTED))?,
            "mode" => self.mode = parse_mode(value).ok_or_else(|| invalid(MODE_EXPECTED))?,
            "frames_in_flight" => {
                let n = value.parse().ok().filter(|n| (1..=3).contains(n));
                self.frames_in_flight = Some(n.ok_or_else(|| invalid("1, 2 or 3"))?);
            }
            "repair" => self.repair = parse_switch(value).ok_or_else(|| invalid(SWITCH))?,
            "force" => self.force = parse_switch(value).ok_or_else(|| invalid(SWITCH))?,
            "log" if value.is_empty() => return Err(invalid("a path")),
            "log" => self.log = Some(PathBuf::from(value)),
            _ => {
                return Err(SettingError::UnknownKey {
                    source_name,
                    key: key.to_string(),
                })
            }
        }
        Ok(())
    }
}

/// The text of a wrong `fps` value: the range is the frame limit's ([`vkpace::FrameLimit::MIN_FPS`]
/// to [`vkpace::FrameLimit::MAX_FPS`]; a test holds the two together).
const FPS_EXPECTED: &str = "a frame rate from 1 to 10000 (fractions allowed), 0 or off";
const MODE_EXPECTED: &str = "grid, low-latency or off";
const SWITCH: &str = "1 or 0 (on/off, true/false)";

/// `Some(None)`: no cap; `None`: not a frame rate. The range is vkpace's frame limit's.
fn parse_fps(value: &str) -> Option<Option<f64>> {
    if value.eq_ignore_ascii_case("off") {
        return Some(None);
    }
    let fps: f64 = value.parse().ok()?;
    match fps {
        0.0 => Some(None),
        f if vkpace::FrameLimit::fps(f).is_ok() => Some(Some(f)),
        _ => None,
    }
}

fn parse_mode(value: &str) -> Option<Mode> {
    match value.to_ascii_lowercase().replace('_', "-").as_str() {
        "grid" => Some(Mode::Grid),
        "low-latency" | "lowlatency" => Some(Mode::LowLatency),
        "off" => Some(Mode::Off),
        _ => None,
    }
}

fn parse_switch(value: &str) -> Option<bool> {
    match value.to_ascii_lowercase().as_str() {
        "1" | "on" | "true" | "yes" => Some(true),
        "0" | "off" | "false" | "no" => Some(false),
        _ => None,
    }
}

/// Where the configuration file is: `$VKPACE_CONFIG`, else under `$XDG_CONFIG_HOME`, else
/// under `$HOME/.config` (an empty variable counts as unset, as the XDG base directory
/// specification says).
pub fn config_path(env: impl Fn(&str) -> Option<String>) -> Option<PathBuf> {
    let set = |k: &str| env(k).filter(|v| !v.is_empty());
    if let Some(p) = set("VKPACE_CONFIG") {
        return Some(PathBuf::from(p));
    }
    let base = match set("XDG_CONFIG_HOME") {
        Some(x) => PathBuf::from(x),
        None => Path::new(&set("HOME")?).join(".config"),
    };
    Some(base.join("vkpace").join("pacing.conf"))
}

#[cfg(test)]
mod tests;
