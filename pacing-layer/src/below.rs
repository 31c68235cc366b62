//! What the layer enables below the application for the pacer, where offered:
//! `VK_KHR_get_surface_capabilities2` and `VK_EXT_surface_maintenance1` on the instance, and on
//! the device present timing (`VK_EXT_present_timing` with present id2 and calibrated
//! timestamps, and their features), to pace to the display, and swapchain maintenance1, whose
//! present fences prove a destroyed swapchain idle. The application's create info
//! is copied, never written: vkpace's names are added to a copy of its list and vkpace's
//! feature structures put in front of its chain. Nothing is added that the application chained
//! already (a structure appears once in a chain, VUID-VkDeviceCreateInfo-sType-unique): an
//! application's own present id2 features with `presentId2` on serve the present timing added
//! beside them, and with it off keep present timing out. A
//! creation the next layer refuses with the additions is made again without them, so the
//! layer never makes instance or device creation fail.

use std::ffi::{c_char, CStr};

use ash::vk;
use vkpace::{InstanceSupport, Maintenance1Names, Support};

mod chain_seen;
use chain_seen::ChainSeen;

/// The instance extension present timing's surface queries need.
const SURFACE_CAPABILITIES2: &CStr = ash::khr::get_surface_capabilities2::NAME;

/// The names of a create info's extension list.
///
/// # Safety
/// `names` points at `count` valid C strings (or is null with `count` 0).
unsafe fn names<'a>(names: *const *const c_char, count: u32) -> Vec<&'a CStr> {
    if names.is_null() {
        return Vec::new();
    }
    // SAFETY: the caller's contract.
    unsafe { std::slice::from_raw_parts(names, count as usize) }
        .iter()
        // SAFETY: as above.
        .map(|&n| unsafe { CStr::from_ptr(n) })
        .collect()
}

/// The application's extension list with `extra` added where missing; `None` if nothing is
/// missing.
fn with_names(app: &[&CStr], extra: &[&'static CStr]) -> Option<Vec<*const c_char>> {
    let mut missing: Vec<&CStr> = Vec::with_capacity(extra.len());
    for e in extra {
        if !app.contains(e) && !missing.contains(e) {
            missing.push(e);
        }
    }
    if missing.is_empty() {
        return None;
    }
    Some(app.iter().chain(&missing).map(|n| n.as_ptr()).collect())
}

/// Whether the application's instance can use what the layer adds: present timing's and
/// maintenance1's device extensions need Vulkan 1.1 or `VK_KHR_get_physical_device_properties2`,
/// and get_surface_capabilities2 and the surface maintenance1 extensions need `VK_KHR_surface`
/// (VUID-vkCreateInstance-ppEnabledExtensionNames-01388).
///
/// # Safety
/// `ci` is a valid create info.
unsafe fn instance_usable(ci: &vk::InstanceCreateInfo<'_>, app: &[&CStr]) -> bool {
    // SAFETY: a valid create info's application info, if any.
    let version = unsafe { ci.p_application_info.as_ref() }.map_or(0, |a| a.api_version);
    let one_one = vk::api_version_minor(version) >= 1 || vk::api_version_major(version) > 1;
    app.contains(&ash::khr::surface::NAME)
        && (one_one || app.contains(&ash::khr::get_physical_device_properties2::NAME))
}

/// Creates the instance through `create` with `VK_KHR_get_surface_capabilities2` and
/// `VK_EXT_surface_maintenance1` added where the application did not enable them (or the KHR
/// twin of the second), then, if a layer below refuses with `VK_ERROR_EXTENSION_NOT_PRESENT`,
/// with the first alone, then as the application asked; returns the result and what is
/// enabled. The loader itself never refuses: its terminator passes each driver only the
/// extensions that driver offers. So what is returned as enabled may be missing from a
/// driver; it is used only where the driver's device offers what depends on it (the swapchain
/// maintenance1 extension, present timing), which no conformant driver does without it.
///
/// # Safety
/// `ci` is the application's create info, after this layer took its link; `create` calls the
/// next layer's `vkCreateInstance` with the given info.
pub(crate) unsafe fn create_instance(
    ci: &vk::InstanceCreateInfo<'_>,
    mut create: impl FnMut(&vk::InstanceCreateInfo<'_>) -> vk::Result,
) -> (vk::Result, InstanceSupport) {
    // SAFETY: the application's create info is valid.
    let app = unsafe { names(ci.pp_enabled_extension_names, ci.enabled_extension_count) };
    // SAFETY: as above.
    if !unsafe { instance_usable(ci, &app) } {
        return (create(ci), InstanceSupport::default());
    }
    let own = [Maintenance1Names::Khr, Maintenance1Names::Ext]
        .into_iter()
        .find(|n| app.contains(&n.instance_extensions()[0]));
    // What the instance has for the pacer: the application's extensions or the layer's (the
    // registry makes VK_EXT_swapchain_maintenance1 depend on VK_EXT_surface_maintenance1, the
    // KHR extension on the KHR one).
    let with = |maintenance1| {
        let mut adds = InstanceSupport::default();
        adds.surface_capabilities2 = true;
        adds.maintenance1 = maintenance1;
        adds
    };
    let mut attempts = vec![with(Some(own.unwrap_or(Maintenance1Names::Ext)))];
    attempts.extend(own.is_none().then(|| with(None)));
    // SAFETY: this layer's link was taken from `ci` (the caller's contract).
    let mark = unsafe { vkpace_layer_plumbing::LinkMark::instance(ci) };
    for adds in attempts {
        let mut extra = vec![SURFACE_CAPABILITIES2];
        extra.extend(adds.maintenance1.map(|n| n.instance_extensions()[0]));
        let list = with_names(&app, &extra);
        let mut ours = *ci;
        if let Some(list) = &list {
            ours.enabled_extension_count = list.len() as u32;
            ours.pp_enabled_extension_names = list.as_ptr();
        }
        let result = create(&ours);
        if result != vk::Result::ERROR_EXTENSION_NOT_PRESENT || list.is_none() {
            // Success, or an error of the application's own request.
            let enabled = (result == vk::Result::SUCCESS).then_some(adds);
            return (result, enabled.unwrap_or_default());
        }
        crate::log(format_args!(
            "vkCreateInstance refused {extra:?} ({result:?}): made again with fewer"
        ));
        if let Some(mark) = &mark {
            // SAFETY: the same call, before calling down again.
            unsafe { mark.restore() };
        }
    }
    crate::log(format_args!(
        "vkCreateInstance made as the application asked: no present timing or maintenance1 below it"
    ));
    (create(ci), InstanceSupport::default())
}

/// Device extensions with which the application paces itself: the layer steps aside for such a
/// device (unless forced), so that two pacers do not fight over its frames. A latency API
/// (NVIDIA's low latency, AMD's anti-lag) paces; so does present timing, whose targets say when
/// each frame is shown. Present ids and present wait do not: DXVK enables them wherever they are
/// offered (Mesa's hardware drivers, NVIDIA) to track when its frames complete, not to limit
/// them, and stepping aside for them left every DXVK game on those drivers unpaced.
const SELF_PACING: [&CStr; 4] = [
    c"VK_NV_low_latency",
    c"VK_NV_low_latency2",
    c"VK_AMD_anti_lag",
    c"VK_EXT_present_timing",
];

/// The first extension of the application's device create info with which it paces itself.
///
/// # Safety
/// `ci` is a valid device create info.
pub(crate) unsafe fn self_pacing(ci: &vk::DeviceCreateInfo<'_>) -> Option<&'static CStr> {
    // SAFETY: the caller's contract.
    let app = unsafe { names(ci.pp_enabled_extension_names, ci.enabled_extension_count) };
    SELF_PACING.into_iter().find(|e| app.contains(e))
}

/// Device extensions with which the application tracks its own presents (ids and waits for
/// them): the layer paces beside them, and adds no present wait of its own.
const APP_FEEDBACK: [&CStr; 4] = [
    c"VK_KHR_present_id",
    c"VK_KHR_present_wait",
    c"VK_KHR_present_id2",
    c"VK_KHR_present_wait2",
];

/// The extensions of the application's device create info with which it tracks its own
/// presents ([`APP_FEEDBACK`]).
///
/// # Safety
/// `ci` is a valid device create info.
pub(crate) unsafe fn app_feedback(ci: &vk::DeviceCreateInfo<'_>) -> Vec<&'static CStr> {
    // SAFETY: the caller's contract.
    let app = unsafe { names(ci.pp_enabled_extension_names, ci.enabled_extension_count) };
    APP_FEEDBACK
        .into_iter()
        .filter(|e| app.contains(e))
        .collect()
}

/// What the layer adds below the application on a device, and what the pacer uses then.
#[derive(Copy, Clone, Debug, Default)]
pub(crate) struct DeviceAdds {
    /// The extensions and features the layer adds (present timing, swapchain maintenance1).
    adds: Support,
    /// What the pacer uses on a device made with them: those, and the application's own
    /// swapchain maintenance1 and present wait or wait2.
    uses: Support,
    /// What the pacer uses on a device made as the application asked.
    own: Support,
    /// The application chained `VkPhysicalDevicePresentId2FeaturesKHR` (with `presentId2` on,
    /// or no present timing is added): present timing is added beside it, without a second.
    id2_chained: bool,
}

impl DeviceAdds {
    /// How the pacer watches the display through the application's own present ids, for the
    /// layer's log line about the application's feedback.
    pub(crate) fn feedback_path(&self) -> &'static str {
        match (self.own.present_wait2, self.own.present_wait) {
            (true, true) => "the pacer watches the display through its ids with its present wait2 on swapchains whose surface supports present id2 and wait2, else with its present wait",
            (true, false) => "the pacer watches the display through its ids with its present wait2 on swapchains whose surface supports present id2 and wait2",
            (false, true) => "the pacer watches the display through its ids with its present wait",
            (false, false) => "the pacer watches none of its ids (present wait or wait2 not enabled with both features on)",
        }
    }
}

/// What the pacer uses of the application's own extensions: its swapchain maintenance1 with the
/// feature on, and its present wait (`VK_KHR_present_id` and `VK_KHR_present_wait`, DXVK's) or
/// present wait2 (`VK_KHR_present_id2` and `VK_KHR_present_wait2`, vkd3d-proton's and newer
/// DXVK's) enabled with both features on: the pacer watches the display with them, through the
/// application's own present ids (a swapchain gets present wait2 where its surface supports it,
/// as in either door, `vkpace_core::choose_paths`).
fn app_own(app: &[&CStr], chain: &ChainSeen, m1: Option<Maintenance1Names>) -> Support {
    let mut own = Support::default();
    own.maintenance1 = m1.filter(|_| chain.maintenance1_on);
    own.present_wait = [ash::khr::present_id::NAME, ash::khr::present_wait::NAME]
        .iter()
        .all(|n| app.contains(n))
        && chain.present_id_on
        && chain.present_wait_on;
    own.present_wait2 = [
        vkpace_registry::KHR_PRESENT_ID_2_NAME,
        vkpace_registry::KHR_PRESENT_WAIT_2_NAME,
    ]
    .iter()
    .all(|n| app.contains(n))
        && chain.present_id2_on
        && chain.present_wait2_on;
    own
}

/// What the device offers the pacer and the application did not enable or chain itself:
/// present timing (with present id2 and calibrated timestamps), present wait (with present id:
/// exact display times, to which the CPU limiter's grid holds on a surface without present
/// timing) and swapchain maintenance1 (present fences, which prove a destroyed swapchain idle
/// without a submission on the application's queue). The application's own swapchain
/// maintenance1, present wait and present wait2 are used as they are ([`app_own`]).
///
/// # Safety
/// `instance` holds the next layer's instance commands; `physical` is one of its devices.
pub(crate) unsafe fn device_adds(
    entry: &ash::Entry,
    instance: &ash::Instance,
    physical: vk::PhysicalDevice,
    ci: &vk::DeviceCreateInfo<'_>,
    inst: InstanceSupport,
) -> DeviceAdds {
    // Both need VK_KHR_swapchain (VUID-vkCreateDevice-ppEnabledExtensionNames-01387): only for
    // a device that presents.
    // SAFETY: a valid create info.
    let app = unsafe { names(ci.pp_enabled_extension_names, ci.enabled_extension_count) };
    if !app.contains(&ash::khr::swapchain::NAME) {
        return DeviceAdds::default();
    }
    // SAFETY: a valid chain.
    let chain = unsafe { ChainSeen::of(ci.p_next) };
    // An instance the layer added nothing to (Vulkan 1.0 without properties2, or no surface
    // extension) is not asked about the device: its queries would use commands of extensions
    // the instance did not enable.
    let asked = (inst != InstanceSupport::default())
        // SAFETY: the caller's contract.
        .then(|| unsafe { offered(entry, instance, physical, ci, inst) })
        .flatten();
    decide(&app, &chain, asked)
}

/// [`device_adds`]'s decision, from the application's extensions `app` and `chain`, and what
/// the device offers (`None`: not asked, nothing is added).
fn decide(app: &[&CStr], chain: &ChainSeen, offered: Option<Support>) -> DeviceAdds {
    let app_m1 = [Maintenance1Names::Khr, Maintenance1Names::Ext]
        .into_iter()
        .find(|n| app.contains(&n.device_extension()));
    let own = app_own(app, chain, app_m1);
    let Some(mut adds) = offered else {
        return DeviceAdds {
            own,
            uses: own,
            ..DeviceAdds::default()
        };
    };
    // Present timing names presents by VkPresentId2KHR ids and so needs presentId2: the
    // application's own id2 structure serves where that is on (the layer chains no second,
    // VUID-VkDeviceCreateInfo-sType-unique); one with it off is the application's, const.
    if chain.timing || (chain.present_id2 && !chain.present_id2_on) {
        adds.present_timing = None;
    }
    // The application's own present ids or present wait (with both, the layer steps aside):
    // its structures stay its own, and none is added twice (VUID-VkDeviceCreateInfo-sType-unique).
    let app_ids = [ash::khr::present_id::NAME, ash::khr::present_wait::NAME];
    if chain.present_id || app_ids.iter().any(|n| app.contains(n)) {
        adds.present_wait = false;
    }
    if app_m1.is_some() || chain.maintenance1 {
        adds.maintenance1 = None;
    }
    let mut uses = adds;
    uses.maintenance1 = adds.maintenance1.or(own.maintenance1);
    uses.present_wait |= own.present_wait;
    uses.present_wait2 |= own.present_wait2;
    DeviceAdds {
        adds,
        uses,
        own,
        id2_chained: chain.present_id2,
    }
}

/// What the device offers of present timing, present wait (`VK_KHR_present_id` and
/// `VK_KHR_present_wait`: exact display times for the CPU limiter's grid where a surface has no
/// present timing) and swapchain maintenance1; nothing else (no present wait2, no GPU
/// timestamps).
///
/// # Safety
/// As [`device_adds`].
unsafe fn offered(
    entry: &ash::Entry,
    instance: &ash::Instance,
    physical: vk::PhysicalDevice,
    ci: &vk::DeviceCreateInfo<'_>,
    inst: InstanceSupport,
) -> Option<Support> {
    // SAFETY: a valid create info has its queue infos.
    let family = unsafe { ci.p_queue_create_infos.as_ref() }?.queue_family_index;
    // SAFETY: the caller's contract.
    let mut support = unsafe { Support::query(entry, instance, physical, family, &inst) }.ok()?;
    support.gpu_timestamps = false;
    support.present_wait2 = false;
    Some(support)
}

/// Creates the device through `create` with what `adds` adds, and again as the application
/// asked if the next layer refuses that; returns the result and what the pacer uses.
///
/// # Safety
/// As [`create_instance`], for `vkCreateDevice`.
pub(crate) unsafe fn create_device(
    ci: &vk::DeviceCreateInfo<'_>,
    adds: DeviceAdds,
    mut create: impl FnMut(&vk::DeviceCreateInfo<'_>) -> vk::Result,
) -> (vk::Result, Support) {
    let extra = adds.adds.device_extensions();
    if extra.is_empty() {
        return (create(ci), adds.own);
    }
    // SAFETY: the application's create info is valid.
    let app = unsafe { names(ci.pp_enabled_extension_names, ci.enabled_extension_count) };
    let list = with_names(&app, &extra).unwrap_or_else(|| app.iter().map(|n| n.as_ptr()).collect());
    // SAFETY: this layer's link was taken from `ci` (the caller's contract).
    let mark = unsafe { vkpace_layer_plumbing::LinkMark::device(ci) };
    let mut features = match adds.id2_chained {
        true => adds.adds.features().present_id2_chained(),
        false => adds.adds.features(),
    };
    let mut ours = *ci;
    ours.enabled_extension_count = list.len() as u32;
    ours.pp_enabled_extension_names = list.as_ptr();
    let ours = features.chain(ours);
    let result = create(&ours);
    let refused = [
        vk::Result::ERROR_EXTENSION_NOT_PRESENT,
        vk::Result::ERROR_FEATURE_NOT_PRESENT,
    ];
    if !refused.contains(&result) {
        // Success, or an error of the application's own request.
        if result == vk::Result::SUCCESS {
            // What the layer added: the application's own names (its present id2, which present
            // timing needs too) are not the layer's.
            let added: Vec<_> = extra.iter().filter(|e| !app.contains(e)).collect();
            crate::log(format_args!(
                "vkCreateDevice: enabled below the application: {added:?}"
            ));
        }
        return (result, adds.uses);
    }
    crate::log(format_args!(
        "vkCreateDevice refused {extra:?} ({result:?}): made as the application asked"
    ));
    if let Some(mark) = mark {
        // SAFETY: the same call, before calling down again.
        unsafe { mark.restore() };
    }
    (create(ci), adds.own)
}

#[cfg(test)]
mod tests;
