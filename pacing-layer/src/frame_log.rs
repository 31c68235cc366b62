//! The per-frame CSV log (`VKPACE_LOG=path`) and the one-line summary at exit, from the pacer's
//! telemetry (`vkpace::FrameTimes`). A frame is written once it is settled: its display time
//! came back, or enough later frames were presented that it never will ([`SETTLE_FRAMES`]).
//! Times are milliseconds since the device's pacer was made; `interval_ms` is the time from the
//! previous shown frame's display, where the display says when frames were shown.
//!
//! Nothing of it runs under the device's lock but the copy of settled frames into a bounded
//! queue (`queue.rs`): the lines are written after the lock is released, flushed every
//! [`FLUSH_EVERY`] frames and at the end. The summary is computed from running statistics
//! (`running.rs`: bounded memory, the p99 to 0.1 ms).

mod queue;
mod running;

use std::io::Write;
use std::time::Duration;

use vkpace::FrameTimes;

pub use queue::{LogQueue, Settle, QUEUE_FRAMES, SETTLE_FRAMES};
use running::Running;

/// Frames written between flushes (about a second at 60 fps): a program that ends without
/// destroying its device, or is killed, leaves at most that many lines unwritten.
pub const FLUSH_EVERY: u64 = 60;

/// The CSV header.
pub const HEADER: &str = "frame,start_ms,presented_ms,target_ms,ready_ms,shown_ms,interval_ms";

/// Writes settled frames, each once, in order, and keeps what the summary needs.
pub struct FrameLog<W: Write> {
    out: W,
    /// Frames written.
    written: u64,
    /// The previous frame's start and the previous shown frame's display time.
    last_start: Option<Duration>,
    last_shown: Option<Duration>,
    /// Intervals between frame starts (what the layer's pacing decides) and between frames
    /// shown (where the display says), ms.
    starts: Running,
    shown: Running,
    /// Frames written without a display time.
    unshown: u64,
}

impl<W: Write> FrameLog<W> {
    /// A log writing to `out`, header first.
    pub fn new(mut out: W) -> std::io::Result<Self> {
        writeln!(out, "{HEADER}")?;
        Ok(Self {
            out,
            written: 0,
            last_start: None,
            last_shown: None,
            starts: Running::new(),
            shown: Running::new(),
            unshown: 0,
        })
    }

    /// Writes one settled frame's line (the frames in order; no allocation), flushing every
    /// [`FLUSH_EVERY`] frames.
    pub fn write(&mut self, f: &FrameTimes) -> std::io::Result<()> {
        let interval = match (f.displayed, self.last_shown) {
            (Some(now), Some(before)) if now > before => Some(ms(now - before)),
            _ => None,
        };
        if let Some(i) = interval {
            self.shown.add(i);
        }
        if let Some(before) = self.last_start {
            self.starts.add(ms(f.cpu_start.saturating_sub(before)));
        }
        self.last_start = Some(f.cpu_start);
        match f.displayed {
            Some(_) => self.last_shown = f.displayed,
            None => self.unshown += 1,
        }
        self.written += 1;
        let out = &mut self.out;
        write!(out, "{},{:.3}", f.frame, ms(f.cpu_start))?;
        for cell in [f.presented, f.target, f.rendered, f.displayed] {
            write_cell(out, cell.map(ms))?;
        }
        write_cell(out, interval)?;
        writeln!(out)?;
        if self.written.is_multiple_of(FLUSH_EVERY) {
            self.out.flush()?;
        }
        Ok(())
    }

    /// The one-line summary: frames written; the intervals between frame starts (what the
    /// layer's pacing controls: a frame's own render time does not move them) and, where the
    /// display said when frames were shown, between those, each as mean, standard deviation
    /// and 99th percentile; the frames with no display time, and any lost to a full queue.
    pub fn summary(&self, lost: u64) -> String {
        let frames = self.written;
        let Some(starts) = self.starts.spread() else {
            return format!("vkpace pacing: {frames} frames, no intervals");
        };
        let shown = match self.shown.spread() {
            Some(s) => format!("shown every {}", spread(s)),
            None => "no display times".to_string(),
        };
        let lost = match lost {
            0 => String::new(),
            n => format!(", {n} not logged (the writer fell behind)"),
        };
        format!(
            "vkpace pacing: {frames} frames, started every {}, {shown}; {} without a display time{lost}",
            spread(starts),
            self.unshown
        )
    }

    /// The writer, flushed.
    pub fn finish(mut self) -> std::io::Result<W> {
        self.out.flush()?;
        Ok(self.out)
    }
}

/// A log for a device the layer does not pace: the header and a comment line saying why, so a
/// user who asked for a log learns what happened.
pub fn not_paced(mut out: impl Write, why: &str) -> std::io::Result<()> {
    writeln!(out, "{HEADER}")?;
    writeln!(out, "# not paced: {why}")?;
    out.flush()
}

fn spread(s: running::Spread) -> String {
    format!("{:.2} ms (sd {:.2} ms, p99 {:.2} ms)", s.mean, s.sd, s.p99)
}

/// `,` and the value to 3 decimals, or `,` alone.
fn write_cell(out: &mut impl Write, value: Option<f64>) -> std::io::Result<()> {
    match value {
        Some(v) => write!(out, ",{v:.3}"),
        None => write!(out, ","),
    }
}

fn ms(d: Duration) -> f64 {
    d.as_secs_f64() * 1e3
}

#[cfg(test)]
mod tests;
