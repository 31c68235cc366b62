//! Putting the loader's link back, for a layer that calls down twice in one create call.

use std::ffi::c_void;

use ash::vk;

use crate::link::{find_device_info, find_instance_info};
use crate::loader::LayerFunction;

/// The loader's link position in a create info, saved after this layer took its link, so a
/// layer that calls down a second time (again without what it added, after the next layer
/// refused it) can put it back: each layer below advances it on the way down.
pub struct LinkMark {
    at: *mut *mut c_void,
    value: *mut c_void,
}

impl LinkMark {
    /// The mark of an instance create info's link.
    ///
    /// # Safety
    /// `ci` is the create info of the `vkCreateInstance` call the loader made to this layer,
    /// after [`InstanceLink::take`](crate::InstanceLink::take) (or `create`) advanced it.
    pub unsafe fn instance(ci: &vk::InstanceCreateInfo<'_>) -> Option<Self> {
        // SAFETY: the caller's contract: a valid chain with the loader's writable info.
        let info = unsafe { find_instance_info(ci.p_next, LayerFunction::LINK_INFO).as_mut() }?;
        let at = std::ptr::addr_of_mut!(info.p_layer_info).cast::<*mut c_void>();
        // SAFETY: just found, valid for this call.
        let value = unsafe { *at };
        Some(Self { at, value })
    }

    /// The mark of a device create info's link.
    ///
    /// # Safety
    /// As [`Self::instance`], for `vkCreateDevice` after [`DeviceLink`](crate::DeviceLink)'s advance.
    pub unsafe fn device(ci: &vk::DeviceCreateInfo<'_>) -> Option<Self> {
        // SAFETY: the caller's contract.
        let info = unsafe { find_device_info(ci.p_next, LayerFunction::LINK_INFO).as_mut() }?;
        let at = std::ptr::addr_of_mut!(info.u);
        // SAFETY: just found, valid for this call.
        let value = unsafe { *at };
        Some(Self { at, value })
    }

    /// Puts the link back where it was when marked.
    ///
    /// # Safety
    /// Within the same create call, before calling down again.
    pub unsafe fn restore(&self) {
        // SAFETY: the loader's structure, valid and writable for this call.
        unsafe { *self.at = self.value };
    }
}
