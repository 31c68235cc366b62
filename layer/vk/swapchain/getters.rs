//! What a swapchain says about itself: [`SwapchainInfo`], its images, statistics, telemetry,
//! and (`Debug`) everything it is waiting for.

use super::*;
use crate::vk::frame_limit::FrameLimit;
use crate::vk::swapchain_info::SwapchainInfo;

impl Swapchain {
    /// The live swapchain and the settings and paths in use.
    #[must_use]
    pub fn info(&self) -> SwapchainInfo {
        let m = &self.machine;
        let plan = m.live().map(|(_, plan)| plan);
        SwapchainInfo {
            extent: plan.map(|p| vk::Extent2D {
                width: p.extent.width,
                height: p.extent.height,
            }),
            surface_format: plan.map(|p| vk::SurfaceFormatKHR {
                format: vk::Format::from_raw(p.format.format),
                color_space: vk::ColorSpaceKHR::from_raw(p.format.color_space),
            }),
            present_mode: plan.map(|p| vk::PresentModeKHR::from_raw(p.present_mode.0)),
            frames_in_flight: m.frames_in_flight(),
            pacing: m.pacing_policy(),
            frame_limit: m.frame_limit().map(FrameLimit::from_core),
            completion: m.completion_backend(),
            maintenance1: self.shell.maintenance1_names(),
            display_path: m.display_path(),
            display_feedback: self.shell.feedback(),
            present_timing: self.shell.present_timing_in_use(),
            old_swapchains_pending: m.retired_pending(),
            telemetry_epoch: self.shell.clock().epoch(),
        }
    }

    /// The current swapchain's images and their views (made by vkpace; they live until that
    /// swapchain is destroyed, once provably idle after a recreation). For resources made per
    /// image, see [`crate::vk::RenderTargets`].
    #[must_use]
    pub fn images(&self) -> Vec<(vk::Image, vk::ImageView)> {
        self.machine
            .live()
            .map(|(w, _)| self.shell.images_of(w))
            .unwrap_or_default()
    }

    /// Counters since creation.
    #[must_use]
    pub fn stats(&self) -> SwapchainStats {
        self.machine.stats()
    }

    /// The recent frames' timelines, oldest first (at most [`crate::TELEMETRY_FRAMES`]).
    pub fn telemetry(&self) -> impl DoubleEndedIterator<Item = FrameTimes> + '_ {
        self.machine.telemetry()
    }
}

/// Everything vkpace is waiting for: the queue's submitted and completed values and pending
/// fences, the frame in progress, the acquire semaphores, each image's present semaphores and
/// what proves them free, every retired swapchain and the proof it waits for. Handles print in
/// hex, as the validation layer names them. Print it when a loop seems stuck or with an error:
///
/// ```no_run
/// # fn f(swapchain: &mut vkpace::Swapchain) {
/// if let Err(e) = swapchain.acquire() {
///     eprintln!("acquire failed: {e}\n{swapchain:?}");
/// }
/// # }
/// ```
impl std::fmt::Debug for Swapchain {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        write!(f, "{}", self.machine.debug_state())
    }
}
