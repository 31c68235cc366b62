//! The layer's settings for this process, read once (the environment, the configuration file,
//! the other limiters found) and logged once with what the layer will do and why.

use std::path::Path;
use std::sync::LazyLock;

use crate::settings::{config_path, decide, detect_peers, Decision, Mode, Settings};

/// What the layer does in this process.
pub struct Policy {
    /// The settings in force.
    pub settings: Settings,
    /// Pace, step aside or off.
    pub decision: Decision,
}

/// The process's policy, read at its first use (the first `vkCreateInstance`).
pub static POLICY: LazyLock<Policy> = LazyLock::new(|| {
    let env = |k: &str| std::env::var(k).ok();
    let exe = executable_name();
    let path = config_path(env);
    let text = path
        .as_deref()
        .and_then(|p| std::fs::read_to_string(p).ok());
    let (settings, errors) = Settings::resolve(env, text.as_deref(), &exe);
    for e in &errors {
        crate::log(format_args!("{e}"));
    }
    let peers = detect_peers(env, |p: &Path| std::fs::read_to_string(p).ok(), &exe);
    let decision = decide(&settings, &peers);
    crate::log(format_args!("{}", describe(&exe, &settings, &decision)));
    Policy { settings, decision }
});

/// The executable's file name (what the configuration file's sections name).
fn executable_name() -> String {
    std::env::current_exe()
        .ok()
        .and_then(|p| p.file_name().map(|n| n.to_string_lossy().into_owned()))
        .unwrap_or_default()
}

/// The one line saying what the layer does for `exe`.
fn describe(exe: &str, s: &Settings, decision: &Decision) -> String {
    match decision {
        Decision::Off => format!("{exe}: mode off, every call passes through"),
        Decision::StepAside(why) => format!("{exe}: steps aside, {why}"),
        Decision::Pace => {
            let cap = s
                .fps
                .map_or("no cap".to_string(), |f| format!("cap {f} fps"));
            let mode = match s.mode {
                Mode::LowLatency => "low latency",
                _ => "frames in flight",
            };
            let repair = if s.repair { "on" } else { "off" };
            format!("{exe}: paces ({mode}, {cap}), present-semaphore repair {repair}")
        }
    }
}
