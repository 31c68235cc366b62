//! Other frame limiters an application may already run under, and whether the layer paces or
//! steps aside. Two limiters on one application fight: each sleeps for its own cap, the frame
//! times add up to neither, and users see the stutter and blame both. So the layer steps aside
//! (logged, with the reason) where it finds one really on, unless forced. Each is looked for
//! the way it looks for its own settings ([`super::mangohud`], [`super::dxvk`]): a variable a
//! newer version no longer reads, or a limit of 0, is no limiter.

use std::path::Path;

use super::dxvk::dxvk_limit;
use super::identity::Identity;
use super::mangohud::mangohud_limit;
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
    /// DXVK's frame rate limit.
    Dxvk {
        /// Its cap, frames per second.
        fps: f64,
        /// Where it was set (`DXVK_CONFIG`, a `dxvk.conf`, `DXVK_FRAME_RATE` before DXVK 3).
        from: String,
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
            Self::Dxvk { fps, from } => write!(f, "DXVK's frame rate limit {fps} ({from})"),
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

/// The other limiters active for the program `id`, from `env`, the files `read` returns and
/// the working directory `cwd` (where DXVK looks for its `dxvk.conf`).
pub fn detect_peers(
    env: impl Fn(&str) -> Option<String>,
    read: impl Fn(&Path) -> Option<String>,
    id: &Identity,
    cwd: Option<&Path>,
) -> Vec<Peer> {
    let set = |k: &str| env(k).filter(|v| !v.is_empty());
    let mut peers = Vec::new();
    if let Some((fps_limit, from)) = mangohud_limit(&set, &read, id) {
        peers.push(Peer::MangoHud { fps_limit, from });
    }
    if let Some((fps, from)) = dxvk_limit(&set, &read, id, cwd) {
        peers.push(Peer::Dxvk { fps, from });
    }
    if let Some(fps) = set("VKD3D_FRAME_RATE")
        .and_then(|v| v.trim().parse::<f64>().ok())
        .filter(|f| *f > 0.0)
    {
        peers.push(Peer::Vkd3dProton { fps });
    }
    if set("GAMESCOPE_WAYLAND_DISPLAY").is_some() {
        peers.push(Peer::Gamescope);
    }
    peers
}
