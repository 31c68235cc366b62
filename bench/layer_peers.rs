//! `--only-layers`: the drop-in limiters side by side on an unmodified application. Debian's
//! vkcube over the virtual display at 60 Hz (an X11 window on Xvfb whose presents vdisplay
//! takes, FIFO), capped at 30 fps by MangoHud's `fps_limit` (`early`: its sleep before the
//! present; `late`: after it) or by vkpace's pacing layer (`VK_LAYER_VKPACE_pacing`, its
//! defaults, and its low-latency mode for what that trades), and uncapped as the reference;
//! beside them the demo's own loop through vkpace's first door (`--fps 30 --policy display`,
//! its window on the same X server), judged by the layer's verdicts. Each limiter is the only
//! layer between the program and vdisplay, pinned in that order by `VK_INSTANCE_LAYERS` (the
//! first named is nearest the application); every figure comes from vdisplay's log, the one clock all of them are judged
//! by, start to shown split at the frame's ready time (`layer_figures.rs` says where each point
//! is). Each run idle, beside two busy spinning threads, and with vdisplay's modelled GPU
//! (`gpu_ms`, `cpu_load::GPU_MODEL`: a GPU-bound frame on a GPU that is not the CPU), the
//! contenders in rotating order within a repetition, medians of the repetitions; each
//! repetition draws its own modelled GPU times (`VDISPLAY_SEED`), the same for every contender.
//! MangoHud's runs differ by where its sleep falls against the refresh grid (its phase luck):
//! the table gives the repetitions' spread of start to shown.
//!
//! Runs in Debian sid's root file system, which has MangoHud and vkcube:
//! `scripts/bench-layers` (or `scripts/on-stack sid -- target/release/vkpace-bench
//! --only-layers --json PATH`).

use std::path::{Path, PathBuf};
use std::process::{Child, Command, Stdio};
use std::time::{Duration, Instant};

use anyhow::{bail, ensure, Context as _, Result};
use vkpace_demo::{pacing_layer, virtual_display};

use crate::cpu_load::{Busy, Load, GPU_MODEL};
use crate::layer_figures::{figures, LayerRun};

/// The cap every limiter is given.
pub const CAP_FPS: u32 = 30;
/// The virtual display's refresh.
pub const REFRESH_HZ: u64 = 60;
const REFRESH_NS: u64 = 1_000_000_000 / REFRESH_HZ;
/// vkcube's own run time is bounded by its frames; this bounds a hang.
const RUN_LIMIT: Duration = Duration::from_secs(180);
/// MangoHud's implicit manifest in sid.
const MANGOHUD_MANIFEST: &str = "/usr/share/vulkan/implicit_layer.d/MangoHud.x86_64.json";

/// Who limits vkcube's frame rate.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Contender {
    /// No limiter: FIFO at the refresh (the reference for latency).
    Uncapped,
    /// MangoHud `fps_limit=30,fps_limit_method=early`.
    MangoHudEarly,
    /// MangoHud `fps_limit=30,fps_limit_method=late`.
    MangoHudLate,
    /// vkpace's pacing layer in its `grid` mode (its default, named: `VKPACE_MODE=grid`),
    /// `VKPACE_FPS=30`, everything else its defaults.
    Vkpace,
    /// vkpace's pacing layer in its low-latency mode (`VKPACE_MODE=low-latency`): shown for
    /// what that mode trades; no verdict judges it.
    VkpaceLowLatency,
    /// Not vkcube: vkpace's first door, the demo's own loop (`vkpace-demo --fps 30 --policy
    /// display`, its window on the same X server taken by vdisplay), for issue 52's "the same
    /// verdicts as the layer's". Its frames are the demo's, not vkcube's.
    Door1Display,
}

impl Contender {
    pub const ALL: [Contender; 6] = [
        Contender::Uncapped,
        Contender::MangoHudEarly,
        Contender::MangoHudLate,
        Contender::Vkpace,
        Contender::VkpaceLowLatency,
        Contender::Door1Display,
    ];

    pub fn name(self) -> &'static str {
        match self {
            Contender::Uncapped => "uncapped",
            Contender::MangoHudEarly => "mangohud-early",
            Contender::MangoHudLate => "mangohud-late",
            Contender::Vkpace => "vkpace",
            Contender::VkpaceLowLatency => "vkpace-low-latency",
            Contender::Door1Display => "door1-display",
        }
    }

    /// The program run: vkcube for `frames` frames, or the demo at `demo`.
    fn command(self, frames: u64, demo: &Path) -> Command {
        if self != Contender::Door1Display {
            let mut cmd = Command::new("vkcube");
            cmd.args(["--c", &frames.to_string()]);
            return cmd;
        }
        let mut cmd = Command::new(demo);
        cmd.args([
            "--window",
            "--fps",
            &CAP_FPS.to_string(),
            "--policy",
            "display",
        ])
        .args(["--frames", &frames.to_string()]);
        cmd
    }

    /// Refreshes each frame should stay up.
    fn wanted_refreshes(self) -> u64 {
        match self {
            Contender::Uncapped => 1,
            _ => REFRESH_HZ / u64::from(CAP_FPS),
        }
    }

    /// The limiter's layer (nearest the application) and its settings.
    fn configure(self, cmd: &mut Command, setup: &Setup) {
        let mangohud = |cmd: &mut Command, method: &str| {
            cmd.env(
                "MANGOHUD_CONFIG",
                format!("fps_limit={CAP_FPS},fps_limit_method={method},no_display"),
            )
            .env(
                "VK_INSTANCE_LAYERS",
                "VK_LAYER_MANGOHUD_overlay_x86_64:VK_LAYER_VKPACE_vdisplay",
            );
        };
        match self {
            Contender::Uncapped | Contender::Door1Display => {
                cmd.env("VK_INSTANCE_LAYERS", "VK_LAYER_VKPACE_vdisplay");
            }
            Contender::MangoHudEarly => mangohud(cmd, "early"),
            Contender::MangoHudLate => mangohud(cmd, "late"),
            Contender::Vkpace | Contender::VkpaceLowLatency => {
                let mode = match self {
                    Contender::VkpaceLowLatency => "low-latency",
                    _ => "grid",
                };
                cmd.env("VKPACE_MODE", mode);
                cmd.env("XDG_DATA_HOME", &setup.pacing_data)
                    .env("VKPACE_PACING", "1")
                    .env("VKPACE_FPS", CAP_FPS.to_string())
                    .env("VKPACE_CONFIG", setup.dir.join("no-pacing.conf"))
                    .env(
                        "VK_INSTANCE_LAYERS",
                        "VK_LAYER_VKPACE_pacing:VK_LAYER_VKPACE_vdisplay",
                    );
            }
        }
    }
}

/// What every run shares: the X server, vdisplay's manifest and the pacing layer's.
struct Setup {
    dir: PathBuf,
    /// The demo binary door 1's runs use.
    demo: PathBuf,
    xvfb: Child,
    display: String,
    vdisplay_manifests: PathBuf,
    /// An `XDG_DATA_HOME` holding the pacing layer's implicit manifest.
    pacing_data: PathBuf,
    /// An empty `XDG_CONFIG_HOME` (no user's MangoHud.conf or pacing.conf).
    config_home: PathBuf,
}

impl Setup {
    fn new(dir: &Path, demo: &Path) -> Result<Self> {
        ensure!(
            Path::new(MANGOHUD_MANIFEST).is_file(),
            "MangoHud is not installed here ({MANGOHUD_MANIFEST}): run the layer comparison \
             in sid's root file system (scripts/bench-layers)"
        );
        let vdisplay_manifests =
            virtual_display::write_manifest(&virtual_display::find_library()?)?;
        let pacing_data = dir.join("pacing-data");
        pacing_layer::write_manifest(&pacing_data, &pacing_layer::find_library()?)?;
        let config_home = dir.join("config");
        std::fs::create_dir_all(&config_home)?;
        let (xvfb, display) = start_xvfb()?;
        Ok(Self {
            dir: dir.to_path_buf(),
            demo: demo.to_path_buf(),
            xvfb,
            display,
            vdisplay_manifests,
            pacing_data,
            config_home,
        })
    }
}

impl Drop for Setup {
    fn drop(&mut self) {
        let _ = self.xvfb.kill();
        let _ = self.xvfb.wait();
    }
}

/// Xvfb on the first free display from :70, once its socket exists.
fn start_xvfb() -> Result<(Child, String)> {
    let n = (70..100)
        .find(|n| !Path::new(&format!("/tmp/.X{n}-lock")).exists())
        .context("no free X display between :70 and :99")?;
    let display = format!(":{n}");
    let mut child = Command::new("Xvfb")
        .args([
            display.as_str(),
            "-screen",
            "0",
            "1024x768x24",
            "-nolisten",
            "tcp",
        ])
        .stdout(Stdio::null())
        .stderr(Stdio::null())
        .spawn()
        .context("starting Xvfb")?;
    let socket = PathBuf::from(format!("/tmp/.X11-unix/X{n}"));
    let start = Instant::now();
    while !socket.exists() {
        if let Some(status) = child.try_wait()? {
            bail!("Xvfb {display} exited: {status}");
        }
        ensure!(
            start.elapsed() < Duration::from_secs(10),
            "Xvfb made no socket in 10 s"
        );
        std::thread::sleep(Duration::from_millis(20));
    }
    Ok((child, display))
}

/// One run of the program (vkcube, or the demo for door 1) under `contender` and `load`; its
/// figures from vdisplay's log.
fn run_one(
    setup: &Setup,
    contender: Contender,
    load: Load,
    frames: u64,
    rep: usize,
) -> Result<LayerRun> {
    let stem = format!("layers-{}-{}-{rep}", contender.name(), load.name());
    let log = setup.dir.join(format!("{stem}.jsonl"));
    let _ = std::fs::remove_file(&log);
    let mut cmd = contender.command(frames, &setup.demo);
    cmd.env_clear()
        .env("PATH", std::env::var_os("PATH").unwrap_or_default())
        .env("HOME", &setup.dir)
        .env("DISPLAY", &setup.display)
        .env("XDG_CONFIG_HOME", &setup.config_home)
        .envs(virtual_display::loader_env(
            &setup.vdisplay_manifests,
            false,
        ))
        .env("VDISPLAY_WINDOW_SURFACES", "virtual")
        .env("VDISPLAY_REFRESH_HZ", REFRESH_HZ.to_string())
        .env("VDISPLAY_LOG", &log)
        // One draw sequence of the modelled GPU per repetition, the same for every contender.
        .env("VDISPLAY_SEED", (rep + 1).to_string())
        .stdout(Stdio::null())
        .stderr(std::fs::File::create(
            setup.dir.join(format!("{stem}.err")),
        )?);
    for key in [
        "XDG_RUNTIME_DIR",
        "VK_DRIVER_FILES",
        "VK_ICD_FILENAMES",
        "LD_LIBRARY_PATH",
    ] {
        if let Some(value) = std::env::var_os(key) {
            cmd.env(key, value);
        }
    }
    contender.configure(&mut cmd, setup);
    if load == Load::GpuModel {
        cmd.env("VDISPLAY_GPU_MS", GPU_MODEL);
    }
    let busy = (load == Load::Busy).then(Busy::start);
    let status = wait_bounded(cmd.spawn().context("starting the program")?, RUN_LIMIT);
    drop(busy);
    let status = status?;
    ensure!(
        status.success(),
        "the program under {} ({}) exited {status}: see {stem}.err",
        contender.name(),
        load.name()
    );
    let presents = virtual_display::read_present_log(&log)?;
    figures(&presents, contender.wanted_refreshes(), REFRESH_NS)
        .with_context(|| format!("{stem}.jsonl"))
}

/// Waits for `child` at most `limit`, killing it past that.
fn wait_bounded(mut child: Child, limit: Duration) -> Result<std::process::ExitStatus> {
    let start = Instant::now();
    loop {
        if let Some(status) = child.try_wait()? {
            return Ok(status);
        }
        if start.elapsed() > limit {
            let _ = child.kill();
            let _ = child.wait();
            bail!("the program ran past {limit:?}");
        }
        std::thread::sleep(Duration::from_millis(50));
    }
}

/// Every contender's runs, per load.
pub struct LayerComparison {
    pub frames: u64,
    pub reps: usize,
    pub cells: Vec<(Load, Contender, Vec<LayerRun>)>,
}

/// Runs every contender under each load `reps` times, `frames` frames a run, in rotating
/// order within a repetition (door 1's runs with the demo at `demo`); the logs go into
/// `dir/layers`.
pub fn compare(reps: usize, frames: u64, dir: &Path, demo: &Path) -> Result<LayerComparison> {
    let dir = dir.join("layers");
    std::fs::create_dir_all(&dir)?;
    let setup = Setup::new(&dir, demo)?;
    eprintln!(
        "vkpace-bench: vkcube over the virtual display ({REFRESH_HZ} Hz, FIFO) capped at \
         {CAP_FPS} fps by each limiter, {} contenders x {} CPU loads x {reps} runs of {frames} \
         frames",
        Contender::ALL.len(),
        Load::WITH_GPU_MODEL.len()
    );
    let mut cells: Vec<(Load, Contender, Vec<LayerRun>)> = Load::WITH_GPU_MODEL
        .iter()
        .flat_map(|l| Contender::ALL.map(|c| (*l, c, Vec::new())))
        .collect();
    for rep in 0..reps {
        for load in Load::WITH_GPU_MODEL {
            for k in 0..Contender::ALL.len() {
                let c = Contender::ALL[(k + rep) % Contender::ALL.len()];
                let f = run_one(&setup, c, load, frames, rep)?;
                eprintln!(
                    "  {} {} run {}: interval sd {:.3} ms p99 {:.2} ms, {:.1} off the grid per \
                     1000, start to shown p50 {:.1} ms p99 {:.1} ms (start to ready p50 {:.1}, \
                     ready to shown p50 {:.1}), {:.2} fps",
                    c.name(),
                    load.name(),
                    rep + 1,
                    f.interval_sd_ms,
                    f.interval_p99_ms,
                    f.off_grid_per_1000,
                    f.latency_p50_ms,
                    f.latency_p99_ms,
                    f.frame_p50_ms,
                    f.wait_p50_ms,
                    f.fps
                );
                let cell = cells.iter_mut().find(|(l, x, _)| *l == load && *x == c);
                cell.context("no cell")?.2.push(f);
            }
        }
    }
    Ok(LayerComparison {
        frames,
        reps,
        cells,
    })
}
