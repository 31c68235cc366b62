//! Before a FIFO swapchain is retired, its display queue is drained to one frame, so a resize
//! shows the new size within a few refreshes instead of after every frame still queued on the
//! old swapchain.
//!
//! Why: on a compositor that queues presents in order across swapchains (Wayland with
//! `wp_fifo_v1`: every commit waits for the previous one's refresh, whichever swapchain its
//! buffer came from), each new swapchain starts with all its images free, so a renderer
//! recreating faster than the display shows frames runs ahead without bound: the queue of old
//! frames grows with every resize (measured on weston 16 in `docs/wayland.md`). FIFO's only
//! brake is the acquire (the presentation engine hands an image back once a newer one replaced
//! it), and once a swapchain is retired it cannot be used: no acquire from it
//! (`VUID-vkAcquireNextImageKHR-swapchain-01285`), no present wait on it
//! (`VUID-vkWaitForPresentKHR-swapchain-04997`).
//!
//! So the brake is applied just before retirement: acquire from the old swapchain until the
//! application holds all but one of its images. The presentation engine then keeps one: the
//! newest frame, on screen or about to be. (Stopping at two is not enough: a compositor hands
//! a buffer back once a newer one replaced it, which can be a refresh before the newer one is
//! on screen; `docs/wayland.md` has what weston showed.) Those acquires take a fence, not a
//! semaphore: the shell waits for it and nothing else waits on the image. The images stay
//! acquired and go with the retired swapchain: destroying it needs every use of its acquired
//! images completed (`VUID-vkDestroySwapchainKHR-swapchain-01282`), and these were never used
//! and their acquire fences were waited for. Their timeout is finite: with
//! more than `imageCount - minImageCount` images acquired, the spec does not guarantee forward
//! progress, where an unbounded wait is invalid (`VUID-vkAcquireNextImageKHR-surface-07783`).
//! The acquires together are bounded by [`DRAIN_BOUND_NS`] (or the swapchain's wait bound, if
//! lower): a display that stopped (hidden window, paused compositor) costs the recreation that
//! much, never a hang. (An image handed back has its fence waited for too, bounded by the
//! wait bound; drivers signal it once the image is free, Mesa before the acquire returns.)
//!
//! MAILBOX and IMMEDIATE need nothing: their presentation engine keeps no queue of frames.

use super::request::Request;
use super::{Awaiting, FrameMachine};
use crate::error::CoreError;
use crate::handle::Handle;

/// The most all drain acquires of one recreation may wait together: six refreshes at 60 Hz, a
/// queue of three frames at 30 Hz.
pub const DRAIN_BOUND_NS: u64 = 100_000_000;

impl<S: Handle, W: Handle, F: Handle> FrameMachine<S, W, F> {
    /// The drain request for `old`, once per recreation, where the live swapchain queues
    /// frames (FIFO or FIFO_RELAXED). An image given up but still acquired counts as taken.
    pub(super) fn drain_step(&mut self, old: Option<W>) -> Option<Request<S, W, F>> {
        if std::mem::replace(&mut self.recreation.drained, true) {
            return None;
        }
        let live = self.live.as_ref()?;
        let old = old?;
        if !live.plan.present_mode.queues_frames() {
            return None;
        }
        let acquires = self
            .stats
            .image_count
            .checked_sub(1 + self.recreation.images_held)
            .filter(|&n| n > 0)?;
        self.awaiting = Some(Awaiting::Drain);
        Some(Request::DrainDisplayQueue {
            swapchain: old,
            acquires,
            timeout_ns: DRAIN_BOUND_NS.min(self.timeout()),
        })
    }

    /// The answer to [`Request::DrainDisplayQueue`]: how many images the presentation engine
    /// handed back within the bound (fewer than asked: the display is slow or stopped, the
    /// swapchain out of date; recreation goes on either way).
    pub fn handle_display_queue_drained(&mut self, images: u32) -> Result<(), CoreError> {
        self.answer("a drain nobody asked for", |a| {
            (a == Awaiting::Drain).then_some(())
        })?;
        self.stats.images_drained_before_retire += u64::from(images);
        Ok(())
    }
}
