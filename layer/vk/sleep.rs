//! Waiting until a deadline precisely: the OS sleep overshoots by tens to hundreds of
//! microseconds, so sleep until a margin before the deadline, then spin the rest.

use std::time::{Duration, Instant};

/// What is left to spinning: enough to absorb a late wake-up on a loaded machine.
const SPIN: Duration = Duration::from_micros(1500);

/// Returns at `deadline` (or at once if it passed), within a few microseconds unless the OS
/// deschedules the thread while it spins. The frame limiter waits with it; it is public so a
/// benchmark can measure this machine's timer floor with the very same wait.
///
/// ```
/// use std::time::{Duration, Instant};
/// let deadline = Instant::now() + Duration::from_millis(3);
/// vkpace::sleep_until(deadline);
/// assert!(Instant::now() >= deadline);
/// ```
pub fn sleep_until(deadline: Instant) {
    let now = Instant::now();
    if deadline <= now {
        return;
    }
    let left = deadline - now;
    if left > SPIN {
        std::thread::sleep(left - SPIN);
    }
    while Instant::now() < deadline {
        std::hint::spin_loop();
    }
}
