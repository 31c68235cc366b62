//! Walking the loader's create-info chain to the next layer (LoaderLayerInterface.md, "Layer
//! Dispatch Initialization"): in `vkCreateInstance` / `vkCreateDevice` a layer finds the
//! loader's `VkLayer*CreateInfo` with `VK_LAYER_LINK_INFO`, reads the next layer's
//! `vkGet*ProcAddr` from the link it points at, and advances `pLayerInfo` to the following link
//! before calling down ("the layer must advance the link info for the next layer"), so the
//! next layer finds its own link. The loader's structures are the only ones a layer writes
//! through in the application's chain: they are the loader's, made for this.

use std::ffi::c_void;

use ash::vk;

use crate::loader::{
    LayerDeviceCreateInfo, LayerDeviceLink, LayerFunction, LayerInstanceCreateInfo,
    PfnGetPhysicalDeviceProcAddr, PfnSetDeviceLoaderData, LOADER_DEVICE_CREATE_INFO,
    LOADER_INSTANCE_CREATE_INFO,
};
use crate::next::{NextDevice, NextInstance};

/// The head both loader create infos share: `sType`, `pNext`, `function`.
#[repr(C)]
struct LoaderInfoHead {
    s_type: vk::StructureType,
    p_next: *const c_void,
    function: LayerFunction,
}

/// The first structure of type `s_type` whose `function` is `function` in a chain.
///
/// # Safety
/// `p_next` must be a valid `pNext` chain.
unsafe fn find_loader_info(
    mut p_next: *const c_void,
    s_type: vk::StructureType,
    function: LayerFunction,
) -> *mut c_void {
    while !p_next.is_null() {
        // SAFETY: every structure of a valid chain starts like VkBaseInStructure.
        let base = unsafe { &*p_next.cast::<vk::BaseInStructure>() };
        if base.s_type == s_type {
            // SAFETY: the sType says this is one of the loader's structures, which start with
            // this head.
            if unsafe { (*p_next.cast::<LoaderInfoHead>()).function } == function {
                return p_next.cast_mut();
            }
        }
        p_next = base.p_next.cast();
    }
    std::ptr::null_mut()
}

/// The loader's `VkLayerInstanceCreateInfo` with `function` in a create-info chain, or null.
///
/// # Safety
/// `p_next` must be a valid Vulkan `pNext` chain.
pub unsafe fn find_instance_info(
    p_next: *const c_void,
    function: LayerFunction,
) -> *mut LayerInstanceCreateInfo {
    // SAFETY: the caller's contract.
    unsafe { find_loader_info(p_next, LOADER_INSTANCE_CREATE_INFO, function).cast() }
}

/// The loader's `VkLayerDeviceCreateInfo` with `function` in a create-info chain, or null.
///
/// # Safety
/// `p_next` must be a valid Vulkan `pNext` chain.
pub unsafe fn find_device_info(
    p_next: *const c_void,
    function: LayerFunction,
) -> *mut LayerDeviceCreateInfo {
    // SAFETY: the caller's contract.
    unsafe { find_loader_info(p_next, LOADER_DEVICE_CREATE_INFO, function).cast() }
}

/// This layer's place in an instance chain, taken from the loader's create info.
#[derive(Clone, Copy)]
pub struct InstanceLink {
    /// The next layer's `vkGetInstanceProcAddr`.
    pub next_gipa: vk::PFN_vkGetInstanceProcAddr,
    /// The next layer's `vk_layerGetPhysicalDeviceProcAddr`, if it has one.
    pub next_gpdpa: Option<PfnGetPhysicalDeviceProcAddr>,
}

impl InstanceLink {
    /// Finds this layer's link in `ci` and advances the loader's `pLayerInfo` for the next
    /// layer. `None` if the loader chained no link (the layer was not loaded by a loader).
    ///
    /// # Safety
    /// `ci` must be the create info of a `vkCreateInstance` call the loader made to this
    /// layer; call once per call (each call advances the chain by one layer).
    pub unsafe fn take(ci: &vk::InstanceCreateInfo<'_>) -> Option<Self> {
        // SAFETY: the chain is valid (caller's contract).
        let info = unsafe { find_instance_info(ci.p_next, LayerFunction::LINK_INFO) };
        // SAFETY: a non-null info is the loader's, valid and writable for this call.
        let link = unsafe { info.as_mut() }?;
        // SAFETY: the loader's link list, valid for this call.
        let own = unsafe { link.p_layer_info.as_ref() }?;
        link.p_layer_info = own.p_next;
        Some(Self {
            next_gipa: own.pfn_next_get_instance_proc_addr,
            next_gpdpa: own.pfn_next_get_physical_device_proc_addr,
        })
    }

    /// The next layer's `vkCreateInstance`.
    pub fn create_instance(&self) -> Option<vk::PFN_vkCreateInstance> {
        // SAFETY: a global command looked up with a null instance, as the loader interface
        // allows for vkCreateInstance.
        let f = unsafe { (self.next_gipa)(vk::Instance::null(), c"vkCreateInstance".as_ptr()) }?;
        // SAFETY: the next layer returned this pointer for vkCreateInstance.
        Some(unsafe {
            std::mem::transmute::<unsafe extern "system" fn(), vk::PFN_vkCreateInstance>(f)
        })
    }

    /// A layer's whole part in the chain walk of `vkCreateInstance`: takes this layer's link
    /// from `ci` (advancing it), has `call_down` call the next layer's `vkCreateInstance`
    /// (with the application's arguments or the layer's edited copy, writing to `out`), and on
    /// success returns the next layer's entry points bound to the new instance. The error is
    /// what the layer's `vkCreateInstance` returns: `VK_ERROR_INITIALIZATION_FAILED` without a
    /// link, else the next layer's error.
    ///
    /// # Safety
    /// As [`take`](Self::take); `out` must be the application's output pointer, written by
    /// `call_down` when it returns `VK_SUCCESS`.
    pub unsafe fn create(
        ci: &vk::InstanceCreateInfo<'_>,
        out: *mut vk::Instance,
        call_down: impl FnOnce(vk::PFN_vkCreateInstance) -> vk::Result,
    ) -> Result<NextInstance, vk::Result> {
        // SAFETY: the caller's contract.
        let link = unsafe { Self::take(ci) }.ok_or(vk::Result::ERROR_INITIALIZATION_FAILED)?;
        let next_create = link
            .create_instance()
            .ok_or(vk::Result::ERROR_INITIALIZATION_FAILED)?;
        match call_down(next_create) {
            // SAFETY: creation succeeded, so `*out` is the new instance.
            vk::Result::SUCCESS => Ok(link.bind(unsafe { *out })),
            error => Err(error),
        }
    }

    /// The next layer's entry points bound to the instance it created (the commands the
    /// layer calls down are looked up now).
    pub fn bind(self, handle: vk::Instance) -> NextInstance {
        NextInstance::new(handle, self.next_gipa, self.next_gpdpa)
    }
}

/// This layer's place in a device chain, taken from the loader's create info.
#[derive(Clone, Copy)]
pub struct DeviceLink {
    /// The next layer's `vkGetInstanceProcAddr` (for `vkCreateDevice`).
    pub next_gipa: vk::PFN_vkGetInstanceProcAddr,
    /// The next layer's `vkGetDeviceProcAddr`.
    pub next_gdpa: vk::PFN_vkGetDeviceProcAddr,
}

impl DeviceLink {
    /// Finds this layer's link in `ci` and advances the loader's `pLayerInfo` for the next
    /// layer. `None` if the loader chained no link.
    ///
    /// # Safety
    /// `ci` must be the create info of a `vkCreateDevice` call the loader made to this layer;
    /// call once per call.
    pub unsafe fn take(ci: &vk::DeviceCreateInfo<'_>) -> Option<Self> {
        // SAFETY: the chain is valid (caller's contract).
        let info = unsafe { find_device_info(ci.p_next, LayerFunction::LINK_INFO) };
        // SAFETY: a non-null info is the loader's, valid and writable for this call.
        let info = unsafe { info.as_mut() }?;
        // SAFETY: with LINK_INFO the union holds `pLayerInfo`, the loader's link list.
        let own = unsafe { info.u.cast::<LayerDeviceLink>().as_ref() }?;
        info.u = own.p_next.cast();
        Some(Self {
            next_gipa: own.pfn_next_get_instance_proc_addr,
            next_gdpa: own.pfn_next_get_device_proc_addr,
        })
    }

    /// The next layer's `vkCreateDevice`, looked up with the physical device's instance.
    ///
    /// # Safety
    /// `instance` must be a valid instance (the one the physical device belongs to).
    pub unsafe fn create_device(&self, instance: vk::Instance) -> Option<vk::PFN_vkCreateDevice> {
        // SAFETY: the caller's contract.
        let f = unsafe { (self.next_gipa)(instance, c"vkCreateDevice".as_ptr()) }?;
        // SAFETY: the next layer returned this pointer for vkCreateDevice.
        Some(unsafe {
            std::mem::transmute::<unsafe extern "system" fn(), vk::PFN_vkCreateDevice>(f)
        })
    }

    /// A layer's whole part in the chain walk of `vkCreateDevice`, as
    /// [`InstanceLink::create`]: `instance` is the physical device's instance (the next
    /// layer's `vkCreateDevice` is looked up with it).
    ///
    /// # Safety
    /// As [`take`](Self::take); `instance` must be valid; `out` must be the application's
    /// output pointer, written by `call_down` when it returns `VK_SUCCESS`.
    pub unsafe fn create(
        ci: &vk::DeviceCreateInfo<'_>,
        instance: vk::Instance,
        out: *mut vk::Device,
        call_down: impl FnOnce(vk::PFN_vkCreateDevice) -> vk::Result,
    ) -> Result<NextDevice, vk::Result> {
        // SAFETY: the caller's contract.
        let link = unsafe { Self::take(ci) }.ok_or(vk::Result::ERROR_INITIALIZATION_FAILED)?;
        // SAFETY: the caller's contract.
        let next_create = unsafe { link.create_device(instance) }
            .ok_or(vk::Result::ERROR_INITIALIZATION_FAILED)?;
        match call_down(next_create) {
            // SAFETY: creation succeeded, so `*out` is the new device.
            vk::Result::SUCCESS => Ok(link.bind(unsafe { *out })),
            error => Err(error),
        }
    }

    /// The next layer's device entry points bound to the device it created (the commands the
    /// layer calls down are looked up now).
    pub fn bind(self, handle: vk::Device) -> NextDevice {
        NextDevice::new(handle, self.next_gdpa)
    }
}

/// The loader's `vkSetDeviceLoaderData` callback in a device create info, if chained: a layer
/// that creates dispatchable objects itself (command buffers) must give them the loader's
/// dispatch pointer with it.
///
/// # Safety
/// `ci`'s chain must be valid.
pub unsafe fn set_device_loader_data(
    ci: &vk::DeviceCreateInfo<'_>,
) -> Option<PfnSetDeviceLoaderData> {
    // SAFETY: the caller's contract.
    let info = unsafe { find_device_info(ci.p_next, LayerFunction::LOADER_DATA_CALLBACK) };
    // SAFETY: a non-null info is the loader's.
    let u = unsafe { info.as_ref() }?.u;
    // SAFETY: with LOADER_DATA_CALLBACK the union holds the callback (or null).
    (!u.is_null()).then(|| unsafe { std::mem::transmute::<*mut c_void, PfnSetDeviceLoaderData>(u) })
}

#[cfg(test)]
mod tests {
    use std::cell::Cell;
    use std::ffi::c_char;

    use super::*;
    use crate::loader::{LayerInstanceCreateInfo, LayerInstanceLink};

    // The fake next layers are told apart by calling them (each records its name), not by
    // their addresses: the compiler may merge functions with the same code, and one function
    // may have more than one address.
    thread_local! {
        static CALLED: Cell<&'static str> = const { Cell::new("") };
    }

    fn record(name: &'static str) {
        CALLED.with(|c| c.set(name));
    }

    /// The name the last fake called recorded.
    fn called() -> &'static str {
        CALLED.with(|c| c.replace(""))
    }

    unsafe extern "system" fn gipa_a(_: vk::Instance, _: *const c_char) -> vk::PFN_vkVoidFunction {
        record("gipa_a");
        None
    }
    unsafe extern "system" fn gipa_b(_: vk::Instance, _: *const c_char) -> vk::PFN_vkVoidFunction {
        record("gipa_b");
        None
    }
    unsafe extern "system" fn gdpa_a(_: vk::Device, _: *const c_char) -> vk::PFN_vkVoidFunction {
        record("gdpa_a");
        None
    }
    unsafe extern "system" fn gdpa_b(_: vk::Device, _: *const c_char) -> vk::PFN_vkVoidFunction {
        record("gdpa_b");
        None
    }
    unsafe extern "system" fn set_data(_: vk::Device, _: *mut c_void) -> vk::Result {
        record("set_data");
        vk::Result::SUCCESS
    }

    /// Which fake an instance-level lookup is.
    fn which_gipa(f: vk::PFN_vkGetInstanceProcAddr) -> &'static str {
        // SAFETY: the fakes read nothing.
        unsafe { f(vk::Instance::null(), c"vkProbe".as_ptr()) };
        called()
    }

    /// Which fake a device-level lookup is.
    fn which_gdpa(f: vk::PFN_vkGetDeviceProcAddr) -> &'static str {
        // SAFETY: the fakes read nothing.
        unsafe { f(vk::Device::null(), c"vkProbe".as_ptr()) };
        called()
    }

    /// Two layers' links below this one, behind an unrelated structure and the loader's
    /// callback structure: each take hands out one layer's entry points and advances the list.
    #[test]
    fn instance_links_are_taken_in_order_and_advanced() {
        let mut below = LayerInstanceLink {
            p_next: std::ptr::null_mut(),
            pfn_next_get_instance_proc_addr: gipa_b,
            pfn_next_get_physical_device_proc_addr: None,
        };
        let mut next = LayerInstanceLink {
            p_next: &mut below,
            pfn_next_get_instance_proc_addr: gipa_a,
            pfn_next_get_physical_device_proc_addr: None,
        };
        let mut link_info = LayerInstanceCreateInfo {
            s_type: LOADER_INSTANCE_CREATE_INFO,
            p_next: std::ptr::null(),
            function: LayerFunction::LINK_INFO,
            p_layer_info: &mut next,
        };
        let callback = LayerInstanceCreateInfo {
            s_type: LOADER_INSTANCE_CREATE_INFO,
            p_next: (&mut link_info as *mut LayerInstanceCreateInfo).cast(),
            function: LayerFunction::LOADER_DATA_CALLBACK,
            p_layer_info: std::ptr::null_mut(),
        };
        let app = vk::ValidationFeaturesEXT {
            p_next: (&callback as *const LayerInstanceCreateInfo).cast(),
            ..Default::default()
        };
        let ci = vk::InstanceCreateInfo {
            p_next: (&app as *const vk::ValidationFeaturesEXT).cast(),
            ..Default::default()
        };
        // SAFETY: the chain lives on this frame.
        let first = unsafe { InstanceLink::take(&ci) }.map(|l| which_gipa(l.next_gipa));
        assert_eq!(first, Some("gipa_a"));
        // SAFETY: as above.
        let second = unsafe { InstanceLink::take(&ci) }.map(|l| which_gipa(l.next_gipa));
        assert_eq!(second, Some("gipa_b"));
        // SAFETY: as above.
        assert!(unsafe { InstanceLink::take(&ci) }.is_none());
        assert!(link_info.p_layer_info.is_null());
    }

    #[test]
    fn device_link_and_loader_callback_are_found_by_function() {
        let mut below = LayerDeviceLink {
            p_next: std::ptr::null_mut(),
            pfn_next_get_instance_proc_addr: gipa_b,
            pfn_next_get_device_proc_addr: gdpa_b,
        };
        let mut next = LayerDeviceLink {
            p_next: &mut below,
            pfn_next_get_instance_proc_addr: gipa_a,
            pfn_next_get_device_proc_addr: gdpa_a,
        };
        let callback = LayerDeviceCreateInfo {
            s_type: LOADER_DEVICE_CREATE_INFO,
            p_next: std::ptr::null(),
            function: LayerFunction::LOADER_DATA_CALLBACK,
            u: set_data as PfnSetDeviceLoaderData as *mut c_void,
        };
        let link_info = LayerDeviceCreateInfo {
            s_type: LOADER_DEVICE_CREATE_INFO,
            p_next: (&callback as *const LayerDeviceCreateInfo).cast(),
            function: LayerFunction::LINK_INFO,
            u: (&mut next as *mut LayerDeviceLink).cast(),
        };
        let ci = vk::DeviceCreateInfo {
            p_next: (&link_info as *const LayerDeviceCreateInfo).cast(),
            ..Default::default()
        };
        // SAFETY: the chain lives on this frame.
        let link = unsafe { DeviceLink::take(&ci) }
            .map(|l| (which_gipa(l.next_gipa), which_gdpa(l.next_gdpa)));
        assert_eq!(link, Some(("gipa_a", "gdpa_a")));
        assert_eq!(link_info.u, (&mut below as *mut LayerDeviceLink).cast());
        // SAFETY: as above.
        let set = unsafe { set_device_loader_data(&ci) }.map(|set| {
            // SAFETY: the fake reads nothing.
            let _ = unsafe { set(vk::Device::null(), std::ptr::null_mut()) };
            called()
        });
        assert_eq!(set, Some("set_data"));
        // A chain without the loader's structures (not loaded by a loader).
        let bare = vk::DeviceCreateInfo::default();
        // SAFETY: an empty chain.
        unsafe {
            assert!(DeviceLink::take(&bare).is_none());
            assert!(set_device_loader_data(&bare).is_none());
        }
    }

    unsafe extern "system" fn fake_create(
        _: *const vk::InstanceCreateInfo<'_>,
        _: *const vk::AllocationCallbacks<'_>,
        _: *mut vk::Instance,
    ) -> vk::Result {
        record("fake_create");
        vk::Result::SUCCESS
    }

    /// A next layer that offers only `vkCreateInstance`.
    unsafe extern "system" fn gipa_create(
        _: vk::Instance,
        name: *const c_char,
    ) -> vk::PFN_vkVoidFunction {
        record("gipa_create");
        // SAFETY: the callers pass C strings.
        let wanted = unsafe { std::ffi::CStr::from_ptr(name) } == c"vkCreateInstance";
        // SAFETY: erasing the function's type, as a GetInstanceProcAddr does.
        wanted.then(|| unsafe {
            std::mem::transmute::<vk::PFN_vkCreateInstance, unsafe extern "system" fn()>(
                fake_create,
            )
        })
    }

    /// `create` with a one-link chain whose next layer is `next_gipa`, `call_down` writing a
    /// handle and returning `result`; the created instance's handle and next lookup.
    fn create_with(
        next_gipa: vk::PFN_vkGetInstanceProcAddr,
        result: vk::Result,
    ) -> Result<(vk::Instance, &'static str), vk::Result> {
        let mut next = LayerInstanceLink {
            p_next: std::ptr::null_mut(),
            pfn_next_get_instance_proc_addr: next_gipa,
            pfn_next_get_physical_device_proc_addr: None,
        };
        let link_info = LayerInstanceCreateInfo {
            s_type: LOADER_INSTANCE_CREATE_INFO,
            p_next: std::ptr::null(),
            function: LayerFunction::LINK_INFO,
            p_layer_info: &mut next,
        };
        let ci = vk::InstanceCreateInfo {
            p_next: (&link_info as *const LayerInstanceCreateInfo).cast(),
            ..Default::default()
        };
        let mut out = vk::Instance::null();
        let out_ptr: *mut vk::Instance = &mut out;
        // SAFETY: the chain and `out` live on this frame.
        let created = unsafe {
            InstanceLink::create(&ci, out_ptr, |create| {
                let _ = create(std::ptr::null(), std::ptr::null(), std::ptr::null_mut());
                assert_eq!(
                    called(),
                    "fake_create",
                    "call_down gets the next vkCreateInstance"
                );
                *out_ptr = vk::Handle::from_raw(0x5000);
                result
            })
        };
        created.map(|next| (next.handle, which_gipa(next.gipa)))
    }

    #[test]
    fn create_binds_the_new_instance_or_passes_the_error_up() {
        let created = create_with(gipa_create, vk::Result::SUCCESS);
        assert_eq!(created, Ok((vk::Handle::from_raw(0x5000), "gipa_create")));
        let failed = create_with(gipa_create, vk::Result::ERROR_LAYER_NOT_PRESENT);
        assert_eq!(failed, Err(vk::Result::ERROR_LAYER_NOT_PRESENT));
        // A next layer without vkCreateInstance: the layer's creation fails, nothing is called.
        let none = create_with(gipa_a, vk::Result::SUCCESS);
        assert_eq!(none, Err(vk::Result::ERROR_INITIALIZATION_FAILED));
    }
}
