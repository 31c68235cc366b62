//! Making a swapchain: the shell with its Vulkan objects, the GPU timer and completion
//! timeline, and the machine's configuration from the user's.

use super::*;

impl Swapchain {
    /// The core's settings; `present_ids`: a display feedback path is in use (ids and polls
    /// are the same on both).
    pub(super) fn machine_config(
        config: &SwapchainConfig,
        timer: Option<&GpuTimer>,
        present_ids: bool,
        present_timing: bool,
    ) -> Result<MachineConfig> {
        config.pacing.check()?;
        let surface = SurfaceWishes {
            formats: config
                .preferred_formats
                .iter()
                .map(|f| SurfaceFormat {
                    format: f.format.as_raw(),
                    color_space: f.color_space.as_raw(),
                })
                .collect(),
            any_format_if_none_offered: config.any_format_if_none_offered,
            present_mode: PresentMode(config.present_mode.as_raw()),
            usage: config.image_usage.as_raw(),
            extent: Extent {
                width: config.extent.width,
                height: config.extent.height,
            },
            extra_images: config.extra_images,
        };
        let mut m = MachineConfig::default();
        // MachineConfig is non-exhaustive: set field by field.
        #[allow(clippy::field_reassign_with_default)]
        {
            m.pacing = config.pacing.core();
            m.surface = surface;
            m.wait_timeout_ns = config.pacing.wait_timeout_ns();
            m.maintenance1 = config.paths.swapchain_maintenance1.is_some();
            m.present_ids = present_ids;
            m.present_timing_slots = present_timing.then_some(crate::vk::display::TIMING_SLOTS);
            m.gpu_clock = timer.map(|t| t.clock);
            m.completion = config.completion;
        }
        Ok(m)
    }
}
