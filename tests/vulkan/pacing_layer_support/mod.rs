//! The pacing layer as the tests install it (`vkpace_demo::pacing_layer`: its committed
//! manifest with the library cargo built beside the test, in a private `$XDG_DATA_HOME`), and
//! its CSV frame log read back.

use std::path::{Path, PathBuf};

use anyhow::{ensure, Context as _, Result};
use vkpace_demo::pacing_layer;

/// The layer's manifest, installed for one test in a private `XDG_DATA_HOME`.
pub struct Installed {
    /// The private data directory (the manifest is under it).
    pub root: PathBuf,
}

impl Installed {
    /// Installs the manifest for a test called `tag`.
    pub fn new(tag: &str) -> Result<Self> {
        let root = std::env::temp_dir().join(format!("vkpace-pacing-{tag}-{}", std::process::id()));
        pacing_layer::write_manifest(&root, &pacing_layer::find_library()?)?;
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
    lock_counts(output, "pauses: ")
}

/// The layer's count of calls down that may block (the driver's acquire, present, create and
/// destroy, the repair submission, the bounded waits) from its summary line at
/// vkDestroyDevice: (with the device's lock released, with it held).
pub fn calls_down(output: &str) -> Result<(u64, u64)> {
    lock_counts(output, "calls down: ")
}

/// The counts of the summary line that begins with `label`: "N with the device lock
/// released, M with it held".
fn lock_counts(output: &str, label: &str) -> Result<(u64, u64)> {
    let line = output
        .lines()
        .find_map(|l| l.split_once(label).map(|(_, rest)| rest))
        .with_context(|| format!("no {label:?} counts in the layer's log: {output}"))?;
    let number = |after: &str| -> Result<u64> {
        let (n, _) = after
            .trim_start()
            .split_once(' ')
            .with_context(|| format!("{label}{line}"))?;
        Ok(n.parse()?)
    };
    let (_, held) = line
        .split_once("released, ")
        .with_context(|| format!("{label}{line}"))?;
    Ok((number(line)?, number(held)?))
}

/// The period the layer's summary says the CPU limiter's grid followed, in ms.
pub fn followed_period_ms(output: &str) -> Option<f64> {
    let at = output
        .split("the CPU limiter's grid followed it at ")
        .nth(1)?;
    at.split(' ').next()?.parse().ok()
}
