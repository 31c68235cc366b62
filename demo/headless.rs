//! The headless path: a VK_EXT_headless_surface, a fixed number of frames (or seconds).

use std::time::{Duration, Instant};

use anyhow::Result;
use ash::vk;

use crate::cli::Args;
use crate::report::Report;
use crate::session::{Session, Step};
use crate::vulkan_context::{SurfaceSource, VulkanContext};

/// Runs `args.frames` frames (600 by default), or for `duration` when given.
pub fn run(args: &Args, duration: Option<Duration>) -> Result<Report> {
    let ctx = VulkanContext::new(
        SurfaceSource::Headless,
        args.validation,
        !args.no_maintenance1,
    )?;
    let messages = ctx.messages.clone();
    log_device(&ctx);
    let result = (|| {
        let mut session = Session::new(
            &ctx,
            args,
            vk::Extent2D {
                width: 640,
                height: 480,
            },
        )?;
        let frames = args.frames.unwrap_or(600);
        let started = Instant::now();
        let mut loop_result = Ok(());
        while duration.map_or(session.frames() < frames, |d| started.elapsed() < d)
            && !crate::stop_signal::requested()
        {
            match session.frame() {
                Ok(Step::Rendered) => {}
                Ok(Step::ZeroExtent) => std::thread::sleep(Duration::from_millis(10)),
                // The acquire already waited its bound; try again.
                Ok(Step::NotReady) => {}
                Err(e) => {
                    loop_result = Err(e);
                    break;
                }
            }
        }
        let report = session.finish();
        loop_result.and(report)
    })();
    ctx.destroy();
    let mut report = result?;
    report.validation_messages = messages.count();
    Ok(report)
}

/// Names the device in use (lavapipe or a hardware GPU) on stderr, so runs can be told apart.
pub fn log_device(ctx: &VulkanContext) {
    eprintln!("vkpace demo: device {}", ctx.device_name);
}
