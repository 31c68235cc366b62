//! An application may present an image it acquired from a swapchain after presenting to its
//! successor: a present to the successor proven processed proves only the presents queued
//! before it, never that later one.

use super::*;

/// Swapchain 1 presented, swapchain 2 made from it and presented, then an image acquired from 1
/// before the recreation presented after 2's first present, then 2's image again (its repair
/// proves 2's first present processed, not the late one); all complete.
fn presented_late() -> Result<Driver, CoreError> {
    let mut d = Driver::new(config(2))?;
    d.m.swapchain_created(1, 2, None, FIFO)?;
    let (_, a) = d.present(1, 0, PresentOutcome::Queued)?;
    d.m.swapchain_created(2, 1, Some(1), FIFO)?;
    let (_, b) = d.present(2, 0, PresentOutcome::Queued)?;
    let (_, late) = d.present(1, 1, PresentOutcome::Queued)?;
    let (_, proof) = d.present(2, 0, PresentOutcome::Queued)?;
    for s in [a, b, late, proof] {
        d.complete(s)?;
    }
    Ok(d)
}

#[test]
fn a_present_to_the_old_swapchain_after_the_proven_one_keeps_it_alive() -> Result<(), CoreError> {
    let mut d = presented_late()?;
    assert_eq!(d.m.destroy_requested(1)?, DestroyOutcome::Deferred);
    d.drain();
    assert!(
        d.destroyed_swapchains.is_empty(),
        "1's late present is not proven by 2's earlier one"
    );
    // The next present of 2's image 0 proves the present queued after the late one.
    let (_, next) = d.present(2, 0, PresentOutcome::Queued)?;
    d.complete(next)?;
    assert_eq!(d.destroyed_swapchains, vec![1]);
    Ok(())
}

#[test]
fn a_proof_recorded_before_the_destruction_covers_only_earlier_presents() -> Result<(), CoreError> {
    let mut d = presented_late()?;
    // Destroyed once the lineage's proof is recorded: it must not cover the late present.
    let (_, next) = d.present(2, 0, PresentOutcome::Queued)?;
    assert_eq!(d.m.destroy_requested(1)?, DestroyOutcome::Deferred);
    d.drain();
    assert!(d.destroyed_swapchains.is_empty(), "proof not complete yet");
    d.complete(next)?;
    assert_eq!(d.destroyed_swapchains, vec![1]);
    Ok(())
}
