//! CPU time of the calling thread (`CLOCK_THREAD_CPUTIME_ID`): what the render loop itself
//! spends, without the driver's worker threads (lavapipe rasterizes on threads of its own,
//! the same work in both loops, which would only add noise).

use std::time::Duration;

/// The calling thread's CPU time so far.
pub fn thread_cpu() -> Duration {
    let mut ts = libc::timespec {
        tv_sec: 0,
        tv_nsec: 0,
    };
    // SAFETY: `ts` is a valid, writable timespec; the clock id is a constant Linux supports.
    let rc = unsafe { libc::clock_gettime(libc::CLOCK_THREAD_CPUTIME_ID, &mut ts) };
    if rc != 0 {
        return Duration::ZERO;
    }
    Duration::new(
        u64::try_from(ts.tv_sec).unwrap_or(0),
        u32::try_from(ts.tv_nsec).unwrap_or(0),
    )
}
