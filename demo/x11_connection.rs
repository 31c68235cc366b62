//! The X server going away mid-run. Xlib's default I/O error handler prints its own message
//! and exits with status 1; the demo installs one that says what happened in one line, in the
//! demo's words, and exits with the demo's error status. Xlib calls it when any request or
//! event read finds the connection gone (server killed, display closed), and documents that the
//! process exits if the handler returns, so the handler exits itself.

use std::os::raw::c_int;

use x11_dl::xlib;

/// The exit status of a lost display (the demo's generic error status).
pub const EXIT_DISPLAY_LOST: i32 = 2;

unsafe extern "C" fn on_io_error(_display: *mut xlib::Display) -> c_int {
    eprintln!("vkpace demo: error: the connection to the X server was lost (server gone); exiting");
    // Exiting from an Xlib I/O error handler is what Xlib itself does after the handler.
    std::process::exit(EXIT_DISPLAY_LOST)
}

/// Installs the handler when libX11 can be loaded (it is, whenever winit uses X11).
pub fn install_io_error_handler() {
    let Ok(lib) = xlib::Xlib::open() else {
        return;
    };
    // SAFETY: XSetIOErrorHandler takes a plain function pointer with the C ABI and the
    // signature Xlib expects; it only stores it.
    unsafe { (lib.XSetIOErrorHandler)(Some(on_io_error)) };
    // Dropping `lib` would dlclose its reference to libX11, where the handler is registered:
    // keep that reference for the rest of the process (a few hundred bytes, once).
    Box::leak(Box::new(lib));
}
