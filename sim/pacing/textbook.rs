//! The textbook render loop, no vkpace code: 3 frames in flight, each frame waits for the
//! fence of the frame 3 before it, then for a free image, then renders. A plain model, the
//! baseline vkpace's policies are judged against.

use super::{DisplayMode, FrameRecord, Scenario};
use crate::rng::Rng;

/// Frames in flight of the textbook loop.
const FRAMES: usize = 3;

/// Runs the textbook loop on `scenario` until its duration is over.
pub(super) fn run(scenario: &Scenario, seed: u64) -> Vec<FrameRecord> {
    let mut rng = Rng::new(seed);
    let mut frames: Vec<FrameRecord> = Vec::new();
    let mut t = 0.0f64;
    while t < scenario.duration_ms {
        let f = frames.len();
        // The frames-in-flight gate: frame F waits for frame F-N's fence.
        if f >= FRAMES {
            t = t.max(frames[f - FRAMES].gpu_end);
        }
        // Acquire: an image must be free (the presentation engine's back-pressure).
        t = t.max(image_free_at(scenario, &frames, f));
        t = render(scenario, &mut frames, t, &mut rng);
    }
    frames
}

/// Frame `frames.len()` begins its CPU work at `cpu_start`: records its CPU and GPU times and
/// its place on the display; returns its submit time (when the CPU is free again). The loads
/// are drawn CPU first, then GPU, as the vkpace run draws them, so both see the same loads.
fn render(
    scenario: &Scenario,
    frames: &mut Vec<FrameRecord>,
    cpu_start: f64,
    rng: &mut Rng,
) -> f64 {
    let load = scenario.load_at(cpu_start);
    let submit = cpu_start + scenario.vary(load.cpu_ms, rng);
    let gpu_start = frames
        .last()
        .map_or(submit, |prev| prev.gpu_end.max(submit));
    let gpu_end = gpu_start + scenario.vary(load.gpu_ms, rng);
    frames.push(FrameRecord {
        cpu_start,
        submit,
        gpu_start,
        gpu_end,
        ..FrameRecord::default()
    });
    place_on_display(scenario, frames);
    submit
}

/// When frame `f` can acquire an image: once the frame `images` before it was replaced on
/// screen (FIFO, immediate) or finished being superseded (mailbox).
fn image_free_at(scenario: &Scenario, frames: &[FrameRecord], f: usize) -> f64 {
    let images = scenario.swapchain_images;
    if f < images {
        return 0.0;
    }
    // The image of frame f - images is released when a later frame takes the screen.
    let older = f - images;
    let next = &frames[older + 1];
    match scenario.display {
        DisplayMode::Immediate | DisplayMode::Mailbox { .. } => next.gpu_end,
        DisplayMode::Fifo { .. } => next.display.unwrap_or(next.gpu_end),
    }
}

/// Decides when the newest frame reaches the screen (and, for mailbox, drops the one it
/// replaces before a refresh): FIFO shows it at the first refresh at or after both its
/// readiness and one refresh after the previous frame shown.
fn place_on_display(scenario: &Scenario, frames: &mut [FrameRecord]) {
    let Some(last) = frames.len().checked_sub(1) else {
        return;
    };
    let ready = frames[last].gpu_end;
    let prev_display = frames[..last].iter().rev().find_map(|f| f.display);
    frames[last].display = Some(match scenario.display {
        DisplayMode::Immediate => ready,
        DisplayMode::Fifo { refresh_ms } => {
            let earliest = prev_display.map_or(ready, |d| ready.max(d + refresh_ms));
            vblank_after(earliest, refresh_ms)
        }
        DisplayMode::Mailbox { refresh_ms } => {
            let slot = vblank_after(ready, refresh_ms);
            // A previous frame waiting for the same refresh is replaced.
            if last > 0 && frames[last - 1].display == Some(slot) {
                frames[last - 1].display = None;
            }
            slot
        }
    });
}

/// The first refresh at or after `t`. The epsilon keeps a time already on a refresh
/// (k * period) on it despite rounding.
fn vblank_after(t: f64, period: f64) -> f64 {
    (t / period - 1e-9).ceil() * period
}
