//! Settings that make a virtual display's present timing behave like other presentation
//! engines than vdisplay's own: what it reports of its refresh, the time domain of its
//! results, and what relative targets count from. Each is a case an application must survive
//! (issue 40's independent engine showed all of them).

/// A refresh duration or interval as reported (`VkSwapchainTimingPropertiesEXT`), overriding
/// the display's period; the display keeps running its grid either way.
pub type Reported = Option<u64>;

/// The time domain results are reported in (the `timing_result_domain` setting).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum ResultDomain {
    /// `offered`: the domain the present asked for, one the swapchain offers.
    Offered,
    /// `foreign`: `CLOCK_MONOTONIC_RAW` with an id the swapchain never offered, which the
    /// application was never told of and cannot map (the times are still CLOCK_MONOTONIC's).
    Foreign,
}

/// What a relative target counts from (the `timing_relative_from` setting).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum RelativeFrom {
    /// `grid`: the blank at which the previous image was shown.
    Grid,
    /// `visible`: the time the engine acted on the previous image (its thread's clock when it
    /// showed it, later than the blank by its wake-up delay), as an engine that counts from the
    /// last visible time it measured does. Lateness then adds up from frame to frame unless a
    /// target is rounded to a refresh grid.
    Visible,
}

/// `max` (`UINT64_MAX`) or nanoseconds.
pub fn parse_reported(v: &str) -> Option<Reported> {
    match v {
        "max" => Some(Some(u64::MAX)),
        "period" => Some(None),
        _ => v.parse().ok().map(Some),
    }
}

/// `offered` or `foreign`.
pub fn parse_result_domain(v: &str) -> Option<ResultDomain> {
    match v {
        "offered" => Some(ResultDomain::Offered),
        "foreign" => Some(ResultDomain::Foreign),
        _ => None,
    }
}

/// `grid` or `visible`.
pub fn parse_relative_from(v: &str) -> Option<RelativeFrom> {
    match v {
        "grid" => Some(RelativeFrom::Grid),
        "visible" => Some(RelativeFrom::Visible),
        _ => None,
    }
}

/// `khr` (the KHR name offered, over the driver's EXT) or `ext` (only the EXT name).
pub fn parse_calibrated_names(v: &str) -> Option<bool> {
    match v {
        "khr" => Some(true),
        "ext" => Some(false),
        _ => None,
    }
}

#[cfg(test)]
mod tests {
    use super::super::Settings;
    use super::*;

    #[test]
    fn reported_refresh_defaults_to_the_period_and_takes_ns_or_max() {
        let mut s = Settings::default();
        assert_eq!(s.reported_refresh(), (16_666_667, 16_666_667));
        s.apply("timing_refresh_duration", "1");
        assert_eq!(s.reported_refresh(), (1, 1), "the interval follows");
        s.apply("timing_refresh_interval", "max");
        assert_eq!(s.reported_refresh(), (1, u64::MAX));
        s.apply("timing_refresh_duration", "0");
        s.apply("timing_refresh_interval", "period");
        assert_eq!(s.reported_refresh(), (0, 0));
        s.apply("timing_refresh_duration", "-3");
        assert_eq!(s.reported_refresh(), (0, 0), "a bad value is ignored");
        s.apply("timing_refresh_duration", "max");
        assert_eq!(s.reported_refresh(), (u64::MAX, u64::MAX));
    }

    #[test]
    fn result_domain_relative_base_and_calibrated_names() {
        let mut s = Settings::default();
        assert_eq!(s.timing_result_domain, ResultDomain::Offered);
        assert_eq!(s.timing_relative_from, RelativeFrom::Grid);
        assert!(s.calibrated_khr);
        s.apply_file(
            "timing_result_domain = foreign\ntiming_relative_from = visible\n\
             calibrated_timestamps = ext\n",
        );
        assert_eq!(s.timing_result_domain, ResultDomain::Foreign);
        assert_eq!(s.timing_relative_from, RelativeFrom::Visible);
        assert!(!s.calibrated_khr);
        s.apply("timing_relative_from", "later");
        assert_eq!(s.timing_relative_from, RelativeFrom::Visible);
    }

    #[test]
    fn a_refresh_of_a_billion_hertz_is_a_one_nanosecond_period() {
        let mut s = Settings::default();
        s.apply("refresh_hz", "1000000000");
        assert_eq!(s.refresh_ns(), 1);
    }
}
