//! A test-only fault: `VKPACE_TEST_PANIC_AT_PRESENT=N` panics inside the pacer at the N-th
//! present of the process (counted from 1), as the pacer is told of a step it planned (the
//! present's first report: its repair submission and the driver's present were made), so a
//! test can show that the program keeps running, the present is not made a second time, the
//! device passes every call through from then on, and the stopped pacer's objects are still
//! destroyed with the device.

use std::sync::atomic::{AtomicU64, Ordering};
use std::sync::LazyLock;

/// The present the fault is due at, if asked for.
static DUE: LazyLock<Option<u64>> = LazyLock::new(|| {
    std::env::var("VKPACE_TEST_PANIC_AT_PRESENT")
        .ok()?
        .parse()
        .ok()
});

/// Presents so far.
static PRESENTS: AtomicU64 = AtomicU64::new(0);

/// Counts a present; whether the fault is due at it.
pub(crate) fn panic_due() -> bool {
    let n = PRESENTS.fetch_add(1, Ordering::Relaxed) + 1;
    *DUE == Some(n)
}

/// Panics where the fault is `due` (the layer's guard catches it: that is what it tests).
#[allow(clippy::panic)]
pub(crate) fn panic_if(due: bool) {
    if due {
        panic!("the test fault VKPACE_TEST_PANIC_AT_PRESENT");
    }
}
