//! The measurement's own noise: the textbook loop against a second copy of itself, measured
//! exactly as the textbook loop against vkpace's.

use anyhow::Result;

use super::alternating::alternate_frames;
use super::{contexts, TextbookLoop, VkpaceVariant};
use crate::driver_meter;
use crate::vulkan_context::VulkanContext;

/// The measurement's own noise: two textbook loops, each on its own device, their frames
/// interleaved as in [`super::interleaved`]. Returns the second loop's thread CPU per frame over the
/// first's, which only the machine moves (the two loops are the same code), so the spread of
/// these ratios over runs is how closely one run can judge the vkpace loop's.
pub fn textbook_against_itself(frames: u64) -> Result<f64> {
    let (first_ctx, second_ctx) = contexts(VkpaceVariant::default())?;
    let result = textbooks_on(&first_ctx, &second_ctx, frames);
    second_ctx.destroy();
    first_ctx.destroy();
    result
}

fn textbooks_on(first_ctx: &VulkanContext, second_ctx: &VulkanContext, frames: u64) -> Result<f64> {
    // SAFETY: the contexts are alive for the whole run; the copies only make calls.
    let first_fns =
        unsafe { driver_meter::hooked(&first_ctx.entry, &first_ctx.instance, &first_ctx.device) }?;
    // SAFETY: as above.
    let second_fns = unsafe {
        driver_meter::hooked(&second_ctx.entry, &second_ctx.instance, &second_ctx.device)
    }?;
    let mut first = TextbookLoop::new(first_ctx, &first_fns)?;
    let mut second = match TextbookLoop::new(second_ctx, &second_fns) {
        Ok(l) => l,
        Err(e) => {
            first.destroy()?;
            return Err(e);
        }
    };
    let outcome = alternate_frames(&mut first, &mut second, frames);
    let closed = second.destroy().and(first.destroy());
    let [a, b] = outcome?;
    closed?;
    Ok(b.cpu.as_secs_f64() / a.cpu.as_secs_f64().max(f64::MIN_POSITIVE))
}
