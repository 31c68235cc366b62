//! Marks the rare branches of the per-frame code for the compiler.
//!
//! Why: the frame path is compiled into three functions (`acquire`, `submit`, `present`),
//! and on a real driver what a frame costs is mostly the number of code lines it runs,
//! because the driver's own code evicts vkpace's from the instruction caches between frames
//! (see `vk::Swapchain`'s layout note). A branch the compiler cannot tell is rare gets laid
//! out between the hot blocks, and the hot code then spreads over more lines than it fills:
//! before these hints, the frame path ran about 9 hot instructions per 64-byte line where
//! about 13 fit (85 lines for 59 lines' worth of hot bytes; callgrind `--dump-instr`).
//!
//! What counts as rare here: errors; waits and sleeps (a frame that waits has time to
//! spare, so its extra code lines cost nothing that matters); the options that are off by
//! default; recreation, held frames and first-use object creation.

/// Tells the compiler that the branch it is called in is rarely taken, so that it lays the
/// branch's code out away from the hot path. `std::hint::cold_path` where the compiler has it
/// (Rust 1.95; the build script probes), otherwise a call to an empty `#[cold]` function,
/// which says the same at the cost of a call in the rare branch.
#[inline(always)]
pub(crate) fn cold_path() {
    cold_call();
}

#[cold]
#[inline(never)]
fn cold_call() {}

/// Returns `value` unchanged, marking the branch rare ([`cold_path`]): wrap the error of a
/// branch that only misuse or a failing driver takes, as in
/// `.ok_or_else(|| rare(CoreError::NoSwapchain))` or `Err(rare(e))`.
#[inline(always)]
pub(crate) fn rare<T>(value: T) -> T {
    cold_path();
    value
}

#[cfg(test)]
mod tests {
    use super::{cold_path, rare};

    #[test]
    fn rare_hands_back_what_it_is_given() {
        cold_path();
        assert_eq!(rare(7_u32), 7);
        assert_eq!(rare("out of order"), "out of order");
    }
}
