//! The interleaved measurement's frames: one frame of each loop in turn, the measured ones'
//! CPU times, own times and driver calls summed.

use std::time::Duration;

use anyhow::Result;

use super::{Pair, Steps, TextbookLoop, VkpaceLoop, WARMUP};
use crate::cpu_time::thread_cpu;
use crate::frame_history::FrameHistory;

/// Each loop's thread CPU time and hooked driver calls, summed over the measured frames.
#[derive(Default)]
pub(super) struct Totals {
    pub(super) text_cpu: Duration,
    pub(super) vk_cpu: Duration,
    pub(super) text_calls: u64,
    pub(super) vk_calls: u64,
}

/// The warm-up and measured frames, one of each loop in turn (the first of each pair
/// alternating); the measured frames' own times go into `pair`, their CPU times and calls into
/// `totals`. Stops at the first error, leaving both loops for the caller to destroy.
pub(super) fn alternate_frames(
    text: &mut TextbookLoop,
    vkp: &mut VkpaceLoop,
    frames: u64,
    pair: &mut Pair,
    totals: &mut Totals,
) -> Result<()> {
    let history = FrameHistory::default();
    for f in 0..WARMUP + frames {
        let t = f as f32 / 60.0;
        let mut one = |which: bool| -> Result<(Duration, Steps)> {
            let before = thread_cpu();
            let steps = if which {
                vkp.frame(t, &history)?
            } else {
                text.frame(t, &history)?
            };
            Ok((thread_cpu().saturating_sub(before), steps))
        };
        let vk_first = f % 2 == 0;
        let (a, b) = one(vk_first).and_then(|a| Ok((a, one(!vk_first)?)))?;
        if f >= WARMUP {
            let ((v, vs), (x, xs)) = if vk_first { (a, b) } else { (b, a) };
            totals.vk_cpu += v;
            totals.text_cpu += x;
            pair.vkpace_own_ns.push(vs.own_ns());
            pair.textbook_own_ns.push(xs.own_ns());
            totals.vk_calls += vs.driver.calls;
            totals.text_calls += xs.driver.calls;
        }
    }
    Ok(())
}
