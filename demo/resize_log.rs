//! `--resize-log FILE`: when each resize was asked for and when the first frame of its size
//! was presented, one JSON line per resize, for the tests that measure resize latency.
//!
//! Times are CLOCK_MONOTONIC nanoseconds, the clock of weston's timeline log (its
//! `vblank_monotonic`), so a test can set these lines beside the compositor's own record of
//! when each frame was shown. On X11 (Xvfb) there is no such record; "presented"
//! (vkQueuePresentKHR returned) is then the last point the application sees.

use std::io::Write as _;
use std::path::PathBuf;

use anyhow::{Context as _, Result};
use ash::vk;

/// One resize: the size asked for and the two times.
#[derive(Debug, Clone, Copy)]
struct Resize {
    extent: vk::Extent2D,
    requested_ns: u64,
    presented_ns: Option<u64>,
}

/// The resizes of one run, written at its end.
pub struct ResizeLog {
    path: PathBuf,
    resizes: Vec<Resize>,
}

impl ResizeLog {
    /// A log to be written to `path`; room for `expected` resizes (no allocation per frame).
    pub fn new(path: PathBuf, expected: usize) -> Self {
        Self {
            path,
            resizes: Vec::with_capacity(expected),
        }
    }

    /// The renderer asked for `extent` now.
    pub fn requested(&mut self, extent: vk::Extent2D) {
        if self.resizes.len() < self.resizes.capacity() {
            self.resizes.push(Resize {
                extent,
                requested_ns: monotonic_ns(),
                presented_ns: None,
            });
        }
    }

    /// A frame of `extent` was just presented: it is the first of that size for the recent
    /// resizes to it still open. (On X11 the window reaches a size a frame or more after it
    /// was asked for, so the newest resize is not always the one presented; a size never
    /// reached stays open.)
    pub fn presented(&mut self, extent: vk::Extent2D) {
        let now = monotonic_ns();
        for r in self.resizes.iter_mut().rev().take(8) {
            if r.extent == extent && r.presented_ns.is_none() {
                r.presented_ns = Some(now);
            }
        }
    }

    /// Writes the lines (a resize never presented has `"presented_ns": null`).
    pub fn write(&self) -> Result<()> {
        let mut out = std::fs::File::create(&self.path)
            .with_context(|| format!("--resize-log {}", self.path.display()))?;
        for r in &self.resizes {
            let presented = r
                .presented_ns
                .map_or_else(|| "null".to_string(), |t| t.to_string());
            writeln!(
                out,
                "{{\"width\": {}, \"height\": {}, \"requested_ns\": {}, \"presented_ns\": {}}}",
                r.extent.width, r.extent.height, r.requested_ns, presented
            )?;
        }
        Ok(())
    }
}

/// CLOCK_MONOTONIC now, in nanoseconds (0 if the clock cannot be read, which Linux never
/// does for this clock). Rust's `Instant` reads the same clock but does not say its value.
pub fn monotonic_ns() -> u64 {
    let mut ts = libc::timespec {
        tv_sec: 0,
        tv_nsec: 0,
    };
    // SAFETY: `ts` is a valid, writable timespec; clock_gettime writes only it.
    let rc = unsafe { libc::clock_gettime(libc::CLOCK_MONOTONIC, &mut ts) };
    if rc != 0 {
        return 0;
    }
    ts.tv_sec as u64 * 1_000_000_000 + ts.tv_nsec as u64
}
