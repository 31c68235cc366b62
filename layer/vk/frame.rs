//! What an acquire hands the renderer, and the order a frame goes through: acquired
//! ([`Frame`]) → submitted ([`SubmittedFrame`]) → presented. The types make the order: only a
//! `SubmittedFrame` can be presented, and presenting consumes it.
//!
//! ```compile_fail
//! # fn f(swapchain: &mut vkpace::Swapchain, frame: vkpace::Frame) {
//! // A frame that was not submitted cannot be presented.
//! swapchain.present(frame);
//! # }
//! ```
//!
//! ```compile_fail
//! # fn f(swapchain: &mut vkpace::Swapchain, frame: vkpace::SubmittedFrame) {
//! swapchain.present(frame);
//! // Nor can a frame be used after it was presented.
//! swapchain.present(frame);
//! # }
//! ```
//!
//! ```compile_fail
//! # fn f(swapchain: &mut vkpace::Swapchain, frame: vkpace::Frame) {
//! // Nor submitted twice.
//! let a = unsafe { swapchain.submitted_by_renderer(frame, vkpace::RendererTiming::Untimed) };
//! let b = unsafe { swapchain.submitted_by_renderer(frame, vkpace::RendererTiming::Untimed) };
//! # }
//! ```

use std::time::Duration;

use ash::vk;

use vkpace_core::FrameInfo;

/// A frame acquired and not yet submitted: the image to render to and the sync objects its
/// submission must use. Submit it with [`super::Swapchain::submit`] (or declare your own
/// submission with [`super::Swapchain::submitted_by_renderer`]), then present the
/// [`SubmittedFrame`] you get.
///
/// Dropping a `Frame` keeps its image: the next acquire hands the same frame out again (same
/// image, semaphores and fence), without acquiring.
#[derive(Debug)]
#[must_use = "submit the frame, or drop it to get the same image at the next acquire"]
pub struct Frame {
    pub(crate) info: FrameInfo<vk::Semaphore, vk::SwapchainKHR, vk::Fence>,
    pub(crate) image: vk::Image,
    pub(crate) view: vk::ImageView,
    /// The swapchain's timeline semaphore (timeline backend), else null.
    pub(crate) timeline: vk::Semaphore,
    /// vkpace's GPU timestamp command buffers of the frame's slot (with GPU timestamps).
    pub(crate) timing: Option<(vk::CommandBuffer, vk::CommandBuffer)>,
    pub(crate) owner: u64,
}

impl Frame {
    /// Index of the acquired image in the swapchain.
    #[must_use]
    pub fn image_index(&self) -> u32 {
        self.info.image
    }

    /// The image. Leave it in `PRESENT_SRC_KHR` layout.
    #[must_use]
    pub fn image(&self) -> vk::Image {
        self.image
    }

    /// A 2D color view of the image, made by vkpace. It lives as long as its swapchain: after a
    /// recreation vkpace destroys the retired swapchain, and its views with it, in the
    /// [`super::Swapchain::acquire`] or [`super::Swapchain::present`] call that sees it provably
    /// idle (a present to a newer swapchain processed, or with maintenance1 its present fences
    /// signalled), usually one to three frames later, and every submission that used a view
    /// has completed by then. Objects of yours that name it (framebuffers, descriptor sets) are
    /// rebuilt when [`Self::swapchain_changed`] says so; destroy the old ones once
    /// a token taken after their last use is reached ([`crate::DeferredRelease`] with
    /// [`super::Swapchain::last_submitted`]), or once every slot that used them is handed out
    /// again. Never use one after its swapchain is gone.
    #[must_use]
    pub fn image_view(&self) -> vk::ImageView {
        self.view
    }

    /// The image's extent.
    pub fn extent(&self) -> vk::Extent2D {
        vk::Extent2D {
            width: self.info.extent.width,
            height: self.info.extent.height,
        }
    }

    /// The image's format and color space.
    pub fn surface_format(&self) -> vk::SurfaceFormatKHR {
        vk::SurfaceFormatKHR {
            format: vk::Format::from_raw(self.info.format.format),
            color_space: vk::ColorSpaceKHR::from_raw(self.info.format.color_space),
        }
    }

    /// The image's format.
    #[must_use]
    pub fn format(&self) -> vk::Format {
        vk::Format::from_raw(self.info.format.format)
    }

    /// Signalled by the acquire: the first submission that writes the image waits on it, at
    /// the stage that first writes the image.
    #[must_use]
    pub fn acquire_semaphore(&self) -> vk::Semaphore {
        self.info.acquire_semaphore
    }

    /// The frame's last submission signals it; the present waits on it.
    #[must_use]
    pub fn present_semaphore(&self) -> vk::Semaphore {
        self.info.present_semaphore
    }

    /// The frame's last submission signals it; vkpace paces on it. Null with the timeline
    /// backend ([`crate::vk::CompletionBackend::TimelineSemaphore`]): the frame signals
    /// [`Self::timeline_signal`] instead.
    #[must_use]
    pub fn fence(&self) -> vk::Fence {
        self.info.signal.fence().unwrap_or_default()
    }

    /// Timeline backend: the frame's last submission signals this timeline semaphore to this
    /// value (`VkTimelineSemaphoreSubmitInfo`, or `VkSemaphoreSubmitInfo::value`); vkpace
    /// paces on it. `None` with the fence backend. The semaphore is vkpace's and dies with the
    /// swapchain: a wait on it the renderer submits itself (on another queue) must have
    /// completed before the swapchain is destroyed.
    #[must_use]
    pub fn timeline_signal(&self) -> Option<(vk::Semaphore, u64)> {
        let value = self.info.signal.timeline_value()?;
        Some((self.timeline, value))
    }

    /// With [`crate::vk::SwapchainConfig::gpu_timestamps`]: vkpace's two command buffers that
    /// write the frame's GPU start and end, for a renderer that submits the frame itself. Put
    /// the first before all of the frame's work and the second after it, in submissions on
    /// vkpace's queue, then declare the frame with
    /// [`crate::vk::Swapchain::submitted_by_renderer`] and [`crate::vk::RendererTiming::Timed`].
    /// They are recorded already; do not record or reset them.
    #[must_use]
    pub fn timing_command_buffers(&self) -> Option<(vk::CommandBuffer, vk::CommandBuffer)> {
        self.timing
    }

    /// Per-frame resource slot in `0..`[`crate::vk::MAX_FRAMES_IN_FLIGHT`] (3): the submission
    /// that last used the slot has completed, so resources indexed by it are free.
    ///
    /// How it is chosen: at each acquire, the lowest slot whose last submission is complete
    /// (not a rotation by frame number), so it stays right when frames in flight change at run
    /// time. With one frame in flight it is always 0; with N it takes up to N values, and
    /// a slot a frame in flight still uses is never handed out.
    ///
    /// **Anything written each frame needs one copy per slot once frames in flight exceed 1**:
    /// command buffers, uniform and storage buffers the CPU writes, a depth image or any
    /// attachment the frame writes. With a single copy two overlapping frames write it at once.
    /// Keep `MAX_FRAMES_IN_FLIGHT` copies and index by this.
    ///
    /// What reports a single copy, and what does not:
    /// - CPU writes (a mapped uniform buffer rewritten while an earlier frame's GPU work still
    ///   reads it): nothing. The validation layer does not track host access to mapped memory.
    /// - GPU writes from two frames with no barrier between them: synchronization validation
    ///   of the 1.4.363 validation layer (Debian sid) reports them at `vkQueueSubmit`
    ///   (`SYNC-HAZARD-WRITE-AFTER-WRITE`); the 1.3.239 one (Debian bookworm) reported nothing
    ///   for the same overlapping frames. (A barrier whose first scope covers the earlier frame's writes,
    ///   such as a layout transition from `COLOR_ATTACHMENT_OUTPUT`, orders them: no race, no
    ///   report, and no overlap either.)
    /// - Frames must overlap to show either: on a driver whose presentation waits for the
    ///   rendering (Mesa's software WSI, lavapipe) they never do, and this slot stays 0. Over
    ///   vkpace's virtual display layer they do (vdisplay, `--virtual-display` in the demo;
    ///   `tests/vulkan/examples.rs` requires more than one slot in use there), and its read-back
    ///   (`readback_dir`: each shown image's exact pixels as PNG) is where a frame that drew
    ///   another frame's data can be seen.
    /// - Destroying or freeing a per-frame object while its frame is pending is another error,
    ///   which validation does report (`VUID-vkDestroyBuffer-buffer-00922`).
    ///
    /// ```
    /// # use ash::vk;
    /// struct PerSlot { commands: vk::CommandBuffer, depth: vk::ImageView }
    /// fn pick<'a>(
    ///     slots: &'a [PerSlot; vkpace::MAX_FRAMES_IN_FLIGHT],
    ///     frame: &vkpace::Frame,
    /// ) -> &'a PerSlot {
    ///     &slots[frame.slot()]
    /// }
    /// ```
    #[must_use]
    pub fn slot(&self) -> usize {
        self.info.slot
    }

    /// Time this acquire spent blocked (pacing wait, policy sleep, `vkAcquireNextImageKHR`).
    #[must_use]
    pub fn cpu_wait(&self) -> Duration {
        Duration::from_nanos(self.info.cpu_wait_ns)
    }

    /// Swapchain generation the image belongs to (1 for the first swapchain).
    #[must_use]
    pub fn generation(&self) -> u64 {
        self.info.generation
    }

    /// Whether the swapchain changed since the last frame submitted (true for the first frame,
    /// and again for a frame handed out again after being dropped unsubmitted, so a renderer
    /// that skipped the dropped frame still sees the change): new images and views, so rebuild
    /// per-image objects (framebuffers, descriptor
    /// sets naming the views). [`Self::extent_changed`] and [`Self::format_changed`] say whether
    /// size-dependent objects (depth images) and format-dependent ones (render passes,
    /// pipelines) must follow. [`super::Swapchain::images`] lists the new images and views.
    ///
    /// ```
    /// # fn f(frame: &vkpace::Frame) {
    /// if frame.swapchain_changed() {
    ///     // retire the framebuffers (see `image_view` for when), make new ones lazily
    ///     if frame.extent_changed() { /* and the depth images */ }
    ///     if frame.format_changed() { /* and the render pass and pipelines */ }
    /// }
    /// # }
    /// ```
    #[must_use]
    pub fn swapchain_changed(&self) -> bool {
        self.info.swapchain_changed
    }

    /// Whether the extent differs from the last submitted frame's (true for the first frame).
    #[must_use]
    pub fn extent_changed(&self) -> bool {
        self.info.extent_changed
    }

    /// Whether the format or color space differs from the last submitted frame's (true for the
    /// first frame). vkpace keeps the format across recreation while the surface offers it.
    #[must_use]
    pub fn format_changed(&self) -> bool {
        self.info.format_changed
    }

    /// The frame's number (0, 1, 2, ... in the order frames begin), as in the telemetry.
    #[must_use]
    pub fn number(&self) -> u64 {
        self.info.number
    }
}

/// A frame whose submission vkpace knows about: present it with
/// [`super::Swapchain::present`]. A `SubmittedFrame` dropped without presenting is presented by
/// vkpace at the next acquire (its image was rendered; presenting is how it goes back).
#[derive(Debug)]
#[must_use = "present the frame (vkpace presents a dropped one at the next acquire)"]
pub struct SubmittedFrame {
    pub(crate) number: u64,
    pub(crate) owner: u64,
    pub(crate) token: vkpace_core::SyncToken,
}

impl SubmittedFrame {
    /// The frame's number.
    #[must_use]
    pub fn number(&self) -> u64 {
        self.number
    }
}

/// The result of [`super::Swapchain::acquire`].
#[derive(Debug)]
#[must_use]
#[non_exhaustive]
pub enum Acquired {
    /// Render this frame, submit it, then present it.
    Frame(Frame),
    /// Nothing to render now: the surface has zero extent (minimized). No image was acquired and
    /// nothing waits; acquire again when the window changes.
    ZeroExtent,
    /// Nothing to render now: the presentation engine gave back no image within
    /// [`super::PacingConfig::wait_timeout`] (a hidden or occluded window, a compositor that
    /// stopped repainting); the acquire blocked that long. No image was acquired and nothing
    /// waits; skip the frame, handle window events, and acquire again. Not an error:
    /// `Error::Timeout` stays for waits on the GPU.
    NotReady,
}

/// What presenting reported.
#[derive(Copy, Clone, Debug, PartialEq, Eq)]
#[non_exhaustive]
pub enum Presented {
    /// Queued, swapchain up to date.
    Queued,
    /// Queued, but the swapchain no longer matches the surface (`SUBOPTIMAL` or `OUT_OF_DATE`):
    /// it is recreated at the next acquire.
    Recreating,
}
