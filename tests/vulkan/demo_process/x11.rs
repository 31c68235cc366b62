//! Looking at a running demo from outside, as another X client would: its window (found by
//! `_NET_WM_PID`), the frame count in its title, screenshots with ImageMagick's `import`, pixel
//! statistics with `convert`, and its CPU time from /proc.

use std::path::{Path, PathBuf};
use std::process::{Child, Command, Stdio};
use std::sync::{Mutex, MutexGuard, PoisonError};
use std::time::{Duration, Instant};

use anyhow::{bail, ensure, Context as _, Result};

use super::Display;

/// A turn with the display, held to a test's end. The window tests of x11_window and x11_live
/// ran one after another when each was an executable of its own, and they take turns still:
/// under Xvfb there is no window manager, every window sits at the origin, so one test's window
/// would cover another's (and a test that looks at its window would see the other).
pub fn window_turn() -> MutexGuard<'static, ()> {
    static TURN: Mutex<()> = Mutex::new(());
    TURN.lock().unwrap_or_else(PoisonError::into_inner)
}

/// A demo process started in the background; stdout and stderr go to files (kept as artifacts).
pub struct Background {
    pub child: Child,
    pub stdout: PathBuf,
    pub stderr: PathBuf,
    pub report: PathBuf,
}

/// Where the window tests keep screenshots, logs and reports.
pub fn artifacts() -> Result<PathBuf> {
    let dir = PathBuf::from(env!("CARGO_TARGET_TMPDIR")).join("x11-live");
    std::fs::create_dir_all(&dir)?;
    Ok(dir)
}

/// Starts the demo on `display` with `args` (plus `--report`), named `tag` in the artifacts.
pub fn spawn(display: &Display, tag: &str, args: &[&str]) -> Result<Background> {
    let dir = artifacts()?;
    let stdout = dir.join(format!("{tag}.stdout"));
    let stderr = dir.join(format!("{tag}.stderr"));
    let report = dir.join(format!("{tag}.json"));
    let _ = std::fs::remove_file(&report);
    let child = Command::new(env!("CARGO_BIN_EXE_vkpace-demo"))
        .args(args)
        .arg("--report")
        .arg(&report)
        .env("DISPLAY", display.name())
        .env_remove("WAYLAND_DISPLAY")
        .stdout(std::fs::File::create(&stdout)?)
        .stderr(std::fs::File::create(&stderr)?)
        .spawn()
        .context("starting the demo")?;
    Ok(Background {
        child,
        stdout,
        stderr,
        report,
    })
}

impl Background {
    /// Waits for the exit, at most `limit`; kills it past that and fails.
    pub fn wait(&mut self, limit: Duration) -> Result<(std::process::ExitStatus, Duration)> {
        let started = Instant::now();
        loop {
            if let Some(status) = self.child.try_wait()? {
                return Ok((status, started.elapsed()));
            }
            if started.elapsed() > limit {
                let _ = self.child.kill();
                let _ = self.child.wait();
                bail!("demo still running after {limit:?}; killed");
            }
            std::thread::sleep(Duration::from_millis(20));
        }
    }

    pub fn stdout(&self) -> String {
        std::fs::read_to_string(&self.stdout).unwrap_or_default()
    }

    pub fn stderr(&self) -> String {
        std::fs::read_to_string(&self.stderr).unwrap_or_default()
    }

    pub fn pid(&self) -> u32 {
        self.child.id()
    }
}

impl Drop for Background {
    fn drop(&mut self) {
        if let Ok(None) = self.child.try_wait() {
            let _ = self.child.kill();
            let _ = self.child.wait();
        }
    }
}

fn tool(display: &Display, program: &str, args: &[&str]) -> Result<String> {
    let out = Command::new(program)
        .args(args)
        .env("DISPLAY", display.name())
        .stderr(Stdio::piped())
        .output()
        .with_context(|| format!("running {program} (scripts/install-deps installs it)"))?;
    ensure!(
        out.status.success(),
        "{program} {args:?}: {}",
        String::from_utf8_lossy(&out.stderr)
    );
    Ok(String::from_utf8_lossy(&out.stdout).into_owned())
}

/// The demo window of process `pid` and its title, if it is mapped.
pub fn window_of(display: &Display, pid: u32) -> Result<Option<(String, String)>> {
    let tree = tool(display, "xwininfo", &["-root", "-tree"])?;
    for line in tree.lines().filter(|l| l.contains("\"vkpace")) {
        let mut parts = line.split_whitespace();
        let Some(id) = parts.next() else { continue };
        let prop = tool(display, "xprop", &["-id", id, "_NET_WM_PID"])?;
        if prop.trim().ends_with(&format!("= {pid}")) {
            let title = line.split('"').nth(1).unwrap_or_default().to_string();
            return Ok(Some((id.to_string(), title)));
        }
    }
    Ok(None)
}

/// The frame count in a title "vkpace: ... | N frames".
pub fn title_frames(title: &str) -> Option<u64> {
    title
        .rsplit('|')
        .next()?
        .trim()
        .strip_suffix(" frames")?
        .parse()
        .ok()
}

/// Waits until the demo's title says it rendered at least `frames`; returns the window id.
pub fn wait_rendering(display: &Display, demo: &mut Background, frames: u64) -> Result<String> {
    let started = Instant::now();
    while started.elapsed() < Duration::from_secs(60) {
        if let Some(status) = demo.child.try_wait()? {
            bail!(
                "demo exited ({status}) before rendering {frames} frames: {}",
                demo.stderr()
            );
        }
        if let Some((id, title)) = window_of(display, demo.pid())? {
            if title_frames(&title).is_some_and(|n| n >= frames) {
                return Ok(id);
            }
        }
        std::thread::sleep(Duration::from_millis(100));
    }
    bail!("the demo's title never reached {frames} frames")
}

/// Screenshot of one window into `path` (PNG).
pub fn screenshot(display: &Display, window: &str, path: &Path) -> Result<()> {
    let p = path.to_string_lossy();
    tool(display, "import", &["-window", window, &p])?;
    Ok(())
}

/// `convert` fx figures of a crop of a PNG: "WxH+X+Y" and an fx expression.
pub fn fx(display: &Display, png: &Path, crop: &str, expr: &str) -> Result<f64> {
    let p = png.to_string_lossy();
    let format = format!("%[fx:{expr}]");
    let out = tool(
        display,
        "/usr/bin/convert",
        &[&p, "-crop", crop, "+repage", "-format", &format, "info:"],
    )?;
    out.trim()
        .parse()
        .with_context(|| format!("convert printed {out:?}"))
}

/// One pixel as "r,g,b" in 0..=255.
pub fn pixel(display: &Display, png: &Path, x: u32, y: u32) -> Result<[u8; 3]> {
    let crop = format!("1x1+{x}+{y}");
    let mut rgb = [0u8; 3];
    for (i, ch) in ["r", "g", "b"].iter().enumerate() {
        rgb[i] = (fx(display, png, &crop, &format!("{ch}*255"))?).round() as u8;
    }
    Ok(rgb)
}

/// Pixels that differ between two same-size PNGs (ImageMagick's absolute error count).
pub fn differing_pixels(display: &Display, a: &Path, b: &Path, crop: &str) -> Result<f64> {
    let (a, b) = (a.to_string_lossy(), b.to_string_lossy());
    let out = Command::new("/usr/bin/convert")
        .args([&*a, &*b, "-crop", crop, "+repage"])
        .args(["-compose", "difference", "-composite", "-threshold", "1%"])
        .args(["-format", "%[fx:mean*w*h]", "info:"])
        .env("DISPLAY", display.name())
        .output()?;
    ensure!(
        out.status.success(),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    Ok(String::from_utf8_lossy(&out.stdout).trim().parse()?)
}

/// The 8x8 pixels at `x`, `y` of a PNG as rows of bits (bit 0 the leftmost pixel), a pixel set
/// where its brightness is over half: the demo's HUD glyphs are bright on a dark backdrop.
pub fn cell_bits(png: &Path, x: u32, y: u32) -> Result<[u8; 8]> {
    let crop = format!("8x8+{x}+{y}");
    let out = Command::new("/usr/bin/convert")
        .arg(png)
        .args([
            "-crop",
            &crop,
            "+repage",
            "-colorspace",
            "gray",
            "-depth",
            "8",
            "gray:-",
        ])
        .output()?;
    ensure!(
        out.status.success() && out.stdout.len() == 64,
        "convert: {} bytes, {}",
        out.stdout.len(),
        String::from_utf8_lossy(&out.stderr)
    );
    let mut rows = [0u8; 8];
    for (i, &v) in out.stdout.iter().enumerate() {
        if v > 128 {
            rows[i / 8] |= 1 << (i % 8);
        }
    }
    Ok(rows)
}

/// CPU time (user + system) the process used so far.
pub fn cpu_time(pid: u32) -> Result<Duration> {
    let stat = std::fs::read_to_string(format!("/proc/{pid}/stat"))?;
    // Fields after the command name (which may hold spaces) start after the last ')'.
    let rest = &stat[stat.rfind(')').context("stat format")? + 2..];
    let fields: Vec<&str> = rest.split_whitespace().collect();
    // utime and stime are fields 14 and 15 of stat, so 11 and 12 after the state field.
    let ticks: u64 = fields[11].parse::<u64>()? + fields[12].parse::<u64>()?;
    let out = Command::new("getconf").arg("CLK_TCK").output()?;
    let hz: u64 = String::from_utf8_lossy(&out.stdout).trim().parse()?;
    Ok(Duration::from_secs_f64(ticks as f64 / hz as f64))
}
