//! The loader's layer interface (`vk_layer.h`, LoaderLayerInterface.md): the structures the
//! Khronos loader chains into `VkInstanceCreateInfo` / `VkDeviceCreateInfo` to tell each layer
//! where the next one is, and the version negotiation structure. Only layers use them, so they
//! are defined here, once for every layer of the workspace, rather than in vkpace-registry (the
//! structures an application chains).

use std::ffi::{c_char, c_void};

use ash::vk;

/// `VK_STRUCTURE_TYPE_LOADER_INSTANCE_CREATE_INFO`.
pub const LOADER_INSTANCE_CREATE_INFO: vk::StructureType = vk::StructureType::from_raw(47);
/// `VK_STRUCTURE_TYPE_LOADER_DEVICE_CREATE_INFO`.
pub const LOADER_DEVICE_CREATE_INFO: vk::StructureType = vk::StructureType::from_raw(48);

/// `VkLayerFunction`: which member of the create-info union is valid.
#[repr(transparent)]
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct LayerFunction(pub i32);

impl LayerFunction {
    /// `VK_LAYER_LINK_INFO`: `u.pLayerInfo`, the next layer's entry points.
    pub const LINK_INFO: Self = Self(0);
    /// `VK_LOADER_DATA_CALLBACK`: `u.pfnSet*LoaderData`, for dispatchable objects a layer makes.
    pub const LOADER_DATA_CALLBACK: Self = Self(1);
}

/// `PFN_GetPhysicalDeviceProcAddr` (`vk_layerGetPhysicalDeviceProcAddr`).
pub type PfnGetPhysicalDeviceProcAddr =
    unsafe extern "system" fn(vk::Instance, *const c_char) -> vk::PFN_vkVoidFunction;

/// `PFN_vkSetDeviceLoaderData`: installs the loader's dispatch pointer in a dispatchable object
/// a layer creates behind the loader's back (command buffers, queues it fetches itself).
pub type PfnSetDeviceLoaderData = unsafe extern "system" fn(vk::Device, *mut c_void) -> vk::Result;

/// `VkLayerInstanceLink`.
#[repr(C)]
pub struct LayerInstanceLink {
    /// The link of the layer below the next one.
    pub p_next: *mut LayerInstanceLink,
    /// The next layer's `vkGetInstanceProcAddr`.
    pub pfn_next_get_instance_proc_addr: vk::PFN_vkGetInstanceProcAddr,
    /// The next layer's `vk_layerGetPhysicalDeviceProcAddr`, if any.
    pub pfn_next_get_physical_device_proc_addr: Option<PfnGetPhysicalDeviceProcAddr>,
}

/// `VkLayerInstanceCreateInfo` (only the union member a layer reads).
#[repr(C)]
pub struct LayerInstanceCreateInfo {
    /// `LOADER_INSTANCE_CREATE_INFO`.
    pub s_type: vk::StructureType,
    /// Next structure.
    pub p_next: *const c_void,
    /// Which union member is valid.
    pub function: LayerFunction,
    /// `u.pLayerInfo` when `function == LINK_INFO` (the union's other members are pointers of
    /// the same size, or a pair of them, which the layers never read).
    pub p_layer_info: *mut LayerInstanceLink,
}

/// `VkLayerDeviceLink`.
#[repr(C)]
pub struct LayerDeviceLink {
    /// The link of the layer below the next one.
    pub p_next: *mut LayerDeviceLink,
    /// The next layer's `vkGetInstanceProcAddr`.
    pub pfn_next_get_instance_proc_addr: vk::PFN_vkGetInstanceProcAddr,
    /// The next layer's `vkGetDeviceProcAddr`.
    pub pfn_next_get_device_proc_addr: vk::PFN_vkGetDeviceProcAddr,
}

/// `VkLayerDeviceCreateInfo`; `u` is `pLayerInfo` or `pfnSetDeviceLoaderData` by `function`.
#[repr(C)]
pub struct LayerDeviceCreateInfo {
    /// `LOADER_DEVICE_CREATE_INFO`.
    pub s_type: vk::StructureType,
    /// Next structure.
    pub p_next: *const c_void,
    /// Which union member is valid.
    pub function: LayerFunction,
    /// The union, read as a pointer-sized value.
    pub u: *mut c_void,
}

/// `LAYER_NEGOTIATE_INTERFACE_STRUCT`.
pub const LAYER_NEGOTIATE_INTERFACE_STRUCT: i32 = 1;

/// `VkNegotiateLayerInterface`.
#[repr(C)]
pub struct NegotiateLayerInterface {
    /// `LAYER_NEGOTIATE_INTERFACE_STRUCT`.
    pub s_type: i32,
    /// Reserved.
    pub p_next: *mut c_void,
    /// In: the loader's newest version; out: the version agreed.
    pub loader_layer_interface_version: u32,
    /// Out: the layer's `vkGetInstanceProcAddr`.
    pub pfn_get_instance_proc_addr: Option<vk::PFN_vkGetInstanceProcAddr>,
    /// Out: the layer's `vkGetDeviceProcAddr`.
    pub pfn_get_device_proc_addr: Option<vk::PFN_vkGetDeviceProcAddr>,
    /// Out: the layer's `vk_layerGetPhysicalDeviceProcAddr`.
    pub pfn_get_physical_device_proc_addr: Option<PfnGetPhysicalDeviceProcAddr>,
}
