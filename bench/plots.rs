//! PNG plots (plotters) of the `load-step` scenario: latency and frame interval over simulated
//! time for every policy, with the two load steps marked.

use std::path::Path;

use anyhow::{anyhow, Result};
use plotters::prelude::*;

use crate::scenarios::STEPS_MS;
use crate::sim::{FrameRecord, Policy};

const COLORS: [RGBColor; 5] = [
    RGBColor(90, 90, 90),
    RGBColor(31, 119, 180),
    RGBColor(44, 160, 44),
    RGBColor(214, 39, 40),
    RGBColor(148, 103, 189),
];

/// What a plot shows per frame: (time s, value ms).
fn latency_series(frames: &[FrameRecord]) -> Vec<(f64, f64)> {
    frames
        .iter()
        .map(|f| (f.cpu_start / 1e3, f.latency()))
        .collect()
}

/// Interval between consecutive frames reaching the screen, at the later one's CPU start.
fn interval_series(frames: &[FrameRecord]) -> Vec<(f64, f64)> {
    let mut out = Vec::with_capacity(frames.len());
    let mut prev: Option<f64> = None;
    for f in frames {
        if let Some(d) = f.display {
            if let Some(p) = prev {
                out.push((f.cpu_start / 1e3, d - p));
            }
            prev = Some(d);
        }
    }
    out
}

fn plot(
    path: &Path,
    title: &str,
    y_label: &str,
    series: &[(String, Vec<(f64, f64)>)],
    duration_s: f64,
) -> Result<()> {
    let y_max = series
        .iter()
        .flat_map(|(_, s)| s.iter().map(|p| p.1))
        .fold(0.0f64, f64::max)
        .min(80.0)
        * 1.1;
    let root = BitMapBackend::new(path, (1100, 520)).into_drawing_area();
    root.fill(&WHITE).map_err(|e| anyhow!("{e}"))?;
    let mut chart = ChartBuilder::on(&root)
        .caption(title, ("sans-serif", 22))
        .margin(12)
        .x_label_area_size(40)
        .y_label_area_size(56)
        .build_cartesian_2d(0.0..duration_s, 0.0..y_max.max(1.0))
        .map_err(|e| anyhow!("{e}"))?;
    chart
        .configure_mesh()
        .x_desc("simulated time (s)")
        .y_desc(y_label)
        .light_line_style(RGBColor(235, 235, 235))
        .draw()
        .map_err(|e| anyhow!("{e}"))?;
    for step in STEPS_MS {
        let x = step / 1e3;
        chart
            .draw_series(LineSeries::new(
                [(x, 0.0), (x, y_max)],
                BLACK.mix(0.4).stroke_width(1),
            ))
            .map_err(|e| anyhow!("{e}"))?;
    }
    for (i, (name, points)) in series.iter().enumerate() {
        let color = COLORS[i % COLORS.len()];
        chart
            .draw_series(LineSeries::new(
                points.iter().copied(),
                color.stroke_width(1),
            ))
            .map_err(|e| anyhow!("{e}"))?
            .label(name.as_str())
            .legend(move |(x, y)| PathElement::new([(x, y), (x + 18, y)], color.stroke_width(3)));
    }
    chart
        .configure_series_labels()
        .background_style(WHITE.mix(0.85))
        .border_style(BLACK.mix(0.3))
        .position(SeriesLabelPosition::UpperRight)
        .draw()
        .map_err(|e| anyhow!("{e}"))?;
    root.present().map_err(|e| anyhow!("{e}"))?;
    Ok(())
}

/// Writes `load-step-latency.png` and `load-step-interval.png` into `dir`; returns their paths.
pub fn load_step(
    dir: &Path,
    runs: &[(Policy, Vec<FrameRecord>)],
    duration_ms: f64,
) -> Result<Vec<std::path::PathBuf>> {
    let duration_s = duration_ms / 1e3;
    let latency: Vec<(String, Vec<(f64, f64)>)> = runs
        .iter()
        .map(|(p, f)| (p.name(), latency_series(f)))
        .collect();
    let interval: Vec<(String, Vec<(f64, f64)>)> = runs
        .iter()
        .map(|(p, f)| (p.name(), interval_series(f)))
        .collect();
    let a = dir.join("load-step-latency.png");
    plot(
        &a,
        "load-step: CPU frame start to GPU end (GPU-bound, CPU-bound from 4 s, GPU-bound from 8 s)",
        "latency (ms)",
        &latency,
        duration_s,
    )?;
    let b = dir.join("load-step-interval.png");
    plot(
        &b,
        "load-step: interval between frames reaching the screen",
        "frame interval (ms)",
        &interval,
        duration_s,
    )?;
    Ok(vec![a, b])
}
