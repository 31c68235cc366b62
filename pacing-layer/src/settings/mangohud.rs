//! MangoHud's frame limit, found the way MangoHud finds it (its `src/overlay_params.cpp` and
//! `src/config.cpp`), so that the layer steps aside exactly when MangoHud limits:
//!
//! - its layer is enabled: `MANGOHUD=1` (what its `mangohud` wrapper sets too);
//! - `MANGOHUD_CONFIG`, where set, is the whole configuration, unless it asks for the file too
//!   (`read_cfg`): then the file's options apply first and the variable's override them;
//! - the file is `MANGOHUD_CONFIGFILE` where set, else the first that exists of
//!   `wine-<program>.conf` (under Wine's preloader), `<exe dir>/MangoHud.conf`, `<exe>.conf`,
//!   `/etc/MangoHud.conf` and `MangoHud.conf`, the `.conf` names in `$XDG_CONFIG_HOME/MangoHud`
//!   (`~/.config/MangoHud`);
//! - `fps_limit` is a `+`-separated list whose first entry is the limit in force; the last
//!   `fps_limit` given counts, and `0` is unlimited (a limit of 0 in the variable turns off the
//!   file's).

use std::path::{Path, PathBuf};

use super::identity::Identity;

/// MangoHud's limit for `id`, if its layer is enabled and one is set, and where it was set.
pub(super) fn mangohud_limit(
    set: &impl Fn(&str) -> Option<String>,
    read: &impl Fn(&Path) -> Option<String>,
    id: &Identity,
) -> Option<(f64, String)> {
    if set("MANGOHUD").as_deref() != Some("1") {
        return None;
    }
    let env = set("MANGOHUD_CONFIG");
    let from_env = env.as_deref().and_then(|c| fps_limit(c, ','));
    let reads_file = env.as_deref().is_none_or(read_cfg);
    let from_file = reads_file.then(|| file_limit(set, read, id)).flatten();
    // The variable's value overrides the file's, a limit of 0 included.
    let (fps_limit, from) = match (from_env, from_file) {
        (Some(limit), _) => (limit, "MANGOHUD_CONFIG".to_string()),
        (None, Some((limit, path))) => (limit, path.display().to_string()),
        (None, None) => return None,
    };
    (fps_limit > 0.0).then_some((fps_limit, from))
}

/// The `fps_limit` of the file MangoHud reads for `id`, and the file.
fn file_limit(
    set: &impl Fn(&str) -> Option<String>,
    read: &impl Fn(&Path) -> Option<String>,
    id: &Identity,
) -> Option<(f64, PathBuf)> {
    let files = match set("MANGOHUD_CONFIGFILE") {
        Some(f) => vec![PathBuf::from(f)],
        None => candidates(set, id),
    };
    // The first file that exists is the one MangoHud reads, with a limit or without.
    let (path, text) = files.into_iter().find_map(|p| read(&p).map(|t| (p, t)))?;
    fps_limit(&text, '\n').map(|limit| (limit, path))
}

/// The files MangoHud tries without `MANGOHUD_CONFIGFILE`, first choice first.
fn candidates(set: &impl Fn(&str) -> Option<String>, id: &Identity) -> Vec<PathBuf> {
    let Some(dir) = set("XDG_CONFIG_HOME")
        .map(PathBuf::from)
        .or_else(|| set("HOME").map(|h| Path::new(&h).join(".config")))
        .map(|c| c.join("MangoHud"))
    else {
        // MangoHud reads no file without a home.
        return Vec::new();
    };
    let mut files = Vec::new();
    if let Some(program) = id.wine_program() {
        files.push(dir.join(format!("wine-{program}.conf")));
    }
    if let Some(exe_dir) = id.exe_path.parent().filter(|d| !d.as_os_str().is_empty()) {
        files.push(exe_dir.join("MangoHud.conf"));
    }
    if let Some(exe) = id.exe_path.file_name() {
        files.push(dir.join(format!("{}.conf", exe.to_string_lossy())));
    }
    files.push(PathBuf::from("/etc/MangoHud.conf"));
    files.push(dir.join("MangoHud.conf"));
    files
}

/// Whether a `MANGOHUD_CONFIG` asks for the configuration file too (`read_cfg`, not `0`).
fn read_cfg(config: &str) -> bool {
    options(config, ',').any(|(k, v)| k == "read_cfg" && v != Some("0"))
}

/// The limit in force of the last `fps_limit` in `text` (options split by `separator`): the
/// first of its `+`-separated list; 0 is unlimited.
fn fps_limit(text: &str, separator: char) -> Option<f64> {
    options(text, separator)
        .filter(|(k, _)| *k == "fps_limit")
        .filter_map(|(_, v)| v?.split('+').next()?.trim().parse::<f64>().ok())
        .next_back()
}

/// The `key` or `key=value` options of MangoHud's syntax, `#` comments removed.
fn options(text: &str, separator: char) -> impl DoubleEndedIterator<Item = (&str, Option<&str>)> {
    text.split(separator)
        .map(|e| e.split_once('#').map_or(e, |(before, _)| before).trim())
        .filter(|e| !e.is_empty())
        .map(|e| match e.split_once('=') {
            Some((k, v)) => (k.trim(), Some(v.trim())),
            None => (e, None),
        })
}
