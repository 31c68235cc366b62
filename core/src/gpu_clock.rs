//! Mapping GPU timestamp ticks to the CPU clock.
//!
//! A timestamp query gives ticks of the device's clock: `timestampPeriod` nanoseconds each,
//! with only `timestampValidBits` low bits meaningful, so values wrap (spec, *Timestamp
//! Queries*). `VK_EXT_calibrated_timestamps` reads the device clock from the host at a known
//! CPU time; that pair (the anchor) maps any tick near it to CPU time. The anchor is refreshed
//! often, so the two clocks' drift never accumulates.

use super::error::CoreError;

/// Maps ticks to CPU nanoseconds (since whatever epoch the anchors' CPU times count from).
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct GpuClock {
    period_ns: f64,
    mask: u64,
    anchor: Option<(u64, u64)>,
}

impl GpuClock {
    /// A clock with `period_ns` nanoseconds per tick and `valid_bits` meaningful bits.
    ///
    /// ```
    /// use vkpace_core::GpuClock;
    /// let mut clock = GpuClock::new(1.0, 64).unwrap();
    /// assert_eq!(clock.to_cpu_ns(5_000), None); // no anchor yet
    /// clock.anchor(1_000, 50_000); // tick 1000 was CPU time 50 us
    /// assert_eq!(clock.to_cpu_ns(5_000), Some(54_000));
    /// ```
    pub fn new(period_ns: f64, valid_bits: u32) -> Result<Self, CoreError> {
        if !(period_ns.is_finite() && period_ns > 0.0) {
            return Err(CoreError::InvalidGpuClock(format!(
                "timestampPeriod must be positive, got {period_ns}"
            )));
        }
        if !(1..=64).contains(&valid_bits) {
            return Err(CoreError::InvalidGpuClock(format!(
                "timestampValidBits must be 1..=64, got {valid_bits}"
            )));
        }
        let mask = if valid_bits == 64 {
            u64::MAX
        } else {
            (1u64 << valid_bits) - 1
        };
        Ok(Self {
            period_ns,
            mask,
            anchor: None,
        })
    }

    /// The device clock read `ticks` at CPU time `cpu_ns`.
    pub fn anchor(&mut self, ticks: u64, cpu_ns: u64) {
        self.anchor = Some((ticks & self.mask, cpu_ns));
    }

    /// CPU time of `ticks`, taken as the nearest tick to the anchor modulo the valid bits (so a
    /// wrap between anchor and query is handled); `None` without an anchor. Clamped at 0.
    #[must_use]
    pub fn to_cpu_ns(&self, ticks: u64) -> Option<u64> {
        let (anchor_ticks, anchor_ns) = self.anchor?;
        let ahead = (ticks & self.mask).wrapping_sub(anchor_ticks) & self.mask;
        let half = self.mask / 2;
        let delta_ns = if ahead <= half {
            ahead as f64 * self.period_ns
        } else {
            -(((self.mask - ahead) as f64 + 1.0) * self.period_ns)
        };
        let cpu = anchor_ns as f64 + delta_ns;
        Some(if cpu <= 0.0 { 0 } else { cpu.round() as u64 })
    }

    /// As [`Self::to_cpu_ns`], for ticks known to lie between CPU times `earliest` and `latest`
    /// (a frame's timestamps lie between its submission and the moment it was seen complete):
    /// of the times the ticks can stand for, one per wrap of the valid bits, the one nearest
    /// the middle of that span. Without it, ticks read more than half a wrap away from the
    /// anchor (a 32-bit clock of 1 ns wraps every 4.3 s; the application may pause longer
    /// between calibrations) would be taken a whole wrap off.
    #[must_use]
    pub fn to_cpu_ns_between(&self, ticks: u64, earliest: u64, latest: u64) -> Option<u64> {
        let (_, anchor_ns) = self.anchor?;
        let near_anchor = self.to_cpu_ns(ticks)?;
        let wrap_ns = (self.mask as f64 + 1.0) * self.period_ns;
        // 2^60 ns is 36 years: a wider clock never wraps within a run.
        if wrap_ns >= (1u64 << 60) as f64 {
            return Some(near_anchor);
        }
        let middle = earliest as f64 / 2.0 + latest as f64 / 2.0;
        // The unclamped value: `to_cpu_ns` clamps at zero, which a shift must not inherit.
        let ahead = (ticks & self.mask).wrapping_sub(self.anchor_ticks()) & self.mask;
        let base = anchor_ns as f64 + ahead as f64 * self.period_ns;
        let wraps = ((middle - base) / wrap_ns).round();
        let cpu = base + wraps * wrap_ns;
        Some(if cpu <= 0.0 { 0 } else { cpu.round() as u64 })
    }

    /// The anchor's ticks (0 without one).
    fn anchor_ticks(&self) -> u64 {
        self.anchor.map_or(0, |(t, _)| t)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn bad_clock_parameters_are_errors() {
        assert!(GpuClock::new(0.0, 64).is_err());
        assert!(GpuClock::new(f64::NAN, 64).is_err());
        assert!(GpuClock::new(1.0, 0).is_err());
        assert!(GpuClock::new(1.0, 65).is_err());
    }

    #[test]
    fn ticks_more_than_half_a_wrap_from_the_anchor_map_into_their_span() {
        // 32 bits of 0.75 ns: a wrap every 3.22 s. Anchored at CPU 1 s, ticks read 3 s later
        // (the application paused): nearest the anchor they would be a wrap too early.
        let mut c = GpuClock::new(0.75, 32).unwrap();
        c.anchor(0, 1_000_000_000);
        let ticks = (3_000_000_000f64 / 0.75) as u64; // CPU 4 s
        let near = c.to_cpu_ns(ticks).unwrap();
        assert!(near < 1_000_000_000, "{near}");
        let mapped = c
            .to_cpu_ns_between(ticks, 3_990_000_000, 4_010_000_000)
            .unwrap();
        assert!(mapped.abs_diff(4_000_000_000) < 10, "{mapped}");
        // Within half a wrap of the anchor both agree.
        let t = 1_000_000u64;
        let span = (1_000_000_000, 1_100_000_000);
        assert_eq!(c.to_cpu_ns(t), c.to_cpu_ns_between(t, span.0, span.1));
        // A 64-bit clock is left as it is.
        let mut wide = GpuClock::new(1.0, 64).unwrap();
        wide.anchor(1_000, 50_000);
        assert_eq!(wide.to_cpu_ns_between(5_000, 0, u64::MAX), Some(54_000));
    }

    #[test]
    fn ticks_before_the_anchor_map_to_earlier_times() {
        let mut c = GpuClock::new(2.5, 64).unwrap();
        c.anchor(1_000, 1_000_000);
        assert_eq!(c.to_cpu_ns(1_400), Some(1_001_000));
        assert_eq!(c.to_cpu_ns(600), Some(999_000));
        assert_eq!(c.to_cpu_ns(0), Some(997_500));
    }

    #[test]
    fn a_wrap_of_the_valid_bits_is_crossed_both_ways() {
        let mut c = GpuClock::new(1.0, 32).unwrap();
        c.anchor(0xFFFF_FF00, 10_000);
        // 0x100 ticks after the anchor, after the counter wrapped to small values.
        assert_eq!(c.to_cpu_ns(0x0000_0000), Some(10_256));
        assert_eq!(c.to_cpu_ns(0x0000_0010), Some(10_272));
        // Before the anchor, no wrap.
        assert_eq!(c.to_cpu_ns(0xFFFF_FE00), Some(9_744));
        // Garbage high bits above the valid ones are ignored.
        assert_eq!(c.to_cpu_ns(0xAB_0000_0010), Some(10_272));
        // Anchor just after a wrap, query just before it.
        c.anchor(0x10, 10_000);
        assert_eq!(c.to_cpu_ns(0xFFFF_FFF0), Some(9_968));
    }

    #[test]
    fn times_before_the_epoch_clamp_to_zero() {
        let mut c = GpuClock::new(1.0, 64).unwrap();
        c.anchor(1_000_000, 100);
        assert_eq!(c.to_cpu_ns(0), Some(0));
    }
}
