//! How a [`super::Swapchain`] is made: the handles it works with ([`SwapchainCreateDesc`]) and
//! its settings ([`SwapchainConfig`]).

use ash::vk;

use vkpace_core::CompletionBackend;

use super::enabled_paths::{DisplayChoice, EnabledPaths};
use super::pacing_config::PacingConfig;

/// The Vulkan objects a [`super::Swapchain`] works with. All must be valid and outlive it; see
/// [`super::Swapchain::new`]'s safety contract.
pub struct SwapchainCreateDesc<'a> {
    /// The loaded Vulkan entry.
    pub entry: &'a ash::Entry,
    /// The instance the surface and device belong to.
    pub instance: &'a ash::Instance,
    /// The physical device of `device`.
    pub physical_device: vk::PhysicalDevice,
    /// The device, created with `VK_KHR_swapchain` enabled.
    pub device: &'a ash::Device,
    /// The queue vkpace submits to and presents on (see the crate docs: the renderer's frame
    /// submissions go to this queue too).
    pub queue: vk::Queue,
    /// The family of `queue`; it must be able to present to `surface`.
    pub queue_family: u32,
    /// The surface to present to.
    pub surface: vk::SurfaceKHR,
    /// Settings.
    pub config: SwapchainConfig,
}

/// How a [`super::Swapchain`] is made and paced. Every field documents its default; start from
/// [`SwapchainConfig::default`] and change what you need:
///
/// ```
/// let mut config = vkpace::SwapchainConfig::default();
/// config.pacing.frames_in_flight = 3;
/// config.present_mode = ash::vk::PresentModeKHR::MAILBOX;
/// ```
#[derive(Clone, Debug)]
#[non_exhaustive]
pub struct SwapchainConfig {
    /// How frames are paced: frames in flight, the policy, a frame limit, the bound of
    /// vkpace's waits ([`PacingConfig`], the same for [`super::PresentPacerConfig`]).
    pub pacing: PacingConfig,
    /// Wanted present mode; FIFO (which every surface supports) where the surface lacks it.
    /// Default `FIFO`.
    pub present_mode: vk::PresentModeKHR,
    /// Surface formats (format and color space) in order of preference. Default the SRGB
    /// formats first (`B8G8R8A8_SRGB`, `R8G8B8A8_SRGB`), then the UNORM ones, all in
    /// `SRGB_NONLINEAR`. The first pair of the list the surface offers is chosen (else, see
    /// `any_format_if_none_offered`) and kept across recreation while the surface still
    /// offers it, so pipelines made for it stay valid.
    ///
    /// Color spaces other than `SRGB_NONLINEAR` (HDR10, extended sRGB, Display P3, ...) are
    /// offered only to an instance that enabled `VK_EXT_swapchain_colorspace` (its values of
    /// `VkColorSpaceKHR` are that extension's; a surface of an instance without it reports
    /// `SRGB_NONLINEAR` pairs only). To ask for HDR10 with an sRGB fallback:
    ///
    /// ```
    /// use ash::vk;
    /// let pair = |format, color_space| vk::SurfaceFormatKHR { format, color_space };
    /// let mut config = vkpace::SwapchainConfig::default();
    /// config.preferred_formats = vec![
    ///     // HDR10 (BT.2020 primaries, SMPTE ST 2084 PQ encoding, written by the renderer).
    ///     pair(vk::Format::A2B10G10R10_UNORM_PACK32, vk::ColorSpaceKHR::HDR10_ST2084_EXT),
    ///     // Extended sRGB (scRGB): linear, values beyond [0, 1] for the wider range.
    ///     pair(vk::Format::R16G16B16A16_SFLOAT, vk::ColorSpaceKHR::EXTENDED_SRGB_LINEAR_EXT),
    ///     // Display P3.
    ///     pair(vk::Format::A2B10G10R10_UNORM_PACK32, vk::ColorSpaceKHR::DISPLAY_P3_NONLINEAR_EXT),
    ///     // The sRGB fallback every desktop surface offers.
    ///     pair(vk::Format::B8G8R8A8_SRGB, vk::ColorSpaceKHR::SRGB_NONLINEAR),
    /// ];
    /// // Only HDR10, or fail: `Error::NoSurfaceFormat` at `Swapchain::new` where not offered.
    /// config.any_format_if_none_offered = false;
    /// ```
    ///
    /// [`super::Frame::surface_format`] tells which pair a frame's image has (the renderer
    /// encodes for it); [`SwapchainConfig::hdr_metadata`] describes the content to the display.
    pub preferred_formats: Vec<vk::SurfaceFormatKHR>,
    /// Take the surface's first format when none of `preferred_formats` is offered. Default
    /// true; with false that case is [`super::Error::NoSurfaceFormat`].
    pub any_format_if_none_offered: bool,
    /// Usage of the swapchain images. Bits the surface does not support are an error
    /// ([`super::Error::UnsupportedImageUsage`]), never dropped. Default
    /// `COLOR_ATTACHMENT | TRANSFER_DST`.
    pub image_usage: vk::ImageUsageFlags,
    /// Extent used when the surface leaves it to the application (`currentExtent` of
    /// `0xFFFFFFFF`, as headless surfaces do). Default 640x480.
    pub extent: vk::Extent2D,
    /// Images to ask for beyond the surface's minimum. Default 1 (so one can be acquired while
    /// the engine holds its minimum).
    pub extra_images: u32,
    /// Name objects with `VK_EXT_debug_utils`; set only if the instance enabled it. Default false.
    pub debug_utils: bool,
    /// The presentation paths the device enabled (maintenance1, present_wait, present_wait2,
    /// present timing): set by [`super::Support::apply`]. Default: none, the proof-based path
    /// with no display feedback, which works everywhere.
    pub paths: EnabledPaths,
    /// Create swapchains with deferred memory allocation (maintenance1 only): image memory is
    /// bound at an image's first acquire, and vkpace makes its view then. Default false.
    pub deferred_memory_allocation: bool,
    /// Measure each frame's GPU start and end (timestamp queries around the command buffers
    /// given to [`super::Swapchain::submit`], mapped to the CPU clock with
    /// calibrated timestamps). Set only if the device enabled the extension
    /// [`super::Support::device_extensions`] lists for [`super::Support::gpu_timestamps`].
    /// Default false.
    pub gpu_timestamps: bool,
    /// Which display path to take among those the device enabled ([`Self::paths`]):
    /// [`DisplayChoice::Auto`], the default, takes the best the surface supports, with
    /// fallbacks; the others force one (a driver whose newer path misbehaves, a measurement).
    /// [`super::SwapchainInfo`] says what was taken.
    pub display: DisplayChoice,
    /// The device enabled `synchronization2` (core in Vulkan 1.3): frames may be submitted in
    /// several batches with [`super::Submission::Batches`] (`vkQueueSubmit2`). Set only
    /// if the device enabled the feature. Default false.
    pub synchronization2: bool,
    /// What backs the completion of vkpace's tracked submissions and so the swapchain's
    /// tokens: a fence per frame ([`CompletionBackend::Fences`], works everywhere) or one
    /// timeline semaphore ([`CompletionBackend::TimelineSemaphore`]: set only if the device
    /// enabled the Vulkan 1.2 feature `timelineSemaphore`; the swapchain's own tokens can then
    /// be waited for on the GPU too). Both give the same answers. Default `Fences`.
    pub completion: CompletionBackend,
    /// HDR metadata (mastering display and content light levels) given to every swapchain
    /// vkpace creates, the first and each recreation, right after its creation with
    /// `vkSetHdrMetadataEXT`: the metadata belongs to a swapchain, so a recreated one would
    /// otherwise have none. Set only if the device enabled `VK_EXT_hdr_metadata`; without it
    /// (no `vkSetHdrMetadataEXT` to load) [`super::Swapchain::new`] fails with
    /// [`super::Error::InvalidConfig`] before making any Vulkan object. The structure is
    /// passed alone: its `p_next` is not followed (cleared). Meaningful with an HDR color space
    /// in [`SwapchainConfig::preferred_formats`]. Default `None` (no call).
    pub hdr_metadata: Option<vk::HdrMetadataEXT<'static>>,
}

impl Default for SwapchainConfig {
    fn default() -> Self {
        let srgb = |format| vk::SurfaceFormatKHR {
            format,
            color_space: vk::ColorSpaceKHR::SRGB_NONLINEAR,
        };
        Self {
            pacing: PacingConfig::default(),
            present_mode: vk::PresentModeKHR::FIFO,
            preferred_formats: vec![
                srgb(vk::Format::B8G8R8A8_SRGB),
                srgb(vk::Format::R8G8B8A8_SRGB),
                srgb(vk::Format::B8G8R8A8_UNORM),
                srgb(vk::Format::R8G8B8A8_UNORM),
            ],
            any_format_if_none_offered: true,
            image_usage: vk::ImageUsageFlags::COLOR_ATTACHMENT | vk::ImageUsageFlags::TRANSFER_DST,
            extent: vk::Extent2D {
                width: 640,
                height: 480,
            },
            extra_images: 1,
            debug_utils: false,
            paths: EnabledPaths::default(),
            deferred_memory_allocation: false,
            gpu_timestamps: false,
            display: DisplayChoice::Auto,
            synchronization2: false,
            completion: CompletionBackend::Fences,
            hdr_metadata: None,
        }
    }
}

impl super::enabled_paths::Sealed for SwapchainConfig {
    fn enabled_paths(&mut self) -> (&mut EnabledPaths, Option<&mut bool>) {
        (&mut self.paths, Some(&mut self.gpu_timestamps))
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn enabled(display: DisplayChoice) -> SwapchainConfig {
        let mut c = SwapchainConfig::default();
        (c.paths.present_wait, c.paths.present_wait2) = (true, true);
        c.paths.present_timing = true;
        c.display = display;
        c
    }

    fn paths(c: &SwapchainConfig) -> (bool, bool, bool) {
        (
            c.paths.present_timing,
            c.paths.present_wait2,
            c.paths.present_wait,
        )
    }

    #[test]
    fn a_display_choice_narrows_the_enabled_paths() -> super::super::Result<()> {
        let want = [
            (DisplayChoice::Auto, (true, true, true)),
            (DisplayChoice::PresentWait2, (false, true, false)),
            (DisplayChoice::PresentWait, (false, false, true)),
            (DisplayChoice::Off, (false, false, false)),
        ];
        for (choice, expected) in want {
            let mut c = enabled(choice);
            c.paths.narrow(c.display)?;
            assert_eq!(paths(&c), expected, "{choice:?}");
        }
        Ok(())
    }

    #[test]
    fn a_forced_path_the_device_did_not_enable_is_refused() {
        for choice in [DisplayChoice::PresentWait2, DisplayChoice::PresentWait] {
            let mut c = SwapchainConfig {
                display: choice,
                ..SwapchainConfig::default()
            };
            assert!(
                matches!(
                    c.paths.narrow(c.display),
                    Err(super::super::Error::InvalidConfig(_))
                ),
                "{choice:?}"
            );
        }
    }
}
