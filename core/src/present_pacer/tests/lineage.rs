//! A present fence of a newer swapchain of the lineage proves the older destroyed ones idle
//! (door 1's retire rule), but only for those destroyed before that present was queued.

use super::*;

/// Swapchain 1 with a fenced present (fence 1) and a failed one (no fence), then swapchain 2
/// made from it.
fn failed_then_recreated() -> Result<Driver, CoreError> {
    let mut d = Driver::with_swapchain(fenced(1), 2)?;
    d.present(1, 0, PresentOutcome::Queued)?;
    d.present(1, 1, PresentOutcome::Failed)?;
    d.m.swapchain_created(2, 2, Some(1), FIFO)?;
    Ok(d)
}

#[test]
fn a_newer_swapchains_present_fence_proves_an_older_one_with_a_failed_present_idle(
) -> Result<(), CoreError> {
    let mut d = failed_then_recreated()?;
    assert_eq!(d.m.destroy_requested(1)?, DestroyOutcome::Deferred);
    let (_, serial) = d.present(2, 0, PresentOutcome::Queued)?;
    d.complete(serial)?;
    assert!(d.destroyed_swapchains.is_empty(), "nothing proves 1 yet");
    let newer: Vec<_> =
        d.m.pending_present_fences()
            .filter(|(_, w)| *w == 2)
            .collect();
    assert_eq!(newer.len(), 1);
    assert!(d.m.present_fence_signalled(newer[0].0));
    d.drain();
    assert_eq!(
        d.destroyed_swapchains,
        vec![1],
        "1's fence 1 never signalled"
    );
    Ok(())
}

#[test]
fn a_present_fence_queued_before_the_destruction_proves_nothing() -> Result<(), CoreError> {
    let mut d = failed_then_recreated()?;
    let (_, serial) = d.present(2, 0, PresentOutcome::Queued)?;
    d.complete(serial)?;
    // The application may still present images acquired from 1 after this present to 2.
    assert_eq!(d.m.destroy_requested(1)?, DestroyOutcome::Deferred);
    let newer: Vec<_> =
        d.m.pending_present_fences()
            .filter(|(_, w)| *w == 2)
            .collect();
    assert!(d.m.present_fence_signalled(newer[0].0));
    d.drain();
    assert!(
        d.destroyed_swapchains.is_empty(),
        "queued before 1 was destroyed"
    );
    Ok(())
}
