//! The deterministic figure beside the CPU guard: instructions per frame of each loop's frame
//! function on the render thread (driver calls made from it included, lavapipe's own worker
//! threads not), counted by callgrind. Callgrind counts instructions, not time, so the figure
//! is the same on a busy machine; it is reported, not gated (the guard is the timed whole-loop
//! ratio, `main.rs`).
//!
//! Each loop runs alone in a child process of this benchmark under
//! `valgrind --tool=callgrind --toggle-collect=...measured_*_frame`: the warm-up frames and the
//! setup go uncounted, then [`FRAMES`] measured frames are, through a function of their own
//! (`overhead::measured_vkpace_frame`).

use std::path::Path;
use std::process::Command;

use anyhow::{bail, Context as _, Result};

/// Measured frames of each child run, after the warm-up.
pub const FRAMES: u64 = 30;

/// Instructions per steady frame of each loop.
#[derive(Debug, Clone, Copy)]
pub struct PerFrame {
    pub textbook: f64,
    pub vkpace: f64,
}

/// The function whose calls callgrind counts for each loop (valgrind demangles Rust names).
fn frame_function(vkpace: bool) -> &'static str {
    if vkpace {
        "*overhead::measured_vkpace_frame*"
    } else {
        "*overhead::measured_textbook_frame*"
    }
}

/// Instructions per steady frame of both loops, or `None` when valgrind is not installed.
pub fn per_frame(out_dir: &Path) -> Result<Option<PerFrame>> {
    if Command::new("valgrind").arg("--version").output().is_err() {
        return Ok(None);
    }
    let per = |vkpace: bool| -> Result<f64> {
        Ok(count(out_dir, vkpace, FRAMES)? as f64 / FRAMES as f64)
    };
    Ok(Some(PerFrame {
        textbook: per(false)?,
        vkpace: per(true)?,
    }))
}

/// One child run under callgrind: the instructions collected in the loop's frame function.
fn count(out_dir: &Path, vkpace: bool, frames: u64) -> Result<u64> {
    let exe = std::env::current_exe().context("the benchmark's own path")?;
    let which = if vkpace { "vkpace" } else { "textbook" };
    let out = out_dir.join(format!("callgrind.{which}.{frames}.out"));
    let status = Command::new("valgrind")
        .arg("--tool=callgrind")
        .arg(format!("--callgrind-out-file={}", out.display()))
        .arg(format!("--toggle-collect={}", frame_function(vkpace)))
        .arg("--quiet")
        .arg(&exe)
        .args([
            "--instructions-child",
            which,
            "--frames",
            &frames.to_string(),
        ])
        .status()
        .context("valgrind")?;
    if !status.success() {
        bail!("callgrind run of the {which} loop failed: {status}");
    }
    let text = std::fs::read_to_string(&out).with_context(|| format!("{}", out.display()))?;
    let total = collected(&text).with_context(|| format!("no totals in {}", out.display()))?;
    if total == 0 {
        bail!("callgrind collected nothing in {}", frame_function(vkpace));
    }
    Ok(total)
}

/// The instruction total of a callgrind output file (its `totals:` or `summary:` line).
fn collected(text: &str) -> Option<u64> {
    text.lines()
        .find_map(|l| {
            l.strip_prefix("totals:")
                .or_else(|| l.strip_prefix("summary:"))
        })
        .and_then(|v| v.split_whitespace().next())
        .and_then(|v| v.parse().ok())
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_total_comes_from_the_totals_or_summary_line() {
        assert_eq!(
            collected("events: Ir\nfn=x\n1 5\ntotals: 12345\n"),
            Some(12345)
        );
        assert_eq!(collected("summary: 77 0\n"), Some(77));
        assert_eq!(collected("events: Ir\n"), None);
    }
}
