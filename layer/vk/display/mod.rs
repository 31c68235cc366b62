//! The display, as the shell carries it out: the Vulkan calls of display feedback
//! (present_wait, present_wait2), present timing, its time domains and their calibration. What
//! to use and when is decided in the core (`core::display`, the machine's display watch and the
//! pacing's display schedule); [`choose`] asks the device and the surface what the core needs to
//! choose, and loads what it chose.

mod present_timing;
mod present_wait;
mod present_wait2;
mod swapchain_timing;
mod timing_domains;
mod timing_shell;

pub use present_timing::{
    PresentTimingSupport, PresentTimingSurfaceSupport, PRESENT_TIMING_DEVICE_EXTENSIONS,
};
pub(crate) use present_wait::present_wait_usable;
pub use present_wait::PRESENT_WAIT_DEVICE_EXTENSIONS;
pub(crate) use present_wait2::DisplayFns;
pub use present_wait2::{PresentWait2SurfaceSupport, PRESENT_WAIT2_DEVICE_EXTENSIONS};
pub use timing_shell::PresentTimingInUse;
pub(crate) use timing_shell::{TimingShell, TIMING_SLOTS};
pub use vkpace_core::{DisplayFeedback, RefreshCycle};

use crate::vk::error::Result;
use present_timing::PresentTimingFns;
use present_wait::PresentWaitFns;
use present_wait2::PresentWait2Fns;
use vkpace_core::{
    choose_paths, Calibrateable, DisplayOffer, DisplayPaths, PresentIdStructure, TimingOffer,
};
use vkpace_registry::swapchain_create;

/// The display paths of one swapchain object; by default none (no feedback, no present timing,
/// no ids).
#[derive(Default)]
pub(crate) struct Paths {
    /// Display feedback, if any.
    pub(crate) display: Option<DisplayFns>,
    /// Present timing, if used.
    pub(crate) timing: Option<TimingShell>,
    /// The structure the presents carry vkpace's ids in ([`DisplayPaths::id_structure`]).
    pub(crate) ids: PresentIdStructure,
}

/// The create flags of a swapchain whose presents are waited on with present_wait2 (`wait2`)
/// or use present timing (`timing`); the surface supports them (checked when the path was
/// chosen). Every swapchain of the path, recreations included.
pub(crate) fn path_flags(wait2: bool, timing: bool) -> ash::vk::SwapchainCreateFlagsKHR {
    let mut flags = ash::vk::SwapchainCreateFlagsKHR::empty();
    if wait2 {
        // Ids through VkPresentId2KHR need PRESENT_ID_2 (VUID-VkPresentId2KHR-None-10820) and
        // vkWaitForPresent2KHR needs PRESENT_WAIT_2 (VUID-vkWaitForPresent2KHR-None-10816).
        flags |= swapchain_create::PRESENT_ID_2_KHR | swapchain_create::PRESENT_WAIT_2_KHR;
    }
    if timing {
        // vkSetSwapchainPresentTimingQueueSizeEXT and the other present timing commands need
        // PRESENT_TIMING (VUID-vkSetSwapchainPresentTimingQueueSizeEXT-swapchain-12229);
        // results name presents by VkPresentId2KHR ids, which need PRESENT_ID_2
        // (VUID-VkPresentId2KHR-None-10820).
        flags |= swapchain_create::PRESENT_TIMING_EXT | swapchain_create::PRESENT_ID_2_KHR;
    }
    flags
}

/// What [`choose`] needs: the handles of one surface's swapchain and the paths the device
/// enabled (both doors build it: [`crate::Swapchain`] from its create description, the
/// [`crate::PresentPacer`] per swapchain it is asked to create).
pub(crate) struct DisplayRequest<'a> {
    pub(crate) entry: &'a ash::Entry,
    pub(crate) instance: &'a ash::Instance,
    pub(crate) physical_device: ash::vk::PhysicalDevice,
    pub(crate) device: &'a ash::Device,
    pub(crate) surface: ash::vk::SurfaceKHR,
    pub(crate) paths: crate::vk::EnabledPaths,
}

impl<'a> DisplayRequest<'a> {
    /// The request of door 1's swapchain.
    pub(crate) fn of(desc: &crate::vk::config::SwapchainCreateDesc<'a>) -> Self {
        Self {
            entry: desc.entry,
            instance: desc.instance,
            physical_device: desc.physical_device,
            device: desc.device,
            surface: desc.surface,
            paths: desc.config.paths,
        }
    }
}

/// The paths for `desc`'s surface. Every entry point an option asked for needs is loaded first
/// ([`crate::Error::InvalidConfig`] where the device did not enable it), before the surface is
/// asked and before the caller makes any Vulkan object; then the surface and the device are
/// asked what the core needs ([`DisplayOffer`]), and the core chooses.
///
/// # Safety
///
/// As [`crate::Swapchain::new`]: valid handles; each option only with the device extensions
/// and features it needs enabled.
pub(crate) unsafe fn choose(desc: &DisplayRequest<'_>) -> Result<Paths> {
    let config = desc;
    let wait = match config.paths.present_wait {
        true => Some(PresentWaitFns::load(desc.instance, desc.device)?),
        false => None,
    };
    let wait2 = match config.paths.present_wait2 {
        true => Some(PresentWait2Fns::load(desc.instance, desc.device)?),
        false => None,
    };
    let timing_fns = match config.paths.present_timing {
        // SAFETY: caller contract (the device enabled the extensions, else this fails typed).
        true => Some(unsafe { PresentTimingFns::load(desc.instance, desc.device) }?),
        false => None,
    };
    // SAFETY: caller contract.
    let asked = unsafe { ask_surface(desc, wait2.is_some(), timing_fns.is_some()) }?;
    let offer = DisplayOffer {
        present_wait: wait.is_some(),
        present_wait2: wait2.as_ref().map(|_| asked.wait2_usable),
        timing: asked.timing.map(|(surface, calibrateable)| TimingOffer {
            surface_timing: surface.present_timing,
            surface_present_id2: asked.present_id2,
            host_clock_calibrateable: calibrateable.host,
            relative_targets: surface.relative,
            absolute_targets: surface.absolute,
        }),
    };
    let paths = choose_paths(&offer);
    log_fallbacks(&offer, &paths);
    let display = match paths.feedback {
        DisplayFeedback::PresentWait2 => wait2.map(DisplayFns::Wait2),
        DisplayFeedback::PresentWait => wait.map(DisplayFns::Wait),
        _ => None,
    };
    let timing = match (paths.timing, timing_fns, asked.timing) {
        (Some(targets), Some(fns), Some((surface, calibrateable))) => {
            Some(TimingShell::new(fns, surface, calibrateable, targets))
        }
        _ => None,
    };
    Ok(Paths {
        ids: paths.id_structure(),
        display,
        timing,
    })
}

/// What the surface and the device say about the paths asked for.
struct Asked {
    /// The surface supports present id2 and present wait2.
    wait2_usable: bool,
    /// The surface supports present id2 (present timing's results name presents by it).
    present_id2: bool,
    /// Present timing asked for: the surface's support and the calibrateable domains.
    timing: Option<(PresentTimingSurfaceSupport, Calibrateable)>,
}

/// Asks the surface about present_wait2 (`wait2`) and present timing (`timing`), and the device
/// which time domains it can calibrate (present timing only).
///
/// # Safety
///
/// As [`choose`].
unsafe fn ask_surface(desc: &DisplayRequest<'_>, wait2: bool, timing: bool) -> Result<Asked> {
    let (entry, instance, physical) = (desc.entry, desc.instance, desc.physical_device);
    let ids = match wait2 || timing {
        // SAFETY: valid handles; the device enabled the extensions, so the physical device
        // offers them (caller contract). Present timing's results name presents by id2.
        true => Some(unsafe {
            PresentWait2SurfaceSupport::query(entry, instance, physical, desc.surface)
        }?),
        false => None,
    };
    let timing = match timing {
        true => {
            // SAFETY: as above.
            let surface = unsafe {
                PresentTimingSupport::query_surface(entry, instance, physical, desc.surface)
            }?;
            // SAFETY: as above (VK_KHR_calibrated_timestamps is one of the extensions).
            let calibrateable =
                unsafe { PresentTimingSupport::calibrateable_domains(entry, instance, physical) }?;
            Some((surface, calibrateable))
        }
        false => None,
    };
    Ok(Asked {
        wait2_usable: ids.is_some_and(|i| i.usable()),
        present_id2: ids.is_some_and(|i| i.present_id2),
        timing,
    })
}

/// Says in the log where a path asked for is not taken, and why.
fn log_fallbacks(offer: &DisplayOffer, paths: &DisplayPaths) {
    if offer.present_wait2 == Some(false) {
        log::info!("vkpace: the surface does not support present_wait2");
    }
    if let (Some(t), None) = (offer.timing, paths.timing) {
        log::info!(
            "vkpace: present timing not usable on this surface ({t:?}): the CPU limiter paces"
        );
    }
}
