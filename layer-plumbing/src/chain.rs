//! Walking and editing `pNext` chains.
//!
//! A layer that implements an extension the driver lacks must keep that extension's
//! structures from reaching the driver (Mesa checks the feature structures it knows, such as
//! `presentId`, against what lavapipe supports and would fail `vkCreateDevice`). Structures
//! cannot be copied without knowing their size, so [`Splice`] unlinks them in place for the
//! duration of the call down and relinks them afterwards (the approach of a layer that cannot
//! deep-copy unknown structures): the application's chain is as it was when the call returns.

use std::ffi::c_void;

use ash::vk;

/// Finds the first structure of type `T` in a `pNext` chain.
///
/// # Safety
/// `p_next` must be a valid `pNext` chain that outlives `'a`.
pub unsafe fn find<'a, T: vk::TaggedStructure>(mut p_next: *const c_void) -> Option<&'a T> {
    while !p_next.is_null() {
        // SAFETY: every structure of a valid chain starts like VkBaseInStructure.
        let base = unsafe { &*p_next.cast::<vk::BaseInStructure>() };
        if base.s_type == T::STRUCTURE_TYPE {
            // SAFETY: the sType identifies the structure as a `T`.
            return Some(unsafe { &*p_next.cast::<T>() });
        }
        p_next = base.p_next.cast();
    }
    None
}

/// Calls `visit` with every structure of a writable (output) `pNext` chain.
///
/// # Safety
/// `p_next` must be a valid, writable `pNext` chain.
pub unsafe fn for_each_out(
    mut p_next: *mut c_void,
    mut visit: impl FnMut(*mut c_void, vk::StructureType),
) {
    while !p_next.is_null() {
        // SAFETY: every structure of a valid chain starts like VkBaseOutStructure.
        let base = unsafe { &*p_next.cast::<vk::BaseOutStructure>() };
        let next = base.p_next.cast::<c_void>();
        visit(p_next, base.s_type);
        p_next = next;
    }
}

/// Structures unlinked from a chain, relinked when dropped.
pub struct Splice {
    /// (the structure whose `pNext` was changed, the value it had), in unlink order.
    edits: Vec<(
        *mut vk::BaseOutStructure<'static>,
        *mut vk::BaseOutStructure<'static>,
    )>,
}

impl Splice {
    /// Unlinks every structure whose type is in `drop_types` from the chain that starts at
    /// `head`'s `pNext`. `head` (the caller's own copy of the top structure) keeps its new
    /// `pNext`; the application's structures further down are relinked on drop.
    ///
    /// # Safety
    /// `head` must point at a structure starting like `VkBaseOutStructure` whose chain is valid;
    /// the chain must not be read by anyone else until the returned value is dropped, except
    /// through `head` (the call down).
    pub unsafe fn unlink(
        head: *mut vk::BaseOutStructure<'static>,
        drop_types: &[vk::StructureType],
    ) -> Self {
        let mut edits = Vec::new();
        let mut prev = head;
        loop {
            // SAFETY: `prev` is `head` or a structure of the valid chain.
            let cur = unsafe { (*prev).p_next };
            if cur.is_null() {
                break;
            }
            // SAFETY: `cur` is a structure of the valid chain.
            let (s_type, next) = unsafe { ((*cur).s_type, (*cur).p_next) };
            if drop_types.contains(&s_type) {
                // The head is the caller's own copy: it is not restored (it may have moved by
                // the time this value is dropped).
                if prev != head {
                    edits.push((prev, cur));
                }
                // SAFETY: `prev` is writable for the duration (caller's contract).
                unsafe { (*prev).p_next = next };
            } else {
                prev = cur;
            }
        }
        Self { edits }
    }
}

impl Drop for Splice {
    fn drop(&mut self) {
        for &(prev, old) in self.edits.iter().rev() {
            // SAFETY: `prev` was writable when unlinked and the chain is still alive (the
            // caller keeps it alive until this value is dropped).
            unsafe { (*prev).p_next = old };
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn splice_unlinks_and_restores() {
        let mut c = vk::PhysicalDevicePresentWaitFeaturesKHR::default();
        let mut b = vk::PhysicalDevicePresentIdFeaturesKHR::default();
        let mut a = vk::PhysicalDeviceVulkan12Features::default();
        b.p_next = (&mut c as *mut vk::PhysicalDevicePresentWaitFeaturesKHR).cast();
        a.p_next = (&mut b as *mut vk::PhysicalDevicePresentIdFeaturesKHR).cast();
        let mut info = vk::DeviceCreateInfo {
            p_next: (&a as *const vk::PhysicalDeviceVulkan12Features).cast(),
            ..Default::default()
        };
        let head = (&mut info as *mut vk::DeviceCreateInfo).cast();
        // SAFETY: all structures live on this stack frame.
        let splice = unsafe {
            Splice::unlink(
                head,
                &[vk::StructureType::PHYSICAL_DEVICE_PRESENT_ID_FEATURES_KHR],
            )
        };
        assert_eq!(
            a.p_next,
            (&mut c as *mut vk::PhysicalDevicePresentWaitFeaturesKHR).cast()
        );
        // SAFETY: the chain is valid.
        assert!(unsafe { find::<vk::PhysicalDevicePresentIdFeaturesKHR>(info.p_next) }.is_none());
        drop(splice);
        assert_eq!(
            a.p_next,
            (&mut b as *mut vk::PhysicalDevicePresentIdFeaturesKHR).cast()
        );
    }
}
