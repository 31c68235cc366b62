//! The pacing layer as the tests install it: its committed manifest with the library cargo built
//! beside the test, in a private `$XDG_DATA_HOME` (both stacks' loaders search it for implicit
//! layers), and its CSV frame log read back.
#![allow(dead_code)]

use std::path::{Path, PathBuf};

use anyhow::{ensure, Context as _, Result};

/// The layer's manifest, installed for one test in a private `XDG_DATA_HOME`.
pub struct Installed {
    /// The private data directory (the manifest is under it).
    pub root: PathBuf,
}

impl Installed {
    /// Installs the manifest for a test called `tag`.
    pub fn new(tag: &str) -> Result<Self> {
        let template = include_str!("../../pacing-layer/manifest/VkLayer_VKPACE_pacing.json");
        let library = layer_library()?;
        let text = template.replace(
            "../../target/release/libvkpace_pacing_layer.so",
            &library.display().to_string(),
        );
        ensure!(
            text != template,
            "the manifest's library_path is not the one expected"
        );
        let root = std::env::temp_dir().join(format!("vkpace-pacing-{tag}-{}", std::process::id()));
        let dir = root.join("vulkan/implicit_layer.d");
        std::fs::create_dir_all(&dir)?;
        std::fs::write(dir.join("VkLayer_VKPACE_pacing.json"), text)?;
        Ok(Self { root })
    }

    /// The environment that enables it (and nothing else of the user's configuration).
    pub fn env(&self) -> [(&'static str, std::ffi::OsString); 3] {
        [
            ("XDG_DATA_HOME", self.root.clone().into_os_string()),
            ("VKPACE_PACING", "1".into()),
            (
                "VKPACE_CONFIG",
                self.root.join("none.conf").into_os_string(),
            ),
        ]
    }
}

impl Drop for Installed {
    fn drop(&mut self) {
        let _ = std::fs::remove_dir_all(&self.root);
    }
}

/// The layer library cargo built with the tests: in `target/<profile>/` or, in a build where
/// it was only a dependency of them, `target/<profile>/deps/`; the newer where both are.
fn layer_library() -> Result<PathBuf> {
    let exe = std::env::current_exe()?;
    let deps = exe
        .parent()
        .context("the test executable is not in target/<profile>/deps")?;
    let profile = deps.parent().context("no profile directory")?;
    let modified = |p: &PathBuf| std::fs::metadata(p).and_then(|m| m.modified()).ok();
    [profile, deps]
        .iter()
        .map(|d| d.join("libvkpace_pacing_layer.so"))
        .filter(|p| p.is_file())
        .max_by_key(modified)
        .with_context(|| {
            format!(
                "libvkpace_pacing_layer.so not built near {} (cargo build --release -p vkpace-pacing-layer)",
                exe.display()
            )
        })
}

/// The values of a column of the layer's CSV log, in frame order (empty cells skipped).
pub fn column(csv: &str, name: &str) -> Result<Vec<f64>> {
    let mut lines = csv.lines();
    let header = lines.next().context("an empty frame log")?;
    let at = header
        .split(',')
        .position(|h| h == name)
        .with_context(|| format!("no column {name} in {header}"))?;
    Ok(lines
        .filter_map(|l| l.split(',').nth(at)?.parse().ok())
        .collect())
}

/// The mean interval between presents in the layer's log at `log`, leaving out the first
/// `settle` frames; at least `frames` must be logged.
pub fn mean_present_interval(log: &Path, settle: usize, frames: usize) -> Result<f64> {
    let presented = column(&std::fs::read_to_string(log)?, "presented_ms")?;
    ensure!(
        presented.len() >= frames && frames > settle + 1,
        "{} frames logged of {frames}",
        presented.len()
    );
    let judged = &presented[settle..];
    Ok((judged[judged.len() - 1] - judged[0]) / (judged.len() - 1) as f64)
}

/// The layer's count of pauses (pacing sleeps, gate waits) from its summary line at
/// vkDestroyDevice: (with the device's lock released, with it held).
pub fn pauses(output: &str) -> Result<(u64, u64)> {
    let line = output
        .lines()
        .find_map(|l| l.split_once("pauses: ").map(|(_, rest)| rest))
        .with_context(|| format!("no pause counts in the layer's log: {output}"))?;
    let number = |after: &str| -> Result<u64> {
        let (n, _) = after
            .trim_start()
            .split_once(' ')
            .with_context(|| format!("pause counts: {line}"))?;
        Ok(n.parse()?)
    };
    let (_, held) = line
        .split_once("released, ")
        .with_context(|| format!("pause counts: {line}"))?;
    Ok((number(line)?, number(held)?))
}
