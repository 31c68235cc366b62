//! VK_EXT_swapchain_maintenance1 / VK_KHR_swapchain_maintenance1 and the surface
//! maintenance1 queries, implemented by the layer (lavapipe's own EXT implementation is never
//! reached for virtual surfaces).

// Helpers of the tests: a failed call is a failed test.
#![allow(clippy::unwrap_used, clippy::expect_used, clippy::panic)]

mod common;

use ash::vk;
use common::context::{Options, Vk};
use common::micro::Micro;
use common::textbook::{self, LoopDesc};
use common::{env, log, swap};
use vkpace_registry as r;

/// Surface queries: the modes compatible with FIFO are FIFO and FIFO_RELAXED (the default
/// compatibility classes), and scaling capabilities are reported.
#[test]
fn surface_present_mode_compatibility_and_scaling() {
    env::run(|| {
        let vk = Vk::new(&Options::default());
        let mut modes = [vk::PresentModeKHR::default(); 8];
        let mut compat =
            vk::SurfacePresentModeCompatibilityEXT::default().present_modes(&mut modes);
        let mut scaling = vk::SurfacePresentScalingCapabilitiesEXT::default();
        let mut mode = vk::SurfacePresentModeEXT::default().present_mode(vk::PresentModeKHR::FIFO);
        let info = vk::PhysicalDeviceSurfaceInfo2KHR::default()
            .surface(vk.surface)
            .push_next(&mut mode);
        let mut caps = vk::SurfaceCapabilities2KHR::default()
            .push_next(&mut compat)
            .push_next(&mut scaling);
        // SAFETY: objects this test created and owns; the validation layer above checks the call's valid usage.
        unsafe {
            vk.surface2_fn
                .get_physical_device_surface_capabilities2(vk.pd, &info, &mut caps)
        }
        .unwrap();
        let extent = caps.surface_capabilities.current_extent;
        let n = compat.present_mode_count as usize;
        assert_eq!(
            &modes[..n],
            &[vk::PresentModeKHR::FIFO, vk::PresentModeKHR::FIFO_RELAXED]
        );
        assert!(scaling
            .supported_present_scaling
            .contains(vk::PresentScalingFlagsEXT::ONE_TO_ONE));
        assert_eq!(
            extent,
            vk::Extent2D {
                width: 1280,
                height: 720
            }
        );
        assert!(vk.all_messages().is_empty(), "{:#?}", vk.all_messages());
    })
}

/// Per-present mode switches between compatible modes without recreation, with present fences
/// (waited before each slot's reuse): the log shows both modes, validation nothing.
#[test]
fn per_present_mode_switch_with_present_fences() {
    env::run(|| {
        let path = env::scratch("m1switch").join("present.jsonl");
        let vk = Vk::new(&Options {
            settings: vec![("log", path.display().to_string())],
            ..Options::default()
        });
        let modes = vec![vk::PresentModeKHR::FIFO, vk::PresentModeKHR::FIFO_RELAXED];
        let sc = swap::create(
            &vk,
            &swap::SwapDesc {
                modes: modes.clone(),
                ..Default::default()
            },
        )
        .unwrap();
        let d = LoopDesc {
            frames: 30,
            present_fences: true,
            mode_cycle: modes,
            ..Default::default()
        };
        let stats = textbook::run(&vk, &sc, &d);
        assert!(stats.results.iter().all(|r| *r == vk::Result::SUCCESS));
        textbook::wait_shown(&vk, &sc, 30);
        swap::destroy(&vk, &sc);
        assert!(vk.all_messages().is_empty(), "{:#?}", vk.all_messages());
        drop(vk);
        let entries = log::read(&path);
        let fifo = entries.iter().filter(|e| e.mode == "FIFO").count();
        let relaxed = entries.iter().filter(|e| e.mode == "FIFO_RELAXED").count();
        assert_eq!((fifo, relaxed), (15, 15));
    })
}

/// vkReleaseSwapchainImagesEXT hands an acquired image back: with every image acquired, one
/// released image can be acquired again at once.
#[test]
fn release_returns_an_acquired_image() {
    env::run(|| {
        let vk = Vk::new(&Options::default());
        let sc = swap::create(&vk, &swap::SwapDesc::default()).unwrap();
        let mut m = Micro::new(&vk);
        let held: Vec<u32> = (0..3)
            .map(|_| m.acquire(&sc, 1_000_000_000).unwrap().0)
            .collect();
        assert_eq!(m.acquire(&sc, 0).err(), Some(vk::Result::NOT_READY));
        let idx = [held[1]];
        let info = vk::ReleaseSwapchainImagesInfoEXT::default()
            .swapchain(sc.handle)
            .image_indices(&idx);
        // SAFETY: objects this test created and owns; the validation layer above checks the call's valid usage.
        unsafe { vk.maint1_fn.release_swapchain_images(&info) }.unwrap();
        assert_eq!(m.acquire(&sc, 0).unwrap().0, held[1]);
        drop(m);
        swap::destroy(&vk, &sc);
        assert!(vk.all_messages().is_empty(), "{:#?}", vk.all_messages());
    })
}

/// VK_SWAPCHAIN_CREATE_DEFERRED_MEMORY_ALLOCATION_BIT_EXT: images get memory on first
/// acquire; the loop runs normally.
#[test]
fn deferred_memory_allocation() {
    env::run(|| {
        let vk = Vk::new(&Options::default());
        let sc = swap::create(
            &vk,
            &swap::SwapDesc {
                flags: vk::SwapchainCreateFlagsKHR::DEFERRED_MEMORY_ALLOCATION_EXT,
                ..Default::default()
            },
        )
        .unwrap();
        let stats = textbook::run(
            &vk,
            &sc,
            &LoopDesc {
                frames: 10,
                ..Default::default()
            },
        );
        assert!(stats.results.iter().all(|r| *r == vk::Result::SUCCESS));
        swap::destroy(&vk, &sc);
        assert!(vk.all_messages().is_empty(), "{:#?}", vk.all_messages());
    })
}

/// The KHR names (VK_KHR_surface_maintenance1 on the instance, VK_KHR_swapchain_maintenance1
/// on the device, which lavapipe lacks): enabled through the layer, vkReleaseSwapchainImagesKHR
/// is there and works. Validation 1.3.239 predates the KHR names: it is run here without handle
/// wrapping (it would pass its wrapped handles to a command it does not know) and the messages
/// about names and structures it does not know are filtered (exactly those ids).
#[test]
fn khr_names() {
    env::run(|| {
        let opts = Options {
            instance_exts: vec![r::KHR_SURFACE_MAINTENANCE_1_NAME],
            device_exts: vec![
                vk::KHR_PRESENT_ID_NAME,
                vk::KHR_PRESENT_WAIT_NAME,
                r::KHR_SWAPCHAIN_MAINTENANCE_1_NAME,
            ],
            unique_handles: false,
            ..Options::default()
        };
        let vk = Vk::new(&opts);
        let name = c"vkReleaseSwapchainImagesKHR";
        // SAFETY: objects this test created and owns; the validation layer above checks the call's valid usage.
        let f = unsafe {
            vk.instance
                .get_device_proc_addr(vk.device.handle(), name.as_ptr())
        }
        .expect("vkReleaseSwapchainImagesKHR");
        // SAFETY: objects this test created and owns; the validation layer above checks the call's valid usage.
        let release: r::PFN_vkReleaseSwapchainImagesKHR = unsafe { std::mem::transmute(f) };
        let sc = swap::create(&vk, &swap::SwapDesc::default()).unwrap();
        let mut m = Micro::new(&vk);
        let held: Vec<u32> = (0..3)
            .map(|_| m.acquire(&sc, 1_000_000_000).unwrap().0)
            .collect();
        let idx = [held[0]];
        let info = vk::ReleaseSwapchainImagesInfoEXT::default()
            .swapchain(sc.handle)
            .image_indices(&idx);
        assert_eq!(
            // SAFETY: objects this test created and owns; the validation layer above checks the call's valid usage.
            unsafe { release(vk.device.handle(), &info) },
            vk::Result::SUCCESS
        );
        assert_eq!(m.acquire(&sc, 0).unwrap().0, held[0]);
        drop(m);
        swap::destroy(&vk, &sc);
        let exts = [
            "VK_KHR_surface_maintenance1",
            "VK_KHR_swapchain_maintenance1",
        ];
        let (filtered, fatal): (Vec<_>, Vec<_>) = vk
            .all_messages()
            .into_iter()
            .partition(|m| common::context::too_new_for_validation(m, &exts, &[]));
        println!(
            "filtered (names validation 1.3.239 does not know): {}",
            filtered.len()
        );
        assert!(fatal.is_empty(), "{fatal:#?}");
    })
}
