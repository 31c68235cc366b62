//! The interleaved measurement's frames: one frame of each of two loops in turn, the measured
//! ones' CPU times, own times and driver calls summed per loop.

use std::time::Duration;

use anyhow::Result;

use super::{Steps, TextbookLoop, VkpaceLoop, WARMUP};
use crate::cpu_time::thread_cpu;
use crate::frame_history::FrameHistory;

/// A render loop whose frames can be alternated with another's.
pub(super) trait FrameLoop {
    /// Renders and presents one frame at animation time `t`.
    fn frame(&mut self, t: f32, history: &FrameHistory) -> Result<Steps>;
}

impl FrameLoop for TextbookLoop {
    fn frame(&mut self, t: f32, history: &FrameHistory) -> Result<Steps> {
        TextbookLoop::frame(self, t, history)
    }
}

impl FrameLoop for VkpaceLoop {
    fn frame(&mut self, t: f32, history: &FrameHistory) -> Result<Steps> {
        VkpaceLoop::frame(self, t, history)
    }
}

/// One loop's sums over the measured frames.
#[derive(Default)]
pub(super) struct LoopTotals {
    /// Thread CPU time.
    pub(super) cpu: Duration,
    /// Hooked driver calls.
    pub(super) calls: u64,
    /// Each measured frame's own time (outside the driver and the renderer), nanoseconds.
    pub(super) own_ns: Vec<u64>,
}

/// The warm-up and measured frames, one of each loop in turn (which loop goes first alternates
/// every frame); returns the measured frames' sums, `a`'s first. Stops at the first error,
/// leaving both loops for the caller to destroy.
pub(super) fn alternate_frames(
    a: &mut impl FrameLoop,
    b: &mut impl FrameLoop,
    frames: u64,
) -> Result<[LoopTotals; 2]> {
    let history = FrameHistory::default();
    let capacity = usize::try_from(frames).unwrap_or(0);
    let mut totals: [LoopTotals; 2] = Default::default();
    for t in &mut totals {
        t.own_ns.reserve(capacity);
    }
    for f in 0..WARMUP + frames {
        let t = f as f32 / 60.0;
        let mut one = |second: bool| -> Result<(Duration, Steps)> {
            let before = thread_cpu();
            let steps = if second {
                b.frame(t, &history)?
            } else {
                a.frame(t, &history)?
            };
            Ok((thread_cpu().saturating_sub(before), steps))
        };
        let b_first = f % 2 == 0;
        let (x, y) = one(b_first).and_then(|x| Ok((x, one(!b_first)?)))?;
        if f >= WARMUP {
            let (of_a, of_b) = if b_first { (y, x) } else { (x, y) };
            for (sums, (cpu, steps)) in totals.iter_mut().zip([of_a, of_b]) {
                sums.cpu += cpu;
                sums.calls += steps.driver.calls;
                sums.own_ns.push(steps.own_ns());
            }
        }
    }
    Ok(totals)
}
