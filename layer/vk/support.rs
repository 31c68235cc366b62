//! One answer to "what can vkpace use here, and what must I enable for it": [`InstanceSupport`]
//! before the instance exists, [`Support`] for a physical device, with the extension names to
//! enable, the feature structures to chain ([`DeviceFeatures`]) and the settings that follow
//! ([`Support::apply`]).

use std::ffi::CStr;

use ash::vk;

use super::display::{
    PRESENT_TIMING_DEVICE_EXTENSIONS, PRESENT_WAIT2_DEVICE_EXTENSIONS,
    PRESENT_WAIT_DEVICE_EXTENSIONS,
};
use super::enabled_paths::{EnabledPaths, TakesSupport};
use super::error::{Result, VkContext};
use super::extensions::{all_listed, offered_features};
use super::gpu_timer::{gpu_timestamps_usable, GPU_TIMING_DEVICE_EXTENSION};
use super::maintenance1::{maintenance1_usable, Maintenance1Names};
use vkpace_registry::{
    PhysicalDevicePresentId2FeaturesKHR, PhysicalDevicePresentTimingFeaturesEXT,
    PhysicalDevicePresentWait2FeaturesKHR,
};

/// What the loader and driver offer at the instance level, asked before the instance exists:
/// enable [`Self::extensions`] (with your window system's) and pass this to [`Support::query`].
#[derive(Copy, Clone, Debug, Default, PartialEq, Eq)]
#[non_exhaustive]
pub struct InstanceSupport {
    /// The maintenance1 instance extensions offered (KHR where both KHR ones are, else EXT).
    pub maintenance1: Option<Maintenance1Names>,
    /// `VK_KHR_get_surface_capabilities2`: the per-surface queries of present_wait2 and
    /// present timing need it.
    pub surface_capabilities2: bool,
}

impl InstanceSupport {
    /// Asks the loader which instance extensions are available.
    pub fn query(entry: &ash::Entry) -> Result<Self> {
        // SAFETY: plain enumeration on a loaded entry.
        let available = unsafe { entry.enumerate_instance_extension_properties(None) }
            .during("vkEnumerateInstanceExtensionProperties")?;
        let maintenance1 = [Maintenance1Names::Khr, Maintenance1Names::Ext]
            .into_iter()
            .find(|n| all_listed(&available, &n.instance_extensions()));
        let surface_capabilities2 =
            all_listed(&available, &[ash::khr::get_surface_capabilities2::NAME]);
        Ok(Self {
            maintenance1,
            surface_capabilities2,
        })
    }

    /// The instance extensions to enable for everything offered (no duplicates). The instance
    /// must be Vulkan 1.1 or newer (`vkGetPhysicalDeviceFeatures2`, which [`Support::query`]
    /// calls, is core there).
    #[must_use]
    pub fn extensions(&self) -> Vec<&'static CStr> {
        let mut out: Vec<&'static CStr> = Vec::new();
        if let Some(names) = self.maintenance1 {
            out.extend(names.instance_extensions());
        }
        let caps2 = ash::khr::get_surface_capabilities2::NAME;
        if self.surface_capabilities2 && !out.contains(&caps2) {
            out.push(caps2);
        }
        out
    }
}

/// What a physical device offers of vkpace's optional paths, given what the instance enabled.
/// Enable [`Self::device_extensions`] and chain [`Self::features`] into `VkDeviceCreateInfo`,
/// then [`Self::apply`] it to the [`SwapchainConfig`](super::SwapchainConfig). To run without a path, take it out here
/// first, before the device is made ([`Self::only`], [`Self::without`]): it is then neither
/// enabled nor used.
///
/// ```no_run
/// # fn f(entry: &ash::Entry, instance: &ash::Instance, physical: ash::vk::PhysicalDevice,
/// #      family: u32, instance_support: vkpace::InstanceSupport) -> vkpace::Result<()> {
/// use ash::vk;
/// // SAFETY: `physical` comes from `instance` (Vulkan 1.3), `family` is one of its families,
/// // and the instance enabled `instance_support.extensions()`.
/// let support = unsafe {
///     vkpace::Support::query(entry, instance, physical, family, &instance_support)
/// }?;
/// // Paths off, if any: here, before the device (this keeps all but present timing).
/// let support = support.without(&[vkpace::OptionalPath::PresentTiming]);
/// let mut extensions = vec![ash::khr::swapchain::NAME.as_ptr()];
/// extensions.extend(support.device_extensions().iter().map(|e| e.as_ptr()));
/// let mut features = support.features();
/// let info = features.chain(vk::DeviceCreateInfo::default().enabled_extension_names(&extensions));
/// // ... create the device with `info`, then:
/// let mut config = vkpace::SwapchainConfig::default();
/// support.apply(&mut config);
/// # let _ = info; Ok(()) }
/// ```
#[derive(Copy, Clone, Debug, Default, PartialEq, Eq)]
#[non_exhaustive]
pub struct Support {
    /// Swapchain maintenance1: present fences, image release, mode switches without recreation.
    pub maintenance1: Option<Maintenance1Names>,
    /// GPU timestamps on the queue family, mapped to the CPU clock.
    pub gpu_timestamps: bool,
    /// `VK_KHR_present_id` + `VK_KHR_present_wait`: when frames were shown.
    pub present_wait: bool,
    /// `VK_KHR_present_id2` + `VK_KHR_present_wait2` (needs the instance's surface
    /// capabilities2): the same, per surface.
    pub present_wait2: bool,
    /// `VK_EXT_present_timing` (needs the instance's surface capabilities2), and whether
    /// absolute and relative target times are supported: `(absolute, relative)`.
    pub present_timing: Option<(bool, bool)>,
}

impl Support {
    /// Asks `physical` about every optional path.
    ///
    /// # Safety
    ///
    /// `physical` must come from `instance` (Vulkan 1.1+, loaded from `entry`), `queue_family`
    /// be one of its families, and the instance must have enabled `instance.extensions()`.
    pub unsafe fn query(
        entry: &ash::Entry,
        instance: &ash::Instance,
        physical: vk::PhysicalDevice,
        queue_family: u32,
        enabled: &InstanceSupport,
    ) -> Result<Self> {
        let caps2 = enabled.surface_capabilities2 || enabled.maintenance1.is_some();
        // SAFETY: caller contract.
        let display = unsafe { display_offered(instance, physical, caps2) }?;
        Ok(Self {
            // SAFETY: caller contract (physical of a 1.1+ instance).
            maintenance1: unsafe { maintenance1_usable(instance, physical, enabled.maintenance1) }?,
            // SAFETY: caller contract (and `queue_family` is one of its families).
            gpu_timestamps: unsafe {
                gpu_timestamps_usable(entry, instance, physical, queue_family)
            }?,
            ..display
        })
    }

    /// The device extensions to enable (besides `VK_KHR_swapchain`), without duplicates.
    #[must_use]
    pub fn device_extensions(&self) -> Vec<&'static CStr> {
        let mut out: Vec<&'static CStr> = Vec::new();
        let mut add = |names: &[&'static CStr]| {
            for n in names {
                if !out.contains(n) {
                    out.push(n);
                }
            }
        };
        if let Some(names) = self.maintenance1 {
            add(&[names.device_extension()]);
        }
        if self.gpu_timestamps {
            add(&[GPU_TIMING_DEVICE_EXTENSION]);
        }
        if self.present_wait {
            add(&PRESENT_WAIT_DEVICE_EXTENSIONS);
        }
        if self.present_wait2 {
            add(&PRESENT_WAIT2_DEVICE_EXTENSIONS);
        }
        if self.present_timing.is_some() {
            add(&PRESENT_TIMING_DEVICE_EXTENSIONS);
        }
        out
    }

    /// The feature structures to chain into `VkDeviceCreateInfo`, set for what is supported.
    #[must_use]
    pub fn features(&self) -> DeviceFeatures {
        let (absolute, relative) = self.present_timing.unwrap_or_default();
        DeviceFeatures {
            support: *self,
            maintenance1: vk::PhysicalDeviceSwapchainMaintenance1FeaturesEXT::default()
                .swapchain_maintenance1(true),
            present_id: vk::PhysicalDevicePresentIdFeaturesKHR::default().present_id(true),
            present_wait: vk::PhysicalDevicePresentWaitFeaturesKHR::default().present_wait(true),
            present_id2: PhysicalDevicePresentId2FeaturesKHR {
                present_id2: vk::TRUE,
                ..Default::default()
            },
            present_wait2: PhysicalDevicePresentWait2FeaturesKHR {
                present_wait2: vk::TRUE,
                ..Default::default()
            },
            present_timing: PhysicalDevicePresentTimingFeaturesEXT {
                present_timing: vk::TRUE,
                present_at_absolute_time: absolute.into(),
                present_at_relative_time: relative.into(),
                ..Default::default()
            },
            present_id2_chained: false,
        }
    }

    /// Turns on in `config` every path this support allows (and [`Self::device_extensions`]
    /// enabled): maintenance1, GPU timestamps, present_wait, present_wait2, present timing.
    /// Paths to run without are taken out of the support before the device is made
    /// ([`Self::only`], [`Self::without`]), so that their extensions are not enabled either.
    ///
    /// Works for both doors' configurations ([`super::SwapchainConfig`],
    /// [`super::PresentPacerConfig`], which has no GPU timestamps).
    pub fn apply<C: TakesSupport>(&self, config: &mut C) {
        let (paths, gpu_timestamps) = config.enabled_paths();
        *paths = EnabledPaths {
            swapchain_maintenance1: self.maintenance1,
            present_wait: self.present_wait,
            present_wait2: self.present_wait2,
            present_timing: self.present_timing.is_some(),
        };
        if let Some(gpu_timestamps) = gpu_timestamps {
            *gpu_timestamps = self.gpu_timestamps;
        }
    }
}

/// The display paths `physical` offers, each with its device extensions and features: present
/// wait, and with `VK_KHR_get_surface_capabilities2` on the instance (`caps2`) present_wait2 and
/// present timing (which names presents by their id2, so needs `presentId2` too). Each surface
/// is asked again when a swapchain is made (`display::choose`).
///
/// # Safety
///
/// `physical` must come from `instance`, a Vulkan 1.1+ instance (for
/// `vkGetPhysicalDeviceFeatures2`).
unsafe fn display_offered(
    instance: &ash::Instance,
    physical: vk::PhysicalDevice,
    caps2: bool,
) -> Result<Support> {
    let on = |b: vk::Bool32| b == vk::TRUE;
    // SAFETY: caller contract.
    let wait = unsafe {
        offered_features(
            instance,
            physical,
            &PRESENT_WAIT_DEVICE_EXTENSIONS,
            |id: &vk::PhysicalDevicePresentIdFeaturesKHR,
             wait: &vk::PhysicalDevicePresentWaitFeaturesKHR| {
                on(id.present_id) && on(wait.present_wait)
            },
        )
    }?;
    let mut offered = Support {
        present_wait: wait == Some(true),
        ..Support::default()
    };
    if !caps2 {
        return Ok(offered);
    }
    // SAFETY: caller contract.
    let wait2 = unsafe {
        offered_features(
            instance,
            physical,
            &PRESENT_WAIT2_DEVICE_EXTENSIONS,
            |id2: &PhysicalDevicePresentId2FeaturesKHR,
             wait2: &PhysicalDevicePresentWait2FeaturesKHR| {
                on(id2.present_id2) && on(wait2.present_wait2)
            },
        )
    }?;
    // SAFETY: caller contract.
    let timing = unsafe {
        offered_features(
            instance,
            physical,
            &PRESENT_TIMING_DEVICE_EXTENSIONS,
            |timing: &PhysicalDevicePresentTimingFeaturesEXT,
             id2: &PhysicalDevicePresentId2FeaturesKHR| {
                (on(timing.present_timing) && on(id2.present_id2)).then_some((
                    on(timing.present_at_absolute_time),
                    on(timing.present_at_relative_time),
                ))
            },
        )
    }?;
    offered.present_wait2 = wait2 == Some(true);
    offered.present_timing = timing.flatten();
    Ok(offered)
}

/// The feature structures a [`Support`] needs enabled, owned so they outlive the
/// `VkDeviceCreateInfo` that points at them ([`Self::chain`]).
#[derive(Clone, Copy, Debug)]
pub struct DeviceFeatures {
    support: Support,
    maintenance1: vk::PhysicalDeviceSwapchainMaintenance1FeaturesEXT<'static>,
    present_id: vk::PhysicalDevicePresentIdFeaturesKHR<'static>,
    present_wait: vk::PhysicalDevicePresentWaitFeaturesKHR<'static>,
    present_id2: PhysicalDevicePresentId2FeaturesKHR<'static>,
    present_wait2: PhysicalDevicePresentWait2FeaturesKHR<'static>,
    present_timing: PhysicalDevicePresentTimingFeaturesEXT<'static>,
    /// The create info chains `VkPhysicalDevicePresentId2FeaturesKHR` itself
    /// ([`Self::present_id2_chained`]).
    present_id2_chained: bool,
}

impl DeviceFeatures {
    /// For a create info that chains `VkPhysicalDevicePresentId2FeaturesKHR` itself, with
    /// `presentId2` on: [`Self::chain`] then leaves that structure out, since a structure may
    /// appear only once in a chain (VUID-VkDeviceCreateInfo-sType-unique), and chains the
    /// others beside it. Present timing and present wait2 still get the feature they need
    /// (their presents are named by `VkPresentId2KHR` ids, which "the presentId2 feature"
    /// allows). A structure with `presentId2` off does not serve: leave those paths out of the
    /// [`Support`] then ([`Support::without`]). A layer adding present timing below an
    /// application that enabled present id2 itself uses this.
    #[must_use]
    pub fn present_id2_chained(mut self) -> Self {
        self.present_id2_chained = true;
        self
    }

    /// Chains the needed structures into `info` (which may carry your own, such as
    /// `VkPhysicalDeviceVulkan13Features`). A structure may appear only once in a chain
    /// (VUID-VkDeviceCreateInfo-sType-unique): don't chain these yourself too.
    pub fn chain<'a>(&'a mut self, mut info: vk::DeviceCreateInfo<'a>) -> vk::DeviceCreateInfo<'a> {
        let s = self.support;
        if s.maintenance1.is_some() {
            // The KHR feature structure is the EXT one (same layout and structure type).
            info = info.push_next(&mut self.maintenance1);
        }
        if s.present_wait {
            info = info.push_next(&mut self.present_id);
            info = info.push_next(&mut self.present_wait);
        }
        if (s.present_wait2 || s.present_timing.is_some()) && !self.present_id2_chained {
            // present timing names presents by their id2 (`VK_KHR_present_id2`).
            info = info.push_next(&mut self.present_id2);
        }
        if s.present_wait2 {
            info = info.push_next(&mut self.present_wait2);
        }
        if s.present_timing.is_some() {
            info = info.push_next(&mut self.present_timing);
        }
        info
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use vkpace_registry::structure_type;

    /// The structure types `info`'s chain holds, in order.
    fn chained(info: &vk::DeviceCreateInfo<'_>) -> Vec<vk::StructureType> {
        let mut out = Vec::new();
        let mut at = info.p_next.cast::<vk::BaseInStructure<'_>>();
        while !at.is_null() {
            // SAFETY: a chain of the feature structures above, alive for the call.
            let base = unsafe { &*at };
            out.push(base.s_type);
            at = base.p_next;
        }
        out
    }

    /// Present timing beside a create info's own id2 structure: every structure but that one.
    #[test]
    fn present_timing_beside_a_chained_present_id2_adds_no_second_one() {
        let support = Support {
            present_timing: Some((true, false)),
            ..Support::default()
        };
        let id2 = structure_type::PHYSICAL_DEVICE_PRESENT_ID_2_FEATURES_KHR;
        let timing = structure_type::PHYSICAL_DEVICE_PRESENT_TIMING_FEATURES_EXT;
        let mut features = support.features();
        let got = chained(&features.chain(vk::DeviceCreateInfo::default()));
        assert!(
            got.len() == 2 && got.contains(&id2) && got.contains(&timing),
            "{got:?}"
        );
        let mut features = support.features().present_id2_chained();
        let got = chained(&features.chain(vk::DeviceCreateInfo::default()));
        assert_eq!(got, [timing]);
        assert!(support
            .device_extensions()
            .contains(&vkpace_registry::KHR_PRESENT_ID_2_NAME));
    }
}
