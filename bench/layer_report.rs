//! The drop-in limiters' comparison as a report: medians per load and limiter, the
//! repetitions' spread, the verdicts, JSON and a markdown table (`layer_peers.rs` runs it).

use std::fmt::Write as _;

use crate::cpu_load::{Load, BUSY_THREADS, GPU_MODEL};
use crate::layer_figures::LayerRun;
use crate::layer_peers::{Contender, LayerComparison, CAP_FPS, REFRESH_HZ};

impl LayerComparison {
    /// The median figures of `contender` under `load`.
    pub fn median(&self, load: Load, contender: Contender) -> LayerRun {
        self.cells
            .iter()
            .find(|(l, c, _)| *l == load && *c == contender)
            .map_or_else(LayerRun::default, |(_, _, runs)| LayerRun::median_of(runs))
    }

    /// The verdicts, per load (the modelled GPU's too), on the medians: vkpace's layer no
    /// worse than either MangoHud mode in interval spread and intervals off the grid, and no
    /// later than MangoHud's `late` mode from start to shown; and its cap kept (within 1% of 30
    /// fps). Door 1 (the demo's own loop, issue 52's "the same verdicts as the layer's") is
    /// judged the same way, against the same MangoHud runs on vkcube.
    pub fn checks(&self) -> Vec<(bool, String)> {
        let mut out = Vec::new();
        for load in Load::WITH_GPU_MODEL {
            let peers = [
                ("early", self.median(load, Contender::MangoHudEarly)),
                ("late", self.median(load, Contender::MangoHudLate)),
            ];
            for (who, c) in [
                ("vkpace", Contender::Vkpace),
                ("door 1 (the demo)", Contender::Door1Display),
            ] {
                let who = format!("{}: {who}", load.name());
                out.extend(verdicts(&who, self.median(load, c), &peers));
            }
        }
        out
    }

    /// `{"refresh_hz": .., "cap_fps": .., "medians": {load: {contender: {...}}}, "runs": ..}`.
    pub fn json(&self) -> String {
        let per_load = |f: &dyn Fn(Load, Contender) -> String| {
            let loads: Vec<String> = Load::WITH_GPU_MODEL
                .iter()
                .map(|&l| {
                    let cs: Vec<String> = Contender::ALL
                        .iter()
                        .map(|&c| format!("\"{}\": {}", c.name(), f(l, c)))
                        .collect();
                    format!("\"{}\": {{{}}}", l.name(), cs.join(", "))
                })
                .collect();
            format!("{{{}}}", loads.join(", "))
        };
        let runs = |l: Load, c: Contender| {
            let runs = self
                .cells
                .iter()
                .find(|(x, y, _)| *x == l && *y == c)
                .map_or(&[][..], |(_, _, r)| r.as_slice());
            let v: Vec<String> = runs.iter().map(LayerRun::json).collect();
            format!("[{}]", v.join(", "))
        };
        format!(
            "{{\"application\": \"vkcube\", \"refresh_hz\": {REFRESH_HZ}, \"cap_fps\": {CAP_FPS}, \
             \"frames\": {}, \"reps\": {}, \"busy_threads\": {BUSY_THREADS}, \
             \"gpu_model_ms\": \"{GPU_MODEL}\", \"medians\": {}, \"runs\": {}}}",
            self.frames,
            self.reps,
            per_load(&|l, c| self.median(l, c).json()),
            per_load(&runs)
        )
    }

    /// The medians as a markdown table, with the spread of the repetitions' start to shown p50
    /// (MangoHud's phase luck: where its sleep falls against the refresh grid is drawn anew each
    /// run).
    pub fn markdown(&self) -> String {
        let mut md = format!(
            "## Drop-in limiters on vkcube ({CAP_FPS} fps cap, vdisplay {REFRESH_HZ} Hz FIFO, \
             medians of {} runs of {} frames)\n\n\
             Start: the image's acquire returned (vdisplay's `acquired_ns`); ready: the frame's \
             rendering complete as vdisplay saw it (`ready_ns`; under `gpu-model`, vdisplay's \
             modelled GPU, `gpu_ms = {GPU_MODEL}`); shown: its refresh. Start to ready counts a \
             limiter's sleep between acquire and present (MangoHud `early`); ready to shown is \
             the wait for the display. `door1-display` is not vkcube: it is the demo's own \
             loop through vkpace's first door (`--fps {CAP_FPS} --policy display`).\n\n\
             | load | limiter | interval sd (ms) | interval p99 (ms) | off the grid /1000 | \
             start to shown p50 (ms) | p99 (ms) | p50 over runs (ms) | start to ready p50 \
             (ms) | p99 (ms) | ready to shown p50 (ms) | p99 (ms) | fps |\n\
             |---|---|---|---|---|---|---|---|---|---|---|---|---|\n",
            self.reps, self.frames
        );
        for load in Load::WITH_GPU_MODEL {
            for c in Contender::ALL {
                let m = self.median(load, c);
                let _ = writeln!(
                    md,
                    "| {} | {} | {:.3} | {:.2} | {:.1} | {:.1} | {:.1} | {} | {:.1} | {:.1} | \
                     {:.1} | {:.1} | {:.2} |",
                    load.name(),
                    c.name(),
                    m.interval_sd_ms,
                    m.interval_p99_ms,
                    m.off_grid_per_1000,
                    m.latency_p50_ms,
                    m.latency_p99_ms,
                    self.latency_spread(load, c),
                    m.frame_p50_ms,
                    m.frame_p99_ms,
                    m.wait_p50_ms,
                    m.wait_p99_ms,
                    m.fps
                );
            }
        }
        md
    }

    /// The lowest and highest start to shown p50 of the repetitions (`a-b`, or one value).
    fn latency_spread(&self, load: Load, contender: Contender) -> String {
        let p50s: Vec<f64> = self
            .cells
            .iter()
            .filter(|(l, c, _)| *l == load && *c == contender)
            .flat_map(|(_, _, runs)| runs.iter().map(|r| r.latency_p50_ms))
            .collect();
        let lo = p50s.iter().copied().fold(f64::INFINITY, f64::min);
        let hi = p50s.iter().copied().fold(f64::NEG_INFINITY, f64::max);
        match p50s.len() {
            0 => "-".into(),
            1 => format!("{lo:.1}"),
            _ => format!("{lo:.1}-{hi:.1}"),
        }
    }
}

/// The verdicts of `v` (`who`: the load and the limiter) against MangoHud's `peers`.
fn verdicts(who: &str, v: LayerRun, peers: &[(&str, LayerRun); 2]) -> Vec<(bool, String)> {
    let ahead = |a: f64, b: f64| match a.total_cmp(&b) {
        std::cmp::Ordering::Less => "ahead",
        std::cmp::Ordering::Equal => "tied",
        std::cmp::Ordering::Greater => "behind",
    };
    let mut out = Vec::new();
    for (peer, p) in peers {
        // What is compared, its unit and decimals, vkpace's figure and the peer's.
        for (what, unit, decimals, mine, theirs) in [
            ("interval sd", " ms", 3, v.interval_sd_ms, p.interval_sd_ms),
            (
                "intervals off the grid",
                "/1000",
                1,
                v.off_grid_per_1000,
                p.off_grid_per_1000,
            ),
        ] {
            out.push((
                mine <= theirs,
                format!(
                    "{who}'s {what} {mine:.decimals$}{unit} <= MangoHud {peer}'s \
                     {theirs:.decimals$}{unit} ({})",
                    ahead(mine, theirs)
                ),
            ));
        }
    }
    let late = peers[1].1;
    out.push((
        v.latency_p50_ms <= late.latency_p50_ms,
        format!(
            "{who}'s start to shown p50 {:.1} ms <= MangoHud late's {:.1} ms",
            v.latency_p50_ms, late.latency_p50_ms
        ),
    ));
    out.push((
        (v.fps - f64::from(CAP_FPS)).abs() <= f64::from(CAP_FPS) * 0.01,
        format!("{who} keeps the cap: {:.2} fps", v.fps),
    ));
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn verdicts_say_each_figure_against_each_peer() {
        let run = |sd, off, latency, fps| LayerRun {
            interval_sd_ms: sd,
            off_grid_per_1000: off,
            latency_p50_ms: latency,
            fps,
            ..LayerRun::default()
        };
        let peers = [
            ("early", run(1.7, 10.6, 42.4, 30.0)),
            ("late", run(6.1, 134.3, 5.9, 30.0)),
        ];
        let v = verdicts("idle: vkpace", run(0.7, 1.8, 15.2, 29.97), &peers);
        let lines: Vec<(bool, &str)> = v.iter().map(|(ok, s)| (*ok, s.as_str())).collect();
        assert_eq!(
            lines,
            [
                (
                    true,
                    "idle: vkpace's interval sd 0.700 ms <= MangoHud early's 1.700 ms (ahead)"
                ),
                (
                    true,
                    "idle: vkpace's intervals off the grid 1.8/1000 <= MangoHud early's 10.6/1000 \
                     (ahead)"
                ),
                (
                    true,
                    "idle: vkpace's interval sd 0.700 ms <= MangoHud late's 6.100 ms (ahead)"
                ),
                (
                    true,
                    "idle: vkpace's intervals off the grid 1.8/1000 <= MangoHud late's 134.3/1000 \
                     (ahead)"
                ),
                (
                    false,
                    "idle: vkpace's start to shown p50 15.2 ms <= MangoHud late's 5.9 ms"
                ),
                (true, "idle: vkpace keeps the cap: 29.97 fps"),
            ]
        );
    }
}
