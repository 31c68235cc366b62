//! The second door's repair cost: CPU time of `PresentPacer::queue_present` with
//! present-semaphore repair on and off. Two applications that own their swapchains (each on
//! its own headless device, no validation, the textbook loop with two frames' semaphores) run
//! in one thread with their frames alternating one by one; the thread CPU time of each present
//! call is added to its pacer's total, so whatever the machine does hits both alike and the
//! ratio is the repair's (one extra empty `vkQueueSubmit` and its fence, the semaphore's
//! bookkeeping).

use std::time::Duration;

use anyhow::Result;
use ash::vk;

use crate::cpu_time::thread_cpu;
use crate::vulkan_context::{SurfaceSource, VulkanContext};
use vkpace_demo::owned_loop::{create_pacer, create_swapchain, OwnedLoop};

/// Frames before the measurement starts (swapchain creation, first use).
const WARMUP: u64 = 30;

/// One interleaved run: mean CPU microseconds per present call with repair on and off.
#[derive(Debug, Clone, Copy)]
pub struct RepairCost {
    pub on_us: f64,
    pub off_us: f64,
}

impl RepairCost {
    pub fn ratio(&self) -> f64 {
        self.on_us / self.off_us.max(f64::MIN_POSITIVE)
    }
}

/// `reps` interleaved runs of `frames` measured frames each.
pub fn measure(frames: u64, reps: usize) -> Result<Vec<RepairCost>> {
    (0..reps).map(|_| one_run(frames)).collect()
}

fn one_run(frames: u64) -> Result<RepairCost> {
    let mut on = App::new(true)?;
    let mut off = App::new(false)?;
    let (mut on_cpu, mut off_cpu) = (Duration::ZERO, Duration::ZERO);
    for k in 0..WARMUP + frames {
        let a = on.frame(k)?;
        let b = off.frame(k)?;
        if k >= WARMUP {
            on_cpu += a;
            off_cpu += b;
        }
    }
    on.destroy()?;
    off.destroy()?;
    let per = |d: Duration| d.as_secs_f64() * 1e6 / frames as f64;
    Ok(RepairCost {
        on_us: per(on_cpu),
        off_us: per(off_cpu),
    })
}

/// An application owning its swapchain, through a pacer: the textbook loop the pacer's smoke
/// tests run (`vkpace_demo::owned_loop::OwnedLoop`).
struct App {
    ctx: VulkanContext,
    pacer: vkpace::PresentPacer,
    swapchain: vk::SwapchainKHR,
    images: Vec<vk::Image>,
    app: OwnedLoop,
}

impl App {
    fn new(repair: bool) -> Result<Self> {
        let ctx = VulkanContext::new(SurfaceSource::Headless, false, false)?;
        // No maintenance1 on this context: the two pacers differ by the repair alone.
        let mut pacer = create_pacer(&ctx, repair)?;
        let swapchain = create_swapchain(&ctx, &mut pacer, vk::SwapchainKHR::null())?;
        let swapchain_fn = ash::khr::swapchain::Device::new(&ctx.instance, &ctx.device);
        // SAFETY: a swapchain of this device.
        let images = unsafe { swapchain_fn.get_swapchain_images(swapchain) }?;
        let app = OwnedLoop::new(&ctx)?;
        Ok(Self {
            ctx,
            pacer,
            swapchain,
            images,
            app,
        })
    }

    /// One frame of the textbook loop; returns the present call's thread CPU time.
    fn frame(&mut self, k: u64) -> Result<Duration> {
        let mut cpu = Duration::ZERO;
        let queue = self.ctx.queue;
        let swapchain = (self.swapchain, &self.images[..]);
        self.app.frame(
            &self.ctx,
            &mut self.pacer,
            swapchain,
            k as usize,
            |pacer, info| {
                let before = thread_cpu();
                // SAFETY: the textbook loop's present, its semaphore signalled by the submit.
                let result = unsafe { pacer.queue_present(queue, info) };
                cpu = thread_cpu().saturating_sub(before);
                result
            },
        )?;
        Ok(cpu)
    }

    fn destroy(mut self) -> Result<()> {
        self.app.wait_idle_slots(&self.ctx)?;
        // SAFETY: the application's submissions completed; no image is held; then the pacer
        // (no call in progress) destroys what it made.
        unsafe {
            self.pacer.destroy_swapchain(self.swapchain, None);
            self.swapchain = vk::SwapchainKHR::null();
            self.pacer.destroy()?;
        }
        self.app.destroy(&self.ctx.device);
        self.ctx.destroy();
        Ok(())
    }
}

/// The report's section: each run's figures and the medians.
pub fn markdown(runs: &[RepairCost]) -> String {
    let mut rows = String::new();
    for (i, r) in runs.iter().enumerate() {
        rows.push_str(&format!(
            "| run {} | {:.1} | {:.1} | {:.2} |\n",
            i + 1,
            r.on_us,
            r.off_us,
            r.ratio()
        ));
    }
    let median = |mut v: Vec<f64>| {
        v.sort_by(f64::total_cmp);
        v.get(v.len() / 2).copied().unwrap_or(0.0)
    };
    let on = median(runs.iter().map(|r| r.on_us).collect());
    let off = median(runs.iter().map(|r| r.off_us).collect());
    let ratio = median(runs.iter().map(RepairCost::ratio).collect());
    format!(
        "| present pacer: CPU per present (us) | repair on | repair off | on / off |\n|---|---|---|---|\n{rows}| median | {on:.1} | {off:.1} | {ratio:.2} |\n"
    )
}

/// The JSON section.
pub fn json(runs: &[RepairCost]) -> String {
    let items: Vec<String> = runs
        .iter()
        .map(|r| {
            format!(
                "{{\"repair_on_us\": {:.3}, \"repair_off_us\": {:.3}, \"ratio\": {:.4}}}",
                r.on_us,
                r.off_us,
                r.ratio()
            )
        })
        .collect();
    format!("{{\n  \"repair_cost\": [{}]\n}}\n", items.join(", "))
}
