//! The virtual display: vdisplay (`VK_LAYER_VKPACE_vdisplay`, `vdisplay/`), a Vulkan layer that
//! implements the swapchain of headless surfaces itself over the driver's images and queue, so
//! on lavapipe frames overlap, images rotate and present-wait reports display times.
//!
//! The loader finds a layer through a manifest in a directory named by `VK_LAYER_PATH`, and
//! enables it through `VK_INSTANCE_LAYERS`; both are read when an instance is made, so they are
//! set for the process before the Vulkan loader is used ([`enable_for_process`]) or given to a
//! child process ([`loader_env`]). Facts of Debian's loader 1.3.239 the order follows
//! (`vdisplay/README.md`): layers named in `VK_INSTANCE_LAYERS` are stacked in the order their
//! manifests were found (the first found is the closest to the application), and layers the
//! application enables itself sit below them; so for the validation layer to check the
//! application rather than vdisplay, it is named in the variable too and its directory is
//! listed first. `VK_KHR_surface_maintenance1` (offered by the layer) passes that loader's
//! instance-extension filter only with `VK_LOADER_DISABLE_INST_EXT_FILTER=1`.

use std::ffi::{c_char, c_int, c_void, CString, OsString};
use std::path::{Path, PathBuf};

use anyhow::{bail, Context as _, Result};

/// The layer's name.
pub const LAYER: &str = "VK_LAYER_VKPACE_vdisplay";
/// The Khronos validation layer's name.
pub const VALIDATION: &str = "VK_LAYER_KHRONOS_validation";
/// The layer's library as cargo builds it (`cargo build --release -p vkpace-vdisplay`, or any
/// build of the workspace).
pub const LIBRARY: &str = "libvkpace_vdisplay.so";
/// Names the layer library explicitly (else it is looked for beside the running executable).
pub const LIBRARY_ENV: &str = "VKPACE_VDISPLAY_LIB";
/// Where the validation layer's manifest is on Debian (listed first in `VK_LAYER_PATH`).
pub const SYSTEM_LAYERS: &str = "/usr/share/vulkan/explicit_layer.d";

const MANIFEST: &str = include_str!("../vdisplay/manifest/VkLayer_VKPACE_vdisplay.json");
const MANIFEST_LIBRARY: &str = "../../target/release/libvkpace_vdisplay.so";
const MANIFEST_NAME: &str = "VkLayer_VKPACE_vdisplay.json";

/// The layer library: `$VKPACE_VDISPLAY_LIB`, else beside the running executable (the demo and
/// the benchmark live in `target/<profile>/`, test executables in `target/<profile>/deps/`).
pub fn find_library() -> Result<PathBuf> {
    if let Some(p) = std::env::var_os(LIBRARY_ENV) {
        let p = PathBuf::from(p);
        if !p.is_file() {
            bail!("{LIBRARY_ENV}={} is not a file", p.display());
        }
        return Ok(p);
    }
    let exe = std::env::current_exe().context("the running executable's path")?;
    let dir = exe.parent().context("the executable has no directory")?;
    let candidates = [
        dir.join(LIBRARY),
        dir.join("deps").join(LIBRARY),
        dir.parent().map_or_else(PathBuf::new, |p| p.join(LIBRARY)),
    ];
    candidates
        .into_iter()
        .find(|p| p.is_file())
        .with_context(|| {
            format!(
            "{LIBRARY} not found beside {} (build it: cargo build --release -p vkpace-vdisplay, \
             or name it with {LIBRARY_ENV})",
            exe.display()
        )
        })
}

/// Writes the layer's manifest, pointing at `library` by absolute path, into
/// `<library's directory>/vdisplay-layer/` and returns that directory. The file is replaced
/// atomically (other processes may be reading it).
pub fn write_manifest(library: &Path) -> Result<PathBuf> {
    let library = library
        .canonicalize()
        .with_context(|| format!("{}", library.display()))?;
    let text = MANIFEST.replace(MANIFEST_LIBRARY, &library.display().to_string());
    if text == MANIFEST {
        bail!("the manifest template lost its library_path");
    }
    let dir = library
        .parent()
        .context("library has no directory")?
        .join("vdisplay-layer");
    std::fs::create_dir_all(&dir).with_context(|| format!("{}", dir.display()))?;
    let tmp = dir.join(format!(".{MANIFEST_NAME}.{}", std::process::id()));
    std::fs::write(&tmp, text).with_context(|| format!("{}", tmp.display()))?;
    std::fs::rename(&tmp, dir.join(MANIFEST_NAME)).context("placing the manifest")?;
    Ok(dir)
}

/// The loader's environment for the layer whose manifest is in `manifest_dir`, with the
/// validation layer above it when `validation` (see the module documentation for the order).
pub fn loader_env(manifest_dir: &Path, validation: bool) -> Vec<(&'static str, OsString)> {
    let mut path = OsString::from(SYSTEM_LAYERS);
    path.push(":");
    path.push(manifest_dir);
    let layers = if validation {
        format!("{VALIDATION}:{LAYER}")
    } else {
        LAYER.to_string()
    };
    vec![
        ("VK_LAYER_PATH", path),
        ("VK_INSTANCE_LAYERS", layers.into()),
        ("VK_LOADER_DISABLE_INST_EXT_FILTER", "1".into()),
    ]
}

/// Finds the layer, writes its manifest and sets the loader's environment for this process;
/// returns the library's path. Call it before the first Vulkan call and while no other thread
/// reads the environment (at the start of `main`, or once before a test binary's first
/// instance); vdisplay's own settings (`VDISPLAY_*`, `vdisplay/README.md`) are read by the
/// layer at each `vkCreateInstance`.
pub fn enable_for_process(validation: bool) -> Result<PathBuf> {
    let library = find_library()?;
    let dir = write_manifest(&library)?;
    for (key, value) in loader_env(&dir, validation) {
        std::env::set_var(key, value);
    }
    Ok(library)
}

/// Whether a debug-utils message is the loader's notice that `VK_INSTANCE_LAYERS` is set (sent
/// as a warning to every messenger while the virtual display is on): about the environment,
/// not the application's use of Vulkan.
pub fn is_loader_env_notice(message_id_name: &str, text: &str) -> bool {
    message_id_name == "Loader Message" && text.contains("VK_INSTANCE_LAYERS")
}

extern "C" {
    fn dlopen(filename: *const c_char, flags: c_int) -> *mut c_void;
    fn dlsym(handle: *mut c_void, symbol: *const c_char) -> *mut c_void;
}
const RTLD_NOW: c_int = 2;
const RTLD_NOLOAD: c_int = 4;

/// The layer's exported control function `name`, from the copy the loader loaded.
fn control_symbol(name: &std::ffi::CStr) -> Result<*mut c_void> {
    let library = find_library()?.canonicalize()?;
    let path = CString::new(library.display().to_string())?;
    // SAFETY: RTLD_NOLOAD only looks up a library already loaded (no initializer runs); the
    // handle is not closed (the loader owns the library's lifetime).
    let handle = unsafe { dlopen(path.as_ptr(), RTLD_NOW | RTLD_NOLOAD) };
    if handle.is_null() {
        bail!(
            "the layer {} is not loaded (no instance yet, or the loader loaded another copy)",
            library.display()
        );
    }
    // SAFETY: a valid handle and a C string.
    let sym = unsafe { dlsym(handle, name.as_ptr()) };
    if sym.is_null() {
        bail!("{name:?} is not exported by {}", library.display());
    }
    Ok(sym)
}

/// Changes the current extent of the virtual display `surface` (the layer's surface number, 0
/// for all): an external resize as a window system makes one (`0x0` acts as minimized).
/// Returns how many surfaces changed.
pub fn set_extent(surface: u64, width: u32, height: u32) -> Result<u32> {
    type SetExtent = unsafe extern "C" fn(u64, u32, u32) -> u32;
    let sym = control_symbol(c"vdisplay_set_extent")?;
    // SAFETY: the layer exports `uint32_t vdisplay_set_extent(uint64_t, uint32_t, uint32_t)`
    // (vdisplay/src/control.rs); a data pointer and a function pointer have the same size.
    let f: SetExtent = unsafe { std::mem::transmute::<*mut c_void, SetExtent>(sym) };
    // SAFETY: the function takes plain values and locks the layer's own state.
    Ok(unsafe { f(surface, width, height) })
}

/// Pauses (`paused`) or resumes the virtual display `surface` (0 for all), as a compositor that
/// stops repainting a hidden window: nothing is shown and no image handed back meanwhile.
/// Returns how many surfaces.
pub fn set_paused(surface: u64, paused: bool) -> Result<u32> {
    type SetPaused = unsafe extern "C" fn(u64, u32) -> u32;
    let sym = control_symbol(c"vdisplay_pause")?;
    // SAFETY: the layer exports `uint32_t vdisplay_pause(uint64_t, uint32_t)`
    // (vdisplay/src/control.rs); a data pointer and a function pointer have the same size.
    let f: SetPaused = unsafe { std::mem::transmute::<*mut c_void, SetPaused>(sym) };
    // SAFETY: the function takes plain values and locks the layer's own state.
    Ok(unsafe { f(surface, u32::from(paused)) })
}

/// One line of vdisplay's per-present log (`vdisplay/README.md`, "The log"): the fields the tests
/// and the benchmark read. Times are CLOCK_MONOTONIC nanoseconds.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct LoggedPresent {
    /// The swapchain's creation number.
    pub swapchain: u64,
    /// The present's number on its swapchain (from 1).
    pub seq: u64,
    /// The application's present id (0 without one).
    pub present_id: u64,
    /// The image presented.
    pub image: u64,
    /// The application's acquire of the image returned (null or missing in older logs).
    pub acquired_ns: Option<u64>,
    /// `vkQueuePresentKHR` was called.
    pub queued_ns: u64,
    /// An absolute present-timing target, if the present carried one.
    pub target_ns: Option<u64>,
    /// A relative present-timing target (a duration), if the present carried one.
    pub relative_ns: Option<u64>,
    /// The frame's rendering was complete.
    pub ready_ns: Option<u64>,
    /// It became visible (null: replaced, rejected or destroyed first).
    pub shown_ns: Option<u64>,
}

/// The raw text after `"key":` up to the next `,` or `}` (the log is flat, one object a line).
fn log_field<'a>(line: &'a str, key: &str) -> Option<&'a str> {
    let pat = format!("\"{key}\":");
    let at = line.find(&pat)? + pat.len();
    let rest = &line[at..];
    let end = rest.find([',', '}']).unwrap_or(rest.len());
    Some(rest[..end].trim())
}

/// A field that older logs lack: missing or null is `None`.
fn log_optional(line: &str, key: &str) -> Result<Option<u64>> {
    match log_field(line, key) {
        None => Ok(None),
        Some(_) => log_number(line, key),
    }
}

fn log_number(line: &str, key: &str) -> Result<Option<u64>> {
    let raw = log_field(line, key).with_context(|| format!("{key} missing: {line}"))?;
    if raw == "null" {
        return Ok(None);
    }
    Ok(Some(raw.parse().with_context(|| format!("{key}: {line}"))?))
}

/// Parses vdisplay's JSON-lines present log.
pub fn parse_present_log(text: &str) -> Result<Vec<LoggedPresent>> {
    text.lines()
        .filter(|l| !l.trim().is_empty())
        .map(|l| {
            let req = |k| log_number(l, k)?.with_context(|| format!("{k} is null: {l}"));
            Ok(LoggedPresent {
                swapchain: req("swapchain")?,
                seq: req("seq")?,
                present_id: req("present_id")?,
                image: req("image")?,
                acquired_ns: log_optional(l, "acquired_ns")?,
                queued_ns: req("queued_ns")?,
                target_ns: log_optional(l, "target_ns")?,
                relative_ns: log_optional(l, "relative_ns")?,
                ready_ns: log_number(l, "ready_ns")?,
                shown_ns: log_number(l, "shown_ns")?,
            })
        })
        .collect()
}

/// What a log shows of pacing on the refresh grid: how many presents, how many carried a
/// present-timing target, how many were shown, and the intervals between shown frames after
/// the first `settle` of them, in whole refreshes (rounded to the nearest).
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct GridRecord {
    pub presents: usize,
    pub targeted: usize,
    pub shown: usize,
    pub refreshes: Vec<u64>,
}

impl GridRecord {
    /// The record of `log` on a display refreshing every `refresh_ns`.
    pub fn of(log: &[LoggedPresent], settle: usize, refresh_ns: u64) -> Self {
        let shown: Vec<u64> = log.iter().filter_map(|p| p.shown_ns).collect();
        Self {
            presents: log.len(),
            targeted: log
                .iter()
                .filter(|p| p.target_ns.is_some() || p.relative_ns.is_some())
                .count(),
            shown: shown.len(),
            refreshes: shown
                .windows(2)
                .skip(settle)
                .map(|w| (w[1].saturating_sub(w[0]) + refresh_ns / 2) / refresh_ns)
                .collect(),
        }
    }

    /// Intervals that were not `wanted` refreshes.
    pub fn off(&self, wanted: u64) -> usize {
        self.refreshes.iter().filter(|&&r| r != wanted).count()
    }
}

/// Reads vdisplay's present log at `path`.
pub fn read_present_log(path: &Path) -> Result<Vec<LoggedPresent>> {
    let text = std::fs::read_to_string(path).with_context(|| format!("{}", path.display()))?;
    parse_present_log(&text)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn log_lines_are_parsed() -> Result<()> {
        let log = parse_present_log(
            "{\"surface\":1,\"swapchain\":2,\"seq\":17,\"present_id\":17,\"image\":1,\"mode\":\"FIFO\",\
             \"acquired_ns\":8459177800000,\"queued_ns\":8459177834285,\"target_ns\":8459183333333,\"ready_ns\":8459177873980,\"shown_ns\":8459183333333,\
             \"dropped\":false,\"reason\":null,\"result\":\"SUCCESS\"}\n\
             {\"surface\":1,\"swapchain\":2,\"seq\":18,\"present_id\":0,\"image\":0,\"mode\":\"MAILBOX\",\
             \"queued_ns\":5,\"ready_ns\":null,\"shown_ns\":null,\"dropped\":true,\
             \"reason\":\"replaced\",\"result\":\"SUCCESS\"}\n",
        )?;
        assert_eq!(log.len(), 2);
        assert_eq!(log[0].shown_ns, Some(8_459_183_333_333));
        assert_eq!(log[0].acquired_ns, Some(8_459_177_800_000));
        assert_eq!(log[0].target_ns, Some(8_459_183_333_333));
        assert_eq!((log[1].acquired_ns, log[1].target_ns), (None, None));
        let grid = GridRecord::of(&log, 0, 1_000);
        assert_eq!((grid.presents, grid.targeted, grid.shown), (2, 1, 1));
        assert!(grid.refreshes.is_empty());
        assert_eq!(
            (log[0].swapchain, log[0].image, log[0].present_id),
            (2, 1, 17)
        );
        assert_eq!(
            (log[1].seq, log[1].ready_ns, log[1].shown_ns),
            (18, None, None)
        );
        assert!(parse_present_log("{\"seq\":1}").is_err());
        Ok(())
    }

    #[test]
    fn the_loader_env_puts_validation_above_the_layer() {
        let env = loader_env(Path::new("/x/vdisplay-layer"), true);
        let get = |k: &str| env.iter().find(|(n, _)| *n == k).map(|(_, v)| v.clone());
        assert_eq!(
            get("VK_LAYER_PATH"),
            Some(OsString::from(
                "/usr/share/vulkan/explicit_layer.d:/x/vdisplay-layer"
            ))
        );
        assert_eq!(
            get("VK_INSTANCE_LAYERS"),
            Some(OsString::from(
                "VK_LAYER_KHRONOS_validation:VK_LAYER_VKPACE_vdisplay"
            ))
        );
        let plain = loader_env(Path::new("/x"), false);
        assert!(plain
            .iter()
            .any(|(k, v)| *k == "VK_INSTANCE_LAYERS" && v == LAYER));
        assert!(is_loader_env_notice(
            "Loader Message",
            "env var 'VK_INSTANCE_LAYERS' defined"
        ));
        assert!(!is_loader_env_notice("VUID-x", "VK_INSTANCE_LAYERS"));
    }
}
