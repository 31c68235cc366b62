//! The per-frame CSV log (`VKPACE_LOG=path`) and the one-line summary at exit, from the pacer's
//! telemetry (`vkpace::FrameTimes`). A frame is written once it is settled: its display time
//! came back, or enough later frames were presented that it never will ([`SETTLE_FRAMES`]).
//! Times are milliseconds since the device's pacer was made; `interval_ms` is the time from the
//! previous shown frame's display, where the display says when frames were shown.

use std::io::Write;
use std::time::Duration;

use vkpace::FrameTimes;

/// Frames presented after one before it is written without a display time.
pub const SETTLE_FRAMES: u64 = 8;

/// The CSV header.
pub const HEADER: &str = "frame,start_ms,presented_ms,target_ms,ready_ms,shown_ms,interval_ms";

/// Writes settled frames, each once, in order, and keeps what the summary needs.
pub struct FrameLog<W: Write> {
    out: W,
    /// The newest frame written.
    written: Option<u64>,
    /// The previous shown frame's display time.
    last_shown: Option<Duration>,
    /// Shown intervals, ms.
    intervals: Vec<f64>,
    /// The previous frame's present time, and the intervals between presents, ms (what the
    /// summary gives where no display time came back).
    last_presented: Option<Duration>,
    presented_intervals: Vec<f64>,
    /// Frames written without a display time.
    unshown: u64,
}

impl<W: Write> FrameLog<W> {
    /// A log writing to `out`, header first.
    pub fn new(mut out: W) -> std::io::Result<Self> {
        writeln!(out, "{HEADER}")?;
        Ok(Self {
            out,
            written: None,
            last_shown: None,
            intervals: Vec::with_capacity(4096),
            last_presented: None,
            presented_intervals: Vec::with_capacity(4096),
            unshown: 0,
        })
    }

    /// Writes the frames of `recent` (the telemetry, oldest first) that are settled and not
    /// yet written.
    pub fn record(&mut self, recent: impl Iterator<Item = FrameTimes>) -> std::io::Result<()> {
        let recent: Vec<FrameTimes> = recent.collect();
        let Some(newest) = recent.last().map(|f| f.frame) else {
            return Ok(());
        };
        for f in recent {
            let fresh = self.written.map_or(true, |w| f.frame > w);
            let settled = f.displayed.is_some() || f.frame + SETTLE_FRAMES <= newest;
            if !fresh {
                continue;
            }
            if !settled {
                break;
            }
            self.write(&f)?;
        }
        // A program may exit without destroying its device: the lines so far are on disk.
        self.out.flush()
    }

    fn write(&mut self, f: &FrameTimes) -> std::io::Result<()> {
        let interval = match (f.displayed, self.last_shown) {
            (Some(now), Some(before)) if now > before => Some(ms(now - before)),
            _ => None,
        };
        if let Some(i) = interval {
            self.intervals.push(i);
        }
        if let (Some(now), Some(before)) = (f.presented, self.last_presented) {
            self.presented_intervals
                .push(ms(now.saturating_sub(before)));
        }
        self.last_presented = f.presented.or(self.last_presented);
        if f.displayed.is_some() {
            self.last_shown = f.displayed;
        } else {
            self.unshown += 1;
        }
        self.written = Some(f.frame);
        let cell = |d: Option<Duration>| d.map_or(String::new(), |d| format!("{:.3}", ms(d)));
        writeln!(
            self.out,
            "{},{:.3},{},{},{},{},{}",
            f.frame,
            ms(f.cpu_start),
            cell(f.presented),
            cell(f.target),
            cell(f.rendered),
            cell(f.displayed),
            interval.map_or(String::new(), |i| format!("{i:.3}")),
        )
    }

    /// The one-line summary: frames written, the shown intervals' mean, standard deviation and
    /// 99th percentile (where no display time came back, those of the intervals between
    /// presents), and the frames with no display time.
    pub fn summary(&self) -> String {
        let frames = self.written.map_or(0, |w| w + 1);
        let (what, intervals) = match self.intervals.is_empty() {
            false => ("shown", &self.intervals),
            true => ("presented (no display times)", &self.presented_intervals),
        };
        let Some(s) = Spread::of(intervals) else {
            return format!("vkpace pacing: {frames} frames, no intervals");
        };
        format!(
            "vkpace pacing: {frames} frames, {what} every {:.2} ms (sd {:.2} ms, p99 {:.2} ms), {} without a display time",
            s.mean, s.sd, s.p99, self.unshown
        )
    }

    /// The writer, flushed.
    pub fn finish(mut self) -> std::io::Result<W> {
        self.out.flush()?;
        Ok(self.out)
    }
}

/// Mean, standard deviation and 99th percentile of intervals.
struct Spread {
    mean: f64,
    sd: f64,
    p99: f64,
}

impl Spread {
    fn of(intervals: &[f64]) -> Option<Self> {
        let n = intervals.len();
        if n == 0 {
            return None;
        }
        let mean = intervals.iter().sum::<f64>() / n as f64;
        let var = intervals.iter().map(|i| (i - mean).powi(2)).sum::<f64>() / n as f64;
        let mut sorted = intervals.to_vec();
        sorted.sort_by(f64::total_cmp);
        let p99 = sorted[((n as f64 * 0.99).ceil() as usize).clamp(1, n) - 1];
        Some(Self {
            mean,
            sd: var.sqrt(),
            p99,
        })
    }
}

fn ms(d: Duration) -> f64 {
    d.as_secs_f64() * 1e3
}

#[cfg(test)]
mod tests;
