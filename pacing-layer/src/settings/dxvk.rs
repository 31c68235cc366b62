//! DXVK's frame limit, found the way DXVK finds it (its `src/util/config/config.cpp`):
//!
//! - `dxgi.maxFrameRate` or `d3d9.maxFrameRate` (or `dxvk.maxFrameRate`, which both read
//!   first) in `DXVK_CONFIG` (`;`-separated) or in the configuration file, `DXVK_CONFIG_FILE`
//!   where set, else `dxvk.conf` in the working directory (a game's own directory, where Wine
//!   and Steam start it). The file's `[game.exe]` sections apply only to that executable, and
//!   the variable's options override the file's;
//! - a positive limit is a limiter the user set. DXVK's own negative values (`-60` in its
//!   built-in profiles) limit only where the display does not throttle presents, and 0 is none;
//! - `DXVK_FRAME_RATE`, only for DXVK before 3.0, which removed it (the application info names
//!   DXVK and its version: [`super::identity::Engine`]).

use std::path::{Path, PathBuf};

use super::identity::Identity;

/// DXVK's limit for `id`, if one is on, and where it was set.
pub(super) fn dxvk_limit(
    set: &impl Fn(&str) -> Option<String>,
    read: &impl Fn(&Path) -> Option<String>,
    id: &Identity,
    cwd: Option<&Path>,
) -> Option<(f64, String)> {
    let dxvk_2 = id.engine.as_ref().is_some_and(|e| e.is_dxvk_before_3());
    if let Some(fps) = set("DXVK_FRAME_RATE")
        .filter(|_| dxvk_2)
        .and_then(|v| v.trim().parse::<f64>().ok())
        .filter(|f| *f > 0.0)
    {
        return Some((fps, "DXVK_FRAME_RATE (DXVK before 3.0)".to_string()));
    }
    let from_env = set("DXVK_CONFIG").and_then(|c| limit(c.split(';'), &id.name));
    if let Some(fps) = from_env {
        return (fps > 0.0).then(|| (fps, "DXVK_CONFIG".to_string()));
    }
    let path = set("DXVK_CONFIG_FILE")
        .map(PathBuf::from)
        .or_else(|| cwd.map(|d| d.join("dxvk.conf")))?;
    let text = read(&path)?;
    let fps = limit(text.lines(), &id.name)?;
    (fps > 0.0).then(|| (fps, path.display().to_string()))
}

/// The last frame limit set in `lines` for executable `exe`: keys outside sections and in
/// `[exe]`'s.
fn limit<'a>(lines: impl Iterator<Item = &'a str>, exe: &str) -> Option<f64> {
    let keys = [
        "dxvk.maxFrameRate",
        "dxgi.maxFrameRate",
        "d3d9.maxFrameRate",
    ];
    let mut active = true;
    let mut found = None;
    for line in lines.map(str::trim) {
        if let Some(section) = line.strip_prefix('[') {
            active = section.rsplit_once(']').is_some_and(|(s, _)| s == exe);
            continue;
        }
        let Some((k, v)) = line.split_once('=') else {
            continue;
        };
        // DXVK's value ends at the first blank (a comment may follow).
        let v = v.split_whitespace().next().unwrap_or("").trim_matches('"');
        if active && keys.contains(&k.trim()) {
            found = v.parse::<f64>().ok().or(found);
        }
    }
    found
}
