//! Virtual surfaces: every `vkCreateHeadlessSurfaceEXT` while the layer is active makes one (a
//! handle of the layer's, never seen by the driver), and so does every X11 or Wayland surface
//! creation with `window_surfaces = virtual`, and the layer answers every surface query
//! for it. Queries about other surfaces go down the chain unchanged.
//!
//! A virtual surface is a display with a refresh grid (epoch = creation time) and a current
//! extent that can change at any time (the control functions, the resize fault): a swapchain of
//! another extent is then out of date (or suboptimal, if created with a scaling behaviour), and
//! 0x0 means minimized (VkSurfaceCapabilitiesKHR: no swapchain can be created). A window
//! surface made virtual has the same extent: the window's own size is not followed.

use std::sync::{Arc, Mutex, MutexGuard};

use ash::vk;

use crate::clock::now_ns;
use crate::handles::{self, SURFACES};
use crate::instance::Instance;
use crate::settings::{DisplayColorSpace, ModeCompat, Settings};
use vkpace_layer_plumbing::DispatchKey;

/// The present modes of a virtual display.
pub const PRESENT_MODES: [vk::PresentModeKHR; 4] = [
    vk::PresentModeKHR::FIFO,
    vk::PresentModeKHR::FIFO_RELAXED,
    vk::PresentModeKHR::MAILBOX,
    vk::PresentModeKHR::IMMEDIATE,
];

/// Mutable state of a virtual surface.
#[derive(Debug)]
pub struct SurfaceState {
    /// Current extent (0x0: minimized).
    pub extent: vk::Extent2D,
    /// Lost (fault or control function): every query and present fails with SURFACE_LOST.
    pub lost: bool,
    /// Presents made to it so far (drives the resize and surface-lost faults).
    pub presents: u64,
    /// The swapchain that is not retired, if any (handle).
    pub current_swapchain: u64,
    /// Swapchains created on it so far (seeds each swapchain's faults reproducibly).
    pub swapchains_made: u64,
    resize_index: usize,
    /// Capability queries since the resize fault made the extent zero.
    queries_while_minimized: u64,
}

/// One virtual surface (display).
#[derive(Debug)]
pub struct Surface {
    /// The layer's handle.
    pub handle: u64,
    /// Creation order, for the log.
    pub seq: u64,
    /// Dispatch key of its instance.
    pub instance_key: DispatchKey,
    /// A vertical blank of its refresh grid.
    pub epoch_ns: u64,
    /// Its refresh period.
    pub period_ns: u64,
    /// HDR color spaces may be reported (VK_EXT_swapchain_colorspace is enabled).
    pub colorspace_ext: bool,
    /// Settings of its instance.
    pub settings: Settings,
    state: Mutex<SurfaceState>,
}

impl Surface {
    /// Locks the mutable state.
    pub fn state(&self) -> MutexGuard<'_, SurfaceState> {
        self.state.lock().unwrap_or_else(|e| e.into_inner())
    }

    /// Current extent.
    pub fn extent(&self) -> vk::Extent2D {
        self.state().extent
    }

    /// Whether the surface is lost.
    pub fn is_lost(&self) -> bool {
        self.state().lost
    }

    /// Counts one present and applies the resize-every-K and surface-lost faults.
    pub fn note_present(&self) {
        let s = &self.settings;
        let mut st = self.state();
        st.presents += 1;
        if s.fault_surface_lost_after > 0 && st.presents >= s.fault_surface_lost_after {
            st.lost = true;
        }
        if s.fault_resize_every > 0 && st.presents.is_multiple_of(s.fault_resize_every) {
            next_fault_extent(s, &mut st);
        }
    }

    /// Counts one capability query. While the extent is zero (minimized) the resize fault
    /// moves on every K queries instead of every K presents: an application presents nothing
    /// then (no swapchain can be made at a zero extent,
    /// VUID-VkSwapchainCreateInfoKHR-imageExtent-01689) and learns that the display is back
    /// only from these queries, so counting presents would keep it minimized for ever.
    pub fn note_capability_query(&self) {
        let s = &self.settings;
        let mut st = self.state();
        if s.fault_resize_every == 0 || (st.extent.width > 0 && st.extent.height > 0) {
            return;
        }
        st.queries_while_minimized += 1;
        if st.queries_while_minimized >= s.fault_resize_every {
            next_fault_extent(s, &mut st);
        }
    }

    /// The modes `mode` can be switched to without recreation (maintenance1), itself first.
    pub fn compatible_modes(&self, mode: vk::PresentModeKHR) -> Vec<vk::PresentModeKHR> {
        let queued = |m: vk::PresentModeKHR| {
            matches!(
                m,
                vk::PresentModeKHR::FIFO | vk::PresentModeKHR::FIFO_RELAXED
            )
        };
        let mut out = vec![mode];
        for m in PRESENT_MODES {
            let same_class =
                self.settings.mode_compat == ModeCompat::All || queued(m) == queued(mode);
            if m != mode && same_class && PRESENT_MODES.contains(&mode) {
                out.push(m);
            }
        }
        out
    }

    /// The surface formats: those of the `color_spaces` setting, in its order. Color spaces
    /// other than `SRGB_NONLINEAR_KHR` only when the instance enabled
    /// VK_EXT_swapchain_colorspace (the only way an application may use them); if that leaves
    /// none, the sRGB ones, since a surface reports at least one format pair
    /// (vkGetPhysicalDeviceSurfaceFormatsKHR: "The number of format pairs supported must be
    /// greater than or equal to 1").
    pub fn formats(&self) -> Vec<vk::SurfaceFormatKHR> {
        let allowed = |cs: &DisplayColorSpace| self.colorspace_ext || !cs.needs_colorspace_ext();
        let mut spaces: Vec<DisplayColorSpace> = self
            .settings
            .color_spaces
            .iter()
            .copied()
            .filter(allowed)
            .collect();
        if spaces.is_empty() {
            spaces.push(DisplayColorSpace::Srgb);
        }
        spaces
            .into_iter()
            .flat_map(|cs| {
                cs.formats()
                    .iter()
                    .map(move |&format| vk::SurfaceFormatKHR {
                        format,
                        color_space: cs.color_space(),
                    })
            })
            .collect()
    }

    /// The basic capabilities (VkSurfaceCapabilitiesKHR). The extent range is the current
    /// extent (a virtual display does not scale unless a swapchain asks for a scaling
    /// behaviour, see VkSurfacePresentScalingCapabilitiesEXT).
    pub fn capabilities(&self) -> vk::SurfaceCapabilitiesKHR {
        let extent = self.extent();
        vk::SurfaceCapabilitiesKHR {
            min_image_count: self.settings.min_images,
            max_image_count: self.settings.max_images.max(self.settings.min_images),
            current_extent: extent,
            min_image_extent: extent,
            max_image_extent: extent,
            max_image_array_layers: 1,
            supported_transforms: vk::SurfaceTransformFlagsKHR::IDENTITY,
            current_transform: vk::SurfaceTransformFlagsKHR::IDENTITY,
            supported_composite_alpha: vk::CompositeAlphaFlagsKHR::OPAQUE,
            supported_usage_flags: vk::ImageUsageFlags::TRANSFER_SRC
                | vk::ImageUsageFlags::TRANSFER_DST
                | vk::ImageUsageFlags::SAMPLED
                | vk::ImageUsageFlags::STORAGE
                | vk::ImageUsageFlags::COLOR_ATTACHMENT
                | vk::ImageUsageFlags::INPUT_ATTACHMENT,
        }
    }
}

/// The next extent of the resize fault's cycle.
fn next_fault_extent(s: &Settings, st: &mut SurfaceState) {
    if let Some(n) = std::num::NonZeroUsize::new(s.fault_resize_extents.len()) {
        st.extent = s.fault_resize_extents[st.resize_index % n];
        st.resize_index += 1;
        st.queries_while_minimized = 0;
    }
}

/// The virtual surface with handle `surface`, if it is one.
pub fn lookup(surface: vk::SurfaceKHR) -> Option<Arc<Surface>> {
    use ash::vk::Handle;
    let raw = surface.as_raw();
    if handles::is_ours(raw) {
        SURFACES.get(raw)
    } else {
        None
    }
}

/// `vkCreateHeadlessSurfaceEXT`: makes a virtual surface (nothing is created in the driver).
///
/// # Safety
/// Valid arguments of the command.
pub unsafe fn create_headless(instance: vk::Instance, out: *mut vk::SurfaceKHR) -> vk::Result {
    use ash::vk::Handle;
    // SAFETY: a valid instance handle.
    let key = unsafe { DispatchKey::of(instance) };
    let Some(inst) = crate::handles::INSTANCES.get(key) else {
        return vk::Result::ERROR_INITIALIZATION_FAILED;
    };
    let surface = new_surface(&inst, key);
    let handle = surface.handle;
    SURFACES.insert(handle, Arc::new(surface));
    // SAFETY: `out` is a valid out-pointer.
    unsafe { *out = vk::SurfaceKHR::from_raw(handle) };
    vk::Result::SUCCESS
}

/// `vkCreateXcbSurfaceKHR`, `vkCreateXlibSurfaceKHR`, `vkCreateWaylandSurfaceKHR` (`name`):
/// with `window_surfaces = virtual` a virtual surface, as for a headless one (the window is
/// left alone), so a program that only knows windows (vkcube) runs over vdisplay unmodified;
/// otherwise the next layer's command, through `down`.
///
/// # Safety
/// Valid arguments of the command; `down` calls the next layer's command with them.
pub unsafe fn create_window(
    instance: vk::Instance,
    name: &std::ffi::CStr,
    out: *mut vk::SurfaceKHR,
    down: impl FnOnce(unsafe extern "system" fn()) -> vk::Result,
) -> vk::Result {
    // SAFETY: a valid instance handle.
    let key = unsafe { DispatchKey::of(instance) };
    let Some(inst) = crate::handles::INSTANCES.get(key) else {
        return vk::Result::ERROR_INITIALIZATION_FAILED;
    };
    if inst.settings.virtual_window_surfaces {
        // SAFETY: the caller's contract.
        return unsafe { create_headless(instance, out) };
    }
    let looked_up = vkpace_layer_plumbing::next::index(name).and_then(|i| inst.command(i));
    match looked_up {
        Some(f) => down(f),
        None => vk::Result::ERROR_EXTENSION_NOT_PRESENT,
    }
}

fn new_surface(inst: &Instance, key: DispatchKey) -> Surface {
    Surface {
        handle: handles::new_handle(),
        seq: handles::new_seq(),
        instance_key: key,
        epoch_ns: now_ns(),
        period_ns: inst.settings.refresh_ns(),
        colorspace_ext: inst.colorspace_ext,
        settings: inst.settings.clone(),
        state: Mutex::new(SurfaceState {
            extent: inst.settings.extent,
            lost: false,
            presents: 0,
            current_swapchain: 0,
            swapchains_made: 0,
            resize_index: 0,
            queries_while_minimized: 0,
        }),
    }
}

/// `vkDestroySurfaceKHR` for a virtual surface; false if `surface` is not one.
pub fn destroy(surface: vk::SurfaceKHR) -> bool {
    use ash::vk::Handle;
    PAUSED
        .lock()
        .unwrap_or_else(|e| e.into_inner())
        .retain(|h| *h != surface.as_raw());
    lookup(surface).is_some() && SURFACES.remove(surface.as_raw()).is_some()
}

/// Forgets the surfaces of a destroyed instance (the application should have destroyed them).
pub fn forget_instance(key: DispatchKey) {
    for s in SURFACES.filter(|s| s.instance_key == key) {
        SURFACES.remove(s.handle);
    }
}

/// Sets the current extent of every virtual surface (or of the one with sequence number
/// `seq`, if not 0). Returns how many changed.
pub fn set_extent(seq: u64, extent: vk::Extent2D) -> usize {
    let list = SURFACES.filter(|s| seq == 0 || s.seq == seq);
    for s in &list {
        s.state().extent = extent;
    }
    list.len()
}

/// Surfaces (by handle) whose display is paused: like a compositor that stopped repainting (a
/// hidden window, an idle timeout), nothing queued is shown and no image is handed back until
/// resumed, so acquires wait and time out.
static PAUSED: Mutex<Vec<u64>> = Mutex::new(Vec::new());

/// Pauses or resumes every virtual surface (or the one with sequence number `seq`); returns
/// how many.
pub fn set_paused(seq: u64, paused: bool) -> usize {
    let list = SURFACES.filter(|s| seq == 0 || s.seq == seq);
    let mut set = PAUSED.lock().unwrap_or_else(|e| e.into_inner());
    for s in &list {
        set.retain(|h| *h != s.handle);
        if paused {
            set.push(s.handle);
        }
    }
    list.len()
}

/// Whether the display of the surface with handle `handle` is paused.
pub fn is_paused(handle: u64) -> bool {
    PAUSED
        .lock()
        .unwrap_or_else(|e| e.into_inner())
        .contains(&handle)
}

/// Marks every virtual surface (or the one with sequence number `seq`) lost.
pub fn set_lost(seq: u64) -> usize {
    let list = SURFACES.filter(|s| seq == 0 || s.seq == seq);
    for s in &list {
        s.state().lost = true;
    }
    list.len()
}
