//! VK_EXT_present_timing: the swapchain's results queue and the four commands.
//!
//! Time domains (the `timing_domains` setting, [`Domains`]): the layer's clock is
//! CLOCK_MONOTONIC. With `monotonic` (the default) every domain it offers is that clock
//! (calibration is the identity): id 1 PRESENT_STAGE_LOCAL (required by the spec: "at least one
//! time domain of VK_TIME_DOMAIN_PRESENT_STAGE_LOCAL_EXT"), id 2 SWAPCHAIN_LOCAL, id 3
//! CLOCK_MONOTONIC. With `local` only ids 1 and 2 are offered, and they run at CLOCK_MONOTONIC
//! plus `timing_local_offset_ms`: times reported in them are shifted forward, absolute targets
//! given in them shifted back (`present.rs`), and `vkGetCalibratedTimestampsKHR` reads them
//! shifted (`calibrate.rs`). Stage times: QUEUE_OPERATIONS_END when the batch's semaphore waits
//! completed; REQUEST_DEQUEUED, FIRST_PIXEL_OUT and FIRST_PIXEL_VISIBLE at the refresh-grid time
//! the image became visible (a virtual display has no scan-out delay); 0 for a replaced image.

use std::collections::VecDeque;

use ash::vk;
use vkpace_registry::{self as r, PresentStageFlagsEXT};

use crate::settings::{ResultDomain, Settings, TimingDomains};
use crate::swapchain::Swapchain;

/// Stages the layer reports.
pub const STAGES: PresentStageFlagsEXT = PresentStageFlagsEXT(0xF);

/// The time domains of every swapchain with `timing_domains = monotonic`, with their ids.
pub const DOMAINS: [(vk::TimeDomainKHR, u64); 3] = [
    (r::TIME_DOMAIN_PRESENT_STAGE_LOCAL_EXT, 1),
    (r::TIME_DOMAIN_SWAPCHAIN_LOCAL_EXT, 2),
    (vk::TimeDomainKHR::CLOCK_MONOTONIC, 3),
];

/// The domain of results with `timing_result_domain = foreign`: one the swapchain never
/// offered (and an id it never gave), so an application has no calibration for it.
pub const FOREIGN_DOMAIN: (vk::TimeDomainKHR, u64) = (vk::TimeDomainKHR::CLOCK_MONOTONIC_RAW, 99);

/// Whether a domain is one of the two swapchain-local kinds.
pub fn is_local(d: vk::TimeDomainKHR) -> bool {
    d == r::TIME_DOMAIN_PRESENT_STAGE_LOCAL_EXT || d == r::TIME_DOMAIN_SWAPCHAIN_LOCAL_EXT
}

/// The time domains a swapchain offers and how they relate to CLOCK_MONOTONIC.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Domains {
    /// `timing_domains = local`: only the local domains, running `offset_ns` ahead.
    local: bool,
    /// How far the local domains run ahead of CLOCK_MONOTONIC (0 unless `local`).
    offset_ns: u64,
}

impl Domains {
    /// Today's domains: all three, all CLOCK_MONOTONIC.
    pub const MONOTONIC: Self = Self {
        local: false,
        offset_ns: 0,
    };

    /// Only the local domains, `offset_ns` ahead of CLOCK_MONOTONIC.
    pub const fn local(offset_ns: u64) -> Self {
        Self {
            local: true,
            offset_ns,
        }
    }

    /// The domains of swapchains made under `settings`.
    pub fn of(settings: &Settings) -> Self {
        match settings.timing_domains {
            TimingDomains::Monotonic => Self::MONOTONIC,
            TimingDomains::Local => Self::local(settings.local_offset_ns()),
        }
    }

    /// The domains offered, with their ids, in the order reported.
    pub fn list(self) -> &'static [(vk::TimeDomainKHR, u64)] {
        if self.local {
            &DOMAINS[..2]
        } else {
            &DOMAINS
        }
    }

    /// The domain of an id. Unknown ids (say 3 with `local`) fall back to the last one offered
    /// (CLOCK_MONOTONIC, or SWAPCHAIN_LOCAL), as the spec allows; results say which it was.
    pub fn domain_of(self, id: u64) -> (vk::TimeDomainKHR, u64) {
        let list = self.list();
        list.iter()
            .copied()
            .find(|d| d.1 == id)
            .unwrap_or(list[list.len() - 1])
    }

    /// How far the domain of `id` runs ahead of CLOCK_MONOTONIC.
    pub fn offset_of(self, id: u64) -> u64 {
        self.offset_of_domain(self.domain_of(id).0)
    }

    /// How far a domain (by kind) runs ahead of CLOCK_MONOTONIC.
    pub fn offset_of_domain(self, d: vk::TimeDomainKHR) -> u64 {
        if is_local(d) {
            self.offset_ns
        } else {
            0
        }
    }

    /// A CLOCK_MONOTONIC time as reported in the domain of `id`; 0 ("no result") stays 0.
    pub fn report(self, mono: u64, id: u64) -> u64 {
        if mono == 0 {
            0
        } else {
            mono.saturating_add(self.offset_of(id))
        }
    }

    /// An absolute time the application gave in the domain of `id`, as CLOCK_MONOTONIC (a time
    /// before the domain's epoch is in the past: 0).
    pub fn to_monotonic(self, t: u64, id: u64) -> u64 {
        t.saturating_sub(self.offset_of(id))
    }

    /// `vkGetPhysicalDeviceCalibrateableTimeDomainsKHR`'s list: the driver's, plus the local
    /// domains with `local` (so an application calibrates them), each once.
    pub fn calibrateable(self, driver: &[vk::TimeDomainKHR]) -> Vec<vk::TimeDomainKHR> {
        let mut out = driver.to_vec();
        if self.local {
            for d in [
                r::TIME_DOMAIN_SWAPCHAIN_LOCAL_EXT,
                r::TIME_DOMAIN_PRESENT_STAGE_LOCAL_EXT,
            ] {
                if !out.contains(&d) {
                    out.push(d);
                }
            }
        }
        out
    }
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

/// Writes one entry into the application's structure, in its own domain or, with `foreign`,
/// in [`FOREIGN_DOMAIN`]. False if its stage array is too small.
///
/// # Safety
/// `out.p_present_stages` must hold `out.present_stage_count` elements.
unsafe fn write_entry(
    e: &Entry,
    domains: Domains,
    foreign: bool,
    out: &mut r::PastPresentationTimingEXT<'_>,
) -> bool {
    let stages: Vec<r::PresentStageTimeEXT> = (0..4)
        .filter(|b| e.stages.contains(PresentStageFlagsEXT(1 << b)))
        .filter(|b| e.complete || e.times[*b as usize] != 0)
        .map(|b| r::PresentStageTimeEXT {
            stage: PresentStageFlagsEXT(1 << b),
            time: domains.report(e.times[b as usize], e.domain_id),
        })
        .collect();
    if (out.present_stage_count as usize) < stages.len() || out.p_present_stages.is_null() {
        return false;
    }
    // SAFETY: caller's contract; room checked above.
    unsafe { std::ptr::copy_nonoverlapping(stages.as_ptr(), out.p_present_stages, stages.len()) };
    let (domain, id) = if foreign {
        FOREIGN_DOMAIN
    } else {
        domains.domain_of(e.domain_id)
    };
    out.present_id = e.present_id;
    // As the application gave it: an absolute one is in its own domain already.
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
    let domains = Domains::of(&sc.surface.settings);
    let foreign = sc.surface.settings.timing_result_domain == ResultDomain::Foreign;
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
        if !unsafe { write_entry(&q.entries[i], domains, foreign, out) } {
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

/// `vkGetSwapchainTimingPropertiesEXT`: a fixed-rate display (interval == duration), unless
/// the `timing_refresh_duration` and `timing_refresh_interval` settings report otherwise.
pub fn timing_properties(
    sc: &Swapchain,
    props: &mut r::SwapchainTimingPropertiesEXT<'_>,
    counter: Option<&mut u64>,
) -> vk::Result {
    let (duration, interval) = sc.surface.settings.reported_refresh();
    props.refresh_duration = duration;
    props.refresh_interval = interval;
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
    sc: &Swapchain,
    props: &mut r::SwapchainTimeDomainPropertiesEXT<'_>,
    counter: Option<&mut u64>,
) -> vk::Result {
    if let Some(c) = counter {
        *c = 1;
    }
    let list = Domains::of(&sc.surface.settings).list();
    if props.p_time_domains.is_null() || props.p_time_domain_ids.is_null() {
        props.time_domain_count = list.len() as u32;
        return vk::Result::SUCCESS;
    }
    let n = (props.time_domain_count as usize).min(list.len());
    for (i, (domain, id)) in list.iter().take(n).enumerate() {
        // SAFETY: caller's contract; `i < time_domain_count`.
        unsafe {
            *props.p_time_domains.add(i) = *domain;
            *props.p_time_domain_ids.add(i) = *id;
        }
    }
    props.time_domain_count = n as u32;
    if n < list.len() {
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

    const MONO: vk::TimeDomainKHR = vk::TimeDomainKHR::CLOCK_MONOTONIC;
    const SWAP: vk::TimeDomainKHR = r::TIME_DOMAIN_SWAPCHAIN_LOCAL_EXT;
    const STAGE: vk::TimeDomainKHR = r::TIME_DOMAIN_PRESENT_STAGE_LOCAL_EXT;

    #[test]
    fn domain_lists_and_fallbacks() {
        let m = Domains::MONOTONIC;
        assert_eq!(m.list(), &[(STAGE, 1), (SWAP, 2), (MONO, 3)]);
        assert_eq!(m.domain_of(2), (SWAP, 2));
        assert_eq!(m.domain_of(7), (MONO, 3));
        let l = Domains::local(1_000);
        assert_eq!(l.list(), &[(STAGE, 1), (SWAP, 2)]);
        assert_eq!(l.domain_of(1), (STAGE, 1));
        assert_eq!(l.domain_of(3), (SWAP, 2), "CLOCK_MONOTONIC is not offered");
        let mut s = Settings::default();
        assert_eq!(Domains::of(&s), m);
        s.apply("timing_domains", "local");
        s.apply("timing_local_offset_ms", "2");
        assert_eq!(Domains::of(&s), Domains::local(2_000_000));
    }

    #[test]
    fn local_domains_are_shifted_both_ways() {
        let l = Domains::local(1_000);
        for id in [1, 2, 3] {
            assert_eq!(l.offset_of(id), 1_000);
            assert_eq!(l.report(5_000, id), 6_000);
            assert_eq!(l.to_monotonic(6_000, id), 5_000);
            assert_eq!(l.report(0, id), 0, "no result stays 0");
        }
        assert_eq!(l.to_monotonic(10, 2), 0);
        assert_eq!(l.report(u64::MAX, 2), u64::MAX);
        assert_eq!(l.offset_of_domain(MONO), 0);
        let m = Domains::MONOTONIC;
        for id in [1, 2, 3] {
            assert_eq!(m.report(5_000, id), 5_000);
            assert_eq!(m.to_monotonic(5_000, id), 5_000);
        }
    }

    #[test]
    fn calibrateable_list_gains_the_local_domains_once() {
        let driver = [
            vk::TimeDomainKHR::DEVICE,
            MONO,
            vk::TimeDomainKHR::CLOCK_MONOTONIC_RAW,
        ];
        assert_eq!(Domains::MONOTONIC.calibrateable(&driver), driver.to_vec());
        let l = Domains::local(1);
        assert_eq!(
            l.calibrateable(&driver),
            vec![
                vk::TimeDomainKHR::DEVICE,
                MONO,
                vk::TimeDomainKHR::CLOCK_MONOTONIC_RAW,
                SWAP,
                STAGE
            ]
        );
        assert_eq!(l.calibrateable(&[SWAP]), vec![SWAP, STAGE]);
        assert_eq!(l.calibrateable(&[]), vec![SWAP, STAGE]);
    }

    #[test]
    fn reported_entries_are_in_their_domain() {
        let mut e = entry(1);
        e.domain_id = 2;
        e.target_time = 9_000;
        e.times = [4, 5, 5, 5];
        e.complete = true;
        let mut stages = [r::PresentStageTimeEXT::default(); 4];
        let mut out = r::PastPresentationTimingEXT {
            present_stage_count: 4,
            p_present_stages: stages.as_mut_ptr(),
            ..Default::default()
        };
        // SAFETY: `stages` holds 4 elements.
        assert!(unsafe { write_entry(&e, Domains::local(100), false, &mut out) });
        assert_eq!((out.time_domain, out.time_domain_id), (SWAP, 2));
        assert_eq!(out.target_time, 9_000, "echoed as given, in its own domain");
        assert_eq!(out.present_stage_count, 4);
        let times: Vec<u64> = stages.iter().map(|s| s.time).collect();
        assert_eq!(times, vec![104, 105, 105, 105]);
        e.domain_id = 3;
        e.times = [4, 0, 0, 0];
        // SAFETY: as above.
        assert!(unsafe { write_entry(&e, Domains::MONOTONIC, false, &mut out) });
        assert_eq!((out.time_domain, out.time_domain_id), (MONO, 3));
        assert_eq!(stages[0].time, 4);
        assert_eq!(stages[1].time, 0, "a dropped present's later stages stay 0");
        // SAFETY: as above.
        assert!(unsafe { write_entry(&e, Domains::local(100), true, &mut out) });
        assert_eq!(
            (out.time_domain, out.time_domain_id),
            FOREIGN_DOMAIN,
            "timing_result_domain = foreign: a domain never offered"
        );
        assert!(!Domains::local(100).list().contains(&FOREIGN_DOMAIN));
        assert!(!Domains::MONOTONIC.list().contains(&FOREIGN_DOMAIN));
    }
}
