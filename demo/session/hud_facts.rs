//! What the HUD shows of the swapchain: its settings and state for the frame being drawn, and
//! the present timing line read from vkpace's telemetry. Separate from the frame loop: a
//! read-only view of the swapchain, built each frame without allocating.

use ash::vk;
use vkpace::{Frame, Swapchain};

use crate::cli::{policy_name, present_mode_name};
use crate::hud_view::HudFacts;

/// What the HUD shows of the swapchain's settings and state for `frame`.
pub(super) fn hud_facts<'a>(
    sc: &'a Swapchain,
    frame: &Frame,
    gpu_load: f32,
    producer: bool,
) -> HudFacts<'a> {
    let extent = frame.extent();
    HudFacts {
        policy: policy_name(sc.info().pacing),
        fps_limit: sc.info().frame_limit.map(|l| 1e9 / l.period_ns() as f64),
        present_mode: present_mode_name(sc.info().present_mode.unwrap_or(vk::PresentModeKHR::FIFO)),
        frames_in_flight: sc.info().frames_in_flight,
        maintenance1: sc.info().maintenance1.map(|n| n.label()),
        completion: sc.info().completion.name(),
        submission: if producer {
            "batches+producer"
        } else {
            "single"
        },
        generation: frame.generation(),
        width: extent.width,
        height: extent.height,
        gpu_load,
        latency_source: "start to present return",
        display: display_facts(sc),
    }
}

/// The HUD's present timing line: the path, and the mean start-to-first-pixel time of the
/// last frames vkpace has first-pixel times for (no allocation: the telemetry ring is walked).
fn display_facts(sc: &Swapchain) -> crate::hud_view::DisplayFacts {
    let swap_interval = match sc.info().display_path {
        vkpace::DisplayPath::RefreshGrid { interval } => interval,
        _ => 0,
    };
    let (sum, n) = sc
        .telemetry()
        .rev()
        .filter_map(|t| t.displayed.map(|d| d.saturating_sub(t.cpu_start)))
        .take(60)
        .fold((0.0, 0u32), |(s, n), d| (s + d.as_secs_f64() * 1e3, n + 1));
    let present_timing = sc.info().present_timing.is_some();
    crate::hud_view::DisplayFacts {
        present_timing,
        swap_interval,
        missed: sc.stats().refreshes_missed,
        // Without present timing `displayed` is when a poll saw the frame shown: not shown.
        first_pixel_ms: if n > 0 && present_timing {
            sum / f64::from(n)
        } else {
            0.0
        },
    }
}
