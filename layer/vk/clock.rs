//! The time base of telemetry and pacing: nanoseconds since an epoch on the monotonic clock.
//!
//! A frame reads the clock four times (start, acquire return, submit, present). Through
//! `Instant` each reading costs about 90 instructions besides the clock itself (the
//! `Timespec` checks, a normalised `Duration`, a 128-bit nanosecond count), 20% of vkpace's
//! instructions per frame as counted by `scripts/cachesim`. On Linux this reads
//! `CLOCK_MONOTONIC`, the clock `std::time::Instant` reads there, and subtracts the epoch as
//! plain integers; elsewhere it goes through `Instant`.

use std::time::{Duration, Instant};

/// The epoch both as an `Instant` (for the public API and for sleeping) and, where the fast
/// path exists, as the monotonic clock's nanoseconds.
#[derive(Debug, Clone, Copy)]
pub(crate) struct Clock {
    epoch: Instant,
    /// `CLOCK_MONOTONIC` in nanoseconds at `epoch` (read right after it: the two differ by
    /// the tens of nanoseconds between the readings).
    #[cfg(any(target_os = "linux", target_os = "android"))]
    epoch_ns: u64,
}

impl Clock {
    /// A clock whose epoch is now.
    pub(crate) fn new() -> Self {
        let epoch = Instant::now();
        Self {
            epoch,
            #[cfg(any(target_os = "linux", target_os = "android"))]
            epoch_ns: monotonic_ns(),
        }
    }

    /// The epoch as an `Instant`.
    pub(crate) fn epoch(&self) -> Instant {
        self.epoch
    }

    /// Nanoseconds since the epoch (saturating: never before it).
    #[cfg(any(target_os = "linux", target_os = "android"))]
    #[inline(always)]
    pub(crate) fn now_ns(&self) -> u64 {
        monotonic_ns().saturating_sub(self.epoch_ns)
    }

    /// Nanoseconds since the epoch (saturating at `u64::MAX`, after 584 years).
    #[cfg(not(any(target_os = "linux", target_os = "android")))]
    #[inline(always)]
    pub(crate) fn now_ns(&self) -> u64 {
        u64::try_from(self.epoch.elapsed().as_nanos()).unwrap_or(u64::MAX)
    }

    /// The `Instant` `ns` nanoseconds after the epoch (to sleep until).
    pub(crate) fn instant_at(&self, ns: u64) -> Instant {
        self.epoch + Duration::from_nanos(ns)
    }
}

/// `CLOCK_MONOTONIC` in nanoseconds (0 if the clock could not be read, which Linux rules out
/// for this clock id).
#[cfg(any(target_os = "linux", target_os = "android"))]
#[inline(always)]
fn monotonic_ns() -> u64 {
    let mut ts = libc::timespec {
        tv_sec: 0,
        tv_nsec: 0,
    };
    // The return code is not checked: Linux writes `ts` only on success, so a failure leaves
    // it zero, the documented result, without a rare branch in the frame path's code.
    // SAFETY: `ts` is a valid, writable timespec and CLOCK_MONOTONIC a clock id every Linux
    // kernel supports; the call writes only `ts`.
    let _ = unsafe { libc::clock_gettime(libc::CLOCK_MONOTONIC, &mut ts) };
    // Both fields are non-negative for CLOCK_MONOTONIC (time since boot).
    (ts.tv_sec as u64)
        .wrapping_mul(1_000_000_000)
        .wrapping_add(ts.tv_nsec as u64)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn now_agrees_with_instant_and_never_goes_back() {
        let clock = Clock::new();
        let mut last = 0;
        for _ in 0..1000 {
            let before = clock.epoch().elapsed();
            let ns = clock.now_ns();
            let after = clock.epoch().elapsed();
            assert!(ns >= last, "went back from {last} to {ns}");
            last = ns;
            // Same clock: the reading lies between two `Instant` readings around it, give or
            // take the gap between the two epoch readings (well under 100 us).
            let slack = 100_000;
            assert!(ns + slack >= before.as_nanos() as u64, "{ns} vs {before:?}");
            assert!(ns <= after.as_nanos() as u64 + slack, "{ns} vs {after:?}");
        }
        std::thread::sleep(Duration::from_millis(5));
        let ns = clock.now_ns();
        assert!(ns >= 5_000_000, "{ns}");
        let at = clock.instant_at(ns);
        assert!(at <= Instant::now() + Duration::from_micros(100));
        assert!(at >= clock.epoch() + Duration::from_millis(5));
    }
}
