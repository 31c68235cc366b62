//! What the driver's code for a present means for its repair semaphore: read by the core, the
//! same for both doors.

use super::*;

/// A present whose waits still execute (the codes after which the spec has the queue
/// operations "still considered to be enqueued", and a full timing results queue met by the
/// application's own timing) keeps its repair semaphore: not poisoned, reused once a later
/// present proves it, as after a success. After any other error the wait may never execute:
/// the semaphore is poisoned, never reused. The reading of the driver's code is door 1's
/// (`PresentOutcome::of`); the shells pass the code itself. The same code counts as out of
/// date or suboptimal or not, as in door 1.
#[test]
fn a_present_whose_waits_still_execute_keeps_its_semaphore() -> Result<(), CoreError> {
    let codes = [
        (VkStatus::SUCCESS, true, false),
        (VkStatus::SUBOPTIMAL, true, true),
        (VkStatus::OUT_OF_DATE, true, true),
        (VkStatus::SURFACE_LOST, true, false),
        (VkStatus::FULL_SCREEN_EXCLUSIVE_MODE_LOST, true, true),
        (VkStatus::PRESENT_TIMING_QUEUE_FULL, true, false),
        (VkStatus::DEVICE_LOST, false, false),
    ];
    for (said, kept, stale) in codes {
        let mut d = Driver::with_swapchain(config(1), 1)?;
        let step = d.m.before_present(&[(1, 0)], None, false)?;
        let PresentStep::Plan(plan) = step else {
            panic!("no wait expected")
        };
        assert_eq!(plan.repair, Some(RepairSemaphore::Create));
        d.m.semaphore_created(70)?;
        d.m.repair_submitted(0)?;
        d.m.present_returned(said, &[], 0)?;
        // Counted as door 1 counts it (`VkStatus::is_stale_swapchain`).
        let counted = d.m.stats().out_of_date_or_suboptimal;
        assert_eq!(
            counted,
            u64::from(stale),
            "{said:?}: out of date or suboptimal"
        );
        let (_, b) = d.present(1, 0, PresentOutcome::Queued)?;
        d.complete(b)?;
        let (s3, _) = d.present(1, 0, PresentOutcome::Queued)?;
        assert_eq!(s3 == 70, kept, "{said:?}: reused once proven");
        let poisoned = d.m.stats().semaphores_poisoned;
        assert_eq!(poisoned, u64::from(!kept), "{said:?}");
    }
    Ok(())
}
