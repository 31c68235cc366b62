//! The layer's settings for this process, read once at its first `vkCreateInstance` (the
//! environment, the configuration file, the other limiters found, for the program the
//! application info and the command line name) and logged once with what the layer will do
//! and why.

use std::path::Path;
use std::sync::OnceLock;

use crate::settings::{
    config_path, decide, detect_peers, Decision, Engine, Identity, Mode, Settings,
};

/// What the layer does in this process.
pub struct Policy {
    /// The settings in force.
    pub settings: Settings,
    /// Pace, step aside or off.
    pub decision: Decision,
}

static POLICY: OnceLock<Policy> = OnceLock::new();

/// The process's policy, read at its first use: the first `vkCreateInstance`, whose
/// application info (`app`: `pApplicationName`, and `pEngineName` with `engineVersion`) says
/// which program this is under Wine and which engine it runs on. A later call gets the same
/// policy whatever it passes.
pub fn policy(app: Option<(Option<&str>, Option<Engine>)>) -> &'static Policy {
    POLICY.get_or_init(|| {
        let (app_name, engine) = app.unwrap_or_default();
        read(&identity(app_name, engine))
    })
}

/// The policy for program `id`, from the environment and the files.
fn read(id: &Identity) -> Policy {
    let env = |k: &str| std::env::var(k).ok();
    let path = config_path(env);
    let text = path
        .as_deref()
        .and_then(|p| std::fs::read_to_string(p).ok());
    let (settings, errors) = Settings::resolve(env, text.as_deref(), &id.name);
    for e in &errors {
        crate::log(format_args!("{e}"));
    }
    let cwd = std::env::current_dir().ok();
    let files = |p: &Path| std::fs::read_to_string(p).ok();
    let peers = detect_peers(env, files, id, cwd.as_deref());
    let decision = decide(&settings, &peers);
    crate::log(format_args!("{}", describe(&id.name, &settings, &decision)));
    Policy { settings, decision }
}

/// This process's identity: its executable and command line (`/proc/self/cmdline`, which
/// Wine rewrites to the Windows program's path), and what its application info said.
fn identity(app_name: Option<&str>, engine: Option<Engine>) -> Identity {
    let exe = std::env::current_exe().unwrap_or_default();
    let args: Vec<String> = std::fs::read("/proc/self/cmdline")
        .map(|bytes| {
            bytes
                .split(|b| *b == 0)
                .filter(|a| !a.is_empty())
                .map(|a| String::from_utf8_lossy(a).into_owned())
                .collect()
        })
        .unwrap_or_default();
    Identity::detect(&exe, &args, app_name, engine)
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
                _ => "grid",
            };
            let repair = if s.repair { "on" } else { "off" };
            format!("{exe}: paces ({mode}, {cap}), present-semaphore repair {repair}")
        }
    }
}
