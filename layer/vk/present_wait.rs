//! Display feedback with `VK_KHR_present_id` and `VK_KHR_present_wait`: when each frame was
//! actually shown, for the low-latency policy (which then aims at the display's next refresh
//! instead of only keeping the GPU busy) and for the telemetry.
//!
//! Every present carries an id (`VkPresentIdKHR`) that grows by one per frame, across
//! swapchains too: ids must grow per swapchain (`VUID-VkPresentIdKHR-presentIds-04999`), and one
//! counter for all of them keeps that true after a recreation. Once per frame vkpace asks
//! `vkWaitForPresentKHR` with a timeout of zero whether the oldest frame not yet known shown has
//! been: `VK_SUCCESS` means the swapchain's present id reached it, `VK_TIMEOUT` not yet. The
//! display time is when vkpace saw it (at most a frame late), never a blocking wait.
//!
//! Lavapipe offers neither extension, so this code is not exercised on the test driver; the
//! pacing decisions it feeds (`Pacing::frame_displayed`) are, in the simulation.

use std::collections::VecDeque;
use std::ffi::CStr;

use ash::vk;

use super::error::{Error, Result};
use super::extensions::device_offers;

/// The device extensions display feedback needs. Enable both, with the `presentId` and
/// `presentWait` features, then set [`super::SwapchainConfig::present_wait`].
pub const PRESENT_WAIT_DEVICE_EXTENSIONS: [&CStr; 2] =
    [ash::khr::present_id::NAME, ash::khr::present_wait::NAME];

/// Frames whose display is awaited at most; older ones are given up (a display that stopped
/// reporting must not grow a queue).
const MAX_AWAITED: usize = 16;

/// What a device offers for display feedback.
#[derive(Copy, Clone, Debug, Default, PartialEq, Eq)]
pub struct PresentWaitSupport {
    /// Both [`PRESENT_WAIT_DEVICE_EXTENSIONS`] are available on the physical device.
    pub extensions: bool,
    /// The `presentId` and `presentWait` features are supported (queried only when the
    /// extensions are).
    pub features: bool,
}

impl PresentWaitSupport {
    /// Whether display feedback can be used.
    #[must_use]
    pub fn usable(&self) -> bool {
        self.extensions && self.features
    }

    /// Checks `physical`.
    ///
    /// # Safety
    ///
    /// `physical` must come from `instance`, a Vulkan 1.1+ instance (for
    /// `vkGetPhysicalDeviceFeatures2`).
    ///
    /// ```no_run
    /// # fn f(instance: &ash::Instance, physical: ash::vk::PhysicalDevice) -> vkpace::vk::Result<()> {
    /// // SAFETY: `physical` comes from `instance`, a Vulkan 1.3 instance.
    /// let support = unsafe { vkpace::vk::PresentWaitSupport::query(instance, physical) }?;
    /// if support.usable() {
    ///     // enable vkpace::vk::PRESENT_WAIT_DEVICE_EXTENSIONS and both features, then set
    ///     // SwapchainConfig::present_wait
    /// }
    /// # Ok(()) }
    /// ```
    pub unsafe fn query(instance: &ash::Instance, physical: vk::PhysicalDevice) -> Result<Self> {
        // SAFETY: `physical` comes from `instance` (caller contract).
        let extensions =
            unsafe { device_offers(instance, physical, &PRESENT_WAIT_DEVICE_EXTENSIONS) }?;
        let mut features = false;
        if extensions {
            let mut id = vk::PhysicalDevicePresentIdFeaturesKHR::default();
            let mut wait = vk::PhysicalDevicePresentWaitFeaturesKHR::default();
            let mut f2 = vk::PhysicalDeviceFeatures2::default()
                .push_next(&mut id)
                .push_next(&mut wait);
            // SAFETY: 1.1+ instance (caller contract); the chain holds structs of extensions
            // the device supports.
            unsafe { instance.get_physical_device_features2(physical, &mut f2) };
            features = id.present_id == vk::TRUE && wait.present_wait == vk::TRUE;
        }
        Ok(Self {
            extensions,
            features,
        })
    }
}

/// The presents whose display is awaited, and the id counter.
pub(crate) struct DisplayFeedback {
    fns: ash::khr::present_wait::Device,
    /// Id of the next present (ids start at 1; 0 means "no id").
    next_id: u64,
    /// The swapchain the awaited presents went to.
    swapchain: vk::SwapchainKHR,
    /// (frame number, present id), oldest first.
    awaited: VecDeque<(u64, u64)>,
}

impl DisplayFeedback {
    /// Loads `vkWaitForPresentKHR`; an error if the device did not enable the extension.
    pub(crate) fn new(instance: &ash::Instance, device: &ash::Device) -> Result<Self> {
        // A device returns no entry point for an extension it did not enable (spec,
        // vkGetDeviceProcAddr), so this tells whether the caller really enabled it.
        // SAFETY: valid device of `instance` (constructor contract of the swapchain).
        let loaded = unsafe {
            instance.get_device_proc_addr(device.handle(), c"vkWaitForPresentKHR".as_ptr())
        };
        if loaded.is_none() {
            return Err(Error::InvalidConfig(
                "present_wait needs VK_KHR_present_id and VK_KHR_present_wait enabled on the device",
            ));
        }
        Ok(Self {
            fns: ash::khr::present_wait::Device::new(instance, device),
            next_id: 1,
            swapchain: vk::SwapchainKHR::null(),
            awaited: VecDeque::with_capacity(MAX_AWAITED),
        })
    }

    /// The id for the next present.
    pub(crate) fn next_id(&self) -> u64 {
        self.next_id
    }

    /// Frame `frame` was queued on `swapchain` with [`DisplayFeedback::next_id`].
    pub(crate) fn presented(&mut self, swapchain: vk::SwapchainKHR, frame: u64) {
        if swapchain != self.swapchain {
            // A new swapchain: the old one's presents are not asked about any more (a retired
            // swapchain must not be waited on, VUID-vkWaitForPresentKHR-swapchain-04997).
            self.awaited.clear();
            self.swapchain = swapchain;
        }
        if self.awaited.len() == MAX_AWAITED {
            self.awaited.pop_front();
        }
        self.awaited.push_back((frame, self.next_id));
        self.next_id += 1;
    }

    /// The swapchain is being retired: forget what was awaited on it.
    pub(crate) fn retired(&mut self) {
        self.awaited.clear();
        self.swapchain = vk::SwapchainKHR::null();
    }

    /// Asks, without waiting, which awaited frames were shown; `shown` gets each frame number,
    /// oldest first.
    pub(crate) fn poll(&mut self, mut shown: impl FnMut(u64)) -> Result<()> {
        while let Some(&(frame, id)) = self.awaited.front() {
            // SAFETY: the swapchain is the current, non-retired one (`retired` clears the
            // queue first, VUID-vkWaitForPresentKHR-swapchain-04997); the id was given to a
            // present on it; a zero timeout never blocks.
            let r = unsafe { self.fns.wait_for_present(self.swapchain, id, 0) };
            match r {
                // SUBOPTIMAL is a success code here: shown, on a swapchain due for recreation.
                Ok(()) | Err(vk::Result::SUBOPTIMAL_KHR) => {
                    self.awaited.pop_front();
                    shown(frame);
                }
                Err(vk::Result::TIMEOUT) => break,
                Err(vk::Result::ERROR_OUT_OF_DATE_KHR) => {
                    // The swapchain will be recreated; its presents report no more.
                    self.awaited.clear();
                    break;
                }
                Err(e) => return Err(Error::vk("vkWaitForPresentKHR", e)),
            }
        }
        Ok(())
    }
}
