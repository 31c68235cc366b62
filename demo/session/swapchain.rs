//! The session's swapchain as the session sees it from outside: its configuration from the
//! command line, the present modes on offer, and the report's figures that come from it.

use anyhow::Result;
use ash::vk;
use vkpace::{FrameLimit, Swapchain, SwapchainConfig};

use crate::cli::{policy_name, present_mode_name, Args};
use crate::report::Report;
use crate::vulkan_context::VulkanContext;

/// The swapchain's configuration from the command line, at the `initial` extent.
pub(super) fn swapchain_config(args: &Args, initial: vk::Extent2D) -> Result<SwapchainConfig> {
    let frame_limit = args.fps.map(FrameLimit::fps).transpose()?;
    let mut config = SwapchainConfig::default();
    config.pacing.frames_in_flight = usize::from(args.frames_in_flight);
    config.present_mode = args.present_mode.to_vk();
    config.extent = initial;
    config.pacing.policy = args.policy.to_core();
    config.pacing.frame_limit = frame_limit;
    config.completion = args.completion.to_vk();
    Ok(config)
}

/// Says on stderr when the surface did not offer the present mode asked for, and which one
/// the swapchain uses instead.
pub(super) fn note_present_mode_fallback(args: &Args, swapchain: &Swapchain) {
    let wanted = args.present_mode.to_vk();
    if let Some(got) = swapchain.info().present_mode.filter(|m| *m != wanted) {
        eprintln!(
            "vkpace demo: the surface does not offer {}; using {}",
            present_mode_name(wanted),
            present_mode_name(got)
        );
    }
}

/// The present modes the M key and `--switch-present-mode-every` cycle through: those of a
/// fixed order that the surface offers.
pub(super) fn offered_mode_cycle(ctx: &VulkanContext) -> Result<Vec<vk::PresentModeKHR>> {
    let order = [
        vk::PresentModeKHR::FIFO,
        vk::PresentModeKHR::MAILBOX,
        vk::PresentModeKHR::IMMEDIATE,
        vk::PresentModeKHR::FIFO_RELAXED,
    ];
    let offered = ctx.present_modes()?;
    let mode_cycle: Vec<_> = order.into_iter().filter(|m| offered.contains(m)).collect();
    Ok(mode_cycle)
}

/// The report's figures that come from the swapchain (its settings, counters and present
/// timing), read before it is destroyed; the session's own figures are left at their defaults
/// for the caller to fill.
pub(super) fn swapchain_report(sc: &Swapchain) -> Report {
    let stats = sc.stats();
    let present_mode =
        present_mode_name(sc.info().present_mode.unwrap_or(vk::PresentModeKHR::FIFO)).to_string();
    let frames_in_flight = sc.info().frames_in_flight;
    let policy = policy_name(sc.info().pacing).to_string();
    let fps_limit = sc
        .info()
        .frame_limit
        .map(|l| (1e9 / l.period_ns() as f64 * 1000.0).round() / 1000.0);
    let display_feedback = sc.info().display_feedback.label();
    let path = if sc.info().maintenance1.is_some() {
        "maintenance1"
    } else {
        "legacy"
    }
    .to_string();
    let maintenance1_names = sc.info().maintenance1.map_or("none", |n| n.label());
    let completion = sc.info().completion.name();
    let present_timing = crate::present_timing_report::PresentTimingReport::of(sc);
    Report {
        present_mode,
        frames_in_flight,
        swapchain_images: stats.image_count,
        swapchains_created: stats.swapchains_created,
        old_swapchains_max_pending: stats.old_swapchains_max_pending,
        semaphores_created: stats.semaphores_created,
        semaphores_max_alive: stats.semaphores_max_alive,
        fences_created: stats.fences_created,
        fences_max_alive: stats.fences_max_alive,
        path,
        present_mode_switches: stats.present_mode_switches,
        present_mode_recreations: stats.present_mode_recreations,
        distinct_images_acquired: stats.distinct_images_acquired(),
        fallback_waits: stats.fallback_waits,
        not_ready_skips: stats.not_ready_skips,
        images_drained_before_retire: stats.images_drained_before_retire,
        display_times_watched: stats.display_times_watched,
        anchored_period_ns: stats.anchored_period_ns,
        anchor_moves: stats.anchor_moves,
        policy,
        fps_limit,
        display_feedback,
        maintenance1_names,
        completion,
        present_timing,
        ..Report::default()
    }
}
