//! The symbols a layer library exports to the loader, and the entry points it hands out.
//!
//! An application that links libvulkan directly (ash's `linked` feature, vkcube, most C
//! programs) has the loader's own `vkGetInstanceProcAddr` and `vkGetDeviceProcAddr` in the
//! process's global symbol scope. A layer library loaded into that process which refers to its
//! *own* exported `vkGetInstanceProcAddr` by name gets the loader's instead (the dynamic linker
//! searches the global scope first), hands it back to the loader at negotiation, and the loader
//! ends up calling itself: a deadlock on its instance lock (loader 1.3.239) or unbounded
//! recursion (1.4.x). Hence three rules, which every layer of the workspace follows by using
//! [`export_loader_interface!`](crate::export_loader_interface):
//!
//! * the exported functions only forward to the generic ones of
//!   [`proc_addr`](crate::proc_addr), and the layer never takes their address (negotiation and
//!   the proc-address tables hand out the generic functions, which are not exported);
//! * the library is linked with `-Wl,-Bsymbolic`, so any reference to an exported symbol from
//!   inside binds to the library's own definition. Cargo applies a link argument only to the
//!   package whose build script prints it (`cargo::rustc-cdylib-link-arg`; a dependency's
//!   build script cannot add it), so every layer package names the one script that does,
//!   `layer-plumbing/build/link_symbolic.rs`, as its `build` in its `Cargo.toml`;
//! * Rust's cdylib version script keeps every other symbol local.

/// Exports the loader interface of the layer type `$layer` (a [`Layer`](crate::Layer)):
/// `vkNegotiateLoaderLayerInterfaceVersion`, the only symbol a loader of interface 2 or later
/// needs, and `vkGetInstanceProcAddr`, `vkGetDeviceProcAddr`,
/// `vk_layerGetPhysicalDeviceProcAddr` for loaders that look them up by name. Invoke it once,
/// in the layer's cdylib crate (the crate documentation has an example).
#[macro_export]
macro_rules! export_loader_interface {
    ($layer:ty) => {
        /// Loader/layer interface negotiation (interface version 2).
        ///
        /// # Safety
        /// `v` must point at the loader's negotiation structure.
        #[no_mangle]
        #[allow(non_snake_case)]
        pub unsafe extern "system" fn vkNegotiateLoaderLayerInterfaceVersion(
            v: *mut $crate::loader::NegotiateLayerInterface,
        ) -> $crate::ash::vk::Result {
            // SAFETY: the caller's contract is the generic function's.
            unsafe { $crate::proc_addr::negotiate::<$layer>(v) }
        }

        /// The layer's `vkGetInstanceProcAddr`, for loaders that look it up by name.
        ///
        /// # Safety
        /// Called by the loader with a valid (or null) instance and a C string.
        #[no_mangle]
        #[allow(non_snake_case)]
        pub unsafe extern "system" fn vkGetInstanceProcAddr(
            instance: $crate::ash::vk::Instance,
            name: *const ::std::ffi::c_char,
        ) -> $crate::ash::vk::PFN_vkVoidFunction {
            // SAFETY: the caller's contract is the generic function's.
            unsafe { $crate::proc_addr::get_instance_proc_addr::<$layer>(instance, name) }
        }

        /// The layer's `vkGetDeviceProcAddr`, for loaders that look it up by name.
        ///
        /// # Safety
        /// Called with a valid device and a C string.
        #[no_mangle]
        #[allow(non_snake_case)]
        pub unsafe extern "system" fn vkGetDeviceProcAddr(
            device: $crate::ash::vk::Device,
            name: *const ::std::ffi::c_char,
        ) -> $crate::ash::vk::PFN_vkVoidFunction {
            // SAFETY: the caller's contract is the generic function's.
            unsafe { $crate::proc_addr::get_device_proc_addr::<$layer>(device, name) }
        }

        /// The layer's `vk_layerGetPhysicalDeviceProcAddr`, for loaders that look it up by name.
        ///
        /// # Safety
        /// Called by the loader with a valid instance and a C string.
        #[no_mangle]
        #[allow(non_snake_case)]
        pub unsafe extern "system" fn vk_layerGetPhysicalDeviceProcAddr(
            instance: $crate::ash::vk::Instance,
            name: *const ::std::ffi::c_char,
        ) -> $crate::ash::vk::PFN_vkVoidFunction {
            // SAFETY: the caller's contract is the generic function's.
            unsafe { $crate::proc_addr::get_physical_device_proc_addr::<$layer>(instance, name) }
        }
    };
}

/// Defines an `extern "system"` entry point that runs `$body` (an unsafe expression) under
/// the guard `$guard`: `-> vk::Result` entry points return `VK_ERROR_UNKNOWN` on a panic,
/// entry points returning nothing return (the crate documentation has an example).
///
/// `entry_point!(unguarded; ...)` defines one whose body runs outside any guard: for a
/// command that blocks (a pacing sleep, the driver's present or acquire) and guards its own
/// steps inside, between the blocking calls.
///
/// Either way the entry point holds `SIGQUIT` back while it runs ([`crate::ThreadEndHeld`]):
/// a thread Wine ends inside it (at `ExitProcess`, with a forced unwind) ends as it returns,
/// never inside the layer's frames, where the unwind would abort the process.
#[macro_export]
macro_rules! entry_point {
    (unguarded; $name:ident ( $($arg:ident : $ty:ty),* ) $(-> $ret:ty)? => $body:expr) => {
        $crate::entry_point!(@held $name ( $($arg : $ty),* ) $(-> $ret)? => {
            // SAFETY: the loader (or the layer above) calls with valid arguments.
            unsafe { $body }
        });
    };
    ($guard:expr; $name:ident ( $($arg:ident : $ty:ty),* ) -> vk::Result => $body:expr) => {
        $crate::entry_point!(@held $name ( $($arg : $ty),* ) -> $crate::ash::vk::Result => {
            // SAFETY: the loader (or the layer above) calls with valid arguments.
            $guard.result(stringify!($name), || unsafe { $body })
        });
    };
    ($guard:expr; $name:ident ( $($arg:ident : $ty:ty),* ) => $body:expr) => {
        $crate::entry_point!(@held $name ( $($arg : $ty),* ) => {
            // SAFETY: the loader (or the layer above) calls with valid arguments.
            $guard.run(stringify!($name), (), || unsafe { $body })
        });
    };
    // The entry point: the body in a function of its own, run with `SIGQUIT` held back
    // (`thread_end.rs` says why the two frames).
    (@held $name:ident ( $($arg:ident : $ty:ty),* ) $(-> $ret:ty)? => $body:block) => {
        unsafe extern "system" fn $name($($arg: $ty),*) $(-> $ret)? {
            #[inline(never)]
            unsafe extern "system" fn body($($arg: $ty),*) $(-> $ret)? $body
            let held = $crate::ThreadEndHeld::hold();
            // SAFETY: the caller's arguments, as they came.
            let answer = unsafe { body($($arg),*) };
            held.release();
            answer
        }
    };
}

/// Calls the next layer's command `$name` (a C-string literal listed in
/// [`CALLED_DOWN`](crate::next::CALLED_DOWN), else the build stops) with signature `$pfn`, as
/// the next layer answered it when the instance or device was made, or evaluates to `$missing`
/// if it has no such command. `$src` is anything with a `command(usize) -> PFN_vkVoidFunction`
/// method ([`NextInstance`](crate::NextInstance), [`NextDevice`](crate::NextDevice), or a
/// layer's state that forwards to one).
#[macro_export]
macro_rules! call_next {
    ($src:expr, $name:literal, $pfn:ty, ($($arg:expr),*), $missing:expr) => {
        match $src.command(const { $crate::next::index_or_stop($name) }) {
            // SAFETY: the next layer returned this pointer for this command name, so it has the
            // command's signature; the arguments are the ones the application passed.
            Some(f) => unsafe { ::std::mem::transmute::<unsafe extern "system" fn(), $pfn>(f)($($arg),*) },
            None => $missing,
        }
    };
}
