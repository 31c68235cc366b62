//! What the shell planned but did not add (a present fence it could not make), and the present
//! id a swapchain made for the other structure does not get.

use super::*;

#[test]
fn a_present_fence_not_made_is_never_waited_for() -> Result<(), CoreError> {
    let mut m = M::new(PacerConfig {
        present_fences: true,
        ..PacerConfig::default()
    })?;
    m.swapchain_created(1, 2, None, FIFO)?;
    let PresentStep::Plan(plan) = m.before_present(&[(1, 0)], None, false)? else {
        panic!("no wait expected");
    };
    assert_eq!(plan.present_fences, Some(1));
    m.semaphore_created(100)?;
    m.present_fence_not_added(1);
    assert_eq!(m.plan_target(1, None, 0).fence, None);
    let serial = m.repair_submitted(0)?;
    m.present_returned(VkStatus::SUCCESS, &[], 0)?;
    assert_eq!(m.pending_present_fences().count(), 0, "none awaited");
    assert_eq!(m.stats().present_fences_added, 0);
    // Its destruction is proven without it: the bounded wait asks for the proof submission
    // (or the repair's serial), never for present fence 1.
    assert_eq!(m.destroy_requested(1)?, DestroyOutcome::Now);
    m.serial_completed(serial, 0)?;
    while let Some(w) = m.bounded_wait() {
        assert_ne!(w, BoundedWait::PresentFence(1));
        match w {
            BoundedWait::SubmitProof => {
                let s = m.proof_submitted()?;
                m.serial_completed(s, 0)?;
            }
            BoundedWait::Serial(s) => m.serial_completed(s, 0)?,
            BoundedWait::PresentFence(_) | BoundedWait::PresentInFlight => break,
        }
    }
    let mut destroyed = vec![];
    while let Some(a) = m.poll_action() {
        if let DestroyAction::DestroySwapchain(w) = a {
            destroyed.push(w);
        }
    }
    assert_eq!(destroyed, vec![1]);
    Ok(())
}

/// One structure carries a present's ids, the first swapchain's given one
/// (VUID-VkPresentId2KHR-None-10820: a nonzero id needs the swapchain made for its structure):
/// a swapchain whose ids go in the other gets none, is not awaited, and its lineage's ids go on
/// from the same number.
#[test]
fn a_swapchain_of_the_other_id_structure_gets_no_id_and_keeps_its_number() -> Result<(), CoreError>
{
    let mut m = M::new(PacerConfig {
        present_ids: true,
        ..PacerConfig::default()
    })?;
    m.swapchain_created(1, 2, None, FIFO)?;
    m.swapchain_created(2, 2, None, FIFO)?;
    m.set_present_ids(1, PresentIdStructure::Id2);
    m.set_present_ids(2, PresentIdStructure::Id);
    let PresentStep::Plan(plan) = m.before_present(&[(1, 0), (2, 0)], None, false)? else {
        panic!("no wait expected");
    };
    assert_eq!(plan.present_ids, PresentIdStructure::Id2, "the first's");
    let (first, second) = (m.plan_target(1, None, 0).id, m.plan_target(2, None, 0).id);
    assert!(first > 0 && second == 0, "{first}, {second}");
    m.semaphore_created(100)?;
    m.repair_submitted(0)?;
    m.present_returned(VkStatus::SUCCESS, &[], 0)?;
    assert_eq!(
        m.display_query(),
        Some((1, first)),
        "only swapchain 1's id awaited"
    );
    assert_eq!(m.stats().present_ids_added, 1);
    // Alone, swapchain 2's present carries its own structure, from its lineage's first id.
    let PresentStep::Plan(plan) = m.before_present(&[(2, 1)], None, false)? else {
        panic!("no wait expected");
    };
    assert_eq!(plan.present_ids, PresentIdStructure::Id);
    assert_eq!(m.plan_target(2, None, 0).id, 1, "no id used up");
    Ok(())
}

#[test]
fn a_present_that_returned_an_error_code_is_not_awaited() -> Result<(), CoreError> {
    let mut m = M::new(PacerConfig {
        present_ids: true,
        ..PacerConfig::default()
    })?;
    m.swapchain_created(1, 2, None, FIFO)?;
    for error_code in [true, false] {
        let PresentStep::Plan(plan) = m.before_present(&[(1, 0)], None, false)? else {
            panic!("no wait expected");
        };
        if plan.repair == Some(RepairSemaphore::Create) {
            m.semaphore_created(100)?;
        }
        let serial = m.repair_submitted(0)?;
        let said = match error_code {
            true => VkStatus::OUT_OF_DATE,
            false => VkStatus::SUBOPTIMAL,
        };
        m.present_returned(said, &[], 0)?;
        m.serial_completed(serial, 0)?;
    }
    // Id 1 (out of date) is used up but never asked about; id 2 (suboptimal) is.
    assert_eq!(m.display_query(), Some((1, 2)));
    Ok(())
}
