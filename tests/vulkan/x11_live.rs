//! The windowed demo seen from outside, under Xvfb (started here when there is no display):
//! a screenshot shows the scene, a covered window renders nothing and sleeps, and killing the X
//! server ends the demo quickly with one clear line; the HUD's text reads the settings it runs
//! with, and SIGTERM ends a windowed run cleanly (the screenshot and HUD runs end so). Screenshots, logs and reports are kept under
//! target/tmp/x11-live.

use crate::demo_process;

use std::time::{Duration, Instant};

use anyhow::{ensure, Context as _, Result};
use demo_process::x11::{
    artifacts, cell_bits, cpu_time, differing_pixels, fx, pixel, screenshot, spawn, wait_rendering,
    window_of, window_turn, Background,
};
use demo_process::{json_number, Display};

#[test]
fn screenshot_shows_the_scene() -> Result<()> {
    let _turn = window_turn();
    let display = &Display::get()?;
    let mut demo = spawn(
        display,
        "screenshot",
        &["--frames", "1000000", "--validation"],
    )?;
    let window = wait_rendering(display, &mut demo, 300)?;
    let dir = artifacts()?;
    let (a, b) = (dir.join("scene-1.png"), dir.join("scene-2.png"));
    screenshot(display, &window, &a)?;
    std::thread::sleep(Duration::from_millis(300));
    screenshot(display, &window, &b)?;
    let (w, h) = (
        fx(display, &a, "100%x100%+0+0", "w")?,
        fx(display, &a, "100%x100%+0+0", "h")?,
    );
    ensure!((w, h) == (640.0, 480.0), "screenshot is {w}x{h}");
    // The scene above the graph (72% of the height); the graph below it.
    let scene = "640x330+0+10";
    let graph = "640x130+0+348";
    let marker = pixel(display, &a, 5, 5)?;
    let bar_or_gap = pixel(display, &a, 320, 200)?;
    let graph_sd = fx(display, &a, graph, "standard_deviation")?;
    let graph_mean = fx(display, &a, graph, "mean")?;
    let moved = differing_pixels(display, &a, &b, scene)?;
    println!(
        "  screenshots {}: {w}x{h}, marker rgb {marker:?}, scene pixel (320,200) rgb \
         {bar_or_gap:?}, graph region mean {graph_mean:.3} sd {graph_sd:.3}, {moved} scene \
         pixels changed in 300 ms",
        dir.display()
    );
    ensure!(
        marker[0] > 200 && marker[1] < 40 && marker[2] < 40,
        "orientation marker not red at top-left: {marker:?}"
    );
    ensure!(graph_sd > 0.02, "graph region is uniform (sd {graph_sd})");
    ensure!(
        moved > 1000.0,
        "the pattern did not move between shots ({moved} pixels)"
    );
    ended_by_sigterm(&mut demo)?;
    Ok(())
}

/// The HUD (demo/hud_view.rs) at 640x480 has 8-pixel cells; its "in flight" line is row 10,
/// its label from column 1, its value at column 14.
const IN_FLIGHT_VALUE: (u32, u32) = (112, 80);

/// Two windowed runs, with 1 and 3 frames in flight: the value cell of the HUD's "in flight"
/// line is exactly the font's glyph of that digit in each screenshot (so the text is drawn,
/// legible and says the setting), the label's cells are the glyphs of "in flight", and the
/// pictures differ in the value cell. Each run is then ended with SIGTERM: exit 0, report written, validation clean.
#[test]
fn hud_reads_frames_in_flight() -> Result<()> {
    let _turn = window_turn();
    let display = &Display::get()?;
    let dir = artifacts()?;
    let mut shots = Vec::new();
    for n in ["1", "3"] {
        let tag = format!("hud-in-flight-{n}");
        let args = [
            "--frames",
            "1000000",
            "--validation",
            "--frames-in-flight",
            n,
        ];
        let mut demo = spawn(display, &tag, &args)?;
        let window = wait_rendering(display, &mut demo, 100)?;
        let shot = dir.join(format!("{tag}.png"));
        screenshot(display, &window, &shot)?;
        let bits = cell_bits(&shot, IN_FLIGHT_VALUE.0, IN_FLIGHT_VALUE.1)?;
        let glyph = font8x8::legacy::BASIC_LEGACY[usize::from(n.as_bytes()[0])];
        println!("  {}: in-flight value cell {bits:02x?}", shot.display());
        ensure!(
            bits == glyph,
            "the HUD does not read {n}: {bits:02x?}, glyph {glyph:02x?}"
        );
        for (k, ch) in "in flight".bytes().enumerate() {
            let x = 8 * (1 + k as u32);
            let glyph = font8x8::legacy::BASIC_LEGACY[usize::from(ch)];
            let bits = cell_bits(&shot, x, IN_FLIGHT_VALUE.1)?;
            ensure!(
                bits == glyph,
                "label cell {k} is not {:?}: {bits:02x?}",
                ch as char
            );
        }
        ended_by_sigterm(&mut demo)?;
        shots.push(shot);
    }
    let value = format!("8x8+{}+{}", IN_FLIGHT_VALUE.0, IN_FLIGHT_VALUE.1);
    let differ = differing_pixels(display, &shots[0], &shots[1], &value)?;
    println!("  value cell: {differ} pixels differ between 1 and 3");
    ensure!(differ >= 5.0, "value cells differ in {differ} pixels only");
    Ok(())
}

/// A second demo window opened on top of the first covers it entirely (no window manager under
/// Xvfb: both sit at the origin, the newer on top), so the X server reports the first one fully
/// obscured. The first must then render nothing and sleep; once uncovered it goes on.
#[test]
fn covered_window_sleeps() -> Result<()> {
    let _turn = window_turn();
    let display = &Display::get()?;
    // Covered after about 200 frames, and a covered demo counts none: 1500 leave the cover
    // seconds to arrive even on a busy machine, then show the run goes on once uncovered.
    let mut demo = spawn(display, "covered", &["--frames", "1500", "--validation"])?;
    wait_rendering(display, &mut demo, 100)?;
    let mut cover = spawn(display, "cover", &["--frames", "1000000"])?;
    wait_rendering(display, &mut cover, 50)?;
    std::thread::sleep(Duration::from_millis(300));
    let before_title = window_of(display, demo.pid())?
        .context("demo window gone")?
        .1;
    let t0 = cpu_time(demo.pid())?;
    let started = Instant::now();
    std::thread::sleep(Duration::from_secs(5));
    let used = cpu_time(demo.pid())? - t0;
    let wall = started.elapsed();
    let after_title = window_of(display, demo.pid())?
        .context("demo window gone")?
        .1;
    drop(cover);
    let share = used.as_secs_f64() / wall.as_secs_f64();
    println!(
        "  covered for {:.1} s: demo used {:.0} ms CPU ({:.2}% of one core); title before \
         {before_title:?}, after {after_title:?}",
        wall.as_secs_f64(),
        used.as_secs_f64() * 1e3,
        share * 100.0
    );
    ensure!(
        before_title == after_title,
        "the covered demo kept rendering (its title changed)"
    );
    ensure!(share < 0.02, "covered demo used {:.2}% CPU", share * 100.0);
    let report = finished_cleanly(&mut demo)?;
    ensure!(json_number(&report, "frames")? == 1500.0, "{report}");
    let hidden = json_number(&report, "hidden_ms")?;
    ensure!(hidden >= 4500.0, "hidden only {hidden} ms: {report}");
    ensure!(json_number(&report, "hidden_episodes")? >= 1.0, "{report}");
    Ok(())
}

/// Ends a run with SIGTERM: exit 0, report written and saying so, validation clean.
fn ended_by_sigterm(demo: &mut Background) -> Result<()> {
    let pid = demo.pid().to_string();
    ensure!(std::process::Command::new("kill")
        .args(["-TERM", &pid])
        .status()?
        .success());
    let report = finished_cleanly(demo)?;
    ensure!(report.contains("\"ended_by\": \"signal\""), "{report}");
    ensure!(demo.stdout().contains("ended by signal"), "no summary line");
    Ok(())
}

/// Waits for the demo to end by itself: exit 0, zero validation messages; returns the report.
fn finished_cleanly(demo: &mut Background) -> Result<String> {
    let (status, _) = demo.wait(Duration::from_secs(120))?;
    ensure!(status.success(), "demo: {status}: {}", demo.stderr());
    let report = std::fs::read_to_string(&demo.report)?;
    ensure!(
        json_number(&report, "validation_messages")? == 0.0,
        "{report}"
    );
    Ok(report)
}

/// On an X server of its own (killed here), in its turn as the others.
#[test]
fn killed_server_ends_the_demo() -> Result<()> {
    let _turn = window_turn();
    let mut display = Display::private()?;
    let mut demo = spawn(&display, "killed-server", &["--validation"])?;
    wait_rendering(&display, &mut demo, 100)?;
    ensure!(display.kill_server(), "the display was not started here");
    let (status, took) = demo.wait(Duration::from_secs(30))?;
    let stderr = demo.stderr();
    let errors: Vec<&str> = stderr.lines().filter(|l| l.contains("error")).collect();
    println!(
        "  X server killed: demo exited with {:?} after {} ms; its error lines: {errors:?}",
        status.code(),
        took.as_millis()
    );
    ensure!(!status.success(), "exit status 0 after losing the display");
    ensure!(took < Duration::from_secs(5), "took {took:?} to exit");
    ensure!(
        errors.len() == 1 && errors[0].starts_with("vkpace demo: error:"),
        "want exactly one line of our own: {stderr}"
    );
    ensure!(
        !stderr.contains("panicked") && !stderr.contains("backtrace"),
        "{stderr}"
    );
    Ok(())
}
