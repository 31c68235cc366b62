//! The simulated half of the benchmark: every scenario under every policy, the same seed, and
//! the ratios to the textbook loop.

use std::fmt::Write as _;

use crate::scenarios::{policies, scenarios, SEED};
use crate::sim::{run, summarize, FrameRecord, Policy, Summary};

/// The first simulated second is warm-up (the statistics windows filling), left out.
pub const WARMUP_MS: f64 = 1_000.0;

/// One scenario's results, per policy in `vkpace_sim::scenarios::policies` order.
pub struct ScenarioResult {
    pub name: &'static str,
    pub rows: Vec<(String, Summary)>,
    /// Every frame of every policy (for the plots).
    pub frames: Vec<(Policy, Vec<FrameRecord>)>,
}

pub fn run_all() -> Vec<ScenarioResult> {
    scenarios()
        .iter()
        .map(|s| {
            let mut rows = Vec::new();
            let mut frames = Vec::new();
            for p in policies() {
                let f = run(s, p, SEED);
                rows.push((p.name(), summarize(&f, WARMUP_MS, s.duration_ms)));
                frames.push((p, f));
            }
            ScenarioResult {
                name: s.name,
                rows,
                frames,
            }
        })
        .collect()
}

/// The `"sim"` object of the JSON report.
pub fn json(results: &[ScenarioResult]) -> String {
    let mut j = String::from("{\n");
    for (i, r) in results.iter().enumerate() {
        let _ = writeln!(j, "    \"{}\": {{", r.name);
        for (k, (policy, s)) in r.rows.iter().enumerate() {
            let _ = write!(
                j,
                "      \"{policy}\": {{\"latency_ms_p50\": {:.3}, \"latency_ms_p99\": {:.3}, \
                 \"fps\": {:.2}, \"interval_ms_stddev\": {:.3}, \"display_latency_ms_p50\": {:.3}}}",
                s.latency_ms_p50, s.latency_ms_p99, s.fps, s.interval_ms_stddev,
                s.display_latency_ms_p50
            );
            j.push_str(if k + 1 < r.rows.len() { ",\n" } else { "\n" });
        }
        j.push_str(if i + 1 < results.len() {
            "    },\n"
        } else {
            "    }\n"
        });
    }
    j.push_str("  }");
    j
}

fn ratio(v: f64, base: f64) -> String {
    if base > 0.0 {
        format!("{:.2}x", v / base)
    } else {
        "-".into()
    }
}

/// A markdown table: each policy's figures and their ratio to `textbook` in the same scenario.
pub fn markdown(results: &[ScenarioResult]) -> String {
    let mut m = String::from(
        "| scenario | policy | latency p50 ms (vs textbook) | latency p99 ms (vs textbook) | \
         fps (vs textbook) | interval sd ms | start to display p50 ms |\n\
         |---|---|---|---|---|---|---|\n",
    );
    for r in results {
        let Some((_, base)) = r.rows.iter().find(|(p, _)| p == "textbook") else {
            continue;
        };
        for (policy, s) in &r.rows {
            let _ = writeln!(
                m,
                "| {} | {} | {:.1} ({}) | {:.1} ({}) | {:.1} ({}) | {:.2} | {:.1} |",
                r.name,
                policy,
                s.latency_ms_p50,
                ratio(s.latency_ms_p50, base.latency_ms_p50),
                s.latency_ms_p99,
                ratio(s.latency_ms_p99, base.latency_ms_p99),
                s.fps,
                ratio(s.fps, base.fps),
                s.interval_ms_stddev,
                s.display_latency_ms_p50,
            );
        }
    }
    m
}
