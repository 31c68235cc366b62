//! Inputs that arrive while a present is between its plan and its result: a shell that makes
//! the driver's present with its lock released (the layer's one pacer per device) lets other
//! threads' calls in meanwhile. The application synchronizes the present's queue and swapchains
//! (vkQueuePresentKHR's host synchronization list), so those calls are about other swapchains.

use super::*;

/// Plans a present of `image` of `w` and its repair semaphore, leaving it in progress.
fn plan(d: &mut Driver, w: u64, image: u32) -> Result<(), CoreError> {
    let plan = match d.m.before_present(&[(w, image)], None, false)? {
        PresentStep::Plan(p) => p,
        PresentStep::WaitFor(s) => panic!("unexpected wait for {s}"),
    };
    if plan.repair == Some(RepairSemaphore::Create) {
        d.m.semaphore_created(d.next_semaphore)?;
        d.next_semaphore += 1;
    }
    Ok(())
}

/// The present in progress: its repair submitted, then its result; the repair's serial.
fn finish(d: &mut Driver) -> Result<Serial, CoreError> {
    let serial = d.m.repair_submitted(0)?;
    d.m.present_returned(VkStatus::SUCCESS, &[], 0)?;
    d.drain();
    Ok(serial)
}

#[test]
fn another_swapchain_is_destroyed_while_a_present_is_in_flight() -> Result<(), CoreError> {
    let mut d = Driver::with_two_swapchains_and_ids(config(2))?;
    let (_, first) = d.present(2, 0, PresentOutcome::Queued)?;
    plan(&mut d, 1, 0)?;
    // 2 has no successor: destroyed before the call returns, after its proof. The proof
    // submission waits until the present in flight returned (its repair may be queued
    // without a serial yet).
    assert_eq!(d.m.destroy_requested(2)?, DestroyOutcome::Now);
    assert_eq!(d.m.bounded_wait(), Some(BoundedWait::PresentInFlight));
    assert!(d.m.proof_submitted().is_err(), "no proof during a present");
    let repair = finish(&mut d)?;
    assert_eq!(d.m.bounded_wait(), Some(BoundedWait::SubmitProof));
    let proof = d.m.proof_submitted()?;
    assert!(
        proof > repair,
        "the proof numbered after the repair queued before it"
    );
    for s in [first, repair, proof] {
        d.m.serial_completed(s, 0)?;
    }
    assert_eq!(d.m.bounded_wait(), None);
    d.drain();
    assert_eq!(d.destroyed_swapchains, vec![2]);
    assert_eq!(d.m.stats().presents, 2);
    Ok(())
}

#[test]
fn a_wait_for_the_present_in_flight_that_runs_out_leaves_the_swapchain() -> Result<(), CoreError> {
    let mut d = Driver::with_two_swapchains_and_ids(config(2))?;
    d.present(2, 0, PresentOutcome::Queued)?;
    plan(&mut d, 1, 0)?;
    assert_eq!(d.m.destroy_requested(2)?, DestroyOutcome::Now);
    let wait = BoundedWait::PresentInFlight;
    assert_eq!(d.m.bounded_wait(), Some(wait));
    assert!(!d.m.bounded_wait_timed_out(wait), "the call returns");
    finish(&mut d)?;
    assert!(d.destroyed_swapchains.is_empty(), "kept until proven idle");
    assert_eq!(d.m.retired_pending(), 1);
    Ok(())
}

#[test]
fn destroying_a_swapchain_being_presented_is_refused() -> Result<(), CoreError> {
    let mut d = Driver::with_two_swapchains_and_ids(config(2))?;
    plan(&mut d, 1, 0)?;
    assert!(matches!(
        d.m.destroy_requested(1),
        Err(CoreError::OutOfOrder(_))
    ));
    finish(&mut d)?;
    assert_eq!(d.m.stats().presents, 1, "the present still counts");
    assert_eq!(d.m.destroy_requested(1)?, DestroyOutcome::Now);
    Ok(())
}

#[test]
fn an_older_swapchain_of_the_lineage_is_destroyed_during_a_present_to_the_newer(
) -> Result<(), CoreError> {
    let mut d = Driver::retired_after_a_present()?;
    // retired_after_a_present destroyed 1 already: make the order the other way round.
    let mut d2 = Driver::with_swapchain(config(2), 2)?;
    d2.present(1, 0, PresentOutcome::Queued)?;
    d2.m.swapchain_created(2, 2, Some(1), FIFO)?;
    plan(&mut d2, 2, 0)?;
    assert_eq!(d2.m.destroy_requested(1)?, DestroyOutcome::Deferred);
    let a = finish(&mut d2)?;
    let (_, b) = d2.present(2, 0, PresentOutcome::Queued)?;
    d2.complete(a)?;
    assert!(d2.destroyed_swapchains.is_empty(), "nothing proves 1 yet");
    d2.complete(b)?;
    assert_eq!(
        d2.destroyed_swapchains,
        vec![1],
        "the next present of the image proves the one in flight processed, and 1's before it"
    );
    // The same proof in the sequential order, for comparison.
    let (_, c) = d.present(2, 0, PresentOutcome::Queued)?;
    let (_, e) = d.present(2, 0, PresentOutcome::Queued)?;
    d.complete(c)?;
    d.complete(e)?;
    assert_eq!(d.destroyed_swapchains, vec![1]);
    Ok(())
}

#[test]
fn swapchains_are_made_acquired_and_paced_while_a_present_is_in_flight() -> Result<(), CoreError> {
    let mut d = Driver::with_swapchain(config(2), 2)?;
    d.present(1, 0, PresentOutcome::Queued)?;
    d.m.swapchain_created(2, 2, Some(1), FIFO)?;
    // An image acquired from 1 before the recreation is presented: 1 is retired, no longer
    // synchronized with 2 or with a swapchain made from 2.
    plan(&mut d, 1, 1)?;
    d.m.swapchain_created(3, 2, Some(2), FIFO)?;
    d.m.swapchain_created(4, 2, None, FIFO)?;
    assert_eq!(d.m.begin_frame(4, 0)?, Gate::Go);
    d.m.acquired(4, VkStatus::SUCCESS, 0, 0)?;
    assert_eq!(d.m.begin_frame(3, 0)?, Gate::Go);
    d.m.acquired(3, VkStatus::SUCCESS, 1, 0)?;
    // 2 was never presented: idle at once, no wait even with a present in flight.
    assert_eq!(d.m.destroy_requested(2)?, DestroyOutcome::Now);
    assert_eq!(d.m.bounded_wait(), None);
    let serial = finish(&mut d)?;
    d.complete(serial)?;
    let (_, a) = d.present(4, 0, PresentOutcome::Queued)?;
    let (_, b) = d.present(3, 1, PresentOutcome::Queued)?;
    d.complete(a)?;
    d.complete(b)?;
    d.drain();
    assert_eq!(d.destroyed_swapchains, vec![2]);
    assert_eq!(d.m.stats().presents, 4);
    assert_eq!(d.m.stats().swapchains_created, 4);
    Ok(())
}

/// A present planned, its repair submitted, and never reported (the shell's caller stopped
/// between its steps: a panic under its lock): the teardown forgets it instead of waiting for
/// it (`PresentInFlight` would hold the proof submission until the bound ran out), and its
/// repair semaphore is destroyed with the rest once the proof completed.
#[test]
fn teardown_forgets_a_present_never_reported() -> Result<(), CoreError> {
    let mut d = Driver::with_swapchain(config(2), 2)?;
    d.present(1, 0, PresentOutcome::Queued)?;
    plan(&mut d, 1, 1)?;
    d.m.repair_submitted(0)?;
    d.m.begin_shutdown();
    let waits = d.carry_out_waits(true)?;
    assert!(
        !waits.contains(&BoundedWait::PresentInFlight),
        "the teardown waited for a present nobody will report: {waits:?}"
    );
    assert!(d.m.finish_shutdown(), "everything proven idle");
    d.drain();
    let mut sems = d.destroyed_semaphores.clone();
    sems.sort_unstable();
    assert_eq!(sems, vec![100, 101], "both repair semaphores destroyed");
    Ok(())
}

/// As above with present fences: the unreported present may have been made, so the teardown
/// waits for its present fence before anything is destroyed (VUID-vkDestroyFence-fence-01120).
#[test]
fn teardown_waits_for_the_present_fence_of_a_present_never_reported() -> Result<(), CoreError> {
    let mut d = Driver::with_swapchain(fenced(2), 2)?;
    d.present(1, 0, PresentOutcome::Queued)?;
    plan(&mut d, 1, 1)?;
    let fence =
        d.m.plan_target(1, None, 0)
            .fence
            .expect("a present fence is planned");
    d.m.repair_submitted(0)?;
    d.m.begin_shutdown();
    let waits = d.carry_out_waits(true)?;
    assert!(
        waits.contains(&BoundedWait::PresentFence(fence)),
        "the unreported present's fence was not waited for: {waits:?}"
    );
    assert!(d.m.finish_shutdown(), "everything proven idle");
    Ok(())
}
