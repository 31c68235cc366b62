//! What the examples share and what is not theirs to show: flags, a Vulkan 1.3 instance and
//! device with a surface (headless or a winit window), the validation layer as a canary, and
//! the loop that asks an example for frames. Written against vkpace's public API only.
//!
//! Flags: `--headless`, `--frames N` (default 120), `--resize-every-frame`, `--minimize-every K`
//! (headless: a 0x0 extent for one frame in K), `--no-maintenance1`, `--validation`,
//! `--completion fences|timeline`. The run ends with one summary line, `<name>: N frames ...`;
//! the exit code is 1 on any error or validation message.

mod context;
pub mod idle_count;
pub mod own_cli;
pub mod pipeline;
pub mod pumped_window;
pub mod vulkan;
mod window;

use std::sync::atomic::Ordering;
use std::time::Instant;

use anyhow::{bail, Context as _, Result};
use ash::vk;
use vkpace::{Acquired, CompletionBackend, Frame, Swapchain};

#[allow(unused_imports)] // Only own_swapchain makes its context with options.
pub use context::ContextOptions;
pub use context::{Context, WindowHandles, MESSAGES};

/// An example renderer: made once the swapchain exists, asked for each acquired frame, and
/// given the swapchain back to tear down in the order it needs.
pub trait Renderer: Sized {
    /// The example's name, first word of the summary line.
    const NAME: &'static str;
    /// The swapchain settings the example needs (support adds maintenance1 and debug names).
    fn config(args: &Args) -> vkpace::SwapchainConfig;
    /// Makes the renderer's objects.
    fn new(ctx: &Context, swapchain: &mut Swapchain, args: &Args) -> Result<Self>;
    /// Records, submits and presents `frame`.
    fn frame(&mut self, swapchain: &mut Swapchain, frame: Frame) -> Result<()>;
    /// Destroys the swapchain and everything the renderer made.
    fn destroy(self, swapchain: Swapchain) -> Result<()>;
}

const USAGE: &str = "flags: --headless, --frames N (default 120), --resize-every-frame, \
    --minimize-every K (headless), --no-maintenance1, --validation, --completion fences|timeline";

/// The flags (parsed by hand to keep the examples free of a CLI crate).
#[derive(Clone, Debug)]
pub struct Args {
    pub headless: bool,
    pub frames: u64,
    pub resize_every_frame: bool,
    pub minimize_every: Option<u64>,
    pub no_maintenance1: bool,
    pub validation: bool,
    pub completion: Option<CompletionBackend>,
}

impl Args {
    fn parse() -> Result<Self> {
        let mut a = Args {
            headless: false,
            frames: 120,
            resize_every_frame: false,
            minimize_every: None,
            no_maintenance1: false,
            validation: false,
            completion: None,
        };
        let mut it = std::env::args().skip(1);
        while let Some(flag) = it.next() {
            let mut value = || it.next().with_context(|| format!("{flag} needs a value"));
            match flag.as_str() {
                "--headless" => a.headless = true,
                "--frames" => a.frames = value()?.parse()?,
                "--resize-every-frame" => a.resize_every_frame = true,
                "--minimize-every" => a.minimize_every = Some(value()?.parse()?),
                "--no-maintenance1" => a.no_maintenance1 = true,
                "--validation" => a.validation = true,
                "--completion" => {
                    a.completion = Some(match value()?.as_str() {
                        "fences" => CompletionBackend::Fences,
                        "timeline" => CompletionBackend::TimelineSemaphore,
                        other => bail!("--completion fences|timeline, not {other}"),
                    })
                }
                "--help" => {
                    println!("{USAGE}");
                    std::process::exit(0);
                }
                other => bail!("unknown flag {other}\n{USAGE}"),
            }
        }
        if a.minimize_every.is_some_and(|k| k < 2) || (!a.headless && a.minimize_every.is_some()) {
            bail!("--minimize-every K needs K >= 2 and --headless");
        }
        Ok(a)
    }

    /// The extent a headless run asks for before frame `i`, if it changes then: a new one
    /// every frame, 0x0 (as minimized) every K-th frame, and back.
    fn headless_extent(&self, i: u64) -> Option<vk::Extent2D> {
        let minimized = |i: u64| self.minimize_every.is_some_and(|k| i % k == k - 1);
        if minimized(i) {
            Some(vk::Extent2D::default())
        } else if self.resize_every_frame || (i > 0 && minimized(i - 1)) {
            Some(extent_for(i))
        } else {
            None
        }
    }
}

/// The extents cycled through by `--resize-every-frame`.
fn extent_for(i: u64) -> vk::Extent2D {
    let (width, height) = [(640, 480), (600, 420), (560, 400), (512, 384)][i as usize % 4];
    vk::Extent2D { width, height }
}

/// A run: the context, the swapchain, the example, and what they did.
struct Session<R: Renderer> {
    renderer: R,
    swapchain: Swapchain,
    ctx: Context,
    args: Args,
    iterations: u64,
    frames: u64,
    /// Bit `i` set when frame slot `i` was used: more than one means frames overlapped.
    slots: u32,
    started: Instant,
}

impl<R: Renderer> Session<R> {
    /// # Safety
    ///
    /// As [`Context::new`].
    unsafe fn new(window: WindowHandles, args: &Args) -> Result<Self> {
        // SAFETY: caller contract.
        let ctx = unsafe { Context::new(window, args) }?;
        let mut swapchain = ctx.swapchain(R::config(args))?;
        let renderer = R::new(&ctx, &mut swapchain, args)?;
        let (args, started) = (args.clone(), Instant::now());
        Ok(Self {
            renderer,
            swapchain,
            ctx,
            args,
            iterations: 0,
            frames: 0,
            slots: 0,
            started,
        })
    }

    /// One acquire: a frame rendered, or nothing (zero extent). `extent`: a new size first.
    fn step(&mut self, extent: Option<vk::Extent2D>) -> Result<()> {
        if let Some(e) = extent {
            self.swapchain.resize(e);
        }
        self.iterations += 1;
        if let Acquired::Frame(frame) = self.swapchain.acquire()? {
            self.slots |= 1 << frame.slot();
            self.renderer.frame(&mut self.swapchain, frame)?;
            self.frames += 1;
        }
        Ok(())
    }

    /// Tears down and returns the summary line (an error where frames are missing).
    fn finish(self) -> Result<String> {
        let stats = self.swapchain.stats();
        let path = self
            .swapchain
            .info()
            .maintenance1
            .map_or("legacy", |n| n.label());
        let backend = self.swapchain.info().completion;
        self.renderer.destroy(self.swapchain)?;
        self.ctx.destroy();
        let line = format!(
            "{}: {} frames in {:.2} s, {} slots used, {} zero-extent skips, {} swapchains, \
             maintenance1 {path}, completion {backend:?}, {} validation messages",
            R::NAME,
            self.frames,
            self.started.elapsed().as_secs_f64(),
            self.slots.count_ones(),
            stats.zero_extent_skips,
            stats.swapchains_created,
            MESSAGES.load(Ordering::SeqCst),
        );
        match self.frames < self.args.frames {
            true => bail!("{line} (of {} asked for)", self.args.frames),
            false => Ok(line),
        }
    }
}

/// Runs example `R` with the process's flags; exit code 1 on an error or a validation message.
pub fn main<R: Renderer>() -> std::process::ExitCode {
    let result = Args::parse().and_then(|args| match args.headless {
        true => run_headless::<R>(&args),
        false => window::run::<R>(&args),
    });
    let messages = MESSAGES.load(Ordering::SeqCst);
    match result {
        Ok(line) if messages == 0 => {
            println!("{line}");
            std::process::ExitCode::SUCCESS
        }
        Ok(line) => {
            eprintln!("{line}\n{}: failed: validation messages", R::NAME);
            std::process::ExitCode::FAILURE
        }
        Err(e) => {
            eprintln!("{}: failed: {e:#}", R::NAME);
            std::process::ExitCode::FAILURE
        }
    }
}

fn run_headless<R: Renderer>(args: &Args) -> Result<String> {
    // SAFETY: no window handles.
    let mut session = unsafe { Session::<R>::new(None, args) }?;
    let mut stepped = Ok(());
    while stepped.is_ok() && session.frames < args.frames {
        stepped = session.step(args.headless_extent(session.iterations));
    }
    // Torn down after an error too; the first error is the one reported.
    let finished = session.finish();
    stepped.and(finished)
}
