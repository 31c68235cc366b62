//! What the HUD says: the run's figures and settings in the top-left corner, and the graph's
//! legend and millisecond scale beside the graph. Figures are means over the last frames,
//! refreshed four times a second so they can be read; settings are shown as they are now.

use std::time::{Duration, Instant};

use vkpace_demo::frame_history::FrameHistory;
use vkpace_demo::graph_buffers::{graph_scale_ms, reference_ms};
use vkpace_demo::hud::{Color, HudText};

/// The first row of the HUD block (below the orientation marker in the top-left corner).
pub const FIRST_ROW: usize = 4;
/// The column the HUD's values start in (labels are padded to it).
pub const VALUE_COLUMN: usize = 14;
/// Where the graph begins, as a fraction of the height (as in shaders/scene.frag).
const GRAPH_TOP: f32 = 0.72;
/// Samples the figures are averaged over.
const MEAN_OF: usize = 60;
/// How often the figures change.
const REFRESH: Duration = Duration::from_millis(250);

/// Settings and states shown as they are each frame.
pub struct HudFacts<'a> {
    pub policy: &'a str,
    pub fps_limit: Option<f64>,
    pub present_mode: &'a str,
    pub frames_in_flight: usize,
    /// The maintenance1 names in use ("KHR", "EXT"), or none: the proof-based path.
    pub maintenance1: Option<&'a str>,
    pub completion: &'a str,
    pub submission: &'a str,
    pub generation: u64,
    pub width: u32,
    pub height: u32,
    pub gpu_load: f32,
    pub latency_source: &'a str,
    /// How frames are paced to the display (present timing).
    pub display: DisplayFacts,
}

/// The present timing part of the HUD.
#[derive(Clone, Copy, Debug, Default)]
pub struct DisplayFacts {
    /// Present timing is in use on the surface.
    pub present_timing: bool,
    /// Refreshes per frame on the refresh grid; 0 when the CPU paces.
    pub swap_interval: u32,
    /// Frames shown later than their refresh.
    pub missed: u64,
    /// Mean CPU frame start to first pixel visible over the last frames, ms (0: unknown).
    pub first_pixel_ms: f64,
}

/// Means over the last frames, as last refreshed.
#[derive(Default, Clone, Copy)]
struct Figures {
    interval_ms: f32,
    cpu_wait_ms: f32,
    latency_ms: f32,
}

/// The HUD's text and the figures it holds between refreshes.
#[derive(Default)]
pub struct HudView {
    text: HudText,
    figures: Figures,
    refreshed: Option<Instant>,
}

impl HudView {
    /// Rebuilds the text for an image of `facts.width` x `facts.height` (no allocation).
    pub fn update(&mut self, now: Instant, history: &FrameHistory, facts: &HudFacts) {
        if self
            .refreshed
            .is_none_or(|t| now.duration_since(t) >= REFRESH)
        {
            self.figures = means(history);
            self.refreshed = Some(now);
        }
        self.text.begin(facts.width, facts.height);
        self.block(facts);
        self.graph_labels(history, facts.height);
    }

    /// The text to draw.
    pub fn text(&self) -> &HudText {
        &self.text
    }

    fn line(&mut self, k: usize, label: &str, args: std::fmt::Arguments) {
        let row = FIRST_ROW + k;
        self.text.put(row, 1, label.as_bytes(), Color::Grey);
        self.text.put_fmt(row, VALUE_COLUMN, Color::White, args);
    }

    fn block(&mut self, f: &HudFacts) {
        let g = self.figures;
        let fps = if g.interval_ms > 0.0 {
            1000.0 / g.interval_ms
        } else {
            0.0
        };
        self.text
            .put(FIRST_ROW - 1, 1, b"vkpace demo", Color::White);
        self.line(0, "fps", format_args!("{fps:.1}"));
        self.line(1, "interval", format_args!("{:.2} ms", g.interval_ms));
        let source = f.latency_source;
        self.line(
            2,
            "latency",
            format_args!("{:.2} ms ({source})", g.latency_ms),
        );
        self.line(3, "cpu wait", format_args!("{:.2} ms", g.cpu_wait_ms));
        match f.fps_limit {
            Some(l) => self.line(4, "policy", format_args!("{}, limit {l:.0} fps", f.policy)),
            None => self.line(4, "policy", format_args!("{}, no limit", f.policy)),
        }
        self.line(5, "present", format_args!("{}", f.present_mode));
        self.line(6, "in flight", format_args!("{}", f.frames_in_flight));
        match f.maintenance1 {
            Some(names) => self.line(7, "sync path", format_args!("maintenance1 ({names})")),
            None => self.line(7, "sync path", format_args!("proof (no maintenance1)")),
        }
        let (c, s) = (f.completion, f.submission);
        self.line(8, "completion", format_args!("{c}, {s}"));
        let (n, w, h) = (f.generation, f.width, f.height);
        self.line(9, "swapchain", format_args!("generation {n}, {w}x{h}"));
        self.line(10, "gpu load", format_args!("{:.1}", f.gpu_load));
        let d = f.display;
        let (k, missed) = (d.swap_interval, d.missed);
        match (d.present_timing, k) {
            (false, _) => self.line(11, "display", format_args!("cpu paced, no present timing")),
            (true, 0) => self.line(11, "display", format_args!("cpu paced, present timing")),
            (true, _) => self.line(
                11,
                "display",
                format_args!("refresh grid, {k} per frame, {missed} missed"),
            ),
        }
        if d.first_pixel_ms > 0.0 {
            let ms = d.first_pixel_ms;
            self.line(
                12,
                "to pixel",
                format_args!("{ms:.2} ms (start to first pixel)"),
            );
        }
    }

    /// The legend above the graph and its scale at its left edge: the top value, the reference
    /// line, zero.
    fn graph_labels(&mut self, history: &FrameHistory, height: u32) {
        let cell = self.text.cell_px() as f32;
        let top_px = GRAPH_TOP * height as f32;
        let graph_px = height as f32 - top_px;
        let top_row = (top_px / cell).ceil() as usize;
        let scale = graph_scale_ms(history);
        if top_row >= 1 {
            let legend = top_row - 1;
            self.text.put(legend, 1, b"frame interval", Color::Green);
            self.text.put(legend, 17, b"cpu wait", Color::Yellow);
            self.text.put(legend, 27, b"latency", Color::Cyan);
            self.text.put(legend, 36, b"60 Hz line", Color::Grey);
        }
        self.text
            .put_fmt(top_row, 1, Color::Grey, format_args!("{scale:.1} ms"));
        let reference_px = height as f32 - reference_ms() / scale * graph_px;
        let reference_row = (reference_px / cell) as usize;
        if reference_row > top_row + 1 {
            let r = reference_ms();
            self.text
                .put_fmt(reference_row, 1, Color::Grey, format_args!("{r:.1} ms"));
        }
        let last = self.text.rows().saturating_sub(1);
        if last > reference_row + 1 {
            self.text.put(last, 1, b"0 ms", Color::Grey);
        }
    }
}

/// Means of the last [`MEAN_OF`] samples of each series.
fn means(history: &FrameHistory) -> Figures {
    let skip = history.len().saturating_sub(MEAN_OF);
    let (mut sum, mut n) = (Figures::default(), 0.0f32);
    for s in history.iter().skip(skip) {
        sum.interval_ms += s.interval_ms;
        sum.cpu_wait_ms += s.cpu_wait_ms;
        sum.latency_ms += s.latency_ms;
        n += 1.0;
    }
    if n == 0.0 {
        return sum;
    }
    Figures {
        interval_ms: sum.interval_ms / n,
        cpu_wait_ms: sum.cpu_wait_ms / n,
        latency_ms: sum.latency_ms / n,
    }
}
