//! What the frame machine asks of its shell ([`Request`]) and what it hands back when an
//! operation is done.

use crate::completion::SubmitSignal;
use crate::error::Failure;
use crate::pacing::PresentTarget;
use crate::surface_plan::SwapchainPlan;
use crate::sync_token::SyncToken;
use crate::vk_values::{Extent, PresentMode, SurfaceFormat};

/// What a semaphore the machine asks for is for (the shell uses it for debug names).
#[derive(Copy, Clone, Debug, PartialEq, Eq)]
pub enum SemaphoreRole {
    /// Signalled by an acquire.
    Acquire,
    /// Signalled by a frame's last submission, waited on by its present.
    Present,
}

/// A present the shell makes (`vkQueuePresentKHR` of one image, waiting on one semaphore).
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct PresentInfo<S, W, F> {
    /// The swapchain the image was acquired from.
    pub swapchain: W,
    /// The image index.
    pub image: u32,
    /// Waited on by the present; signalled by the frame's submission.
    pub semaphore: S,
    /// maintenance1: the present fence (`VkSwapchainPresentFenceInfoEXT`).
    pub fence: Option<F>,
    /// present_wait: the present id (`VkPresentIdKHR`).
    pub present_id: Option<u64>,
    /// maintenance1: switch to this compatible mode with this present
    /// (`VkSwapchainPresentModeInfoEXT`).
    pub mode: Option<PresentMode>,
    /// Present timing: the target time and whether to ask for stage times
    /// (`VkPresentTimingInfoEXT`).
    pub timing: Option<PresentTimingRequest>,
}

/// A swapchain to create: the plan, and `oldSwapchain`.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct CreateSwapchain<W> {
    /// What to create.
    pub plan: SwapchainPlan,
    /// `oldSwapchain`: the current swapchain, unless it is retired already (a creation that
    /// passed it failed: it may not be passed again, `VUID-VkSwapchainCreateInfoKHR-oldSwapchain-01933`).
    pub old: Option<W>,
}

/// The frame an acquire hands out.
#[derive(Copy, Clone, Debug, PartialEq, Eq)]
pub struct FrameInfo<S, W, F> {
    /// Frame number (0, 1, 2, ... in the order frames begin).
    pub number: u64,
    /// The swapchain the image belongs to.
    pub swapchain: W,
    /// The image index.
    pub image: u32,
    /// Its extent.
    pub extent: Extent,
    /// Its format and color space.
    pub format: SurfaceFormat,
    /// Signalled by the acquire: the first submission that touches the image waits on it.
    pub acquire_semaphore: S,
    /// The frame's last submission signals it; the present waits on it.
    pub present_semaphore: S,
    /// The frame's last submission signals it: the frame's fence, or (timeline backend) the
    /// swapchain's timeline semaphore to this value.
    pub signal: SubmitSignal<F>,
    /// Per-frame resource slot in `0..MAX_FRAMES_IN_FLIGHT`: the last submission that used it
    /// has completed. Chosen by completion, not frame number: the lowest free slot.
    pub slot: usize,
    /// Swapchain generation (1 for the first swapchain).
    pub generation: u64,
    /// Whether the swapchain differs from the last submitted frame's (a new generation: new
    /// images; true until a frame of it is submitted, so on the first frame too).
    pub swapchain_changed: bool,
    /// Whether the extent differs from the last submitted frame's (true for the first frame).
    pub extent_changed: bool,
    /// Whether the format or color space differs from the last submitted frame's (true for the
    /// first frame).
    pub format_changed: bool,
    /// Nanoseconds the acquire spent blocked (pacing waits, sleeps, the acquire itself).
    pub cpu_wait_ns: u64,
}

/// What a present did.
#[derive(Copy, Clone, Debug, PartialEq, Eq)]
#[non_exhaustive]
pub enum PresentStatus {
    /// Queued, swapchain up to date.
    Queued,
    /// Queued, but the swapchain no longer matches the surface (`SUBOPTIMAL`, `OUT_OF_DATE`):
    /// it is recreated at the next acquire.
    Recreating,
}

/// The next thing the shell must do, from [`super::FrameMachine::poll`]. Every request that
/// names a Vulkan call is answered by the matching `handle_*` input with its result before
/// polling again; the others need no answer. Not `#[non_exhaustive]`: every shell must carry
/// out every request, so a new one should stop its build until it does.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum Request<S, W, F> {
    // ----- housekeeping: no answer ------------------------------------------------------
    /// Destroy this semaphore: no signal or wait on it is pending.
    DestroySemaphore(S),
    /// Destroy this fence: nothing pending refers to it.
    DestroyFence(F),
    /// Destroy this swapchain (and what the shell made for it, such as image views): every
    /// present to it was processed and every submission using its images completed.
    DestroySwapchain(W),
    /// Sleep until this time (nanoseconds on the machine's clock), then poll again.
    SleepUntil(u64),
    // ----- objects ----------------------------------------------------------------------
    /// Create a binary semaphore: answer [`super::FrameMachine::handle_semaphore_created`].
    CreateSemaphore(SemaphoreRole),
    /// Create an unsignalled fence: answer [`super::FrameMachine::handle_fence_created`].
    CreateFence,
    /// Query the surface: answer [`super::FrameMachine::handle_surface`].
    QuerySurface,
    /// maintenance1: the modes compatible with this one (`VkSurfacePresentModeCompatibilityEXT`):
    /// answer [`super::FrameMachine::handle_compatible_modes`].
    QueryCompatibleModes(PresentMode),
    /// Before retiring `swapchain` (FIFO): `vkAcquireNextImageKHR` from it up to `acquires`
    /// times with a fence and no semaphore, waiting for each fence, all within `timeout_ns`
    /// together; stop at the first acquire that gives no image. The images stay acquired.
    /// Answer [`super::FrameMachine::handle_display_queue_drained`] with the images taken.
    DrainDisplayQueue {
        /// The swapchain about to be retired.
        swapchain: W,
        /// The most images to take.
        acquires: u32,
        /// The bound for all of them.
        timeout_ns: u64,
    },
    /// Create a swapchain: answer [`super::FrameMachine::handle_swapchain_created`].
    CreateSwapchain(Box<CreateSwapchain<W>>),
    // ----- waiting ----------------------------------------------------------------------
    /// `vkGetFenceStatus`, then `vkResetFences` if it signalled (the machine reuses every fence
    /// it saw signalled): answer [`super::FrameMachine::handle_fence_status`].
    CheckFence(F),
    /// `vkWaitForFences` of one fence, at most `timeout_ns`, then `vkResetFences` if it
    /// signalled: answer [`super::FrameMachine::handle_fence_status`] (not signalled: timed
    /// out).
    WaitFence {
        /// The fence.
        fence: F,
        /// The bound.
        timeout_ns: u64,
    },
    /// Timeline backend: `vkGetSemaphoreCounterValue` of the swapchain's timeline: answer
    /// [`super::FrameMachine::handle_timeline_value`].
    ReadTimeline,
    /// Timeline backend: `vkWaitSemaphores` for the swapchain's timeline to reach `value`, at
    /// most `timeout_ns`, then `vkGetSemaphoreCounterValue`: answer
    /// [`super::FrameMachine::handle_timeline_value`] (a value below `value`: timed out).
    WaitTimeline {
        /// The value waited for.
        value: u64,
        /// The bound.
        timeout_ns: u64,
    },
    /// Wait, at most `timeout_ns`, until the signal of `token`'s value on a registered stream
    /// (a host timeline: the producer's `vkSignalSemaphore` of it, or of a later value) has
    /// been made: answer [`super::FrameMachine::handle_stream_signalled`] with the highest value
    /// whose signal is known made (below `token`'s: timed out). The present of a frame whose
    /// submission waits for that value comes after it.
    WaitStreamSignal {
        /// The value waited for.
        token: SyncToken,
        /// The bound.
        timeout_ns: u64,
    },
    /// A registered host timeline's counter (`vkGetSemaphoreCounterValue`), for a token of
    /// its stream: answer [`super::FrameMachine::handle_stream_value`] with the value read.
    ReadStreamValue {
        /// The token asked about (its stream names the timeline).
        token: SyncToken,
    },
    /// Wait, at most `timeout_ns`, until a registered host timeline reaches `token`'s value
    /// (`vkWaitSemaphores`): answer [`super::FrameMachine::handle_stream_value`] with the
    /// counter's value afterwards (below `token`'s: timed out).
    WaitStreamValue {
        /// The value waited for.
        token: SyncToken,
        /// The bound.
        timeout_ns: u64,
    },
    /// present_wait: `vkWaitForPresentKHR(swapchain, id, timeout_ns)`: answer
    /// [`super::FrameMachine::handle_present_id_status`] with the time the call returned.
    /// A zero timeout is a poll; a longer one is low latency watching the display during its
    /// pacing sleep, and ends by then at the latest.
    PollPresentId {
        /// The swapchain presented to.
        swapchain: W,
        /// The id.
        id: u64,
        /// The bound (zero: do not block).
        timeout_ns: u64,
    },
    /// Present timing: `vkGetPastPresentationTimingEXT` on the swapchain, without blocking:
    /// answer [`super::FrameMachine::handle_present_timings`] with what it returned.
    ReadPresentTimings {
        /// The live swapchain.
        swapchain: W,
    },
    // ----- queue work -------------------------------------------------------------------
    /// `vkAcquireNextImageKHR`: answer [`super::FrameMachine::handle_acquire`].
    Acquire {
        /// The swapchain.
        swapchain: W,
        /// Signalled when the image is ready.
        semaphore: S,
        /// The bound.
        timeout_ns: u64,
    },
    /// Submit a batch that only waits on `semaphore` (all commands) and signals `signal`: it
    /// consumes the pending signal of an image acquired but never used. Answer
    /// [`super::FrameMachine::handle_submitted`].
    SubmitWait {
        /// Waited on.
        semaphore: S,
        /// Signalled: a fence, or the timeline to a value.
        signal: SubmitSignal<F>,
    },
    /// Submit an empty batch that signals `signal`: waited on, it proves that the queue did
    /// everything submitted before it. Answer [`super::FrameMachine::handle_submitted`].
    SubmitEmpty {
        /// Signalled: a fence, or the timeline to a value.
        signal: SubmitSignal<F>,
    },
    /// `vkQueuePresentKHR`: answer [`super::FrameMachine::handle_present_result`].
    Present(PresentInfo<S, W, F>),
    /// GPU timestamps: read the two timestamps of `slot` written by `frame`'s submission:
    /// answer [`super::FrameMachine::handle_gpu_ticks`].
    ReadGpuTimes {
        /// The frame.
        frame: u64,
        /// The slot its queries live in.
        slot: usize,
    },
    /// GPU timestamps: read the device clock and the CPU clock together: answer
    /// [`super::FrameMachine::handle_gpu_clock_sample`].
    CalibrateGpuClock,
    // ----- an operation ended -------------------------------------------------------------
    /// The acquire is done: render this frame.
    FrameReady(FrameInfo<S, W, F>),
    /// The acquire is done: the surface has a zero extent (minimized); nothing was acquired and
    /// nothing waits.
    ZeroExtent,
    /// The acquire is done: the presentation engine gave no image within the wait bound (a
    /// hidden or occluded window, a compositor that stopped repainting). Nothing was acquired
    /// and nothing waits; the next acquire tries again.
    NotReady,
    /// The present is done.
    Presented(PresentStatus),
    /// Setup or teardown is done.
    Done,
    /// The operation failed. The machine stays consistent; the operation may be tried again.
    Failed(Failure),
}

/// What one present asks for with present timing (`VkPresentTimingInfoEXT`).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct PresentTimingRequest {
    /// The target present time (only in FIFO modes: "the swapchain's current present mode must
    /// be ... FIFO or FIFO_RELAXED", `VkPresentTimingsInfoEXT`).
    pub target: PresentTarget,
    /// Ask for stage times (a results-queue slot is free).
    pub query_stages: bool,
}
