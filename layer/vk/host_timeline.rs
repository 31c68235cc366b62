//! [`HostTimeline`]: a timeline semaphore that a CPU producer (another thread: a streaming
//! loader, a simulation, a video decoder) signals, and whose values frames wait for on the GPU
//! ([`super::Batch::waits`]). Seed 003's explicit fences between producers and consumers, on
//! Vulkan's timeline semaphores (core in 1.2, feature `timelineSemaphore`).

use std::sync::atomic::{AtomicBool, AtomicU64, Ordering};
use std::sync::{Arc, Condvar, Mutex};
use std::time::{Duration, Instant};

use ash::vk;

use super::error::{Error, Result, VkContext};
use vkpace_core::SyncToken;

/// The furthest a signal or a promise may run ahead of the last signalled value: the least
/// `maxTimelineSemaphoreValueDifference` every device supports (2^31 - 1, *Required Limits*).
/// A signal further than the limit from the current value breaks
/// VUID-VkSemaphoreSignalInfo-value-03260, and a GPU wait further away breaks the same limit for
/// submitted waits.
pub const MAX_TIMELINE_STEP: u64 = (1 << 31) - 1;

/// What a swapchain that registered the timeline shares with it: the stream, the highest value
/// promised, the semaphore, and whether it was destroyed.
#[derive(Debug)]
pub(crate) struct TimelineState {
    pub(crate) stream: u64,
    pub(crate) semaphore: vk::Semaphore,
    promised: AtomicU64,
    destroyed: AtomicBool,
    /// The last value signalled, held across the check and `vkSignalSemaphore`, so two
    /// producers cannot signal out of order.
    signalled: Mutex<u64>,
    /// Notified after each signal.
    signal_seen: Condvar,
}

impl TimelineState {
    /// The highest value promised or signalled.
    pub(crate) fn promised(&self) -> u64 {
        self.promised.load(Ordering::Acquire)
    }

    pub(crate) fn destroyed(&self) -> bool {
        self.destroyed.load(Ordering::Acquire)
    }

    /// The last signalled value; a producer that panicked while holding the lock left it
    /// consistent (the value is written only after a successful signal).
    fn lock_signalled(&self) -> std::sync::MutexGuard<'_, u64> {
        self.signalled.lock().unwrap_or_else(|e| e.into_inner())
    }

    /// Waits until a producer's `vkSignalSemaphore` of `value` (or a later one) has returned,
    /// at most until `deadline`; returns the last value signalled then (below `value`: timed
    /// out).
    pub(crate) fn wait_signalled(&self, value: u64, deadline: Instant) -> u64 {
        let mut signalled = self.lock_signalled();
        while *signalled < value {
            let left = deadline.saturating_duration_since(Instant::now());
            if left.is_zero() {
                break;
            }
            signalled = match self.signal_seen.wait_timeout(signalled, left) {
                Ok((guard, _)) => guard,
                Err(poisoned) => poisoned.into_inner().0,
            };
        }
        *signalled
    }
}

/// A timeline semaphore signalled from the CPU. Share it with the producer thread by reference
/// (it is `Sync`) or in an `Arc`; register it with each swapchain whose frames wait for it
/// ([`super::Swapchain::register_host_timeline`]).
///
/// A producer calls [`Self::promise`] for a value before a frame may wait for it on the GPU,
/// and keeps the promise with [`Self::signal`]: a GPU wait on a value nobody promised is
/// refused at the call ([`Error::TokenNotSubmitted`]), since the queue would wait forever.
///
/// ```no_run
/// # fn f(device: &ash::Device) -> vkpace::Result<()> {
/// use vkpace::HostTimeline;
/// // SAFETY: the device enabled `timelineSemaphore`; destroyed below, unused by then.
/// let timeline = unsafe { HostTimeline::new(device)? };
/// std::thread::scope(|s| {
///     s.spawn(|| {
///         timeline.promise(1)?;
///         // ... produce ...
///         timeline.signal(1)
///     });
/// });
/// timeline.wait(timeline.token(1), std::time::Duration::from_secs(1))?;
/// // SAFETY: no pending GPU wait on it, no other user left.
/// unsafe { timeline.destroy() };
/// # Ok(()) }
/// ```
pub struct HostTimeline {
    device: ash::Device,
    state: Arc<TimelineState>,
}

impl std::fmt::Debug for HostTimeline {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("HostTimeline")
            .field("state", &self.state)
            .finish_non_exhaustive()
    }
}

impl HostTimeline {
    /// A new timeline at value 0 (nothing promised).
    ///
    /// # Safety
    ///
    /// `device` must be valid with the `timelineSemaphore` feature enabled, and outlive the
    /// timeline ([`Self::destroy`] before the device).
    pub unsafe fn new(device: &ash::Device) -> Result<Self> {
        // SAFETY: caller contract (valid device with timeline semaphores).
        let semaphore = unsafe { create_timeline_semaphore(device) }?;
        Ok(Self {
            device: device.clone(),
            state: Arc::new(TimelineState {
                stream: vkpace_core::new_stream_id(),
                semaphore,
                promised: AtomicU64::new(0),
                destroyed: AtomicBool::new(false),
                signalled: Mutex::new(0),
                signal_seen: Condvar::new(),
            }),
        })
    }

    /// The token of `value` on this timeline.
    #[must_use]
    pub fn token(&self, value: u64) -> SyncToken {
        SyncToken::new(self.state.stream, value)
    }

    /// The semaphore (for waits vkpace does not make, such as another queue's submission).
    #[must_use]
    pub fn semaphore(&self) -> vk::Semaphore {
        self.state.semaphore
    }

    /// Promises that `value` will be signalled: from now on a frame may wait for it on the GPU.
    /// Promises only grow; a lower value changes nothing. A value more than 2^31 - 1 past the
    /// last signalled one is [`Error::InvalidTimelineValue`]: that is the least
    /// `maxTimelineSemaphoreValueDifference` every device supports (*Required Limits*).
    pub fn promise(&self, value: u64) -> Result<()> {
        let signalled = *self.lock_signalled();
        if value > signalled.saturating_add(MAX_TIMELINE_STEP) {
            return Err(Error::InvalidTimelineValue {
                value,
                last_signalled: signalled,
                why: "more than MAX_TIMELINE_STEP past the last signalled value",
            });
        }
        self.state.promised.fetch_max(value, Ordering::AcqRel);
        Ok(())
    }

    /// Signals `value` from the CPU (`vkSignalSemaphore`), which also promises it. It must be
    /// greater than the last signalled value (VUID-VkSemaphoreSignalInfo-value-03258) and at
    /// most 2^31 - 1 past it (as [`Self::promise`]); otherwise [`Error::InvalidTimelineValue`]
    /// and nothing is signalled. Producers on several threads are serialized here.
    pub fn signal(&self, value: u64) -> Result<()> {
        let mut signalled = self.lock_signalled();
        if value <= *signalled || value - *signalled > MAX_TIMELINE_STEP {
            return Err(Error::InvalidTimelineValue {
                value,
                last_signalled: *signalled,
                why: "a signal must be above the last signalled value and at most MAX_TIMELINE_STEP past it",
            });
        }
        self.state.promised.fetch_max(value, Ordering::AcqRel);
        let info = vk::SemaphoreSignalInfo::default()
            .semaphore(self.state.semaphore)
            .value(value);
        // SAFETY: the semaphore is a live timeline semaphore of `device` (destroyed only by
        // `destroy`, which takes the timeline by value); the value was checked above, under
        // the lock every signal takes.
        unsafe { self.device.signal_semaphore(&info) }.during("vkSignalSemaphore")?;
        *signalled = value;
        self.state.signal_seen.notify_all();
        Ok(())
    }

    fn lock_signalled(&self) -> std::sync::MutexGuard<'_, u64> {
        self.state.lock_signalled()
    }

    /// Whether `device` is the device the timeline was made on.
    pub(crate) fn is_of(&self, device: &ash::Device) -> bool {
        self.device.handle() == device.handle()
    }

    /// The timeline's current value (`vkGetSemaphoreCounterValue`).
    pub fn value(&self) -> Result<u64> {
        // SAFETY: as in `signal`.
        unsafe {
            self.device
                .get_semaphore_counter_value(self.state.semaphore)
        }
        .during("vkGetSemaphoreCounterValue")
    }

    /// Waits on the CPU until the timeline reaches `token`, at most `timeout`. A value nobody
    /// promised is refused at once ([`Error::TokenNotSubmitted`]); a token of another stream is
    /// [`Error::ForeignToken`].
    pub fn wait(&self, token: SyncToken, timeout: Duration) -> Result<()> {
        if token.stream() != self.state.stream {
            return Err(Error::ForeignToken(token));
        }
        let promised = self.state.promised();
        if token.value() > promised {
            return Err(Error::TokenNotSubmitted {
                token,
                last_submitted: promised,
            });
        }
        wait_value(&self.device, self.state.semaphore, token.value(), timeout)
    }

    /// Destroys the semaphore.
    ///
    /// # Safety
    ///
    /// No pending GPU wait or signal may use it (every frame that waited for it has completed:
    /// wait for the swapchain's [`super::Swapchain::last_submitted`] first), it must be
    /// unregistered from every swapchain it was registered with
    /// ([`super::Swapchain::unregister_host_timeline`]) and every frame that waits for it
    /// presented, and no other thread may use it any more.
    pub unsafe fn destroy(self) {
        self.state.destroyed.store(true, Ordering::Release);
        // SAFETY: caller contract.
        unsafe { self.device.destroy_semaphore(self.state.semaphore, None) };
    }

    pub(crate) fn state(&self) -> Arc<TimelineState> {
        Arc::clone(&self.state)
    }
}

/// A timeline semaphore at value 0 (a host timeline's, or a swapchain's own with the timeline
/// completion backend).
///
/// # Safety
///
/// `device` is valid and enabled the `timelineSemaphore` feature
/// (VUID-VkSemaphoreTypeCreateInfo-timelineSemaphore-03252).
pub(crate) unsafe fn create_timeline_semaphore(device: &ash::Device) -> Result<vk::Semaphore> {
    let mut kind = vk::SemaphoreTypeCreateInfo::default()
        .semaphore_type(vk::SemaphoreType::TIMELINE)
        .initial_value(0);
    let info = vk::SemaphoreCreateInfo::default().push_next(&mut kind);
    // SAFETY: caller contract.
    unsafe { device.create_semaphore(&info, None) }.during("vkCreateSemaphore")
}

/// Waits (bounded) for `semaphore` to reach `value`; a timeout is [`Error::Timeout`].
pub(crate) fn wait_value(
    device: &ash::Device,
    semaphore: vk::Semaphore,
    value: u64,
    timeout: Duration,
) -> Result<()> {
    let (semaphores, values) = ([semaphore], [value]);
    let info = vk::SemaphoreWaitInfo::default()
        .semaphores(&semaphores)
        .values(&values);
    let ns = super::clock::ns_of(timeout);
    // SAFETY: the caller's semaphore is a live timeline semaphore of `device`.
    match unsafe { device.wait_semaphores(&info, ns) } {
        Ok(()) => Ok(()),
        Err(vk::Result::TIMEOUT) => Err(Error::Timeout {
            what: "a host timeline value",
            timeout,
        }),
        Err(e) => Err(Error::vk("vkWaitSemaphores", e)),
    }
}
