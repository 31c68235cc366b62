//! Present fences that never signal (seen on drivers for retired swapchains): the bounded wait
//! gives them up for the proof by an empty submission, as door 1's fallback does.

use super::*;

/// Fenced presents, at most one destroyed swapchain waiting.
fn capped() -> PacerConfig {
    let mut c = fenced(1);
    c.pacing.max_retired_swapchains = 1;
    c
}

#[test]
fn a_closed_windows_swapchain_is_destroyed_though_its_present_fence_never_signals(
) -> Result<(), CoreError> {
    let mut d = Driver::with_swapchain(capped(), 2)?;
    d.present(1, 0, PresentOutcome::Queued)?;
    assert_eq!(d.m.destroy_requested(1)?, DestroyOutcome::Now);
    let seen = d.carry_out_waits(false)?;
    assert_eq!(
        seen,
        vec![BoundedWait::PresentFence(1), BoundedWait::SubmitProof]
    );
    assert_eq!(
        d.destroyed_swapchains,
        vec![1],
        "destroyed before the call returns"
    );
    assert_eq!(d.m.retired_pending(), 0);
    Ok(())
}

#[test]
fn the_cap_holds_though_present_fences_never_signal() -> Result<(), CoreError> {
    let mut d = Driver::with_swapchain(capped(), 2)?;
    for w in 2..=3u64 {
        d.present(w - 1, 0, PresentOutcome::Queued)?;
        d.m.swapchain_created(w, 2, Some(w - 1), FIFO)?;
        let outcome = d.m.destroy_requested(w - 1)?;
        if outcome == DestroyOutcome::Now {
            d.carry_out_waits(false)?;
        }
        assert!(
            d.m.retired_pending() <= 1,
            "cap 1 after destroying {}",
            w - 1
        );
    }
    assert_eq!(d.destroyed_swapchains, vec![1, 2]);
    Ok(())
}

#[test]
fn a_proof_that_runs_out_gives_up() -> Result<(), CoreError> {
    let mut d = Driver::with_swapchain(capped(), 2)?;
    d.present(1, 0, PresentOutcome::Queued)?;
    assert_eq!(d.m.destroy_requested(1)?, DestroyOutcome::Now);
    assert_eq!(d.m.bounded_wait(), Some(BoundedWait::PresentFence(1)));
    assert!(
        d.m.bounded_wait_timed_out(BoundedWait::PresentFence(1)),
        "the fence is given up for a proof"
    );
    assert_eq!(d.m.bounded_wait(), Some(BoundedWait::SubmitProof));
    let s = d.m.proof_submitted()?;
    assert_eq!(d.m.bounded_wait(), Some(BoundedWait::Serial(s)));
    assert!(
        !d.m.bounded_wait_timed_out(BoundedWait::Serial(s)),
        "nothing is left to try"
    );
    assert_eq!(d.m.bounded_wait(), None);
    d.m.serial_completed(s, 0)?;
    d.drain();
    assert_eq!(d.destroyed_swapchains, vec![1], "its proof completed later");
    Ok(())
}
