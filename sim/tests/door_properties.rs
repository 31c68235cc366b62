//! Property tests of the second door (`PresentPacer`'s machine) against the simulated GPU,
//! presentation engine and display: an application that owns its swapchain runs the textbook
//! loop in random schedules (seeded; a failure prints its parameters), through the door's shell
//! (`vkpace_sim::pacer_driver`), and every step is judged on the world's ground truth, never on
//! the machine's own bookkeeping. `VKPACE_SCHEDULES` scales the number of schedules as for
//! `core_properties.rs`.

mod door;
mod proptest_cases;

use door::textbook::{App, Facts, Textbook};
use vkpace_sim::own_swapchain::Bare;
use vkpace_sim::world::{Faults, World};

/// The negative control: the textbook loop on the driver alone signals a present semaphore
/// again while the present that waited on it may still be queued, and the world says so
/// (the property tests' judge of the door is this world).
#[test]
fn without_the_door_the_textbook_loop_breaks_00067() {
    let p = Textbook {
        app_frames: 2,
        min_images: 2,
        steps: 20_000,
        p_resize: 0,
        p_reopen: 0,
    };
    let world = World::new(
        1,
        Faults {
            max_gpu_delay: 5,
            ..Faults::default()
        },
    );
    let mut judge = |_: &mut Bare, _: &Facts| Ok(());
    let err = App::new(Bare { world }, p, &mut judge)
        .and_then(App::run)
        .expect_err("the driver alone lets the textbook loop break a rule");
    assert!(err.contains("00067"), "{err}");
}
