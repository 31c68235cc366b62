use super::*;

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
    assert_eq!(
        adds,
        InstanceAdds {
            surface_capabilities2: true,
            maintenance1: None
        }
    );
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
    let adds = unsafe { device_adds(&entry, &instance, physical, &ci, InstanceAdds::default()) };
    assert!(adds.adds.device_extensions().is_empty() && adds.uses.maintenance1.is_none());
}
