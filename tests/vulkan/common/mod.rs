//! Shared harness of the Vulkan integration tests: the demo's context and renderer, a frame
//! loop that checks the validation canary after every frame, and a teardown that checks for
//! leaks (the validation layer reports objects still alive when the device is destroyed).

use anyhow::{bail, ensure, Context as _, Result};
use ash::vk;
use vkpace::{Acquired, Frame, Swapchain, SwapchainConfig, SwapchainStats, SyncToken};

pub use vkpace_demo::frame_history::{FrameHistory, Sample};
pub use vkpace_demo::renderer::{RenderTarget, Renderer};
pub use vkpace_demo::vulkan_context::{SurfaceSource, VulkanContext};

/// Mesa's WSI wants `XDG_RUNTIME_DIR`.
pub fn set_runtime_dir() {
    if std::env::var_os("XDG_RUNTIME_DIR").is_none() {
        let dir = std::env::temp_dir().join("vkpace-test-xdg");
        let _ = std::fs::create_dir_all(&dir);
        std::env::set_var("XDG_RUNTIME_DIR", dir);
    }
}

/// A headless context (validation on), a vkpace swapchain and the demo renderer.
pub struct Harness {
    pub ctx: Option<VulkanContext>,
    pub swapchain: Option<Swapchain>,
    pub renderer: Option<Renderer>,
    pub frames: u64,
    /// What the scene's graph draws: synthetic timings, so the graph path is exercised.
    pub history: FrameHistory,
}

impl Harness {
    /// `config.paths.swapchain_maintenance1` asks for the maintenance1 path; the test fails if the
    /// driver cannot give it (lavapipe from Mesa 25 can).
    pub fn headless(config: SwapchainConfig) -> Result<Self> {
        Self::headless_with(config, |_| {})
    }

    /// As [`Self::headless`], with `adjust` applied to the configuration after the context
    /// filled in what the device supports (to turn an option it set off again).
    pub fn headless_with(
        config: SwapchainConfig,
        adjust: impl FnOnce(&mut SwapchainConfig),
    ) -> Result<Self> {
        set_runtime_dir();
        let want_m1 = config.paths.swapchain_maintenance1.is_some();
        let ctx = VulkanContext::new(SurfaceSource::Headless, true, want_m1)?;
        if want_m1 && !ctx.maintenance1 {
            bail!(
                "VK_EXT_swapchain_maintenance1 asked for but not offered by {}",
                ctx.device_name
            );
        }
        let swapchain = ctx.swapchain_with(config, adjust)?;
        if let Some(backend) = vkpace_demo::vulkan_context::completion_override() {
            // The test matrix's backend must really be the one in use.
            ensure!(swapchain.info().completion == backend, "completion backend");
        }
        let format = swapchain.info().format().context("format")?;
        let renderer = ctx.renderer(format)?;
        Ok(Self {
            ctx: Some(ctx),
            swapchain: Some(swapchain),
            renderer: Some(renderer),
            frames: 0,
            history: FrameHistory::default(),
        })
    }

    #[allow(clippy::expect_used)] // Test helper: using a finished harness is a bug in the test.
    pub fn swapchain(&mut self) -> &mut Swapchain {
        self.swapchain.as_mut().expect("swapchain alive")
    }

    /// The canary: fails on the first validation message.
    pub fn check_canary(&self, when: &str) -> Result<()> {
        let n = self.ctx.as_ref().map_or(0, |c| c.messages.count());
        if n > 0 {
            bail!("{n} validation message(s) {when} (frame {})", self.frames);
        }
        Ok(())
    }

    /// Renders one frame; `Ok(false)` when the swapchain reported a zero extent.
    pub fn frame(&mut self) -> Result<bool> {
        let frame = match self.swapchain().acquire()? {
            Acquired::Frame(f) => f,
            _ => return Ok(false),
        };
        self.render(frame, None, 0.0)?;
        Ok(true)
    }

    /// Records `frame` through `view` (a view of its image the test made, changed only with
    /// the swapchain; `None`: the frame's own) with `gpu_load`, submits and presents it, and
    /// checks the canary; returns the frame's token.
    pub fn render(
        &mut self,
        frame: Frame,
        view: Option<vk::ImageView>,
        gpu_load: f32,
    ) -> Result<SyncToken> {
        let (Some(sc), Some(r)) = (self.swapchain.as_mut(), self.renderer.as_mut()) else {
            bail!("harness finished");
        };
        self.history.push(Sample {
            interval_ms: 16.0 + (self.frames % 7) as f32,
            cpu_wait_ms: (self.frames % 5) as f32,
            latency_ms: 20.0 + (self.frames % 3) as f32,
        });
        let image_view = view.unwrap_or(frame.image_view());
        let target = RenderTarget {
            image_view,
            ..RenderTarget::of(sc, &frame)
        };
        let cmd = r.record(target, self.frames as f32 / 60.0, gpu_load, &self.history)?;
        // SAFETY: `cmd` was recorded for this frame's free slot and outlives its submission.
        let submitted = unsafe {
            sc.submit(
                frame,
                vkpace::Submission::command_buffers(
                    &[cmd],
                    vk::PipelineStageFlags::COLOR_ATTACHMENT_OUTPUT,
                ),
            )
        }?;
        let token = submitted.token();
        sc.present(submitted)?;
        self.frames += 1;
        self.check_canary("after presenting")?;
        Ok(token)
    }

    /// Tears down in order and checks that nothing leaked: the validation layer reports every
    /// object still alive at vkDestroyDevice / vkDestroyInstance.
    pub fn finish(mut self) -> Result<SwapchainStats> {
        let sc = self.swapchain.take().context("finished twice")?;
        let stats = sc.stats();
        sc.destroy()?;
        if let Some(r) = self.renderer.take() {
            r.destroy();
        }
        let ctx = self.ctx.take().context("finished twice")?;
        let messages = ctx.messages.clone();
        ctx.destroy();
        if messages.count() > 0 {
            bail!(
                "{} validation message(s) at teardown (a leak or a late error)",
                messages.count()
            );
        }
        Ok(stats)
    }
}

impl Drop for Harness {
    fn drop(&mut self) {
        // On a failed test: release in order so the process does not crash in the driver.
        drop(self.swapchain.take());
        if let Some(r) = self.renderer.take() {
            r.destroy();
        }
        if let Some(c) = self.ctx.take() {
            c.destroy();
        }
    }
}

/// Renders `frames` frames on `h`, whose swapchain uses present_wait for display feedback, and
/// checks that real display times came back: at least three quarters of the frames (the last
/// few are not asked about) have a display time, none before its present returned, in frame
/// order, and spaced on average at least 90% of `refresh_ns` apart (FIFO shows at most one
/// frame a refresh: times that came from anything but the display, such as the present's own
/// return, would run faster than that on a loop the display does not hold back). Returns how
/// many frames had a display time. `refresh_ns`: the display's refresh where the test knows
/// it.
pub fn check_present_wait_display_times(
    h: &mut Harness,
    frames: usize,
    refresh_ns: Option<u64>,
) -> Result<usize> {
    ensure!(
        h.swapchain().info().display_feedback == vkpace::DisplayFeedback::PresentWait,
        "display feedback {:?}, not present_wait",
        h.swapchain().info().display_feedback
    );
    for _ in 0..frames {
        ensure!(h.frame()?, "zero extent");
    }
    let mut shown: Vec<std::time::Duration> = Vec::new();
    for t in h.swapchain().telemetry() {
        if let (Some(displayed), Some(presented)) = (t.displayed, t.presented) {
            ensure!(presented <= displayed, "shown before presented: {t:?}");
            if let Some(last) = shown.last() {
                ensure!(*last <= displayed, "shown out of frame order: {t:?}");
            }
            shown.push(displayed);
        }
    }
    ensure!(
        shown.len() >= 2 && 4 * shown.len() >= 3 * frames,
        "only {} of {frames} frames reported shown",
        shown.len()
    );
    let (first, last) = (shown[0], shown[shown.len() - 1]);
    let mean_ns = (last - first).as_nanos() as f64 / (shown.len() - 1) as f64;
    if let Some(refresh_ns) = refresh_ns {
        ensure!(
            mean_ns >= 0.9 * refresh_ns as f64,
            "display times {mean_ns:.0} ns apart on average, faster than the {refresh_ns} ns refresh"
        );
    }
    Ok(shown.len())
}
