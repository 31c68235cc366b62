//! The CPU guard: vkpace's render loop against the textbook loop. The verdicts are
//! deterministic (the decision of issue 40): under callgrind (`instructions.rs`), vkpace's own
//! instructions per steady frame (vkpace loop less textbook loop, driver and renderer included
//! in both) at most [`MAX_ADDED_INSTRUCTIONS`], and the level-1 cache lines it misses per
//! frame above the textbook loop at most [`MAX_ADDED_L1_MISSES`]; and no more driver calls per
//! frame than the textbook loop. A busy machine moves none of them, so one run decides.
//!
//! Beside them, for information: the timed whole-loop ratio (the render thread's CPU time per
//! frame of vkpace's loop over the textbook loop's, frames interleaved in one thread,
//! `overhead.rs`, medians of repeats; 0.3's verdict, which the machine's state moved by more
//! than the difference it judged), each loop's own code outside the driver and the renderer,
//! and the options' costs. Each repeat also runs the textbook loop against a second copy of
//! itself, interleaved the same way: that ratio is 1 but for the machine, so its spread says how
//! finely a run can judge the timed ratio (the measurement's noise, measured in the same run).

use std::path::Path;

use anyhow::Result;

use crate::driver_meter;
use crate::instructions::{self, PerFrame};
use crate::overhead::{self, VkpaceVariant};
use crate::real_driver::median;

/// The most instructions vkpace's loop may execute per steady frame beyond the textbook loop's
/// (the decision of issue 40).
pub const MAX_ADDED_INSTRUCTIONS: f64 = 4000.0;

/// The most level-1 cache lines (instruction and data) vkpace's loop may miss per steady frame
/// beyond the textbook loop's (the decision of issue 40).
pub const MAX_ADDED_L1_MISSES: f64 = 600.0;

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
    /// Callgrind was asked for (`--check` or `--instructions`): a missing count is then a
    /// missed verdict, not an information line.
    counting: bool,
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
        counting: instructions,
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
    /// The median whole-loop ratio of the defaults (information since issue 40).
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

    /// The verdicts (instructions and L1 lines missed per frame beyond the textbook loop's;
    /// driver calls not more than the textbook loop's), then the timed ratio, the
    /// measurement's noise and callgrind's absolute counts as information.
    pub fn checks(&self) -> Vec<(Option<bool>, String)> {
        let mut out = self.counted_verdicts();
        out.push((
            Some(median(&self.variants[0].calls) <= median(&self.textbook_calls)),
            format!(
                "CPU guard: driver calls per frame {:.2} (textbook loop {:.2}; not more)",
                median(&self.variants[0].calls),
                median(&self.textbook_calls)
            ),
        ));
        out.extend(self.information());
        out
    }

    /// The two deterministic verdicts. Without counts they are missed when counting was asked
    /// for (valgrind missing: the guard was not run, which is no pass), and information lines
    /// otherwise (the smoke run).
    fn counted_verdicts(&self) -> Vec<(Option<bool>, String)> {
        let Some(i) = self.instructions else {
            let verdict = self.counting.then_some(false);
            return vec![(
                verdict,
                "CPU guard: instructions and L1 lines missed per frame not counted (valgrind is needed; --check or --instructions)".into(),
            )];
        };
        let added = i.vkpace - i.textbook;
        let added_misses = i.vkpace_l1_misses - i.textbook_l1_misses;
        vec![
            (
                Some(added <= MAX_ADDED_INSTRUCTIONS),
                format!(
                    "CPU guard: vkpace's instructions per steady frame beyond the textbook loop's (callgrind, render thread): {added:+.0} (at most {MAX_ADDED_INSTRUCTIONS}; textbook {:.0}, vkpace {:.0})",
                    i.textbook, i.vkpace
                ),
            ),
            (
                Some(added_misses <= MAX_ADDED_L1_MISSES),
                format!(
                    "CPU guard: L1 lines missed per steady frame beyond the textbook loop's: {added_misses:+.0} (at most {MAX_ADDED_L1_MISSES}; textbook {:.0}, vkpace {:.0})",
                    i.textbook_l1_misses, i.vkpace_l1_misses
                ),
            ),
        ]
    }

    /// The report's lines that judge nothing: the timed ratio and the measurement's noise.
    fn information(&self) -> Vec<(Option<bool>, String)> {
        let ratio = self.loop_ratio();
        let (lo, hi) = self.noise_range();
        vec![
            (
                None,
                format!(
                    "CPU guard: render-thread CPU per frame, vkpace loop / textbook loop (interleaved, median of {} runs): {ratio:.4} ({:+.1}%)",
                    self.runs,
                    100.0 * (ratio - 1.0)
                ),
            ),
            (
                None,
                format!(
                    "CPU guard: the textbook loop against a copy of itself (the measurement's noise): median {:.4}, runs {lo:.3} to {hi:.3}",
                    self.noise_ratio()
                ),
            ),
        ]
    }

    /// The `"overhead"` object of the report.
    pub fn json(&self) -> String {
        let v = &self.variants;
        let added = |i: usize| median(&v[i].added_us);
        let calls = |i: usize| median(&v[i].calls);
        let instructions = self.instructions.map_or("null".into(), |i| {
            format!(
                "{{\"textbook\": {:.0}, \"vkpace\": {:.0}, \"ratio\": {:.5}, \"added\": {:.0}, \"textbook_l1_misses\": {:.0}, \"vkpace_l1_misses\": {:.0}, \"l1_misses_added\": {:.0}}}",
                i.textbook,
                i.vkpace,
                i.vkpace / i.textbook,
                i.vkpace - i.textbook,
                i.textbook_l1_misses,
                i.vkpace_l1_misses,
                i.vkpace_l1_misses - i.textbook_l1_misses
            )
        });
        format!(
            "{{\"loop_cpu_ratio\": {:.5}, \"loop_cpu_ratios\": {:?}, \
             \"textbook_self_ratio\": {:.5}, \"textbook_self_ratios\": {:?}, \
             \"instructions_per_frame\": {instructions}, \"instructions_added_max\": {MAX_ADDED_INSTRUCTIONS}, \"l1_misses_added_max\": {MAX_ADDED_L1_MISSES}, \
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
            format!(
                "**{:+.0}** ({:.0} / {:.0})",
                i.vkpace - i.textbook,
                i.textbook,
                i.vkpace
            )
        });
        let misses = self.instructions.map_or("not counted".into(), |i| {
            format!(
                "**{:+.0}** ({:.0} / {:.0})",
                i.vkpace_l1_misses - i.textbook_l1_misses,
                i.textbook_l1_misses,
                i.vkpace_l1_misses
            )
        });
        let (lo, hi) = self.noise_range();
        format!(
            "| **CPU guard: instructions per steady frame beyond the textbook loop's (at most {MAX_ADDED_INSTRUCTIONS})** (callgrind: textbook / vkpace) | {instructions} |\n\
             | **CPU guard: L1 cache lines missed per steady frame beyond the textbook loop's (at most {MAX_ADDED_L1_MISSES})** (callgrind: textbook / vkpace) | {misses} |\n\
             | vkpace loop / textbook loop, render-thread CPU per frame (timed, information) | {:.4} (per run: {}) |\n\
             | the same measurement, textbook loop against a copy of itself (noise) | {:.4} (runs {lo:.3} to {hi:.3}) |\n\
             | textbook loop thread CPU per frame | {tx:.1} us |\n\
             | vkpace loop thread CPU per frame (defaults), frames interleaved | {:.1} us |\n\
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

#[cfg(test)]
mod tests {
    use super::*;

    fn guard(instructions: Option<PerFrame>, counting: bool) -> CpuGuard {
        let runs = Runs {
            ratios: vec![1.2],
            loop_us: vec![60.0],
            own_us: vec![6.0],
            added_us: vec![5.0],
            calls: vec![5.0],
        };
        CpuGuard {
            runs: 1,
            frames: 100,
            clock_ns: 20.0,
            textbook_us: vec![50.0],
            textbook_own_us: vec![1.0],
            textbook_calls: vec![5.0],
            variants: vec![runs; VARIANTS.len()],
            noise_ratios: vec![1.0],
            counting,
            instructions,
        }
    }

    fn counts(added: f64, added_misses: f64) -> Option<PerFrame> {
        Some(PerFrame {
            textbook: 17_000.0,
            vkpace: 17_000.0 + added,
            textbook_l1_misses: 1_000.0,
            vkpace_l1_misses: 1_000.0 + added_misses,
        })
    }

    /// The verdicts of `g`, in order (information lines left out).
    fn verdicts(g: &CpuGuard) -> Vec<bool> {
        g.checks().into_iter().filter_map(|(ok, _)| ok).collect()
    }

    #[test]
    fn the_guard_judges_added_instructions_and_misses_not_the_timed_ratio() {
        // A timed ratio of 1.2 judges nothing; 4,000 and 600 are inside, one more is not.
        assert_eq!(
            verdicts(&guard(counts(4000.0, 600.0), true)),
            [true, true, true]
        );
        assert_eq!(
            verdicts(&guard(counts(4001.0, 600.0), true)),
            [false, true, true]
        );
        assert_eq!(
            verdicts(&guard(counts(4000.0, 601.0), true)),
            [true, false, true]
        );
    }

    #[test]
    fn counts_asked_for_but_missing_are_a_miss_and_otherwise_information() {
        assert_eq!(verdicts(&guard(None, true)), [false, true]);
        assert_eq!(verdicts(&guard(None, false)), [true]);
    }
}
