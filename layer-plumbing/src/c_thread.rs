//! A raw pthread for the tests: a thread of C's, as Wine's and a game's are (Rust's own
//! threads catch unwinds at their root, so a forced unwind cannot end one cleanly).

use std::ffi::c_void;

/// Starts `thread` on a new pthread with default attributes.
pub(crate) fn start(thread: extern "C" fn(*mut c_void) -> *mut c_void) -> libc::pthread_t {
    let mut handle = std::mem::MaybeUninit::<libc::pthread_t>::uninit();
    // SAFETY: a new thread with default attributes running a function of C's ABI.
    let made = unsafe {
        libc::pthread_create(
            handle.as_mut_ptr(),
            std::ptr::null(),
            thread,
            std::ptr::null_mut(),
        )
    };
    assert_eq!(made, 0, "pthread_create");
    // SAFETY: written by the successful `pthread_create`.
    unsafe { handle.assume_init() }
}

/// Waits for `thread` (started by [`start`], joined once) to end.
pub(crate) fn join(thread: libc::pthread_t) {
    // SAFETY: a thread of `start`'s, joined once (the caller's contract).
    let joined = unsafe { libc::pthread_join(thread, std::ptr::null_mut()) };
    assert_eq!(joined, 0, "pthread_join");
}
