//! The machine's configuration and the settings it refuses.

use crate::completion::CompletionBackend;
use crate::error::CoreError;
use crate::gpu_clock::GpuClock;
use crate::pacer::validate_wait_timeout;
use crate::pacing::PacingSettings;
use crate::surface_plan::SurfaceWishes;
use crate::vk_values::{Extent, PresentMode, SurfaceFormat};

/// How the machine runs. Every field documents its default.
#[derive(Clone, Debug, PartialEq)]
#[non_exhaustive]
pub struct MachineConfig {
    /// How frames are paced. Default [`PacingSettings::default`].
    pub pacing: PacingSettings,
    /// What every swapchain should look like. Default: the SRGB formats first, FIFO,
    /// color attachment and transfer destination, 640x480, one image beyond the minimum.
    pub surface: SurfaceWishes,
    /// Bound of every wait, in nanoseconds. Default 2 s.
    pub wait_timeout_ns: u64,
    /// `VK_EXT_swapchain_maintenance1` (or its KHR promotion): present fences, image release,
    /// per-present mode switches. Default false.
    pub maintenance1: bool,
    /// `VK_KHR_present_id` + `VK_KHR_present_wait`: present ids and display times. Default false.
    pub present_ids: bool,
    /// `VK_EXT_present_timing` with this many results-queue slots per swapchain (at most 16):
    /// target present times and stage times read back, instead of present-wait polls. Needs
    /// `present_ids` (results are matched to presents by id). Default none.
    pub present_timing_slots: Option<u32>,
    /// GPU timestamps: the device clock's description. Default none.
    pub gpu_clock: Option<GpuClock>,
    /// What backs the completion of tracked submissions (and so the machine's tokens).
    /// Default [`CompletionBackend::Fences`].
    pub completion: CompletionBackend,
}

impl Default for MachineConfig {
    fn default() -> Self {
        Self {
            pacing: PacingSettings::default(),
            surface: SurfaceWishes {
                formats: vec![
                    SurfaceFormat::BGRA8_SRGB,
                    SurfaceFormat::RGBA8_SRGB,
                    SurfaceFormat::BGRA8_UNORM,
                    SurfaceFormat::RGBA8_UNORM,
                ],
                any_format_if_none_offered: true,
                present_mode: PresentMode::FIFO,
                // COLOR_ATTACHMENT | TRANSFER_DST
                usage: 0x10 | 0x2,
                extent: Extent {
                    width: 640,
                    height: 480,
                },
                extra_images: 1,
            },
            wait_timeout_ns: 2_000_000_000,
            maintenance1: false,
            present_ids: false,
            present_timing_slots: None,
            gpu_clock: None,
            completion: CompletionBackend::Fences,
        }
    }
}

/// Checks the settings a machine cannot run with.
pub(super) fn validate(config: &MachineConfig) -> Result<(), CoreError> {
    config.pacing.check()?;
    validate_wait_timeout(config.wait_timeout_ns)?;
    match config.present_timing_slots {
        Some(slots) if !config.present_ids || !(1..=16).contains(&slots) => {
            Err(CoreError::InvalidPresentTiming(slots))
        }
        _ => Ok(()),
    }
}
