//! The virtual display's clock: CLOCK_MONOTONIC in nanoseconds, the domain every time the layer
//! reports is in (present timing's time domains are calibrated to it 1:1).

/// Now, in CLOCK_MONOTONIC nanoseconds.
pub fn now_ns() -> u64 {
    let mut ts = libc::timespec {
        tv_sec: 0,
        tv_nsec: 0,
    };
    // SAFETY: `ts` is a valid out-pointer; CLOCK_MONOTONIC always exists on Linux.
    unsafe { libc::clock_gettime(libc::CLOCK_MONOTONIC, &mut ts) };
    ts.tv_sec as u64 * 1_000_000_000 + ts.tv_nsec as u64
}

/// The deadline `timeout_ns` from `now`, saturating (`u64::MAX` means "no deadline").
pub fn deadline(now: u64, timeout_ns: u64) -> u64 {
    now.saturating_add(timeout_ns)
}

/// A `Duration` until `deadline_ns` (zero if past).
pub fn until(deadline_ns: u64) -> std::time::Duration {
    std::time::Duration::from_nanos(deadline_ns.saturating_sub(now_ns()))
}
