//! The object bounds the Vulkan tests hold vkpace to, stated here from the design rule
//! (docs/design.md, *Present semaphores* and *Object bounds*) rather than imported from the code
//! under test: a change to vkpace's own bound cannot loosen a test that checks against this.

/// The most semaphores a swapchain may hold at once with `n` frames in flight, swapchains of at
/// most `images` images and at most `retired` retired swapchains waiting for proof:
///
/// - acquire semaphores are per acquire and reusable once the submission that waited on them
///   completed: one per frame in flight, one being acquired, and one for each retired swapchain
///   (and the current one) whose held image is consumed by an empty submission:
///   `n + 1 + retired + 1`;
/// - present semaphores: with the CPU at most `n` frames ahead, each image keeps a history
///   `n + 1` deep whose oldest entry is free, for the images of the current swapchain, the one
///   being made and every retired one: `(retired + 2) · images · (n + 1)`;
/// - free present semaphores kept for the next swapchain (so a resize storm does not create
///   and destroy semaphores every frame): enough for its first `n + 1` frames twice over,
///   `2 · (n + 1)`.
pub fn semaphores_allowed(n: usize, images: usize, retired: usize) -> usize {
    let history = n + 1;
    let acquire = history + retired + 1;
    let present = (retired + 2) * images * history;
    acquire + present + 2 * history
}
