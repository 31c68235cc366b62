//! Wine ends a thread (each thread but the caller at `ExitProcess`, the target of
//! `TerminateThread`) by sending it `SIGQUIT`; the handler ends it with a forced unwind
//! (`pthread_exit`) from wherever it was. Through a layer's Rust frames that unwind stops the
//! whole process in two places:
//!
//! * a `catch_unwind` (every [`crate::Guard`]) deletes it, and glibc aborts: "FATAL:
//!   exception not rethrown";
//! * a call that cannot unwind (any C function or Vulkan command called through an
//!   `extern "system"` pointer) has no entry in its Rust caller's unwind table where that
//!   caller has one (it drops something), the unwinder stops there, and glibc aborts without
//!   a word (`__pthread_unwind`).
//!
//! So every entry point of a layer ([`crate::entry_point!`]) holds `SIGQUIT` back while its
//! body runs ([`ThreadEndHeld`]). A thread Wine ends inside the layer ends as it leaves it,
//! after the pause or the driver's call it is in: the held signal is delivered as the entry
//! point restores the mask, in a frame without an unwind table (its calls cannot unwind: the
//! hold, the body as a function of its own, the release), so the unwind passes it into the
//! caller's C frames. Frames with a table are where it stops: a Rust function gets one if it
//! drops something or makes a call that may unwind, and an `extern "system"` function's may
//! end an unwind that comes out of its own calls ("panic in a function that cannot unwind",
//! seen in this module's tests). `#[inline(never)]` keeps the body's frame out of the entry
//! point's.

/// `SIGQUIT` held back on this thread until [`ThreadEndHeld::release`]: the thread's mask as
/// it was (a nested hold leaves it held for the outer one). A signal sent meanwhile stays
/// pending and is delivered as the mask is restored, before `pthread_sigmask` returns (POSIX).
/// Not released on drop: a `Drop` would give its holder's frame an unwind table.
#[must_use = "the signal stays held back until released"]
pub struct ThreadEndHeld {
    before: libc::sigset_t,
}

impl ThreadEndHeld {
    /// Holds `SIGQUIT` back on the calling thread.
    #[inline]
    pub fn hold() -> Self {
        let mut quit = std::mem::MaybeUninit::<libc::sigset_t>::uninit();
        let mut before = std::mem::MaybeUninit::<libc::sigset_t>::uninit();
        // SAFETY: `sigemptyset` initialises `quit`; `pthread_sigmask` cannot fail with a valid
        // `how` and set, and writes the mask it replaces to `before`.
        unsafe {
            libc::sigemptyset(quit.as_mut_ptr());
            libc::sigaddset(quit.as_mut_ptr(), libc::SIGQUIT);
            libc::pthread_sigmask(libc::SIG_BLOCK, quit.as_ptr(), before.as_mut_ptr());
            Self {
                before: before.assume_init(),
            }
        }
    }

    /// Restores the mask of before [`ThreadEndHeld::hold`]; a `SIGQUIT` that came meanwhile
    /// ends the thread here.
    #[inline]
    pub fn release(self) {
        // SAFETY: the mask this thread had before `hold`.
        unsafe { libc::pthread_sigmask(libc::SIG_SETMASK, &self.before, std::ptr::null_mut()) };
    }
}

#[cfg(test)]
mod tests;
