//! The Khronos validation layer (with synchronization validation) above vdisplay: correct
//! loops produce no message at all; a loop that destroys a per-frame buffer while its frame is
//! still pending is caught; and validation really sits above the layer (it checks the
//! application against vdisplay's surface capabilities).

// Helpers of the tests: a failed call is a failed test.
#![allow(clippy::unwrap_used, clippy::expect_used, clippy::panic)]

mod common;

use ash::vk;
use common::context::{Options, Vk};
use common::textbook::{self, LoopDesc};
use common::{env, swap};

fn run_mode(vk: &Vk, mode: vk::PresentModeKHR, d: &LoopDesc) -> textbook::LoopStats {
    let sc = swap::create(
        vk,
        &swap::SwapDesc {
            mode,
            image_count: 3,
            ..Default::default()
        },
    )
    .unwrap();
    let stats = textbook::run(vk, &sc, d);
    swap::destroy(vk, &sc);
    stats
}

/// Every present mode, with a GPU load that makes frames overlap, present ids, and
/// maintenance1 present fences: zero validation messages.
#[test]
fn correct_loops_have_no_validation_messages() {
    env::run(|| {
        let vk = Vk::new(&Options::default());
        let iterations = textbook::calibrate_iterations(&vk, 12.0);
        let modes = [
            vk::PresentModeKHR::FIFO,
            vk::PresentModeKHR::FIFO_RELAXED,
            vk::PresentModeKHR::MAILBOX,
            vk::PresentModeKHR::IMMEDIATE,
        ];
        let mut overlapped = 0;
        let mut frames = 0;
        for mode in modes {
            let stats = run_mode(
                &vk,
                mode,
                &LoopDesc {
                    frames: 40,
                    load_iterations: iterations,
                    ..Default::default()
                },
            );
            overlapped += stats.pending.iter().filter(|p| **p > 1).count();
            frames += stats.pending.len();
            assert!(
                stats.results.iter().all(|r| *r == vk::Result::SUCCESS),
                "{mode:?}: {:?}",
                stats.results
            );
        }
        let fences = LoopDesc {
            frames: 40,
            load_iterations: iterations,
            present_fences: true,
            ..Default::default()
        };
        run_mode(&vk, vk::PresentModeKHR::FIFO, &fences);
        let msgs = vk.all_messages();
        println!("{frames} frames over four modes, {overlapped} with more than one fence pending; {} validation messages", msgs.len());
        assert!(
            overlapped > 0,
            "no frame overlapped: the check below would not cover overlapping frames"
        );
        assert!(msgs.is_empty(), "validation messages: {msgs:#?}");
    })
}

/// The WRONG loop: a per-frame staging buffer destroyed right after its frame was submitted and
/// presented, while the frame is still pending on the GPU. Caught by the validation layer
/// (core checks: the buffer is in use by a pending command buffer), which can see it only
/// because frames really are pending with vdisplay (Mesa's WSI finishes them in present).
#[test]
fn destroying_a_pending_per_frame_buffer_is_caught() {
    env::run(|| {
        let vk = Vk::new(&Options::default());
        // The reported calls are skipped: lavapipe would read freed memory (and crash).
        *common::context::SKIP.lock().unwrap() = vec![
            "VUID-vkDestroyBuffer-buffer-00922".into(),
            "VUID-vkFreeMemory-memory-00677".into(),
        ];
        let iterations = textbook::calibrate_iterations(&vk, 25.0);
        let stats = run_mode(
            &vk,
            vk::PresentModeKHR::FIFO,
            &LoopDesc {
                frames: 20,
                load_iterations: iterations,
                destroy_early: true,
                ..Default::default()
            },
        );
        let msgs = vk.all_messages();
        let caught: Vec<_> = msgs
            .iter()
            .filter(|m| {
                m.id.contains("VUID-vkDestroyBuffer-buffer-00922")
                    || m.id.contains("VUID-vkFreeMemory-memory-00677")
            })
            .collect();
        println!(
            "frames with >1 pending: {}/{}; messages: {}; destroy/free-in-use reports: {}",
            stats.pending.iter().filter(|p| **p > 1).count(),
            stats.pending.len(),
            msgs.len(),
            caught.len()
        );
        if let Some(m) = caught.first() {
            println!(
                "first report: {}",
                m.text.chars().take(300).collect::<String>()
            );
        }
        assert!(
            !caught.is_empty(),
            "the early destruction was not reported: {msgs:#?}"
        );
    })
}

/// The validation layer is above vdisplay: a swapchain extent other than the virtual surface's
/// current extent is reported against vdisplay's capabilities (min = max = current extent),
/// which validation could only know if its queries went down to vdisplay.
#[test]
fn validation_sits_above_vdisplay() {
    env::run(|| {
        let vk = Vk::new(&Options {
            settings: vec![("extent", "640x480".into())],
            ..Options::default()
        });
        assert_eq!(
            vk.caps().current_extent,
            vk::Extent2D {
                width: 640,
                height: 480
            }
        );
        let wrong = vk::Extent2D {
            width: 320,
            height: 200,
        };
        let sc = swap::create(
            &vk,
            &swap::SwapDesc {
                extent: Some(wrong),
                ..Default::default()
            },
        )
        .unwrap();
        swap::destroy(&vk, &sc);
        let msgs = vk.all_messages();
        assert!(
            msgs.iter().any(|m| m
                .id
                .contains("VUID-VkSwapchainCreateInfoKHR-imageExtent-01274")
                || m.id.contains("VUID-VkSwapchainCreateInfoKHR-pNext-07781")),
            "{msgs:#?}"
        );
    })
}
