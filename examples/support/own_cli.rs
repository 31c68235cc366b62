//! own_swapchain's command line: its flags, the counts it keeps and its summary (JSON with
//! `--json`). Only own_swapchain uses it. Flags: `--headless` | `--x11` | `--wayland` (default:
//! a window, winit's choice), `--frames N` (120), `--fps F` (a frame limit; without `--vkpace` a
//! plain sleep), `--resize-storm N` (a new size for each of the first N frames),
//! `--no-maintenance1`, `--only-present-wait2` (of the display paths, present wait2 alone:
//! with `--vkpace`, a program giving its own present ids and waiting with present wait2, as
//! vkd3d-proton does), `--validation`, `--vkpace`, `--json` (a one-line summary),
//! `--exit-without-teardown` (exit after the frames with the device alive, as many programs
//! end: what the pacing layer's summary at exit is tested with).
#![allow(dead_code)]

use anyhow::{bail, Context as _, Result};
use ash::vk;

use super::pumped_window::System;
use super::{idle_count, MESSAGES};

/// The flags.
#[derive(Clone, Debug, Default)]
pub struct Flags {
    /// `None`: headless.
    pub window: Option<System>,
    pub frames: u64,
    pub fps: Option<f64>,
    pub resize_storm: u64,
    pub no_maintenance1: bool,
    pub only_present_wait2: bool,
    pub validation: bool,
    pub vkpace: bool,
    pub json: bool,
    pub exit_without_teardown: bool,
}

impl Flags {
    pub fn parse() -> Result<Self> {
        let mut f = Flags {
            window: Some(System::Any),
            frames: 120,
            ..Flags::default()
        };
        let mut it = std::env::args().skip(1);
        while let Some(flag) = it.next() {
            let mut value = || it.next().with_context(|| format!("{flag} needs a value"));
            match flag.as_str() {
                "--headless" => f.window = None,
                "--x11" => f.window = Some(System::X11),
                "--wayland" => f.window = Some(System::Wayland),
                "--frames" => f.frames = value()?.parse()?,
                "--fps" => f.fps = Some(value()?.parse()?),
                "--resize-storm" => f.resize_storm = value()?.parse()?,
                "--no-maintenance1" => f.no_maintenance1 = true,
                "--only-present-wait2" => f.only_present_wait2 = true,
                "--validation" => f.validation = true,
                "--vkpace" => f.vkpace = true,
                "--json" => f.json = true,
                "--exit-without-teardown" => f.exit_without_teardown = true,
                other => bail!("unknown flag {other} (see the example's documentation)"),
            }
        }
        Ok(f)
    }
}

/// The size the resize storm asks for at frame `i`: a different one for each of 100 frames.
pub fn storm_extent(i: u64) -> vk::Extent2D {
    vk::Extent2D {
        width: 320 + (i % 100) as u32 * 3,
        height: 240 + (i % 50) as u32 * 2,
    }
}

/// What the run did (the summary).
#[derive(Default)]
pub struct Counts {
    pub frames: u64,
    pub created: u64,
    pub destroyed: u64,
    pub out_of_date: u64,
    pub suboptimal: u64,
    /// The frame of each `destroy_swapchain` call.
    pub destroy_calls: Vec<u64>,
    /// How many of them the pacer's stats showed done, and the most frames one took (the
    /// pacer destroys deferred swapchains in the order they were handed over).
    pub destroys_seen: usize,
    pub max_frames_to_destroy: u64,
}

impl Counts {
    /// The pacer's stats say `destroyed` swapchains were destroyed by frame `self.frames`.
    pub fn destroys_done(&mut self, destroyed: u64) {
        while self.destroys_seen < (destroyed as usize).min(self.destroy_calls.len()) {
            let frames = self.frames - self.destroy_calls[self.destroys_seen];
            self.max_frames_to_destroy = self.max_frames_to_destroy.max(frames);
            self.destroys_seen += 1;
        }
    }
}

/// What the summary says besides the counts.
pub struct Run<'a> {
    pub flags: &'a Flags,
    pub system: &'static str,
    pub maintenance1: &'static str,
    pub seconds: f64,
    /// The pacer's statistics (JSON), or `null`.
    pub pacer: String,
}

/// The summary, after teardown: a JSON object on one line (`--json`), else a sentence.
pub fn summary(c: &Counts, run: &Run<'_>) -> String {
    let (device_idle, queue_idle) = idle_count::counts();
    let messages = MESSAGES.load(std::sync::atomic::Ordering::SeqCst);
    let (system, m1, seconds, vkpace) =
        (run.system, run.maintenance1, run.seconds, run.flags.vkpace);
    if !run.flags.json {
        return format!(
            "own_swapchain: {} frames in {seconds:.2} s on {system}, vkpace {vkpace}, {} \
             swapchains created, {} destroyed, {device_idle} device / {queue_idle} queue idles, \
             maintenance1 {m1}, {messages} validation messages",
            c.frames, c.created, c.destroyed
        );
    }
    format!(
        "{{\"example\":\"own_swapchain\",\"vkpace\":{vkpace},\"window_system\":\"{system}\",\
         \"frames\":{},\"seconds\":{seconds:.3},\"swapchains_created\":{},\
         \"swapchains_destroyed\":{},\"out_of_date\":{},\"suboptimal\":{},\
         \"device_wait_idle\":{device_idle},\"queue_wait_idle\":{queue_idle},\
         \"maintenance1\":\"{m1}\",\"validation_messages\":{messages},\"pacer\":{}}}",
        c.frames, c.created, c.destroyed, c.out_of_date, c.suboptimal, run.pacer
    )
}

/// Prints the summary line (or the error); exit code 1 on an error or a validation message.
pub fn exit(result: Result<String>) -> std::process::ExitCode {
    let messages = MESSAGES.load(std::sync::atomic::Ordering::SeqCst);
    match result {
        Ok(line) => {
            println!("{line}");
            if messages == 0 {
                return std::process::ExitCode::SUCCESS;
            }
            eprintln!("own_swapchain: failed: {messages} validation messages");
        }
        Err(e) => eprintln!("own_swapchain: failed: {e:#}"),
    }
    std::process::ExitCode::FAILURE
}
