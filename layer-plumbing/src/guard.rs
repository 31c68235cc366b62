//! Panics must not unwind into the loader (C frames): every entry point of a layer runs its
//! body through a [`Guard`], which turns a panic into a value the caller can take (a Vulkan
//! error code, a null pointer) and says so on stderr.
//!
//! A guard must not stand around a call down the chain. A thread may end inside the next
//! layer or the driver by a forced unwind (`pthread_exit`), and a C++ exception may come up
//! from a layer below. `catch_unwind` catches both and aborts the process: glibc's "FATAL:
//! exception not rethrown" for a forced unwind (measured with rustc 1.95: a raw pthread
//! calling `pthread_exit` inside `catch_unwind` aborts, the same call outside it ends the
//! thread, even through an `extern "system"` Rust frame), "Rust cannot catch foreign
//! exceptions" for a C++ one. [`Guard::around`] runs a command in three steps, the call down
//! between two guarded ones and outside them. Wine's way of ending a thread (a signal at any
//! point, then a forced unwind) is held back while an entry point runs
//! (`thread_end.rs`).
//!
//! A C++ exception from below still ends the process, with Rust's "panic in a function that
//! cannot unwind": the entry points are `extern "system"` and the calls down go through the
//! `extern "system"` pointers of Vulkan's C API, which may not unwind. That is the C contract
//! every Vulkan caller is under (the loader's trampolines and C layers have no unwind tables
//! either), so an exception out of a Vulkan command is the throwing layer's bug; letting it
//! through would need `extern "system-unwind"` on both sides of every call, and it would
//! still stop in the loader.

use std::panic::{catch_unwind, AssertUnwindSafe};

use ash::vk;

/// A layer's panic guard; its name prefixes the message a caught panic prints.
#[derive(Clone, Copy, Debug)]
pub struct Guard {
    layer: &'static str,
}

impl Guard {
    /// The guard of the layer called `layer` in messages (`vdisplay`).
    pub const fn new(layer: &'static str) -> Self {
        Self { layer }
    }

    /// The layer's name in messages.
    pub const fn layer(&self) -> &'static str {
        self.layer
    }

    /// Runs `body`; a panic is reported on stderr as a panic in `name` and becomes `on_panic`.
    pub fn run<T>(&self, name: &str, on_panic: T, body: impl FnOnce() -> T) -> T {
        self.catch(name, body).unwrap_or(on_panic)
    }

    /// [`run`](Self::run) for entry points returning `VkResult`: a panic becomes
    /// `VK_ERROR_UNKNOWN`.
    pub fn result(&self, name: &str, body: impl FnOnce() -> vk::Result) -> vk::Result {
        self.run(name, vk::Result::ERROR_UNKNOWN, body)
    }

    /// A command in three steps: `plan` under the guard (`Err` answers the caller at once),
    /// `down` outside it (the call down the chain: a forced or foreign unwind from below passes
    /// through the layer as through C), then `report` under the guard. A panic in `plan` or
    /// `report` becomes `on_panic`.
    pub fn around<P, D, T: Copy>(
        &self,
        name: &str,
        on_panic: T,
        plan: impl FnOnce() -> Result<P, T>,
        down: impl FnOnce(P) -> D,
        report: impl FnOnce(D) -> T,
    ) -> T {
        let planned = match self.catch(name, plan) {
            Some(Ok(planned)) => planned,
            Some(Err(answer)) => return answer,
            None => return on_panic,
        };
        let done = down(planned);
        self.run(name, on_panic, || report(done))
    }

    /// Runs `body`; a panic is reported on stderr and becomes `None` (for a caller that must
    /// remember it, e.g. to turn a device into a pass-through).
    pub fn catch<T>(&self, name: &str, body: impl FnOnce() -> T) -> Option<T> {
        match catch_unwind(AssertUnwindSafe(body)) {
            Ok(value) => Some(value),
            Err(payload) => {
                let what = payload
                    .downcast_ref::<&str>()
                    .map(|s| s.to_string())
                    .or_else(|| payload.downcast_ref::<String>().cloned())
                    .unwrap_or_default();
                eprintln!("{}: panic in {name}: {what}", self.layer);
                None
            }
        }
    }
}

#[cfg(test)]
mod tests {
    use std::ffi::c_void;
    use std::sync::atomic::{AtomicU32, Ordering};

    use super::*;

    extern "C-unwind" {
        /// Ends the calling thread by a forced unwind (glibc).
        fn pthread_exit(value: *mut c_void) -> !;
    }

    const GUARD: Guard = Guard::new("test-layer");

    #[test]
    fn a_panic_becomes_the_fallback_value() {
        assert_eq!(GUARD.run("ok", 0, || 7), 7);
        assert_eq!(GUARD.run("boom", 0, || -> i32 { panic!("boom") }), 0);
        assert_eq!(
            GUARD.result("boom", || panic!("boom")),
            vk::Result::ERROR_UNKNOWN
        );
        assert_eq!(GUARD.catch("boom", || -> u8 { panic!("{}", 1) }), None);
        assert_eq!(GUARD.catch("ok", || 3u8), Some(3));
    }

    /// Steps of [`exiting_thread`] that ran (bits): 1 the plan, 2 the report, 4 the return.
    static STEPS: AtomicU32 = AtomicU32::new(0);

    /// A thread of C's (as Wine's are: Rust's own threads catch unwinds at their root) whose
    /// call down ends it with `pthread_exit`.
    extern "C" fn exiting_thread(_: *mut c_void) -> *mut c_void {
        let answer = GUARD.around(
            "exits below",
            vk::Result::ERROR_UNKNOWN,
            || {
                STEPS.fetch_or(1, Ordering::SeqCst);
                Ok(())
            },
            // SAFETY: ends this thread, which holds nothing another thread waits on.
            |()| unsafe { pthread_exit(std::ptr::null_mut()) },
            |()| {
                STEPS.fetch_or(2, Ordering::SeqCst);
                vk::Result::SUCCESS
            },
        );
        // Not reached: the thread ended below.
        STEPS.fetch_or(4, Ordering::SeqCst);
        let _ = answer;
        std::ptr::null_mut()
    }

    /// A thread ending by a forced unwind inside the call down ends cleanly: the process goes
    /// on (a guard around the call down aborts it: "FATAL: exception not rethrown", and this
    /// test binary dies), after the plan and without the report.
    #[test]
    fn a_thread_exit_below_passes_through_the_guard() {
        crate::c_thread::join(crate::c_thread::start(exiting_thread));
        assert_eq!(
            STEPS.load(Ordering::SeqCst),
            1,
            "plan ran, report and return did not"
        );
    }

    #[test]
    fn around_answers_from_its_steps_and_turns_their_panics_into_the_fallback() {
        let down = |x: u32| x + 1;
        assert_eq!(GUARD.around("ok", 0, || Ok(1), down, |d| d * 10), 20);
        assert_eq!(GUARD.around("refused", 0, || Err(5), down, |d| d), 5);
        let plan_panics = || -> Result<u32, u32> { panic!("plan") };
        assert_eq!(GUARD.around("plan", 9, plan_panics, down, |d| d), 9);
        let report_panics = |_: u32| -> u32 { panic!("report") };
        assert_eq!(GUARD.around("report", 9, || Ok(1), down, report_panics), 9);
    }
}
