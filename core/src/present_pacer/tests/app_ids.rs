//! The application's own present ids through the second door.

use super::*;

#[test]
fn the_applications_ids_pass_and_a_surface_without_feedback_gets_none() -> Result<(), CoreError> {
    let mut d = Driver::with_two_swapchains_and_ids(config(2))?;
    // The application's own ids: vkpace's later ones stay above them.
    assert_eq!(
        d.unrepaired_present(1, 1, Some(&[40]))?,
        0,
        "the application's ids pass as they are"
    );
    // Its present's display is awaited by its id, as vkpace's are (DXVK's ids are the display
    // feedback under DXVK).
    assert_eq!(d.m.display_query(), Some((1, 40)));
    d.m.display_answer(1, VkStatus::SUCCESS, 9)
        .map_err(|_| CoreError::NoSwapchain)?;
    assert_eq!(
        d.m.telemetry(1).last().and_then(|f| f.displayed),
        Some(std::time::Duration::from_nanos(9))
    );
    assert_eq!(d.unrepaired_present(1, 0, None)?, 41);
    // A present to a retired swapchain (an image acquired before the recreation) gets no id:
    // its presents are never waited on.
    d.m.swapchain_created(3, 2, Some(1), FIFO)?;
    assert_eq!(d.unrepaired_present(1, 0, None)?, 0);
    // A surface without display feedback: no id planned, none counted.
    d.m.set_present_ids(2, PresentIdStructure::None);
    let added = d.m.stats().present_ids_added;
    assert_eq!(d.unrepaired_present(2, 0, None)?, 0);
    assert_eq!(d.m.stats().present_ids_added, added);
    Ok(())
}
