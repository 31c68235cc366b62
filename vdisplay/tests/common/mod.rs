//! Shared support of the vdisplay integration tests.
#![allow(
    dead_code,
    clippy::missing_safety_doc,
    clippy::undocumented_unsafe_blocks
)]

pub mod context;
pub mod env;
pub mod ext_features;
pub mod load;
pub mod log;
pub mod micro;
pub mod swap;
pub mod textbook;

/// Mean of successive differences.
pub fn mean_interval(times: &[u64]) -> f64 {
    assert!(times.len() >= 2);
    (times[times.len() - 1] - times[0]) as f64 / (times.len() - 1) as f64
}

/// The median of `v` (sorted copy).
pub fn median(v: &[f64]) -> f64 {
    let mut s = v.to_vec();
    s.sort_by(|a, b| a.partial_cmp(b).unwrap());
    s[s.len() / 2]
}
