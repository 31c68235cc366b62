//! The feature structures of the extensions ash 0.38 lacks (the vkpace-registry crate).

use ash::vk;
use vkpace_registry as r;

use super::context::Options;

/// Feature structures for present_id2 / present_wait2 / present_timing, when asked for.
pub struct Extra {
    id2: Option<r::PhysicalDevicePresentId2FeaturesKHR<'static>>,
    wait2: Option<r::PhysicalDevicePresentWait2FeaturesKHR<'static>>,
    timing: Option<r::PhysicalDevicePresentTimingFeaturesEXT<'static>>,
}

impl Extra {
    pub fn new(opts: &Options) -> Self {
        let has = |n| opts.device_exts.contains(&n);
        Self {
            id2: has(r::KHR_PRESENT_ID_2_NAME).then(|| r::PhysicalDevicePresentId2FeaturesKHR {
                present_id2: vk::TRUE,
                ..Default::default()
            }),
            wait2: has(r::KHR_PRESENT_WAIT_2_NAME).then(|| {
                r::PhysicalDevicePresentWait2FeaturesKHR {
                    present_wait2: vk::TRUE,
                    ..Default::default()
                }
            }),
            timing: has(r::EXT_PRESENT_TIMING_NAME).then(|| {
                r::PhysicalDevicePresentTimingFeaturesEXT {
                    present_timing: vk::TRUE,
                    present_at_absolute_time: vk::TRUE,
                    present_at_relative_time: vk::TRUE,
                    ..Default::default()
                }
            }),
        }
    }

    pub fn chain<'a>(&'a mut self, mut ci: vk::DeviceCreateInfo<'a>) -> vk::DeviceCreateInfo<'a> {
        if let Some(f) = self.id2.as_mut() {
            ci = ci.push_next(f);
        }
        if let Some(f) = self.wait2.as_mut() {
            ci = ci.push_next(f);
        }
        if let Some(f) = self.timing.as_mut() {
            ci = ci.push_next(f);
        }
        ci
    }
}
