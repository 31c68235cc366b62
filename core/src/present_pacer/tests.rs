//! The machine driven directly, with plain integers for handles.

use super::*;
use crate::display::PresentIdStructure;
use crate::pacing::{FrameLimit, PacingPolicy};
use crate::vk_values::{PresentMode, VkStatus};

mod app_ids;
mod fallback;
mod late_old_present;
mod lineage;
mod low_latency;
mod mid_present;
mod not_added;
mod present_codes;
mod ready_watch;
mod timing;
mod unused_semaphore;

type M = PacerMachine<u32, u64>;

/// Drives a machine like the shell does, creating semaphores 100, 101, ...
struct Driver {
    m: M,
    next_semaphore: u32,
    destroyed_swapchains: Vec<u64>,
    destroyed_semaphores: Vec<u32>,
}

impl Driver {
    fn new(config: PacerConfig) -> Result<Self, CoreError> {
        Ok(Self {
            m: PacerMachine::new(config)?,
            next_semaphore: 100,
            destroyed_swapchains: vec![],
            destroyed_semaphores: vec![],
        })
    }

    /// A driver whose machine has swapchain 1, paced, with `images` images.
    fn with_swapchain(config: PacerConfig, images: u32) -> Result<Self, CoreError> {
        let mut d = Self::new(config)?;
        d.m.swapchain_created(1, images, None, FIFO)?;
        Ok(d)
    }

    /// A driver with two independent paced swapchains of two images, 1 and 2, and present ids
    /// on (`config`'s other settings kept).
    fn with_two_swapchains_and_ids(config: PacerConfig) -> Result<Self, CoreError> {
        let mut d = Self::with_swapchain(
            PacerConfig {
                present_ids: true,
                ..config
            },
            2,
        )?;
        d.m.swapchain_created(2, 2, None, FIFO)?;
        Ok(d)
    }

    /// Swapchain 1 (two images, two frames in flight) presented once, then retired into 2.
    fn retired_after_a_present() -> Result<Self, CoreError> {
        let mut d = Self::with_swapchain(config(2), 2)?;
        d.present(1, 0, PresentOutcome::Queued)?;
        d.retire_into_successor()?;
        Ok(d)
    }

    /// Swapchain 2 made from 1 (two images), then 1 destroyed: deferred, nothing proves it idle
    /// yet.
    fn retire_into_successor(&mut self) -> Result<(), CoreError> {
        self.m.swapchain_created(2, 2, Some(1), FIFO)?;
        assert_eq!(self.m.destroy_requested(1)?, DestroyOutcome::Deferred);
        Ok(())
    }

    fn drain(&mut self) {
        while let Some(a) = self.m.poll_action() {
            match a {
                DestroyAction::DestroySwapchain(w) => self.destroyed_swapchains.push(w),
                DestroyAction::DestroySemaphore(s) => self.destroyed_semaphores.push(s),
            }
        }
    }

    /// One present of `image` of `w`: returns the repair semaphore and serial.
    fn present(
        &mut self,
        w: u64,
        image: u32,
        outcome: PresentOutcome,
    ) -> Result<(u32, Serial), CoreError> {
        let plan = match self.m.before_present(&[(w, image)], None, false)? {
            PresentStep::Plan(p) => p,
            PresentStep::WaitFor(s) => panic!("unexpected wait for {s}"),
        };
        let s = match plan.repair {
            Some(RepairSemaphore::Reuse(s)) => s,
            Some(RepairSemaphore::Create) => {
                let s = self.next_semaphore;
                self.next_semaphore += 1;
                self.m.semaphore_created(s)?;
                s
            }
            None => panic!("repair is on"),
        };
        let serial = self.m.repair_submitted(0)?;
        // The driver's code for each outcome (a stale present as SUBOPTIMAL, still awaited).
        let status = match outcome {
            PresentOutcome::Queued => VkStatus::SUCCESS,
            PresentOutcome::QueuedStale => VkStatus::SUBOPTIMAL,
            PresentOutcome::Failed => VkStatus::DEVICE_LOST,
        };
        self.m.present_returned(status, &[], 0)?;
        self.drain();
        Ok((s, serial))
    }

    fn complete(&mut self, serial: Serial) -> Result<(), CoreError> {
        self.m.serial_completed(serial, 0)?;
        self.drain();
        Ok(())
    }

    /// Carries out the bounded waits, completing each serial at once; returns the waits seen.
    /// A present fence signals when `fences_signal`, else it is given up for the next wait
    /// (as on drivers whose retired swapchains' present fences never signal).
    fn carry_out_waits(&mut self, fences_signal: bool) -> Result<Vec<BoundedWait>, CoreError> {
        let mut seen = vec![];
        for _ in 0..16 {
            let Some(wait) = self.m.bounded_wait() else {
                break;
            };
            seen.push(wait);
            match wait {
                BoundedWait::PresentFence(id) if fences_signal => {
                    assert!(self.m.present_fence_signalled(id));
                }
                BoundedWait::PresentFence(_) => {
                    if !self.m.bounded_wait_timed_out(wait) {
                        break;
                    }
                }
                BoundedWait::SubmitProof => {
                    let s = self.m.proof_submitted()?;
                    self.m.serial_completed(s, 0)?;
                }
                BoundedWait::Serial(s) => self.m.serial_completed(s, 0)?,
                BoundedWait::PresentInFlight => break,
            }
        }
        self.drain();
        Ok(seen)
    }

    /// [`Self::carry_out_waits`] with every present fence signalling: the waits end.
    fn bounded_waits(&mut self) -> Result<(), CoreError> {
        self.carry_out_waits(true)?;
        assert_eq!(self.m.bounded_wait(), None, "bounded waits end");
        Ok(())
    }

    /// A present of `image` of `w` (with the application's `ids`) whose repair submission
    /// failed: returns the present id vkpace planned for `w` (0: none).
    fn unrepaired_present(
        &mut self,
        w: u64,
        image: u32,
        ids: Option<&[u64]>,
    ) -> Result<u64, CoreError> {
        let _ = self.m.before_present(&[(w, image)], ids, false)?;
        let id = self.m.plan_target(w, None, 0).id;
        self.m.repair_failed();
        self.m.present_returned(VkStatus::SUCCESS, &[], 0)?;
        Ok(id)
    }
}

const FIFO: PresentMode = PresentMode::FIFO;
const MAILBOX: PresentMode = PresentMode::MAILBOX;

/// FIFO where `fifo`, else MAILBOX (a mode that queues no frames).
fn mode(fifo: bool) -> PresentMode {
    match fifo {
        true => FIFO,
        false => MAILBOX,
    }
}

fn config(frames_in_flight: usize) -> PacerConfig {
    let mut c = PacerConfig::default();
    c.pacing.frames_in_flight = frames_in_flight;
    c
}

/// [`config`] with a present fence added to every present (maintenance1).
fn fenced(frames_in_flight: usize) -> PacerConfig {
    PacerConfig {
        present_fences: true,
        ..config(frames_in_flight)
    }
}

#[test]
fn the_repair_of_the_same_present_is_no_proof_of_its_semaphore() -> Result<(), CoreError> {
    let mut d = Driver::with_swapchain(config(2), 3)?;
    let (s1, serial1) = d.present(1, 0, PresentOutcome::Queued)?;
    d.complete(serial1)?;
    // The first present's repair completed, but nothing acquired image 0 again since: the
    // engine may still be waiting on s1.
    let (s2, _) = d.present(1, 0, PresentOutcome::Queued)?;
    assert_ne!(
        s2, s1,
        "s1 is reused before any later present of image 0 completed"
    );
    Ok(())
}

#[test]
fn the_repair_of_a_later_present_of_the_image_frees_its_semaphore() -> Result<(), CoreError> {
    let mut d = Driver::with_swapchain(config(2), 3)?;
    let (s1, _) = d.present(1, 0, PresentOutcome::Queued)?;
    let (_, serial2) = d.present(1, 0, PresentOutcome::Queued)?;
    // Another image's repair proves nothing of image 0.
    let (_, serial3) = d.present(1, 1, PresentOutcome::Queued)?;
    d.complete(Serial(serial2.0 - 1))?;
    let (s4, _) = d.present(1, 0, PresentOutcome::Queued)?;
    assert_ne!(s4, s1, "proof of image 0's first present is incomplete");
    d.complete(serial3)?;
    let (s5, _) = d.present(1, 0, PresentOutcome::Queued)?;
    assert_eq!(s5, s1, "the second present's repair completed: s1 is free");
    Ok(())
}

#[test]
fn the_gate_holds_a_frame_until_the_repair_n_back_completes() -> Result<(), CoreError> {
    let mut d = Driver::with_swapchain(config(1), 2)?;
    assert_eq!(d.m.begin_frame(1, 0)?, Gate::Go);
    let (_, serial1) = d.present(1, 0, PresentOutcome::Queued)?;
    assert_eq!(d.m.begin_frame(1, 1)?, Gate::WaitFor(serial1));
    assert_eq!(d.m.begin_frame(1, 2)?, Gate::WaitFor(serial1));
    d.complete(serial1)?;
    assert_eq!(d.m.begin_frame(1, 3)?, Gate::Go);
    assert_eq!(
        d.m.begin_frame(1, 4)?,
        Gate::Go,
        "begun: an acquire goes on"
    );
    assert_eq!(
        d.m.stats().gate_waits,
        1,
        "one frame held back, counted once"
    );
    // An unpaced swapchain is never held.
    assert_eq!(d.m.begin_frame(9, 5)?, Gate::Go);
    Ok(())
}

#[test]
fn a_frame_limit_sleeps_until_the_next_slot() -> Result<(), CoreError> {
    let limit = FrameLimit::fps(100.0)?;
    let mut c = config(2);
    c.pacing.frame_limit = Some(limit);
    let mut d = Driver::with_swapchain(c, 2)?;
    assert_eq!(d.m.begin_frame(1, 0)?, Gate::Go);
    d.present(1, 0, PresentOutcome::Queued)?;
    match d.m.begin_frame(1, 1_000_000)? {
        Gate::SleepUntil { until, .. } => {
            assert_eq!(until, 10_000_000, "the 100 fps grid's next slot")
        }
        other => panic!("expected a sleep, got {other:?}"),
    }
    assert_eq!(d.m.begin_frame(1, 10_000_000)?, Gate::Go);
    assert_eq!(d.m.stats().pacing_sleeps, 1);
    Ok(())
}

#[test]
fn steady_state_stays_within_the_history_bound() -> Result<(), CoreError> {
    let (n, images) = (2usize, 3u32);
    let mut d = Driver::with_swapchain(config(n), images)?;
    for k in 0..200u64 {
        loop {
            match d.m.begin_frame(1, k)? {
                Gate::Go => break,
                Gate::WaitFor(s) => d.complete(s)?,
                Gate::SleepUntil { .. } => panic!("no limit set"),
            }
        }
        d.m.acquired(1, VkStatus::SUCCESS, (k % 3) as u32, k)?;
        d.present(1, (k % 3) as u32, PresentOutcome::Queued)?;
        assert!(d.m.deepest_history() <= n + 1, "frame {k}");
    }
    // Every image N+1 deep at most, plus the pool: nothing grows.
    let bound = images as usize * (n + 1) + 2 * (n + 1);
    assert!(d.m.stats().semaphores_created as usize <= bound);
    // What the machine counts alive is what was made and not handed back for destruction.
    let made_not_destroyed = d.m.stats().semaphores_created as usize - d.destroyed_semaphores.len();
    assert_eq!(d.m.stats().semaphores_alive, made_not_destroyed);
    Ok(())
}

#[test]
fn a_destroyed_swapchain_waits_for_a_proven_present_to_its_successor() -> Result<(), CoreError> {
    let mut d = Driver::retired_after_a_present()?;
    let (_, a) = d.present(2, 0, PresentOutcome::Queued)?;
    d.complete(a)?;
    assert!(
        d.destroyed_swapchains.is_empty(),
        "no present to 2 proven yet"
    );
    // A later present of image 0 of swapchain 2: its repair proves the first one processed.
    let (_, b) = d.present(2, 0, PresentOutcome::Queued)?;
    assert!(d.destroyed_swapchains.is_empty(), "proof not complete");
    d.complete(b)?;
    assert_eq!(d.destroyed_swapchains, vec![1]);
    assert_eq!(d.m.stats().swapchains_destroyed, 1);
    Ok(())
}

#[test]
fn a_swapchain_without_successor_is_destroyed_after_a_bounded_wait() -> Result<(), CoreError> {
    let mut d = Driver::with_swapchain(config(2), 2)?;
    d.present(1, 0, PresentOutcome::Queued)?;
    assert_eq!(d.m.destroy_requested(1)?, DestroyOutcome::Now);
    assert_eq!(d.m.bounded_wait(), Some(BoundedWait::SubmitProof));
    d.bounded_waits()?;
    assert_eq!(d.destroyed_swapchains, vec![1]);
    assert_eq!(d.m.stats().proof_submits, 1, "the proof is counted");
    assert_eq!(
        d.m.semaphores_held(),
        1,
        "its repair semaphore went to the pool"
    );
    // A never-presented swapchain needs no wait at all.
    d.m.swapchain_created(3, 2, None, FIFO)?;
    assert_eq!(d.m.destroy_requested(3)?, DestroyOutcome::Now);
    assert_eq!(d.m.bounded_wait(), None);
    d.drain();
    assert_eq!(d.destroyed_swapchains, vec![1, 3]);
    assert_eq!(d.m.destroy_requested(77)?, DestroyOutcome::Unpaced);
    Ok(())
}

#[test]
fn destroying_the_newest_swapchain_forces_its_unproven_predecessors_too() -> Result<(), CoreError> {
    let mut d = Driver::retired_after_a_present()?;
    // Presents to 2 of different images: none proves a present to 2 processed.
    let (_, a) = d.present(2, 0, PresentOutcome::Queued)?;
    let (_, b) = d.present(2, 1, PresentOutcome::Queued)?;
    d.complete(a)?;
    d.complete(b)?;
    assert!(d.destroyed_swapchains.is_empty());
    // The window closes: 2 has no successor, and nothing can prove 1 any more either.
    assert_eq!(d.m.destroy_requested(2)?, DestroyOutcome::Now);
    d.bounded_waits()?;
    d.destroyed_swapchains.sort_unstable();
    assert_eq!(d.destroyed_swapchains, vec![1, 2]);
    assert_eq!(d.m.retired_pending(), 0);
    Ok(())
}

#[test]
fn present_fences_free_semaphores_and_swapchains() -> Result<(), CoreError> {
    let mut d = Driver::with_swapchain(fenced(2), 2)?;
    let (s1, _) = d.present(1, 0, PresentOutcome::Queued)?;
    let fences: Vec<_> = d.m.pending_present_fences().collect();
    assert_eq!(fences, vec![(1, 1)]);
    assert!(d.m.present_fence_signalled(1));
    assert!(!d.m.present_fence_signalled(1), "counted once");
    let (s2, _) = d.present(1, 0, PresentOutcome::Queued)?;
    assert_eq!(s2, s1, "its present fence signalled: s1 is free");
    assert_eq!(d.m.destroy_requested(1)?, DestroyOutcome::Now);
    assert_eq!(d.m.bounded_wait(), Some(BoundedWait::PresentFence(2)));
    d.bounded_waits()?;
    assert_eq!(d.destroyed_swapchains, vec![1]);
    Ok(())
}

#[test]
fn a_failed_present_poisons_its_semaphore() -> Result<(), CoreError> {
    let mut d = Driver::with_swapchain(config(1), 1)?;
    let (s1, _) = d.present(1, 0, PresentOutcome::Failed)?;
    let (_, b) = d.present(1, 0, PresentOutcome::Queued)?;
    d.complete(b)?;
    let (s3, _) = d.present(1, 0, PresentOutcome::Queued)?;
    assert_ne!(s3, s1, "never reused");
    assert_eq!(d.destroyed_semaphores, vec![s1], "destroyed once proven");
    assert_eq!(d.m.stats().semaphores_poisoned, 1);
    Ok(())
}

#[test]
fn ids_fences_and_one_semaphore_for_a_present_to_two_swapchains() -> Result<(), CoreError> {
    let mut d = Driver::with_two_swapchains_and_ids(fenced(2))?;
    let step = d.m.before_present(&[(1, 0), (9, 4), (2, 1)], None, false)?;
    let PresentStep::Plan(plan) = step else {
        panic!("no wait expected")
    };
    assert_eq!(plan.repair, Some(RepairSemaphore::Create));
    assert_eq!(plan.present_ids, PresentIdStructure::Id2);
    assert_eq!(
        (
            d.m.plan_target(1, None, 0).id,
            d.m.plan_target(9, None, 0).id,
            d.m.plan_target(2, None, 0).id
        ),
        (1, 0, 1),
        "one id counter per lineage"
    );
    assert_eq!(
        (
            d.m.plan_target(1, None, 0).fence,
            d.m.plan_target(2, None, 0).fence
        ),
        (Some(1), Some(2))
    );
    d.m.semaphore_created(5)?;
    d.m.repair_submitted(0)?;
    d.m.present_returned(VkStatus::SUCCESS, &[], 0)?;
    assert_eq!(d.m.stats().unpaced_calls, 1);
    assert_eq!(d.m.display_query(), Some((1, 1)));
    d.m.display_answer(1, VkStatus::SUCCESS, 7)
        .map_err(|_| CoreError::NoSwapchain)?;
    assert_eq!(
        d.m.telemetry(1).last().and_then(|f| f.displayed),
        Some(std::time::Duration::from_nanos(7))
    );
    Ok(())
}

#[test]
fn teardown_destroys_every_repair_semaphore_after_its_proof() -> Result<(), CoreError> {
    let mut d = Driver::with_swapchain(config(2), 2)?;
    d.present(1, 0, PresentOutcome::Queued)?;
    d.present(1, 1, PresentOutcome::Queued)?;
    d.retire_into_successor()?;
    d.m.begin_shutdown();
    d.bounded_waits()?;
    assert!(d.m.finish_shutdown());
    d.drain();
    assert_eq!(d.destroyed_swapchains, vec![1]);
    assert_eq!(
        d.m.stats().proof_submits,
        0,
        "the teardown's proof is not counted"
    );
    let mut sems = d.destroyed_semaphores.clone();
    sems.sort_unstable();
    assert_eq!(sems, vec![100, 101]);
    Ok(())
}

#[test]
fn too_many_destroyed_swapchains_force_the_bounded_wait() -> Result<(), CoreError> {
    let mut c = config(2);
    c.pacing.max_retired_swapchains = 2;
    let mut d = Driver::with_swapchain(c, 2)?;
    for w in 2..=4u64 {
        d.present(w - 1, 0, PresentOutcome::Queued)?;
        d.m.swapchain_created(w, 2, Some(w - 1), FIFO)?;
        let outcome = d.m.destroy_requested(w - 1)?;
        let want = match w {
            4 => DestroyOutcome::Now,
            _ => DestroyOutcome::Deferred,
        };
        assert_eq!(outcome, want, "destroying {}", w - 1);
    }
    d.bounded_waits()?;
    assert_eq!(d.destroyed_swapchains, vec![1, 2, 3]);
    assert_eq!(d.m.stats().fallback_waits, 1);
    Ok(())
}
