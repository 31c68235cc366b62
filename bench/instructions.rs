//! The CPU guard's deterministic figures (`cpu_guard.rs` judges them): instructions per frame
//! of each loop's frame function on the render thread (driver calls made from it included,
//! lavapipe's own worker threads not), counted by callgrind. Callgrind counts instructions, not
//! time, so the figure is the same on a busy machine.
//!
//! Each loop runs alone in a child process of this benchmark under
//! `valgrind --tool=callgrind --toggle-collect=...measured_*_frame`: the warm-up frames and the
//! setup go uncounted, then [`FRAMES`] measured frames are, through a function of their own
//! (`overhead::measured_vkpace_frame`).
//!
//! Callgrind's cache simulation runs beside the count (`--cache-sim=yes`): the level-1
//! instruction and data cache lines missed per frame. The driver and the renderer evict a loop's
//! code and data between its steps, so a loop's time per frame follows the lines it touches,
//! not only the instructions it executes; the misses are the deterministic figure for that.

use std::path::Path;
use std::process::Command;

use anyhow::{bail, Context as _, Result};

/// Measured frames of each child run, after the warm-up.
pub const FRAMES: u64 = 30;

/// Instructions and level-1 cache lines missed per steady frame of each loop.
#[derive(Debug, Clone, Copy)]
pub struct PerFrame {
    pub textbook: f64,
    pub vkpace: f64,
    pub textbook_l1_misses: f64,
    pub vkpace_l1_misses: f64,
}

/// The function whose calls callgrind counts for each loop (valgrind demangles Rust names).
fn frame_function(vkpace: bool) -> &'static str {
    if vkpace {
        "*overhead::measured_vkpace_frame*"
    } else {
        "*overhead::measured_textbook_frame*"
    }
}

/// Instructions and misses per steady frame of both loops, or `None` when valgrind is not
/// installed.
pub fn per_frame(out_dir: &Path) -> Result<Option<PerFrame>> {
    if Command::new("valgrind").arg("--version").output().is_err() {
        return Ok(None);
    }
    let per = |c: Counts| (c.instructions as f64, c.l1_misses as f64);
    let (textbook, textbook_l1) = per(count(out_dir, false, FRAMES)?);
    let (vkpace, vkpace_l1) = per(count(out_dir, true, FRAMES)?);
    let frames = FRAMES as f64;
    Ok(Some(PerFrame {
        textbook: textbook / frames,
        vkpace: vkpace / frames,
        textbook_l1_misses: textbook_l1 / frames,
        vkpace_l1_misses: vkpace_l1 / frames,
    }))
}

/// One child run under callgrind: what was collected in the loop's frame function.
fn count(out_dir: &Path, vkpace: bool, frames: u64) -> Result<Counts> {
    let exe = std::env::current_exe().context("the benchmark's own path")?;
    let which = if vkpace { "vkpace" } else { "textbook" };
    let out = out_dir.join(format!("callgrind.{which}.{frames}.out"));
    // Captured: valgrind's cache simulation warns about the host's caches on every run.
    let run = Command::new("valgrind")
        .arg("--tool=callgrind")
        .arg("--cache-sim=yes")
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
        .output()
        .context("valgrind")?;
    if !run.status.success() {
        bail!(
            "callgrind run of the {which} loop failed: {}\n{}",
            run.status,
            String::from_utf8_lossy(&run.stderr)
        );
    }
    let text = std::fs::read_to_string(&out).with_context(|| format!("{}", out.display()))?;
    let counts = collected(&text).with_context(|| format!("no totals in {}", out.display()))?;
    if counts.instructions == 0 {
        bail!("callgrind collected nothing in {}", frame_function(vkpace));
    }
    Ok(counts)
}

/// A callgrind run's totals.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
struct Counts {
    /// Instructions executed (`Ir`).
    instructions: u64,
    /// Level-1 lines missed: instruction reads, data reads and data writes (`I1mr`, `D1mr`,
    /// `D1mw`; 0 where the file has no cache simulation).
    l1_misses: u64,
}

/// The totals of a callgrind output file: its `events:` line names the columns of its
/// `totals:` or `summary:` line.
fn collected(text: &str) -> Option<Counts> {
    let events: Vec<&str> = text
        .lines()
        .find_map(|l| l.strip_prefix("events:"))?
        .split_whitespace()
        .collect();
    let totals: Vec<u64> = text
        .lines()
        .find_map(|l| {
            l.strip_prefix("totals:")
                .or_else(|| l.strip_prefix("summary:"))
        })?
        .split_whitespace()
        .map(|v| v.parse().ok())
        .collect::<Option<_>>()?;
    let of = |name: &str| {
        events
            .iter()
            .position(|e| *e == name)
            .and_then(|i| totals.get(i).copied())
    };
    Some(Counts {
        instructions: of("Ir")?,
        l1_misses: ["I1mr", "D1mr", "D1mw"].iter().filter_map(|e| of(e)).sum(),
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_totals_come_from_the_totals_or_summary_line_by_event_name() {
        let counts = |instructions, l1_misses| {
            Some(Counts {
                instructions,
                l1_misses,
            })
        };
        assert_eq!(
            collected("events: Ir\nfn=x\n1 5\ntotals: 12345\n"),
            counts(12345, 0)
        );
        assert_eq!(collected("events: Ir Dr\nsummary: 77 0\n"), counts(77, 0));
        assert_eq!(
            collected("events: Ir Dr Dw I1mr D1mr D1mw ILmr\ntotals: 900 50 40 7 5 3 1\n"),
            counts(900, 15)
        );
        assert_eq!(collected("events: Ir\n"), None);
        assert_eq!(collected("summary: 77\n"), None);
    }
}
