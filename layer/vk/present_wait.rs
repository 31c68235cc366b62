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

/// The present ids given out and the presents whose display is awaited: the bookkeeping,
/// apart from the Vulkan call so it is tested on any driver.
#[derive(Debug)]
struct PresentIds {
    /// Id of the next present (ids start at 1; 0 means "no id").
    next_id: u64,
    /// The swapchain the awaited presents went to.
    swapchain: vk::SwapchainKHR,
    /// (frame number, present id), oldest first.
    awaited: VecDeque<(u64, u64)>,
}

impl PresentIds {
    fn new() -> Self {
        Self {
            next_id: 1,
            swapchain: vk::SwapchainKHR::null(),
            awaited: VecDeque::with_capacity(MAX_AWAITED),
        }
    }

    /// A present of frame `frame` to `swapchain` carried `next_id`; `queued` says whether the
    /// engine took it. The id is used up either way (ids must grow past every id passed
    /// before, so a failed present's is not given again).
    fn presented(&mut self, swapchain: vk::SwapchainKHR, frame: u64, queued: bool) {
        let id = self.next_id;
        self.next_id += 1;
        if !queued {
            return;
        }
        if swapchain != self.swapchain {
            // A new swapchain: the old one's presents are not asked about any more (a retired
            // swapchain must not be waited on, VUID-vkWaitForPresentKHR-swapchain-04997).
            self.awaited.clear();
            self.swapchain = swapchain;
        }
        if self.awaited.len() == MAX_AWAITED {
            self.awaited.pop_front();
        }
        self.awaited.push_back((frame, id));
    }

    fn retired(&mut self) {
        self.awaited.clear();
        self.swapchain = vk::SwapchainKHR::null();
    }

    /// Asks `wait(swapchain, id)` (a zero-timeout `vkWaitForPresentKHR`) about the awaited
    /// presents, oldest first, until one is not shown yet; `shown` gets each shown frame.
    fn poll(
        &mut self,
        mut wait: impl FnMut(vk::SwapchainKHR, u64) -> vk::Result,
        mut shown: impl FnMut(u64),
    ) -> Result<()> {
        while let Some(&(frame, id)) = self.awaited.front() {
            match wait(self.swapchain, id) {
                // SUBOPTIMAL is a success code here: shown, on a swapchain due for recreation.
                vk::Result::SUCCESS | vk::Result::SUBOPTIMAL_KHR => {
                    self.awaited.pop_front();
                    shown(frame);
                }
                vk::Result::TIMEOUT => break,
                vk::Result::ERROR_OUT_OF_DATE_KHR => {
                    // The swapchain will be recreated; its presents report no more.
                    self.awaited.clear();
                    break;
                }
                e => return Err(Error::vk("vkWaitForPresentKHR", e)),
            }
        }
        Ok(())
    }
}

/// Display feedback of one vkpace swapchain: the entry point and the bookkeeping.
pub(crate) struct DisplayFeedback {
    fns: ash::khr::present_wait::Device,
    ids: PresentIds,
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
            ids: PresentIds::new(),
        })
    }

    /// The id for the next present.
    pub(crate) fn next_id(&self) -> u64 {
        self.ids.next_id
    }

    /// See [`PresentIds::presented`].
    pub(crate) fn presented(&mut self, swapchain: vk::SwapchainKHR, frame: u64, queued: bool) {
        self.ids.presented(swapchain, frame, queued);
    }

    /// The swapchain is being retired: forget what was awaited on it.
    pub(crate) fn retired(&mut self) {
        self.ids.retired();
    }

    /// Asks, without waiting, which awaited frames were shown; `shown` gets each frame number,
    /// oldest first.
    pub(crate) fn poll(&mut self, shown: impl FnMut(u64)) -> Result<()> {
        let fns = &self.fns;
        self.ids.poll(
            |swapchain, id| {
                // SAFETY: the swapchain is the current, non-retired one (`retired` clears the
                // queue first, VUID-vkWaitForPresentKHR-swapchain-04997); the id was given to
                // a present on it; a zero timeout never blocks.
                match unsafe { fns.wait_for_present(swapchain, id, 0) } {
                    Ok(()) => vk::Result::SUCCESS,
                    Err(e) => e,
                }
            },
            shown,
        )
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use ash::vk::Handle as _;

    fn sc(n: u64) -> vk::SwapchainKHR {
        vk::SwapchainKHR::from_raw(n)
    }

    /// A presentation engine that has shown every id up to `shown_up_to` on `on`.
    fn engine(on: u64, shown_up_to: u64) -> impl FnMut(vk::SwapchainKHR, u64) -> vk::Result {
        move |swapchain, id| {
            assert_eq!(swapchain, sc(on), "asked about another swapchain");
            if id <= shown_up_to {
                vk::Result::SUCCESS
            } else {
                vk::Result::TIMEOUT
            }
        }
    }

    #[test]
    fn ids_grow_by_one_per_present_even_when_it_failed() {
        let mut ids = PresentIds::new();
        assert_eq!(ids.next_id, 1);
        ids.presented(sc(1), 0, true);
        ids.presented(sc(1), 1, false);
        ids.presented(sc(1), 2, true);
        assert_eq!(ids.next_id, 4);
        let awaited: Vec<_> = ids.awaited.iter().copied().collect();
        assert_eq!(awaited, vec![(0, 1), (2, 3)]);
    }

    #[test]
    fn shown_frames_come_out_in_order_and_polling_stops_at_the_first_not_shown() -> Result<()> {
        let mut ids = PresentIds::new();
        for f in 0..5 {
            ids.presented(sc(7), f, true);
        }
        let mut seen = Vec::new();
        let mut asked = 0;
        let mut wait = engine(7, 3);
        ids.poll(
            |s, id| {
                asked += 1;
                wait(s, id)
            },
            |f| seen.push(f),
        )?;
        assert_eq!(seen, vec![0, 1, 2]);
        assert_eq!(asked, 4, "three shown, then one TIMEOUT");
        ids.poll(engine(7, 5), |f| seen.push(f))?;
        assert_eq!(seen, vec![0, 1, 2, 3, 4]);
        Ok(())
    }

    #[test]
    fn a_new_or_retired_swapchain_is_never_asked_about_the_old_ones_presents() -> Result<()> {
        let mut ids = PresentIds::new();
        ids.presented(sc(1), 0, true);
        ids.presented(sc(2), 1, true);
        let mut seen = Vec::new();
        ids.poll(engine(2, 10), |f| seen.push(f))?;
        assert_eq!(seen, vec![1]);
        ids.presented(sc(2), 2, true);
        ids.retired();
        ids.poll(|_, _| panic!("asked after retirement"), |f| seen.push(f))?;
        assert_eq!(seen, vec![1]);
        Ok(())
    }

    #[test]
    fn suboptimal_is_shown_out_of_date_ends_the_feedback_and_errors_are_typed() {
        let mut ids = PresentIds::new();
        for f in 0..3 {
            ids.presented(sc(1), f, true);
        }
        let mut seen = Vec::new();
        let mut answers = [
            vk::Result::SUBOPTIMAL_KHR,
            vk::Result::ERROR_OUT_OF_DATE_KHR,
        ]
        .into_iter();
        let r = ids.poll(
            |_, _| answers.next().unwrap_or(vk::Result::SUCCESS),
            |f| seen.push(f),
        );
        assert!(r.is_ok());
        assert_eq!(seen, vec![0]);
        assert!(ids.awaited.is_empty());
        ids.presented(sc(1), 3, true);
        let r = ids.poll(|_, _| vk::Result::ERROR_DEVICE_LOST, |f| seen.push(f));
        assert!(matches!(r, Err(Error::DeviceLost)));
        let r = ids.poll(|_, _| vk::Result::ERROR_SURFACE_LOST_KHR, |f| seen.push(f));
        assert!(matches!(r, Err(Error::SurfaceLost)));
    }

    #[test]
    fn a_display_that_stops_reporting_does_not_grow_the_queue() {
        let mut ids = PresentIds::new();
        for f in 0..100 {
            ids.presented(sc(1), f, true);
        }
        assert_eq!(ids.awaited.len(), MAX_AWAITED);
        assert_eq!(
            ids.awaited.front().map(|a| a.0),
            Some(100 - MAX_AWAITED as u64)
        );
    }
}
