//! VK_EXT_present_timing: the swapchain's results queue and the four commands.
//!
//! Time domains: the layer's clock is CLOCK_MONOTONIC, so every domain it offers is that clock
//! (calibration is the identity): id 1 PRESENT_STAGE_LOCAL (required by the spec: "at least one
//! time domain of VK_TIME_DOMAIN_PRESENT_STAGE_LOCAL_EXT"), id 2 SWAPCHAIN_LOCAL, id 3
//! CLOCK_MONOTONIC. Stage times: QUEUE_OPERATIONS_END when the batch's semaphore waits
//! completed; REQUEST_DEQUEUED, FIRST_PIXEL_OUT and FIRST_PIXEL_VISIBLE at the refresh-grid time
//! the image became visible (a virtual display has no scan-out delay); 0 for a replaced image.

use std::collections::VecDeque;

use ash::vk;
use vkpace::vk::registry::{self as r, PresentStageFlagsEXT};

use crate::swapchain::Swapchain;

/// Stages the layer reports.
pub const STAGES: PresentStageFlagsEXT = PresentStageFlagsEXT(0xF);

/// The time domains of every swapchain, with their ids.
pub const DOMAINS: [(vk::TimeDomainKHR, u64); 3] = [
    (r::TIME_DOMAIN_PRESENT_STAGE_LOCAL_EXT, 1),
    (r::TIME_DOMAIN_SWAPCHAIN_LOCAL_EXT, 2),
    (vk::TimeDomainKHR::CLOCK_MONOTONIC, 3),
];

/// The domain of an id (unknown ids fall back to CLOCK_MONOTONIC, as the spec allows).
pub fn domain_of(id: u64) -> (vk::TimeDomainKHR, u64) {
    DOMAINS
        .iter()
        .copied()
        .find(|d| d.1 == id)
        .unwrap_or(DOMAINS[2])
}

/// One present's timing result.
#[derive(Clone, Copy, Debug)]
pub struct Entry {
    /// The present's sequence number on its swapchain.
    pub seq: u64,
    /// Its present id.
    pub present_id: u64,
    /// Its target time.
    pub target_time: u64,
    /// The stages asked for.
    pub stages: PresentStageFlagsEXT,
    /// The time domain id asked for.
    pub domain_id: u64,
    /// Time per stage bit (index = bit position); 0 = no result (yet).
    pub times: [u64; 4],
    /// Whether every asked stage has its final value.
    pub complete: bool,
}

/// The swapchain's results queue.
#[derive(Debug, Default)]
pub struct TimingQueue {
    /// Its size (`vkSetSwapchainPresentTimingQueueSizeEXT`); 0: never set.
    pub capacity: u32,
    /// Outstanding results, in present order.
    pub entries: VecDeque<Entry>,
}

impl TimingQueue {
    /// Reserves a slot; false if full (VK_ERROR_PRESENT_TIMING_QUEUE_FULL_EXT).
    pub fn reserve(&mut self, e: Entry) -> bool {
        if self.entries.len() >= self.capacity as usize {
            return false;
        }
        self.entries.push_back(e);
        true
    }

    fn entry(&mut self, seq: u64) -> Option<&mut Entry> {
        self.entries.iter_mut().find(|e| e.seq == seq)
    }

    /// QUEUE_OPERATIONS_END reached.
    pub fn queue_end(&mut self, seq: u64, t: u64) {
        if let Some(e) = self.entry(seq) {
            e.times[0] = t;
        }
    }

    /// The image became visible at `t`: every later stage happened then.
    pub fn shown(&mut self, seq: u64, t: u64) {
        if let Some(e) = self.entry(seq) {
            e.times[1] = t;
            e.times[2] = t;
            e.times[3] = t;
            e.complete = true;
        }
    }

    /// The present was replaced or rejected: the later stages never happen (time 0).
    pub fn dropped(&mut self, seq: u64) {
        if let Some(e) = self.entry(seq) {
            e.complete = true;
        }
    }

    /// Which entries `vkGetPastPresentationTimingEXT` reports, by index, in present order:
    /// complete ones (all, or only the leading run unless out-of-order results are allowed),
    /// plus incomplete ones with at least one stage when partial results are allowed.
    pub fn reportable(&self, flags: r::PastPresentationTimingFlagsEXT) -> Vec<usize> {
        let partial = flags.contains(r::PastPresentationTimingFlagsEXT::ALLOW_PARTIAL_RESULTS);
        let any_order =
            flags.contains(r::PastPresentationTimingFlagsEXT::ALLOW_OUT_OF_ORDER_RESULTS);
        let mut out = Vec::new();
        for (i, e) in self.entries.iter().enumerate() {
            if e.complete || (partial && e.times[0] != 0) {
                out.push(i);
            } else if !any_order && !partial {
                break;
            }
        }
        out
    }
}

/// Writes one entry into the application's structure. False if its stage array is too small.
///
/// # Safety
/// `out.p_present_stages` must hold `out.present_stage_count` elements.
unsafe fn write_entry(e: &Entry, out: &mut r::PastPresentationTimingEXT<'_>) -> bool {
    let stages: Vec<r::PresentStageTimeEXT> = (0..4)
        .filter(|b| e.stages.contains(PresentStageFlagsEXT(1 << b)))
        .filter(|b| e.complete || e.times[*b as usize] != 0)
        .map(|b| r::PresentStageTimeEXT {
            stage: PresentStageFlagsEXT(1 << b),
            time: e.times[b as usize],
        })
        .collect();
    if (out.present_stage_count as usize) < stages.len() || out.p_present_stages.is_null() {
        return false;
    }
    // SAFETY: caller's contract; room checked above.
    unsafe { std::ptr::copy_nonoverlapping(stages.as_ptr(), out.p_present_stages, stages.len()) };
    let (domain, id) = domain_of(e.domain_id);
    out.present_id = e.present_id;
    out.target_time = e.target_time;
    out.present_stage_count = stages.len() as u32;
    out.time_domain = domain;
    out.time_domain_id = id;
    out.report_complete = e.complete.into();
    true
}

/// `vkGetPastPresentationTimingEXT` on a virtual swapchain.
///
/// # Safety
/// Valid arguments of the command.
pub unsafe fn past_presentation_timing(
    sc: &Swapchain,
    flags: r::PastPresentationTimingFlagsEXT,
    props: &mut r::PastPresentationTimingPropertiesEXT<'_>,
) -> vk::Result {
    props.timing_properties_counter = 1;
    props.time_domains_counter = 1;
    let mut st = sc.state();
    let q = &mut st.timing;
    let list = q.reportable(flags);
    if props.p_presentation_timings.is_null() {
        props.presentation_timing_count = list.len() as u32;
        return vk::Result::SUCCESS;
    }
    let mut written = 0usize;
    let mut release = Vec::new();
    for &i in list.iter().take(props.presentation_timing_count as usize) {
        // SAFETY: the application's array has `presentation_timing_count` elements.
        let out = unsafe { &mut *props.p_presentation_timings.add(written) };
        // SAFETY: the element's own stage array, as the application sized it.
        if !unsafe { write_entry(&q.entries[i], out) } {
            break;
        }
        if q.entries[i].complete {
            release.push(i);
        }
        written += 1;
    }
    for i in release.into_iter().rev() {
        q.entries.remove(i);
    }
    props.presentation_timing_count = written as u32;
    if written < list.len() {
        vk::Result::INCOMPLETE
    } else {
        vk::Result::SUCCESS
    }
}

/// `vkSetSwapchainPresentTimingQueueSizeEXT`: VK_NOT_READY if the outstanding results do not fit.
pub fn set_queue_size(sc: &Swapchain, size: u32) -> vk::Result {
    let mut st = sc.state();
    if st.timing.entries.len() > size as usize {
        return vk::Result::NOT_READY;
    }
    // The `fault_timing_queue_cap` setting: less room than asked for.
    let cap = sc.surface.settings.fault_timing_queue_cap;
    st.timing.capacity = if cap > 0 { size.min(cap) } else { size };
    vk::Result::SUCCESS
}

/// `vkGetSwapchainTimingPropertiesEXT`: a fixed-rate display (interval == duration).
pub fn timing_properties(
    sc: &Swapchain,
    props: &mut r::SwapchainTimingPropertiesEXT<'_>,
    counter: Option<&mut u64>,
) -> vk::Result {
    props.refresh_duration = sc.surface.period_ns;
    props.refresh_interval = sc.surface.period_ns;
    if let Some(c) = counter {
        *c = 1;
    }
    vk::Result::SUCCESS
}

/// `vkGetSwapchainTimeDomainPropertiesEXT`.
///
/// # Safety
/// The arrays of `props` must be null or hold `time_domain_count` elements.
pub unsafe fn time_domain_properties(
    props: &mut r::SwapchainTimeDomainPropertiesEXT<'_>,
    counter: Option<&mut u64>,
) -> vk::Result {
    if let Some(c) = counter {
        *c = 1;
    }
    if props.p_time_domains.is_null() || props.p_time_domain_ids.is_null() {
        props.time_domain_count = DOMAINS.len() as u32;
        return vk::Result::SUCCESS;
    }
    let n = (props.time_domain_count as usize).min(DOMAINS.len());
    for (i, (domain, id)) in DOMAINS.iter().take(n).enumerate() {
        // SAFETY: caller's contract; `i < time_domain_count`.
        unsafe {
            *props.p_time_domains.add(i) = *domain;
            *props.p_time_domain_ids.add(i) = *id;
        }
    }
    props.time_domain_count = n as u32;
    if n < DOMAINS.len() {
        vk::Result::INCOMPLETE
    } else {
        vk::Result::SUCCESS
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn entry(seq: u64) -> Entry {
        Entry {
            seq,
            present_id: seq,
            target_time: 0,
            stages: STAGES,
            domain_id: 3,
            times: [0; 4],
            complete: false,
        }
    }

    #[test]
    fn queue_full_and_in_order_reporting() {
        let mut q = TimingQueue {
            capacity: 2,
            ..Default::default()
        };
        assert!(q.reserve(entry(1)));
        assert!(q.reserve(entry(2)));
        assert!(!q.reserve(entry(3)));
        q.queue_end(2, 5);
        q.shown(2, 10);
        let none = r::PastPresentationTimingFlagsEXT::empty();
        assert!(
            q.reportable(none).is_empty(),
            "entry 1 is not complete: nothing in order"
        );
        assert_eq!(
            q.reportable(r::PastPresentationTimingFlagsEXT::ALLOW_OUT_OF_ORDER_RESULTS),
            vec![1]
        );
        q.queue_end(1, 4);
        assert_eq!(
            q.reportable(r::PastPresentationTimingFlagsEXT::ALLOW_PARTIAL_RESULTS),
            vec![0, 1]
        );
        q.dropped(1);
        assert_eq!(q.reportable(none), vec![0, 1]);
    }
}
