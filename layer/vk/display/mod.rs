//! The display, as the shell carries it out: the Vulkan calls of display feedback
//! (present_wait, present_wait2), present timing, its time domains and their calibration. What
//! to use and when is decided in the core (`core::display`, the machine's display watch and the
//! pacing's display schedule); [`choose`] asks the device and the surface what the core needs to
//! choose, and loads what it chose.

mod feedback;
mod present_timing;
mod swapchain_timing;
mod timing_domains;
mod timing_shell;

pub(crate) use feedback::DisplayFns;
pub use feedback::{PRESENT_WAIT2_DEVICE_EXTENSIONS, PRESENT_WAIT_DEVICE_EXTENSIONS};
pub use present_timing::{PresentTimingSurfaceSupport, PRESENT_TIMING_DEVICE_EXTENSIONS};
pub use timing_shell::PresentTimingInUse;
pub(crate) use timing_shell::{TimingShell, TIMING_SLOTS};
pub use vkpace_core::{DisplayFeedback, RefreshCycle};

use ash::vk;

use crate::vk::error::{Result, VkContext};
use present_timing::{calibrateable_domains, PresentTimingFns};
use vkpace_core::{
    choose_paths, Calibrateable, DisplayOffer, DisplayPaths, PresentIdStructure, TimingOffer,
};
use vkpace_registry::{
    swapchain_create, PresentTimingSurfaceCapabilitiesEXT, SurfaceCapabilitiesPresentId2KHR,
    SurfaceCapabilitiesPresentWait2KHR,
};

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
pub(crate) fn path_flags(wait2: bool, timing: bool) -> vk::SwapchainCreateFlagsKHR {
    let mut flags = vk::SwapchainCreateFlagsKHR::empty();
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
    pub(crate) physical_device: vk::PhysicalDevice,
    pub(crate) device: &'a ash::Device,
    pub(crate) surface: vk::SurfaceKHR,
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
    let load = |wait2| DisplayFns::load(desc.instance, desc.device, wait2);
    let wait = desc.paths.present_wait.then(|| load(false)).transpose()?;
    let wait2 = desc.paths.present_wait2.then(|| load(true)).transpose()?;
    let timing_fns = match desc.paths.present_timing {
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
        DisplayFeedback::PresentWait2 => wait2,
        DisplayFeedback::PresentWait => wait,
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
#[derive(Default)]
struct Asked {
    /// The surface supports present id2 and present wait2.
    wait2_usable: bool,
    /// The surface supports present id2 (present timing's results name presents by it).
    present_id2: bool,
    /// Present timing asked for: the surface's support and the calibrateable domains.
    timing: Option<(PresentTimingSurfaceSupport, Calibrateable)>,
}

/// Asks the surface about present_wait2 (`wait2`) and present timing (`timing`) in one
/// `vkGetPhysicalDeviceSurfaceCapabilities2KHR` call, and the device which time domains it can
/// calibrate (present timing only). Without `VK_KHR_get_surface_capabilities2` enabled on the
/// instance there is no way to ask: [`crate::Error::InvalidConfig`].
///
/// # Safety
///
/// As [`choose`].
unsafe fn ask_surface(desc: &DisplayRequest<'_>, wait2: bool, timing: bool) -> Result<Asked> {
    let (entry, instance, physical) = (desc.entry, desc.instance, desc.physical_device);
    if !wait2 && !timing {
        return Ok(Asked::default());
    }
    // SAFETY: valid instance of `entry` (caller contract).
    let caps2 = unsafe {
        crate::vk::extensions::surface_capabilities2(
            entry,
            instance,
            "present_wait2 and present timing need VK_KHR_get_surface_capabilities2 enabled on the instance",
        )
    }?;
    let info = vk::PhysicalDeviceSurfaceInfo2KHR::default().surface(desc.surface);
    let mut id2 = SurfaceCapabilitiesPresentId2KHR::default();
    let mut wait2_caps = SurfaceCapabilitiesPresentWait2KHR::default();
    let mut timing_caps = PresentTimingSurfaceCapabilitiesEXT::default();
    // Present timing's results name presents by their id2, so both paths ask about it.
    let mut caps = vk::SurfaceCapabilities2KHR::default().push_next(&mut id2);
    if wait2 {
        caps = caps.push_next(&mut wait2_caps);
    }
    if timing {
        caps = caps.push_next(&mut timing_caps);
    }
    // SAFETY: valid handles; the device enabled the extensions of each structure chained, so
    // the physical device offers them (caller contract), and each extends
    // VkSurfaceCapabilities2KHR (vk.xml); the instance enabled the query (its command was found).
    unsafe { caps2.get_physical_device_surface_capabilities2(physical, &info, &mut caps) }
        .during("vkGetPhysicalDeviceSurfaceCapabilities2KHR")?;
    let present_id2 = id2.present_id2_supported == vk::TRUE;
    let timing = match timing {
        true => Some((
            PresentTimingSurfaceSupport {
                present_timing: timing_caps.present_timing_supported == vk::TRUE,
                absolute: timing_caps.present_at_absolute_time_supported == vk::TRUE,
                relative: timing_caps.present_at_relative_time_supported == vk::TRUE,
                stages: timing_caps.present_stage_queries,
            },
            // SAFETY: as above (VK_KHR_calibrated_timestamps is one of the extensions).
            unsafe { calibrateable_domains(entry, instance, physical) }?,
        )),
        false => None,
    };
    Ok(Asked {
        wait2_usable: present_id2 && wait2_caps.present_wait2_supported == vk::TRUE,
        present_id2,
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
