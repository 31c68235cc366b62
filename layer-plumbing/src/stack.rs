//! Where a layer sits: the libraries of the layers below it, read from the loader's link list
//! in `vkCreateInstance` before the layer takes its own link. Each link holds the next layer's
//! `vkGetInstanceProcAddr`, and the dynamic linker says which library a function lives in
//! (`dladdr`); the last one is the loader's own (its driver dispatch). The layers above are not
//! in the list (they took their links already).

use std::ffi::{c_void, CStr};

use ash::vk;

use crate::link::find_instance_info;
use crate::loader::LayerFunction;

/// The file name of the library holding the code at `address` (`?` where the dynamic linker
/// does not know it).
pub fn library_of(address: usize) -> String {
    let mut info = libc::Dl_info {
        dli_fname: std::ptr::null(),
        dli_fbase: std::ptr::null_mut(),
        dli_sname: std::ptr::null(),
        dli_saddr: std::ptr::null_mut(),
    };
    // SAFETY: `info` is a valid output; dladdr only reads the address.
    let found = unsafe { libc::dladdr(address as *const c_void, &mut info) } != 0
        && !info.dli_fname.is_null();
    if !found {
        return "?".into();
    }
    // SAFETY: dladdr gives a valid C string that lives while the library stays loaded.
    let path = unsafe { CStr::from_ptr(info.dli_fname) }.to_string_lossy();
    path.rsplit('/').next().unwrap_or_default().to_string()
}

/// The libraries of the layers below the caller, nearest first, ending with the loader's: one
/// per link left in `ci`'s loader list.
///
/// # Safety
/// `ci` is the create info of a `vkCreateInstance` call the loader made to this layer, before
/// the layer took its link.
pub unsafe fn libraries_below(ci: &vk::InstanceCreateInfo<'_>) -> Vec<String> {
    // SAFETY: the chain is valid (the caller's contract).
    let info = unsafe { find_instance_info(ci.p_next, LayerFunction::LINK_INFO) };
    let mut out = Vec::new();
    // SAFETY: a non-null info is the loader's, valid for this call.
    let Some(info) = (unsafe { info.as_ref() }) else {
        return out;
    };
    let mut link = info.p_layer_info;
    // SAFETY: the loader's link list, valid for this call; it ends with a null pNext.
    while let Some(l) = unsafe { link.as_ref() } {
        out.push(library_of(l.pfn_next_get_instance_proc_addr as usize));
        link = l.p_next;
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_function_is_found_in_its_library() {
        // A function of the C library: its file is the C library's (glibc 2.34 and newer have
        // dladdr in libc.so itself, as bookworm's and sid's do).
        let name = library_of(libc::dladdr as *const () as usize);
        assert!(name.starts_with("libc.so"), "{name}");
        assert_eq!(library_of(0), "?");
    }
}
