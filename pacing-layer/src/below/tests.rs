use super::*;
use vkpace_registry::structure_type;

#[test]
fn a_device_with_a_self_pacing_extension_is_found() {
    let list = [c"VK_KHR_swapchain".as_ptr(), c"VK_NV_low_latency2".as_ptr()];
    let ci = vk::DeviceCreateInfo::default().enabled_extension_names(&list);
    // SAFETY: a valid create info with valid names.
    assert_eq!(unsafe { self_pacing(&ci) }, Some(c"VK_NV_low_latency2"));
    let ci = vk::DeviceCreateInfo::default().enabled_extension_names(&list[..1]);
    // SAFETY: as above.
    assert_eq!(unsafe { self_pacing(&ci) }, None);
}

/// DXVK's present ids and waits track its frames; they limit nothing: the layer paces
/// beside them, and says so.
#[test]
fn present_ids_and_waits_are_no_pacing_of_the_applications() {
    let list = [
        c"VK_KHR_swapchain".as_ptr(),
        c"VK_KHR_present_id".as_ptr(),
        c"VK_KHR_present_wait".as_ptr(),
        c"VK_KHR_present_wait2".as_ptr(),
    ];
    let ci = vk::DeviceCreateInfo::default().enabled_extension_names(&list);
    // SAFETY: a valid create info with valid names.
    assert_eq!(unsafe { self_pacing(&ci) }, None);
    // SAFETY: as above.
    let feedback = unsafe { app_feedback(&ci) };
    assert_eq!(
        feedback,
        [
            c"VK_KHR_present_id",
            c"VK_KHR_present_wait",
            c"VK_KHR_present_wait2"
        ]
    );
}

#[test]
fn missing_names_are_added_once_and_none_when_all_are_there() {
    let app = [c"VK_KHR_swapchain", SURFACE_CAPABILITIES2];
    assert!(with_names(&app, &[SURFACE_CAPABILITIES2]).is_none());
    let list = with_names(&app[..1], &[SURFACE_CAPABILITIES2, SURFACE_CAPABILITIES2]);
    assert_eq!(list.map(|l| l.len()), Some(2));
}

#[test]
fn an_instance_refusing_surface_maintenance1_is_made_with_capabilities2_alone() {
    let list = [ash::khr::surface::NAME.as_ptr()];
    let app = vk::ApplicationInfo::default().api_version(vk::API_VERSION_1_1);
    let ci = vk::InstanceCreateInfo::default()
        .application_info(&app)
        .enabled_extension_names(&list);
    let mut asked: Vec<Vec<String>> = Vec::new();
    let create = |info: &vk::InstanceCreateInfo<'_>| {
        // SAFETY: the layer's list, valid for the call.
        let got = unsafe {
            names(
                info.pp_enabled_extension_names,
                info.enabled_extension_count,
            )
        };
        let got: Vec<String> = got.iter().map(|n| n.to_string_lossy().into()).collect();
        let m1 = got.iter().any(|n| n.contains("surface_maintenance1"));
        asked.push(got);
        match m1 {
            true => vk::Result::ERROR_EXTENSION_NOT_PRESENT,
            false => vk::Result::SUCCESS,
        }
    };
    // SAFETY: a valid create info; `create` reads it only.
    let (result, adds) = unsafe { create_instance(&ci, create) };
    assert_eq!(result, vk::Result::SUCCESS);
    let mut want = InstanceSupport::default();
    want.surface_capabilities2 = true;
    assert_eq!(adds, want);
    assert_eq!(asked.len(), 2, "{asked:?}");
    assert_eq!(
        asked[1],
        ["VK_KHR_surface", "VK_KHR_get_surface_capabilities2"]
    );
}

#[test]
fn the_applications_own_maintenance1_feature_is_seen_in_its_chain() {
    let mut m1 =
        vk::PhysicalDeviceSwapchainMaintenance1FeaturesEXT::default().swapchain_maintenance1(true);
    let ci = vk::DeviceCreateInfo::default().push_next(&mut m1);
    // SAFETY: a valid chain.
    let seen = unsafe { ChainSeen::of(ci.p_next) };
    assert!(seen.maintenance1 && seen.maintenance1_on && !seen.timing);
    // SAFETY: an empty chain.
    let seen = unsafe { ChainSeen::of(std::ptr::null()) };
    assert!(!seen.maintenance1 && !seen.maintenance1_on && !seen.present_id);
    // The application's present wait feature alone: the layer adds no second one.
    let mut wait = vk::PhysicalDevicePresentWaitFeaturesKHR::default().present_wait(true);
    let ci = vk::DeviceCreateInfo::default().push_next(&mut wait);
    // SAFETY: a valid chain.
    let seen = unsafe { ChainSeen::of(ci.p_next) };
    assert!(seen.present_id && seen.present_wait_on && !seen.present_id_on);
    // Both features on (DXVK's): the pacer watches with the application's present wait.
    let mut id = vk::PhysicalDevicePresentIdFeaturesKHR::default().present_id(true);
    let mut wait = vk::PhysicalDevicePresentWaitFeaturesKHR::default().present_wait(true);
    let ci = vk::DeviceCreateInfo::default()
        .push_next(&mut id)
        .push_next(&mut wait);
    // SAFETY: a valid chain.
    let seen = unsafe { ChainSeen::of(ci.p_next) };
    assert!(seen.present_id_on && seen.present_wait_on);
}

#[test]
fn a_device_of_an_instance_the_layer_added_nothing_to_is_not_asked_about() {
    unsafe extern "system" fn nothing(_: vk::Instance, _: *const c_char) -> vk::PFN_vkVoidFunction {
        None
    }
    let lookup = ash::StaticFn {
        get_instance_proc_addr: nothing,
    };
    // SAFETY: `nothing` has vkGetInstanceProcAddr's signature. Every command of these
    // tables panics if called: the test fails if the device is asked about.
    let (entry, instance) = unsafe {
        (
            ash::Entry::from_static_fn(lookup),
            ash::Instance::load_with(|_| std::ptr::null(), vk::Instance::null()),
        )
    };
    let list = [ash::khr::swapchain::NAME.as_ptr()];
    let queues = [vk::DeviceQueueCreateInfo::default()];
    let ci = vk::DeviceCreateInfo::default()
        .enabled_extension_names(&list)
        .queue_create_infos(&queues);
    let physical = vk::PhysicalDevice::null();
    // SAFETY: a valid create info; the tables are never called.
    let adds = unsafe { device_adds(&entry, &instance, physical, &ci, InstanceSupport::default()) };
    assert!(adds.adds.device_extensions().is_empty() && adds.uses.maintenance1.is_none());
}

/// What a device like vdisplay's offers the layer: present timing, present wait, maintenance1.
fn offer() -> Support {
    let mut s = Support::default();
    s.present_timing = Some((true, true));
    s.present_wait = true;
    s.maintenance1 = Some(Maintenance1Names::Ext);
    s
}

/// The structure types and extension names of a create info the layer passes down.
fn passed(info: &vk::DeviceCreateInfo<'_>) -> (Vec<vk::StructureType>, Vec<String>) {
    let mut types = Vec::new();
    let mut at = info.p_next.cast::<vk::BaseInStructure<'_>>();
    while !at.is_null() {
        // SAFETY: the layer's chain in front of the test's, alive for the call.
        let base = unsafe { &*at };
        types.push(base.s_type);
        at = base.p_next;
    }
    // SAFETY: the layer's list, valid for the call.
    let got = unsafe {
        names(
            info.pp_enabled_extension_names,
            info.enabled_extension_count,
        )
    };
    (
        types,
        got.iter().map(|n| n.to_string_lossy().into()).collect(),
    )
}

/// How many times `x` is in `list`.
fn count<T: PartialEq>(list: &[T], x: &T) -> usize {
    list.iter().filter(|&y| y == x).count()
}

const ID2: vk::StructureType = structure_type::PHYSICAL_DEVICE_PRESENT_ID_2_FEATURES_KHR;
const TIMING: vk::StructureType = structure_type::PHYSICAL_DEVICE_PRESENT_TIMING_FEATURES_EXT;

#[test]
fn the_applications_present_id2_and_wait2_features_are_seen_in_its_chain() {
    let mut id2 = vkpace_registry::PhysicalDevicePresentId2FeaturesKHR {
        present_id2: vk::TRUE,
        ..Default::default()
    };
    let mut wait2 = vkpace_registry::PhysicalDevicePresentWait2FeaturesKHR {
        present_wait2: vk::TRUE,
        ..Default::default()
    };
    let ci = vk::DeviceCreateInfo::default()
        .push_next(&mut id2)
        .push_next(&mut wait2);
    // SAFETY: a valid chain.
    let seen = unsafe { ChainSeen::of(ci.p_next) };
    assert!(seen.present_id2 && seen.present_id2_on && seen.present_wait2_on);
    assert!(!seen.timing && !seen.present_id, "{seen:?}");
    let mut id2 = vkpace_registry::PhysicalDevicePresentId2FeaturesKHR::default();
    let ci = vk::DeviceCreateInfo::default().push_next(&mut id2);
    // SAFETY: a valid chain.
    let seen = unsafe { ChainSeen::of(ci.p_next) };
    assert!(seen.present_id2 && !seen.present_id2_on && !seen.present_wait2_on);
}

/// vkd3d-proton's and newer DXVK's present id2 and wait2, both features on: the pacer watches
/// with the application's present wait2, and present timing goes on beside its ids, with the
/// application's id2 structure and name serving it (none added twice).
#[test]
fn a_v2_application_is_watched_with_its_wait2_and_gets_timing_beside_its_id2() {
    let list = [
        ash::khr::swapchain::NAME.as_ptr(),
        vkpace_registry::KHR_PRESENT_ID_2_NAME.as_ptr(),
        vkpace_registry::KHR_PRESENT_WAIT_2_NAME.as_ptr(),
    ];
    let mut id2 = vkpace_registry::PhysicalDevicePresentId2FeaturesKHR {
        present_id2: vk::TRUE,
        ..Default::default()
    };
    let mut wait2 = vkpace_registry::PhysicalDevicePresentWait2FeaturesKHR {
        present_wait2: vk::TRUE,
        ..Default::default()
    };
    let ci = vk::DeviceCreateInfo::default()
        .enabled_extension_names(&list)
        .push_next(&mut id2)
        .push_next(&mut wait2);
    // SAFETY: valid names and chain.
    let (app, chain) = unsafe { (names(list.as_ptr(), 3), ChainSeen::of(ci.p_next)) };
    let adds = decide(&app, &chain, Some(offer()));
    assert!(adds.own.present_wait2 && adds.uses.present_wait2 && !adds.own.present_wait);
    assert!(adds.adds.present_timing.is_some() && adds.id2_chained);
    assert!(adds.feedback_path().contains("present wait2"));
    let mut seen = None;
    // SAFETY: a valid create info; `create` reads it only.
    let (result, uses) = unsafe {
        create_device(&ci, adds, |info| {
            seen = Some(passed(info));
            vk::Result::SUCCESS
        })
    };
    assert_eq!(result, vk::Result::SUCCESS);
    assert!(uses.present_wait2 && uses.present_timing.is_some());
    let Some((types, names)) = seen else {
        panic!("the device was not created");
    };
    assert_eq!(
        (count(&types, &ID2), count(&types, &TIMING)),
        (1, 1),
        "{types:?}"
    );
    for n in [
        "VK_KHR_present_id2",
        "VK_KHR_present_wait2",
        "VK_EXT_present_timing",
    ] {
        assert_eq!(count(&names, &n.to_string()), 1, "{n} in {names:?}");
    }
}

/// The application's present id2 structure with `presentId2` off: present timing needs it on,
/// and the structure is the application's (const, and no second may be chained): no timing.
#[test]
fn present_id2_features_off_keep_present_timing_out() {
    let list = [
        ash::khr::swapchain::NAME.as_ptr(),
        vkpace_registry::KHR_PRESENT_ID_2_NAME.as_ptr(),
        vkpace_registry::KHR_PRESENT_WAIT_2_NAME.as_ptr(),
    ];
    let mut id2 = vkpace_registry::PhysicalDevicePresentId2FeaturesKHR::default();
    let mut wait2 = vkpace_registry::PhysicalDevicePresentWait2FeaturesKHR {
        present_wait2: vk::TRUE,
        ..Default::default()
    };
    let ci = vk::DeviceCreateInfo::default()
        .push_next(&mut id2)
        .push_next(&mut wait2);
    // SAFETY: valid names and chain.
    let (app, chain) = unsafe { (names(list.as_ptr(), 3), ChainSeen::of(ci.p_next)) };
    let adds = decide(&app, &chain, Some(offer()));
    assert!(adds.adds.present_timing.is_none() && adds.uses.present_timing.is_none());
    assert!(!adds.own.present_wait2 && !adds.uses.present_wait2);
    assert!(!adds
        .adds
        .device_extensions()
        .contains(&c"VK_EXT_present_timing"));
}

/// DXVK's present id and wait, both features on, as before: watched with its present wait,
/// no present wait added, present timing added with the layer's own id2 structure.
#[test]
fn a_v1_application_is_watched_with_its_wait_and_timing_brings_its_id2() {
    let list = [
        ash::khr::swapchain::NAME.as_ptr(),
        ash::khr::present_id::NAME.as_ptr(),
        ash::khr::present_wait::NAME.as_ptr(),
    ];
    let mut id = vk::PhysicalDevicePresentIdFeaturesKHR::default().present_id(true);
    let mut wait = vk::PhysicalDevicePresentWaitFeaturesKHR::default().present_wait(true);
    let ci = vk::DeviceCreateInfo::default()
        .enabled_extension_names(&list)
        .push_next(&mut id)
        .push_next(&mut wait);
    // SAFETY: valid names and chain.
    let (app, chain) = unsafe { (names(list.as_ptr(), 3), ChainSeen::of(ci.p_next)) };
    let adds = decide(&app, &chain, Some(offer()));
    assert!(adds.own.present_wait && adds.uses.present_wait && !adds.adds.present_wait);
    assert!(!adds.own.present_wait2 && !adds.id2_chained);
    let mut seen = None;
    // SAFETY: a valid create info; `create` reads it only.
    let (_, uses) = unsafe {
        create_device(&ci, adds, |info| {
            seen = Some(passed(info));
            vk::Result::SUCCESS
        })
    };
    assert!(uses.present_wait && uses.present_timing.is_some() && !uses.present_wait2);
    let types = seen.map(|(t, _)| t).unwrap_or_default();
    assert_eq!(
        (count(&types, &ID2), count(&types, &TIMING)),
        (1, 1),
        "{types:?}"
    );
}
