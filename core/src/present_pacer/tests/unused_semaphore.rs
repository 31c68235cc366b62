//! A repair semaphore a present chose and did not use (its repair submission failed, or the
//! present was refused before it began) goes back to the pool, unsignalled.

use super::*;

#[test]
fn a_failed_repair_submission_hands_the_semaphore_back() -> Result<(), CoreError> {
    let mut d = Driver::with_swapchain(config(2), 2)?;
    let step = d.m.before_present(&[(1, 0)], None, false)?;
    assert!(matches!(
        step,
        PresentStep::Plan(PresentPlan {
            repair: Some(RepairSemaphore::Create),
            ..
        })
    ));
    d.m.semaphore_created(50)?;
    d.m.repair_failed();
    d.m.present_returned(VkStatus::SUCCESS, &[], 0)?;
    let (s, _) = d.present(1, 1, PresentOutcome::Queued)?;
    assert_eq!(s, 50, "unsignalled, reused at once");
    Ok(())
}

/// A present refused for an image out of range gives the repair semaphore it chose back to the
/// pool: none is lost. (It was lost: taken out of the image's history, held by no one.)
#[test]
fn a_present_refused_for_its_image_keeps_its_repair_semaphore() -> Result<(), CoreError> {
    let mut d = Driver::with_two_swapchains_and_ids(config(1))?;
    for k in 0..6 {
        let (_, serial) = d.present(1, k % 2, PresentOutcome::Queued)?;
        d.complete(serial)?;
    }
    let held = d.m.semaphores_held();
    let refused = d.m.before_present(&[(1, 0), (2, 9)], None, false);
    assert!(
        matches!(refused, Err(CoreError::ImageOutOfRange { index: 9, .. })),
        "{refused:?}"
    );
    assert_eq!(
        d.m.semaphores_held(),
        held,
        "the semaphore it chose is lost"
    );
    let (s, _) = d.present(1, 0, PresentOutcome::Queued)?;
    assert!(s < d.next_semaphore, "a later present reuses one");
    Ok(())
}
