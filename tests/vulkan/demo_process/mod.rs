//! Runs the demo binary as a user would and reads its report: shared by the window and the
//! headless acceptance tests.

pub mod x11;

use std::path::PathBuf;
use std::process::{Child, Command, ExitStatus, Stdio};
use std::time::{Duration, Instant};

use anyhow::{bail, ensure, Context as _, Result};

/// A display to run on: `$DISPLAY`, or a private Xvfb started here and stopped on drop.
pub struct Display {
    name: String,
    /// The private server and its display number.
    xvfb: Option<(Child, u32)>,
}

impl Display {
    /// `$DISPLAY` when set, else a private Xvfb.
    pub fn get() -> Result<Self> {
        if let Some(d) = std::env::var_os("DISPLAY").filter(|d| !d.is_empty()) {
            return Ok(Self {
                name: d.to_string_lossy().into_owned(),
                xvfb: None,
            });
        }
        Self::private()
    }

    /// The display's name, for `DISPLAY`.
    pub fn name(&self) -> &str {
        &self.name
    }

    /// Kills the X server this display started (SIGKILL, as a crash would); false when the
    /// display was not started here.
    pub fn kill_server(&mut self) -> bool {
        match self.xvfb.take() {
            Some((mut c, n)) => {
                let _ = c.kill();
                let _ = c.wait();
                remove_leftovers(n);
                true
            }
            None => false,
        }
    }

    /// Always a private Xvfb, stopped on drop (for tests that kill the server).
    pub fn private() -> Result<Self> {
        // One start at a time in this process (its test modules run in parallel under a plain
        // `cargo test`): two at once could pick the same free number.
        static STARTING: std::sync::Mutex<()> = std::sync::Mutex::new(());
        let _one = STARTING
            .lock()
            .unwrap_or_else(std::sync::PoisonError::into_inner);
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
                    // By default an X server resets when its last client disconnects, and a
                    // client connecting during the reset fails to open the display: with one
                    // demo process after another that happened under load (CI saw "Failed to
                    // open connection to X server" between two runs).
                    "-noreset".into(),
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
                xvfb: Some((child, n)),
            });
        }
        bail!("no free X display number")
    }
}

/// Removes what a killed Xvfb on display `n` could not (its socket and lock file), so the
/// number is free for the next run. Only for a server this process started and reaped.
fn remove_leftovers(n: u32) {
    let _ = std::fs::remove_file(format!("/tmp/.X11-unix/X{n}"));
    let _ = std::fs::remove_file(format!("/tmp/.X{n}-lock"));
}

impl Drop for Display {
    fn drop(&mut self) {
        if let Some((mut c, n)) = self.xvfb.take() {
            // SIGTERM first: Xvfb then removes its socket and lock file itself.
            let _ = Command::new("kill")
                .args(["-TERM", &c.id().to_string()])
                .status();
            let asked = Instant::now();
            while matches!(c.try_wait(), Ok(None)) && asked.elapsed() < Duration::from_secs(3) {
                std::thread::sleep(Duration::from_millis(20));
            }
            let _ = c.kill();
            let _ = c.wait();
            remove_leftovers(n);
        }
    }
}

/// `target/<profile>/examples/<name>`, beside this test's `target/<profile>/deps/` (`cargo test`
/// with no target selection builds the examples; with `--test`, build them first).
pub fn example(name: &str) -> Result<PathBuf> {
    let exe = std::env::current_exe()?;
    let profile = exe
        .parent()
        .and_then(|deps| deps.parent())
        .context("the test executable is not in target/<profile>/deps")?;
    let path = profile.join("examples").join(name);
    ensure!(
        path.is_file(),
        "example {name} not built at {} (run `cargo build --release --example {name}`, or \
         `cargo test` without target selection, which builds the examples)",
        path.display()
    );
    Ok(path)
}

/// Waits for `child` (`what`, for the error) to exit, at most `limit`: past that it is killed
/// and reaped, and the wait fails (a hang, not a measurement).
pub fn wait_bounded(child: &mut Child, limit: Duration, what: &str) -> Result<ExitStatus> {
    let started = Instant::now();
    loop {
        if let Some(status) = child.try_wait()? {
            return Ok(status);
        }
        if started.elapsed() > limit {
            let _ = child.kill();
            let _ = child.wait();
            bail!("{what} still running after {limit:?}; killed");
        }
        std::thread::sleep(Duration::from_millis(20));
    }
}

/// What a process run by [`run_to_files`] printed.
pub struct Finished {
    pub status: ExitStatus,
    pub stdout: String,
    pub stderr: String,
}

/// Runs `cmd` with no input, its output in `<dir>/<tag>.stdout` and `.stderr` under the tests'
/// temporary folder (kept as artifacts), for at most `limit` ([`wait_bounded`]).
pub fn run_to_files(cmd: &mut Command, dir: &str, tag: &str, limit: Duration) -> Result<Finished> {
    let dir = PathBuf::from(env!("CARGO_TARGET_TMPDIR")).join(dir);
    std::fs::create_dir_all(&dir)?;
    let (out_path, err_path) = (
        dir.join(format!("{tag}.stdout")),
        dir.join(format!("{tag}.stderr")),
    );
    cmd.stdin(Stdio::null())
        .stdout(std::fs::File::create(&out_path)?)
        .stderr(std::fs::File::create(&err_path)?);
    let what = format!("{} ({tag})", cmd.get_program().to_string_lossy());
    let mut child = cmd.spawn().with_context(|| format!("starting {what}"))?;
    let status = wait_bounded(&mut child, limit, &what)?;
    Ok(Finished {
        status,
        stdout: std::fs::read_to_string(&out_path)?,
        stderr: std::fs::read_to_string(&err_path)?,
    })
}

/// Reads a top-level number from the demo's flat JSON report.
pub fn json_number(json: &str, key: &str) -> Result<f64> {
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

pub struct Run {
    pub report: String,
    pub summary: String,
    /// What the demo wrote to stderr (its logger's lines among them).
    pub stderr: String,
}

/// Runs the demo with validation and a report; `display` None means headless flags only.
pub fn run_demo(display: Option<&Display>, args: &[&str]) -> Result<Run> {
    run_demo_with_env(display, args, &[])
}

/// As [`run_demo`], with extra environment variables (the virtual display's settings).
pub fn run_demo_with_env(
    display: Option<&Display>,
    args: &[&str],
    env: &[(&str, &std::ffi::OsStr)],
) -> Result<Run> {
    // Reports are kept as test artifacts under target/tmp.
    let dir = PathBuf::from(env!("CARGO_TARGET_TMPDIR")).join("demo-reports");
    std::fs::create_dir_all(&dir)?;
    let report = dir.join(format!("{}.json", report_name(args)));
    let mut cmd = Command::new(env!("CARGO_BIN_EXE_vkpace-demo"));
    cmd.args(args)
        .args(["--validation", "--report"])
        .arg(&report);
    if let Some(d) = display {
        cmd.env("DISPLAY", &d.name).env_remove("WAYLAND_DISPLAY");
    }
    cmd.envs(env.iter().copied());
    let out = cmd.output().context("running the demo")?;
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
    let report_text = std::fs::read_to_string(&report)?;
    if let Some(expected) = expected_window_system(display, args) {
        ensure!(
            report_text.contains(&format!("\"window_system\": \"{expected}\"")),
            "demo {args:?}: not on {expected}: {stdout}"
        );
    }
    let summary = stdout
        .lines()
        .rev()
        .find(|l| l.starts_with("vkpace: "))
        .unwrap_or("")
        .to_string();
    Ok(Run {
        report: report_text,
        summary,
        stderr,
    })
}

/// Where the demo's frames must have gone for `args` on `display`.
fn expected_window_system(display: Option<&Display>, args: &[&str]) -> Option<&'static str> {
    if args.contains(&"--virtual-display") {
        Some("virtual display")
    } else if args.contains(&"--headless") {
        Some("headless")
    } else {
        display.map(|_| "x11")
    }
}

pub fn distinct_images(summary: &str) -> Result<u32> {
    let at = summary
        .find(" distinct acquired")
        .context("summary lacks the image count")?;
    let start = summary[..at].rfind('(').context("summary format")? + 1;
    Ok(summary[start..at].trim().parse()?)
}

/// The two paths the demo can take: maintenance1 where offered (Mesa 25 lavapipe does), and the
/// proof-based one forced by `--no-maintenance1`; each with the flags that select it.
pub const PATHS: [(&str, &[&str]); 2] = [("maintenance1", &[]), ("legacy", &["--no-maintenance1"])];

/// Runs the demo with `args` plus the path's flags (`extra`), and checks what every run must
/// show: zero validation messages and the path it was asked for.
pub fn run_checked(
    display: Option<&Display>,
    path: &str,
    extra: &[&str],
    args: &[&str],
) -> Result<Run> {
    let all: Vec<&str> = args.iter().chain(extra).copied().collect();
    let run = run_demo(display, &all).with_context(|| format!("{path}: {args:?}"))?;
    let r = &run.report;
    ensure!(
        json_number(r, "validation_messages")? == 0.0,
        "{path} {args:?}: {}",
        run.summary
    );
    ensure!(
        r.contains(&format!("\"path\": \"{path}\"")),
        "{path}: {}",
        run.summary
    );
    Ok(run)
}

/// One line of the demo's `--resize-log`: a size asked for, when (CLOCK_MONOTONIC ns), and when
/// its first frame was presented (vkQueuePresentKHR returned), if it was.
#[derive(Clone, Copy, Debug)]
pub struct Resize {
    pub size: (u32, u32),
    pub requested_ns: u64,
    pub presented_ns: Option<u64>,
}

impl Resize {
    /// From the request to the first present of the size, ms.
    pub fn ms_to_present(&self) -> Option<f64> {
        self.presented_ns
            .map(|p| p.saturating_sub(self.requested_ns) as f64 / 1e6)
    }
}

/// Reads a `--resize-log` file.
pub fn read_resize_log(path: &std::path::Path) -> Result<Vec<Resize>> {
    let text = std::fs::read_to_string(path)
        .with_context(|| format!("no resize log at {}", path.display()))?;
    text.lines()
        .map(|line| {
            Ok(Resize {
                size: (
                    json_number(line, "width")? as u32,
                    json_number(line, "height")? as u32,
                ),
                requested_ns: json_number(line, "requested_ns")? as u64,
                presented_ns: json_number(line, "presented_ns").ok().map(|t| t as u64),
            })
        })
        .collect()
}

/// The `p`-quantile (0..=1) of `values` (nearest rank; 0 for none).
pub fn quantile(values: &[f64], p: f64) -> f64 {
    let mut v = values.to_vec();
    v.sort_by(f64::total_cmp);
    v.get(((v.len() as f64 * p) as usize).min(v.len().saturating_sub(1)))
        .copied()
        .unwrap_or(0.0)
}

/// A file name for the report of a run with `args`: letters, digits and `_` only (an argument
/// may be a path), at most 80 characters.
pub fn report_name(args: &[&str]) -> String {
    args.join("_")
        .chars()
        .filter(|c| c.is_ascii_alphanumeric() || *c == '_')
        .take(80)
        .collect()
}
