//! The time base of telemetry and pacing: nanoseconds since an epoch on the monotonic clock
//! (`Instant`), so the core, which takes time as an argument, sees plain integers.

use std::time::{Duration, Instant};

/// A duration in ns, as the core and Vulkan take bounds (saturating: a bound of more than 584
/// years is "forever").
pub(crate) fn ns_of(d: Duration) -> u64 {
    u64::try_from(d.as_nanos()).unwrap_or(u64::MAX)
}

/// The epoch and readings against it.
#[derive(Debug, Clone, Copy)]
pub(crate) struct Clock {
    epoch: Instant,
}

impl Clock {
    /// A clock whose epoch is now.
    pub(crate) fn new() -> Self {
        Self {
            epoch: Instant::now(),
        }
    }

    /// The epoch as an `Instant`.
    pub(crate) fn epoch(&self) -> Instant {
        self.epoch
    }

    /// Nanoseconds since the epoch (saturating at `u64::MAX`, after 584 years).
    pub(crate) fn now_ns(&self) -> u64 {
        ns_of(self.epoch.elapsed())
    }

    /// `at` in nanoseconds since the epoch (0 before it).
    pub(crate) fn ns_at(&self, at: Instant) -> u64 {
        ns_of(at.saturating_duration_since(self.epoch))
    }

    /// The `Instant` `ns` nanoseconds after the epoch (to sleep until).
    pub(crate) fn instant_at(&self, ns: u64) -> Instant {
        self.epoch + Duration::from_nanos(ns)
    }
}
