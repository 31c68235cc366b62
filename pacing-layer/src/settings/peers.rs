//! Other frame limiters an application may already run under, and whether the layer paces or
//! steps aside. Two limiters on one application fight: each sleeps for its own cap, the frame
//! times add up to neither, and users see the stutter and blame both. So the layer steps aside
//! (logged, with the reason) where it finds one active, unless forced.

use std::path::{Path, PathBuf};

use super::{Mode, Settings};

/// Another frame limiter found active.
#[derive(Clone, Debug, PartialEq)]
pub enum Peer {
    /// MangoHud's layer is enabled with an `fps_limit` (the first of its list), and where it
    /// was set.
    MangoHud {
        /// Its cap, frames per second.
        fps_limit: f64,
        /// Where it was set (the variable or file).
        from: String,
    },
    /// DXVK's frame rate limit (`DXVK_FRAME_RATE`, or `dxgi.maxFrameRate` /
    /// `d3d9.maxFrameRate` in `DXVK_CONFIG`).
    Dxvk {
        /// Its cap, frames per second.
        fps: f64,
    },
    /// vkd3d-proton's frame rate limit (`VKD3D_FRAME_RATE`).
    Vkd3dProton {
        /// Its cap, frames per second.
        fps: f64,
    },
    /// The application runs inside gamescope, whose compositor may limit the frame rate
    /// itself (the Steam Deck's frame limit is gamescope's).
    Gamescope,
}

impl std::fmt::Display for Peer {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        match self {
            Self::MangoHud { fps_limit, from } => {
                write!(f, "MangoHud's fps_limit={fps_limit} ({from})")
            }
            Self::Dxvk { fps } => write!(f, "DXVK's frame rate limit {fps}"),
            Self::Vkd3dProton { fps } => write!(f, "vkd3d-proton's VKD3D_FRAME_RATE={fps}"),
            Self::Gamescope => write!(f, "gamescope (GAMESCOPE_WAYLAND_DISPLAY is set)"),
        }
    }
}

/// What the layer does for the application.
#[derive(Clone, Debug, PartialEq)]
pub enum Decision {
    /// Pace with the settings.
    Pace,
    /// Another limiter is active and the layer was not forced: pass everything through; the
    /// reason is logged.
    StepAside(String),
    /// `mode = off`: pass everything through.
    Off,
}

/// Whether the layer paces, given the other limiters found.
pub fn decide(settings: &Settings, peers: &[Peer]) -> Decision {
    if settings.mode == Mode::Off {
        return Decision::Off;
    }
    if peers.is_empty() || settings.force {
        return Decision::Pace;
    }
    let found: Vec<String> = peers.iter().map(ToString::to_string).collect();
    Decision::StepAside(format!(
        "another frame limiter is active: {}; VKPACE_FORCE=1 paces anyway",
        found.join(", ")
    ))
}

/// The other limiters active for executable `exe`, from `env` and the files `read` returns.
pub fn detect_peers(
    env: impl Fn(&str) -> Option<String>,
    read: impl Fn(&Path) -> Option<String>,
    exe: &str,
) -> Vec<Peer> {
    let set = |k: &str| env(k).filter(|v| !v.is_empty());
    let rate = |k: &str| {
        set(k)
            .and_then(|v| v.trim().parse::<f64>().ok())
            .filter(|f| *f > 0.0)
    };
    let mut peers = Vec::new();
    if let Some(p) = mangohud(&set, &read, exe) {
        peers.push(p);
    }
    let dxvk_config = set("DXVK_CONFIG").and_then(|c| {
        c.split(';')
            .filter_map(|kv| kv.split_once('='))
            .filter(|(k, _)| k.trim().ends_with(".maxFrameRate"))
            .find_map(|(_, v)| v.trim().parse::<f64>().ok().filter(|f| *f > 0.0))
    });
    if let Some(fps) = rate("DXVK_FRAME_RATE").or(dxvk_config) {
        peers.push(Peer::Dxvk { fps });
    }
    if let Some(fps) = rate("VKD3D_FRAME_RATE") {
        peers.push(Peer::Vkd3dProton { fps });
    }
    if set("GAMESCOPE_WAYLAND_DISPLAY").is_some() {
        peers.push(Peer::Gamescope);
    }
    peers
}

/// MangoHud with a frame limit: its layer is enabled (`MANGOHUD=1`, what its `mangohud`
/// wrapper sets too) and `fps_limit` is set in `MANGOHUD_CONFIG` or in its configuration file
/// (`MANGOHUD_CONFIGFILE`, else the executable's own `~/.config/MangoHud/<exe>.conf`, else
/// `MangoHud.conf` there).
fn mangohud(
    set: &impl Fn(&str) -> Option<String>,
    read: &impl Fn(&Path) -> Option<String>,
    exe: &str,
) -> Option<Peer> {
    if set("MANGOHUD").as_deref() != Some("1") {
        return None;
    }
    if let Some(fps_limit) = set("MANGOHUD_CONFIG").and_then(|c| mangohud_limit(&c, ',')) {
        let from = "MANGOHUD_CONFIG".to_string();
        return Some(Peer::MangoHud { fps_limit, from });
    }
    let dir = set("XDG_CONFIG_HOME")
        .map(PathBuf::from)
        .or_else(|| set("HOME").map(|h| Path::new(&h).join(".config")))
        .map(|c| c.join("MangoHud"));
    let files = [
        set("MANGOHUD_CONFIGFILE").map(PathBuf::from),
        dir.as_ref().map(|d| d.join(format!("{exe}.conf"))),
        dir.as_ref().map(|d| d.join("MangoHud.conf")),
    ];
    // The first file that exists is the one MangoHud reads.
    let (path, text) = files
        .into_iter()
        .flatten()
        .find_map(|p| read(&p).map(|t| (p, t)))?;
    let fps_limit = mangohud_limit(&text, '\n')?;
    let from = path.display().to_string();
    Some(Peer::MangoHud { fps_limit, from })
}

/// The first value of `fps_limit` (a `+`-separated list) in MangoHud's `key=value` syntax,
/// entries split by `separator` (the last `fps_limit` given counts); 0 means unlimited.
fn mangohud_limit(text: &str, separator: char) -> Option<f64> {
    text.split(separator)
        .map(|e| e.split_once('#').map_or(e, |(before, _)| before))
        .filter_map(|e| e.split_once('='))
        .filter(|(k, _)| k.trim() == "fps_limit")
        .filter_map(|(_, v)| v.split('+').next()?.trim().parse::<f64>().ok())
        .next_back()
        .filter(|f| *f > 0.0)
}
