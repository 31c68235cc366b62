//! The present-mode x frames-in-flight matrix and a resize every frame, in a real X11 window
//! (Xvfb when there is no display), through the demo binary with validation on. Lavapipe's
//! headless surface always hands back image 0; a window rotates images, so only here are the
//! per-image present histories exercised: each run must acquire more than one image index.

use std::path::PathBuf;
use std::process::{Child, Command, Stdio};
use std::time::{Duration, Instant};

use anyhow::{bail, ensure, Context as _, Result};

const FRAMES: u32 = 300;

/// A display to run on: `$DISPLAY`, or a private Xvfb started here and stopped on drop.
struct Display {
    name: String,
    xvfb: Option<Child>,
}

impl Display {
    fn get() -> Result<Self> {
        if let Some(d) = std::env::var_os("DISPLAY").filter(|d| !d.is_empty()) {
            return Ok(Self {
                name: d.to_string_lossy().into_owned(),
                xvfb: None,
            });
        }
        for n in 90..120 {
            if std::path::Path::new(&format!("/tmp/.X11-unix/X{n}")).exists()
                || std::path::Path::new(&format!("/tmp/.X{n}-lock")).exists()
            {
                continue;
            }
            let child = Command::new("Xvfb")
                .args([
                    format!(":{n}"),
                    "-screen".into(),
                    "0".into(),
                    "1280x1024x24".into(),
                    "-nolisten".into(),
                    "tcp".into(),
                ])
                .stdout(Stdio::null())
                .stderr(Stdio::null())
                .spawn()
                .context("no DISPLAY and Xvfb could not be started (run scripts/install-deps)")?;
            let socket = PathBuf::from(format!("/tmp/.X11-unix/X{n}"));
            let started = Instant::now();
            while !socket.exists() && started.elapsed() < Duration::from_secs(10) {
                std::thread::sleep(Duration::from_millis(50));
            }
            ensure!(socket.exists(), "Xvfb :{n} did not come up");
            return Ok(Self {
                name: format!(":{n}"),
                xvfb: Some(child),
            });
        }
        bail!("no free X display number")
    }
}

impl Drop for Display {
    fn drop(&mut self) {
        if let Some(mut c) = self.xvfb.take() {
            let _ = c.kill();
            let _ = c.wait();
        }
    }
}

/// Reads a top-level number from the demo's flat JSON report.
fn json_number(json: &str, key: &str) -> Result<f64> {
    let pat = format!("\"{key}\": ");
    let at = json
        .find(&pat)
        .with_context(|| format!("{key} missing in report"))?
        + pat.len();
    let end = json[at..]
        .find([',', '\n', '}'])
        .map_or(json.len(), |e| at + e);
    Ok(json[at..end].trim().parse()?)
}

struct Run {
    report: String,
    summary: String,
}

fn run_demo(display: &Display, args: &[&str]) -> Result<Run> {
    let dir = std::env::temp_dir().join(format!("vkpace-x11-{}", std::process::id()));
    std::fs::create_dir_all(&dir)?;
    let report = dir.join(format!("{}.json", args.join("_").replace(['-', ' '], "")));
    let out = Command::new(env!("CARGO_BIN_EXE_vkpace-demo"))
        .args(args)
        .args(["--validation", "--report"])
        .arg(&report)
        .env("DISPLAY", &display.name)
        .env_remove("WAYLAND_DISPLAY")
        .output()
        .context("running the demo")?;
    let stdout = String::from_utf8_lossy(&out.stdout).into_owned();
    let stderr = String::from_utf8_lossy(&out.stderr).into_owned();
    ensure!(
        out.status.success(),
        "demo {args:?} exited {:?}\n{stdout}\n{stderr}",
        out.status.code()
    );
    ensure!(
        !stdout.contains("no display"),
        "the demo fell back to headless: {stdout}"
    );
    let summary = stdout
        .lines()
        .rev()
        .find(|l| l.starts_with("vkpace: "))
        .unwrap_or("")
        .to_string();
    Ok(Run {
        report: std::fs::read_to_string(&report)?,
        summary,
    })
}

fn distinct_images(summary: &str) -> Result<u32> {
    let at = summary
        .find(" distinct acquired")
        .context("summary lacks the image count")?;
    let start = summary[..at].rfind('(').context("summary format")? + 1;
    Ok(summary[start..at].trim().parse()?)
}

fn main() -> Result<()> {
    let display = Display::get()?;
    let mut passed = 0;
    let frames = FRAMES.to_string();
    for mode in ["fifo", "mailbox", "immediate", "fifo-relaxed"] {
        for n in ["1", "2", "3"] {
            let run = run_demo(
                &display,
                &[
                    "--frames",
                    &frames,
                    "--present-mode",
                    mode,
                    "--frames-in-flight",
                    n,
                ],
            )
            .with_context(|| format!("{mode} x {n}"))?;
            ensure!(
                json_number(&run.report, "validation_messages")? == 0.0,
                "{mode} x {n}: {}",
                run.summary
            );
            ensure!(json_number(&run.report, "frames")? == f64::from(FRAMES));
            // X11 under Mesa offers all four modes: the window must run the one asked for.
            ensure!(
                run.report
                    .contains(&format!("\"present_mode\": \"{mode}\"")),
                "{mode} x {n}: ran another mode: {}",
                run.summary
            );
            let images = distinct_images(&run.summary)?;
            ensure!(
                images > 1,
                "{mode} x {n}: only {images} image index acquired: {}",
                run.summary
            );
            println!("test x11 {mode} x {n} ... ok ({images} images rotated)");
            passed += 1;
        }
    }
    let run = run_demo(&display, &["--frames", &frames, "--resize-every", "1"])?;
    ensure!(
        json_number(&run.report, "validation_messages")? == 0.0,
        "{}",
        run.summary
    );
    let created = json_number(&run.report, "swapchains_created")?;
    ensure!(
        created >= f64::from(FRAMES) / 2.0,
        "only {created} swapchains for a resize every frame"
    );
    ensure!(
        json_number(&run.report, "old_swapchains_max_pending")? <= 6.0,
        "{}",
        run.summary
    );
    println!("test x11 resize every frame ... ok ({created} swapchains)");
    passed += 1;
    println!("{passed} passed, 0 failed");
    Ok(())
}
