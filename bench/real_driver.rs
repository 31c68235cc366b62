//! The real-driver half of the benchmark: the demo run headless (with and without the 60 fps
//! limit) as a separate process, its JSON report read back; medians over repetitions.

use std::path::Path;
use std::process::Command;

use anyhow::{bail, Context as _, Result};

/// The demo's interval figures of one run.
#[derive(Debug, Clone, Copy)]
pub struct Intervals {
    pub mean: f64,
    pub stddev: f64,
    pub p99: f64,
    pub fps: f64,
}

/// The number after `"key": ` inside the object that follows `"object": `, or at top level
/// when `object` is empty. The demo writes this JSON itself, flat and in a fixed shape.
pub fn number(json: &str, object: &str, key: &str) -> Option<f64> {
    let scope = if object.is_empty() {
        json
    } else {
        let at = json.find(&format!("\"{object}\":"))?;
        let rest = &json[at..];
        let end = rest.find('}')?;
        &rest[..end]
    };
    let at = scope.find(&format!("\"{key}\":"))? + key.len() + 3;
    let tail = scope[at..].trim_start();
    let end = tail
        .find(|c: char| !(c.is_ascii_digit() || matches!(c, '.' | '-' | 'e' | 'E' | '+')))
        .unwrap_or(tail.len());
    tail[..end].parse().ok()
}

/// Runs `demo --headless --frames N [--fps 60]` once and reads its report.
pub fn demo_run(
    demo: &Path,
    frames: u64,
    fps_limit: Option<f64>,
    report: &Path,
) -> Result<Intervals> {
    let mut cmd = Command::new(demo);
    cmd.args(["--headless", "--frames", &frames.to_string(), "--report"])
        .arg(report);
    if let Some(fps) = fps_limit {
        cmd.args(["--fps", &fps.to_string()]);
    }
    let out = cmd
        .output()
        .with_context(|| format!("running {}", demo.display()))?;
    if !out.status.success() {
        bail!(
            "{} failed ({}): {}",
            demo.display(),
            out.status,
            String::from_utf8_lossy(&out.stderr)
        );
    }
    let json = std::fs::read_to_string(report)?;
    let get = |o: &str, k: &str| {
        number(&json, o, k).with_context(|| format!("report lacks {o}.{k}: {json}"))
    };
    Ok(Intervals {
        mean: get("interval_ms", "mean")?,
        stddev: get("interval_ms", "stddev")?,
        p99: get("interval_ms", "p99")?,
        fps: get("", "fps")?,
    })
}

/// The median of `values` (the mean of the middle two for an even count).
pub fn median(values: &[f64]) -> f64 {
    let mut v = values.to_vec();
    v.sort_by(f64::total_cmp);
    match v.len() {
        0 => 0.0,
        n if n % 2 == 1 => v[n / 2],
        n => (v[n / 2 - 1] + v[n / 2]) / 2.0,
    }
}

/// Each field's median over the runs.
pub fn median_intervals(runs: &[Intervals]) -> Intervals {
    let pick = |f: fn(&Intervals) -> f64| median(&runs.iter().map(f).collect::<Vec<_>>());
    Intervals {
        mean: pick(|r| r.mean),
        stddev: pick(|r| r.stddev),
        p99: pick(|r| r.p99),
        fps: pick(|r| r.fps),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn numbers_are_read_from_the_demo_report_shape() {
        let j = "{\n  \"latency_ms\": {\"p50\": 1.5, \"p99\": 3.0},\n  \
                 \"interval_ms\": {\"mean\": 16.6667, \"stddev\": 0.0210, \"p99\": 16.69},\n  \
                 \"fps\": 59.998,\n  \"gpu_ms\": {\"p50\": 1e-3, \"p99\": 2}\n}";
        assert_eq!(number(j, "interval_ms", "mean"), Some(16.6667));
        assert_eq!(number(j, "interval_ms", "p99"), Some(16.69));
        assert_eq!(number(j, "latency_ms", "p99"), Some(3.0));
        assert_eq!(number(j, "", "fps"), Some(59.998));
        assert_eq!(number(j, "gpu_ms", "p50"), Some(0.001));
        assert_eq!(number(j, "interval_ms", "missing"), None);
        assert_eq!(median(&[3.0, 1.0, 2.0]), 2.0);
        assert_eq!(median(&[4.0, 1.0, 2.0, 3.0]), 2.5);
    }
}
