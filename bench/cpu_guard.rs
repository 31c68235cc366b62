//! The CPU guard: vkpace's render loop against the textbook loop, frames interleaved in one
//! thread (`overhead.rs`), medians of repeats. The verdict is the whole-loop ratio: the render
//! thread's CPU time per frame of vkpace's loop over the textbook loop's, at most
//! [`MAX_LOOP_RATIO`]. Beside it, for information: each loop's own code outside the driver and
//! the renderer, the options' costs, driver calls per frame, and (with `--check` or
//! `--instructions`) callgrind's instructions and level-1 cache misses per steady frame of each
//! loop, the deterministic figures that a busy machine does not move (`instructions.rs`).
//!
//! Each repeat also runs the textbook loop against a second copy of itself, interleaved the
//! same way: that ratio is 1 but for the machine, so its spread says how finely a run can
//! judge the verdict's ratio (the measurement's noise, measured in the same run).

use std::path::Path;

use anyhow::Result;

use crate::driver_meter;
use crate::instructions::{self, PerFrame};
use crate::overhead::{self, VkpaceVariant};
use crate::real_driver::median;

/// The most vkpace's loop may cost in render-thread CPU per frame, as a share of the textbook
/// loop's (the decision of issue 27: at most 5% more).
pub const MAX_LOOP_RATIO: f64 = 1.05;

/// The variants measured: the defaults, then each option alone.
const VARIANTS: [VkpaceVariant; 4] = [
    VkpaceVariant {
        maintenance1: false,
        gpu_timestamps: false,
        timeline: false,
    },
    VkpaceVariant {
        maintenance1: true,
        gpu_timestamps: false,
        timeline: false,
    },
    VkpaceVariant {
        maintenance1: false,
        gpu_timestamps: true,
        timeline: false,
    },
    VkpaceVariant {
        maintenance1: false,
        gpu_timestamps: false,
        timeline: true,
    },
];

/// Per-run figures of one variant.
#[derive(Debug, Clone, Default)]
struct Runs {
    /// vkpace loop's thread CPU per frame over the textbook loop's, per run.
    ratios: Vec<f64>,
    loop_us: Vec<f64>,
    own_us: Vec<f64>,
    /// vkpace's own code less the textbook loop's glue, per run.
    added_us: Vec<f64>,
    calls: Vec<f64>,
}

/// The guard's figures (medians over the runs).
#[derive(Debug, Clone)]
pub struct CpuGuard {
    runs: usize,
    frames: u64,
    clock_ns: f64,
    textbook_us: Vec<f64>,
    textbook_own_us: Vec<f64>,
    textbook_calls: Vec<f64>,
    variants: Vec<Runs>,
    /// The textbook loop against a copy of itself, per run (see the module's docs).
    noise_ratios: Vec<f64>,
    instructions: Option<PerFrame>,
}

/// Measures `reps` interleaved runs of `frames` frames of each variant; with `instructions`,
/// callgrind's counts too (their output files in `out_dir`).
pub fn measure(reps: usize, frames: u64, out_dir: &Path, instructions: bool) -> Result<CpuGuard> {
    eprintln!(
        "vkpace-bench: CPU per frame, textbook loop vs vkpace, frames alternating, {frames} frames x {reps}"
    );
    let mut g = CpuGuard {
        runs: reps,
        frames,
        clock_ns: driver_meter::clock_read_ns(),
        textbook_us: Vec::new(),
        textbook_own_us: Vec::new(),
        textbook_calls: Vec::new(),
        variants: vec![Runs::default(); VARIANTS.len()],
        noise_ratios: Vec::new(),
        instructions: None,
    };
    for _ in 0..reps {
        g.noise_ratios
            .push(overhead::textbook_against_itself(frames)?);
        for (i, v) in VARIANTS.iter().enumerate() {
            let pair = overhead::interleaved(frames, *v)?;
            let (vk_own, tx_own) = (
                pair.vkpace_own_us(g.clock_ns),
                pair.textbook_own_us(g.clock_ns),
            );
            if i == 0 {
                g.textbook_us.push(pair.textbook_us);
                g.textbook_own_us.push(tx_own);
                g.textbook_calls.push(pair.textbook_calls);
            }
            let r = &mut g.variants[i];
            r.ratios.push(pair.vkpace_us / pair.textbook_us);
            r.loop_us.push(pair.vkpace_us);
            r.own_us.push(vk_own);
            r.added_us.push(vk_own - tx_own);
            r.calls.push(pair.vkpace_calls);
        }
    }
    if instructions {
        eprintln!(
            "vkpace-bench: instructions and L1 misses per frame under callgrind (each loop alone)"
        );
        g.instructions = instructions::per_frame(out_dir)?;
    }
    eprintln!("  {}", g.summary());
    Ok(g)
}

impl CpuGuard {
    /// The verdict's figure: the median whole-loop ratio of the defaults.
    pub fn loop_ratio(&self) -> f64 {
        median(&self.variants[0].ratios)
    }

    fn summary(&self) -> String {
        format!(
            "whole-loop CPU per frame: textbook {:.1} us, vkpace {:.1} us, ratio {:.4} (runs {:?}); \
             textbook against itself {:.4} (runs {:?}); own code: textbook {:.2} us, vkpace {:.2} us",
            median(&self.textbook_us),
            median(&self.variants[0].loop_us),
            self.loop_ratio(),
            self.variants[0]
                .ratios
                .iter()
                .map(|r| (r * 1000.0).round() / 1000.0)
                .collect::<Vec<_>>(),
            self.noise_ratio(),
            self.noise_ratios
                .iter()
                .map(|r| (r * 1000.0).round() / 1000.0)
                .collect::<Vec<_>>(),
            median(&self.textbook_own_us),
            median(&self.variants[0].own_us),
        )
    }

    /// The median ratio of the textbook loop against a copy of itself.
    pub fn noise_ratio(&self) -> f64 {
        median(&self.noise_ratios)
    }

    /// The lowest and highest per-run ratio of the textbook loop against itself.
    fn noise_range(&self) -> (f64, f64) {
        if self.noise_ratios.is_empty() {
            return (0.0, 0.0);
        }
        let lo = self
            .noise_ratios
            .iter()
            .copied()
            .fold(f64::INFINITY, f64::min);
        let hi = self
            .noise_ratios
            .iter()
            .copied()
            .fold(f64::NEG_INFINITY, f64::max);
        (lo, hi)
    }

    /// The verdicts (the ratio; driver calls not more than the textbook loop's), then the
    /// measurement's noise and callgrind's counts as information.
    pub fn checks(&self) -> Vec<(Option<bool>, String)> {
        let ratio = self.loop_ratio();
        let mut out = vec![
            (
                Some(ratio <= MAX_LOOP_RATIO),
                format!(
                    "CPU guard: render-thread CPU per frame, vkpace loop / textbook loop (interleaved, median of {} runs): {ratio:.4} (at most {MAX_LOOP_RATIO}; {:+.1}%)",
                    self.runs,
                    100.0 * (ratio - 1.0)
                ),
            ),
            (
                Some(median(&self.variants[0].calls) <= median(&self.textbook_calls)),
                format!(
                    "CPU guard: driver calls per frame {:.2} (textbook loop {:.2}; not more)",
                    median(&self.variants[0].calls),
                    median(&self.textbook_calls)
                ),
            ),
        ];
        out.extend(self.information());
        out
    }

    /// The report's lines that judge nothing: the measurement's noise and callgrind's counts.
    fn information(&self) -> Vec<(Option<bool>, String)> {
        let (lo, hi) = self.noise_range();
        let noise = format!(
            "CPU guard: the textbook loop against a copy of itself (the measurement's noise): median {:.4}, runs {lo:.3} to {hi:.3}",
            self.noise_ratio()
        );
        let counted = match self.instructions {
            Some(i) => format!(
                "CPU guard: per steady frame (callgrind, render thread): instructions textbook {:.0}, vkpace {:.0} ({:+.0}, ratio {:.4}); L1 lines missed textbook {:.0}, vkpace {:.0} ({:+.0})",
                i.textbook,
                i.vkpace,
                i.vkpace - i.textbook,
                i.vkpace / i.textbook,
                i.textbook_l1_misses,
                i.vkpace_l1_misses,
                i.vkpace_l1_misses - i.textbook_l1_misses,
            ),
            None => "CPU guard: instructions per frame not counted (--check or --instructions, and valgrind)".into(),
        };
        vec![(None, noise), (None, counted)]
    }

    /// The `"overhead"` object of the report.
    pub fn json(&self) -> String {
        let v = &self.variants;
        let added = |i: usize| median(&v[i].added_us);
        let calls = |i: usize| median(&v[i].calls);
        let instructions = self.instructions.map_or("null".into(), |i| {
            format!(
                "{{\"textbook\": {:.0}, \"vkpace\": {:.0}, \"ratio\": {:.5}, \"textbook_l1_misses\": {:.0}, \"vkpace_l1_misses\": {:.0}}}",
                i.textbook,
                i.vkpace,
                i.vkpace / i.textbook,
                i.textbook_l1_misses,
                i.vkpace_l1_misses
            )
        });
        format!(
            "{{\"loop_cpu_ratio\": {:.5}, \"loop_cpu_ratio_max\": {MAX_LOOP_RATIO}, \"loop_cpu_ratios\": {:?}, \
             \"textbook_self_ratio\": {:.5}, \"textbook_self_ratios\": {:?}, \
             \"instructions_per_frame\": {instructions}, \
             \"vkpace_cpu_us_per_frame\": {:.3}, \"textbook_cpu_us_per_frame\": {:.3}, \
             \"vkpace_own_code_us_per_frame\": {:.3}, \"textbook_own_code_us_per_frame\": {:.3}, \
             \"vkpace_loop_cpu_us_per_frame\": {:.3}, \
             \"with_maintenance1_cpu_us_per_frame\": {:.3}, \"with_gpu_timestamps_cpu_us_per_frame\": {:.3}, \
             \"with_timeline_cpu_us_per_frame\": {:.3}, \
             \"driver_calls_per_frame\": {{\"textbook\": {:.3}, \"vkpace\": {:.3}, \"with_maintenance1\": {:.3}, \"with_gpu_timestamps\": {:.3}, \"with_timeline\": {:.3}}}, \
             \"clock_read_ns\": {:.1}, \"runs\": {}, \"frames_per_run\": {}}}",
            self.loop_ratio(),
            v[0].ratios,
            self.noise_ratio(),
            self.noise_ratios,
            added(0),
            median(&self.textbook_us),
            median(&v[0].own_us),
            median(&self.textbook_own_us),
            median(&v[0].loop_us),
            added(1),
            added(2),
            added(3),
            median(&self.textbook_calls),
            calls(0),
            calls(1),
            calls(2),
            calls(3),
            self.clock_ns,
            self.runs,
            self.frames,
        )
    }

    /// The report's table rows.
    pub fn markdown_rows(&self) -> String {
        let tx = median(&self.textbook_us);
        let pct = |us: f64| 100.0 * us / tx;
        let v = &self.variants;
        let added = |i: usize| median(&v[i].added_us);
        let instructions = self.instructions.map_or("not counted".into(), |i| {
            format!("{:.0} / {:.0}", i.textbook, i.vkpace)
        });
        let misses = self.instructions.map_or("not counted".into(), |i| {
            format!("{:.0} / {:.0}", i.textbook_l1_misses, i.vkpace_l1_misses)
        });
        let (lo, hi) = self.noise_range();
        format!(
            "| **CPU guard: vkpace loop / textbook loop, render-thread CPU per frame (at most {MAX_LOOP_RATIO})** | **{:.4}** (per run: {}) |\n\
             | the same measurement, textbook loop against a copy of itself (noise) | {:.4} (runs {lo:.3} to {hi:.3}) |\n\
             | textbook loop thread CPU per frame | {tx:.1} us |\n\
             | vkpace loop thread CPU per frame (defaults), frames interleaved | {:.1} us |\n\
             | instructions per steady frame (callgrind): textbook / vkpace | {instructions} |\n\
             | L1 cache lines missed per steady frame (callgrind): textbook / vkpace | {misses} |\n\
             | own code per frame, outside driver and renderer: textbook glue / vkpace | {:.2} / {:.2} us |\n\
             | vkpace's own code less the textbook's glue (defaults) | {:.2} us ({:.2}% of textbook) |\n\
             | + maintenance1 present fences | {:.2} us ({:.2}%) |\n\
             | + GPU timestamps | {:.2} us ({:.2}%) |\n\
             | timeline backend instead of fences | {:.2} us ({:.2}%) |\n\
             | driver calls per frame: textbook / vkpace / + maintenance1 / + GPU timestamps / timeline | {:.2} / {:.2} / {:.2} / {:.2} / {:.2} |\n",
            self.loop_ratio(),
            v[0].ratios
                .iter()
                .map(|r| format!("{r:.3}"))
                .collect::<Vec<_>>()
                .join(", "),
            self.noise_ratio(),
            median(&v[0].loop_us),
            median(&self.textbook_own_us),
            median(&v[0].own_us),
            added(0),
            pct(added(0)),
            added(1),
            pct(added(1)),
            added(2),
            pct(added(2)),
            added(3),
            pct(added(3)),
            median(&self.textbook_calls),
            median(&v[0].calls),
            median(&v[1].calls),
            median(&v[2].calls),
            median(&v[3].calls),
        )
    }
}
