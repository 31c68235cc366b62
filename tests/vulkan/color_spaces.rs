//! Surface formats and color spaces over the virtual display (vdisplay), with the Khronos
//! validation layer (synchronization validation on) above it failing a run on its first
//! message:
//!
//! - a display offering only one color space other than `SRGB_NONLINEAR` (vdisplay's
//!   `color_spaces` setting: HDR10, extended sRGB, Display P3), resized before every frame:
//!   over 100 recreations every frame keeps the first frame's format and color space;
//! - HDR10 asked for and offered is chosen; asked for alone (no fallback) where the display
//!   does not offer it, `Error::NoSurfaceFormat` at creation (also where it would, but the
//!   instance did not enable `VK_EXT_swapchain_colorspace`, so it may not);
//! - `SwapchainConfig::hdr_metadata` reaches the display for the first swapchain and each
//!   recreated one (vdisplay records it; `vdisplay_hdr_metadata` reads it back), and is refused
//!   with `Error::InvalidConfig` on a device without `VK_EXT_hdr_metadata`.
//!
//! The demo's context enables neither `VK_EXT_swapchain_colorspace` nor `VK_EXT_hdr_metadata`,
//! so this binary makes its own instance and device ([`Ctx`]) and uses the demo's renderer.

use crate::vdisplay_support;

use std::collections::BTreeSet;
use std::ffi::{c_char, c_int, c_void, CStr, CString};
use std::sync::atomic::{AtomicU64, Ordering};
use std::sync::Arc;
use std::time::Duration;

use anyhow::{bail, ensure, Context as _, Result};
use ash::vk;
use vdisplay_support::artifacts_dir;
use vkpace::{Acquired, Swapchain, SwapchainConfig};
use vkpace_demo::frame_history::{FrameHistory, Sample};
use vkpace_demo::renderer::{RenderTarget, Renderer};
use vkpace_demo::virtual_display::{find_library, is_loader_env_notice, set_extent};

/// Frames of the long runs, each after a new display extent (the first after the first).
const RESIZED_FRAMES: u64 = 104;
/// Extents cycled through; consecutive ones differ, so every frame recreates.
const SIZES: [(u32, u32); 5] = [(320, 240), (256, 200), (288, 216), (240, 180), (352, 264)];

const VALIDATION_LAYER: &CStr = c"VK_LAYER_KHRONOS_validation";

/// Counts validation messages (warnings and errors) and prints each one.
unsafe extern "system" fn on_message(
    severity: vk::DebugUtilsMessageSeverityFlagsEXT,
    _types: vk::DebugUtilsMessageTypeFlagsEXT,
    data: *const vk::DebugUtilsMessengerCallbackDataEXT<'_>,
    user: *mut c_void,
) -> vk::Bool32 {
    // SAFETY: `user` is the counter the context keeps alive (in an `Arc`) until after the
    // messenger and the instance are destroyed.
    let count = unsafe { &*(user as *const AtomicU64) };
    // SAFETY: the layer passes a valid callback-data pointer whose strings live for the call.
    let (id, text) = unsafe {
        let string = |p: *const c_char| {
            if p.is_null() {
                String::new()
            } else {
                CStr::from_ptr(p).to_string_lossy().into_owned()
            }
        };
        data.as_ref()
            .map(|d| (string(d.p_message_id_name), string(d.p_message)))
            .unwrap_or_default()
    };
    if is_loader_env_notice(&id, &text) {
        return vk::FALSE;
    }
    // The old layer's own timeline-tracking bug, exactly as the demo's context excuses it.
    if id == "UNASSIGNED-VkSemaphore-state-timeout" && text.contains("most likely a validation bug")
    {
        eprintln!("[validation layer bug, not counted] {text}");
        return vk::FALSE;
    }
    count.fetch_add(1, Ordering::SeqCst);
    eprintln!("[validation {severity:?}] {text}");
    vk::FALSE
}

/// Which optional extensions a [`Ctx`] enables.
#[derive(Clone, Copy, Debug)]
struct Exts {
    /// Instance: `VK_EXT_swapchain_colorspace`.
    colorspace: bool,
    /// Device: `VK_EXT_hdr_metadata`.
    hdr_metadata: bool,
}

/// Instance (validation on, a headless surface: a virtual display) and a Vulkan 1.3 device.
struct Ctx {
    entry: ash::Entry,
    instance: ash::Instance,
    messenger: (ash::ext::debug_utils::Instance, vk::DebugUtilsMessengerEXT),
    messages: Arc<AtomicU64>,
    surface_fn: ash::khr::surface::Instance,
    surface: vk::SurfaceKHR,
    physical: vk::PhysicalDevice,
    device: ash::Device,
    queue: vk::Queue,
    family: u32,
}

fn messenger_info(messages: &Arc<AtomicU64>) -> vk::DebugUtilsMessengerCreateInfoEXT<'static> {
    vk::DebugUtilsMessengerCreateInfoEXT::default()
        .message_severity(
            vk::DebugUtilsMessageSeverityFlagsEXT::WARNING
                | vk::DebugUtilsMessageSeverityFlagsEXT::ERROR,
        )
        .message_type(
            vk::DebugUtilsMessageTypeFlagsEXT::GENERAL
                | vk::DebugUtilsMessageTypeFlagsEXT::VALIDATION
                | vk::DebugUtilsMessageTypeFlagsEXT::PERFORMANCE,
        )
        .pfn_user_callback(Some(on_message))
        .user_data(Arc::as_ptr(messages) as *mut c_void)
}

impl Ctx {
    fn new(exts: Exts) -> Result<Self> {
        // SAFETY: loads the system Vulkan loader.
        let entry = unsafe { ash::Entry::load() }.context("loading the Vulkan loader")?;
        let messages = Arc::new(AtomicU64::new(0));
        let instance = Self::instance(&entry, exts, &messages)?;
        let du = ash::ext::debug_utils::Instance::new(&entry, &instance);
        // SAFETY: valid instance with VK_EXT_debug_utils; a fresh create info.
        let m = unsafe { du.create_debug_utils_messenger(&messenger_info(&messages), None) }?;
        let surface_fn = ash::khr::surface::Instance::new(&entry, &instance);
        let hs = ash::ext::headless_surface::Instance::new(&entry, &instance);
        // SAFETY: instance with VK_EXT_headless_surface enabled.
        let surface = unsafe {
            hs.create_headless_surface(&vk::HeadlessSurfaceCreateInfoEXT::default(), None)
        }?;
        let (physical, family, device) = match Self::device(&instance, exts) {
            Ok(d) => d,
            Err(e) => {
                // SAFETY: nothing else was made from them.
                unsafe {
                    surface_fn.destroy_surface(surface, None);
                    du.destroy_debug_utils_messenger(m, None);
                    instance.destroy_instance(None);
                }
                return Err(e);
            }
        };
        // SAFETY: queue 0 of the family the device was made with.
        let queue = unsafe { device.get_device_queue(family, 0) };
        Ok(Self {
            entry,
            instance,
            messenger: (du, m),
            messages,
            surface_fn,
            surface,
            physical,
            device,
            queue,
            family,
        })
    }

    fn instance(
        entry: &ash::Entry,
        exts: Exts,
        messages: &Arc<AtomicU64>,
    ) -> Result<ash::Instance> {
        let mut names = vec![
            ash::khr::surface::NAME.as_ptr(),
            ash::ext::headless_surface::NAME.as_ptr(),
            ash::ext::debug_utils::NAME.as_ptr(),
            ash::ext::validation_features::NAME.as_ptr(),
        ];
        if exts.colorspace {
            names.push(vk::EXT_SWAPCHAIN_COLORSPACE_NAME.as_ptr());
        }
        let layers = [VALIDATION_LAYER.as_ptr()];
        let app = vk::ApplicationInfo::default()
            .application_name(c"vkpace color spaces")
            .api_version(vk::API_VERSION_1_3);
        let enables = [vk::ValidationFeatureEnableEXT::SYNCHRONIZATION_VALIDATION];
        let mut features =
            vk::ValidationFeaturesEXT::default().enabled_validation_features(&enables);
        let mut chained = messenger_info(messages);
        let info = vk::InstanceCreateInfo::default()
            .application_info(&app)
            .enabled_extension_names(&names)
            .enabled_layer_names(&layers)
            .push_next(&mut features)
            .push_next(&mut chained);
        // SAFETY: every pointer in `info` refers to locals alive for the call.
        unsafe { entry.create_instance(&info, None) }.context("vkCreateInstance")
    }

    /// The first physical device (lavapipe), family 0 (graphics, presents to the virtual
    /// display), with the features the demo's renderer and vkpace's options here need.
    fn device(
        instance: &ash::Instance,
        exts: Exts,
    ) -> Result<(vk::PhysicalDevice, u32, ash::Device)> {
        // SAFETY: valid instance.
        let physical = *unsafe { instance.enumerate_physical_devices() }?
            .first()
            .context("no Vulkan device")?;
        let family = 0;
        let mut names = vec![ash::khr::swapchain::NAME.as_ptr()];
        if exts.hdr_metadata {
            names.push(vk::EXT_HDR_METADATA_NAME.as_ptr());
        }
        let priorities = [1.0];
        let queues = [vk::DeviceQueueCreateInfo::default()
            .queue_family_index(family)
            .queue_priorities(&priorities)];
        let mut v13 = vk::PhysicalDeviceVulkan13Features::default()
            .dynamic_rendering(true)
            .synchronization2(true);
        let mut v12 = vk::PhysicalDeviceVulkan12Features::default().timeline_semaphore(true);
        let info = vk::DeviceCreateInfo::default()
            .queue_create_infos(&queues)
            .enabled_extension_names(&names)
            .push_next(&mut v13)
            .push_next(&mut v12);
        // SAFETY: a Vulkan 1.3 device (lavapipe): these features are required ones of 1.3;
        // VK_EXT_hdr_metadata is offered by vdisplay.
        let device =
            unsafe { instance.create_device(physical, &info, None) }.context("vkCreateDevice")?;
        Ok((physical, family, device))
    }

    fn check_canary(&self, when: &str) -> Result<()> {
        let n = self.messages.load(Ordering::SeqCst);
        ensure!(n == 0, "{n} validation message(s) {when}");
        Ok(())
    }

    /// The surface's format pairs.
    fn surface_formats(&self) -> Result<Vec<vk::SurfaceFormatKHR>> {
        // SAFETY: valid physical device and surface.
        Ok(unsafe {
            self.surface_fn
                .get_physical_device_surface_formats(self.physical, self.surface)
        }?)
    }

    /// A vkpace swapchain with `config` (plus what this context enabled).
    fn swapchain(&self, mut config: SwapchainConfig) -> vkpace::Result<Swapchain> {
        config.debug_utils = true;
        config.synchronization2 = true;
        config.pacing.wait_timeout = Duration::from_secs(5);
        if let Some(backend) = vkpace_demo::vulkan_context::completion_override() {
            config.completion = backend;
        }
        // SAFETY: the handles are valid and outlive the swapchain (each test destroys it
        // first); debug utils, synchronization2 and timeline semaphores are enabled;
        // `hdr_metadata` vkpace checks itself.
        unsafe {
            Swapchain::new(vkpace::SwapchainCreateDesc {
                entry: &self.entry,
                instance: &self.instance,
                physical_device: self.physical,
                device: &self.device,
                queue: self.queue,
                queue_family: self.family,
                surface: self.surface,
                config,
            })
        }
    }

    fn renderer(&self, format: vk::Format) -> Result<Renderer> {
        Renderer::new(
            &self.instance,
            self.physical,
            &self.device,
            self.family,
            format,
            vkpace::MAX_FRAMES_IN_FLIGHT,
        )
    }

    /// Destroys everything; the validation layer reports objects still alive as messages.
    fn destroy(self) -> Result<()> {
        // SAFETY: every child object is gone (the caller's order); reverse creation order.
        unsafe {
            self.device.destroy_device(None);
            self.surface_fn.destroy_surface(self.surface, None);
            self.messenger
                .0
                .destroy_debug_utils_messenger(self.messenger.1, None);
            self.instance.destroy_instance(None);
        }
        let n = self.messages.load(Ordering::SeqCst);
        ensure!(n == 0, "{n} validation message(s) at teardown");
        Ok(())
    }
}

/// What a frame looked like.
#[derive(Clone, Copy, Debug)]
struct Seen {
    format: vk::SurfaceFormatKHR,
    generation: u64,
    changed: bool,
}

/// A swapchain and the demo renderer drawing into it.
struct Run {
    swapchain: Swapchain,
    renderer: Renderer,
    history: FrameHistory,
    frames: u64,
}

impl Run {
    fn new(ctx: &Ctx, config: SwapchainConfig) -> Result<Self> {
        let swapchain = ctx.swapchain(config)?;
        let format = swapchain.info().format().context("no swapchain yet")?;
        let renderer = ctx.renderer(format)?;
        Ok(Self {
            swapchain,
            renderer,
            history: FrameHistory::default(),
            frames: 0,
        })
    }

    /// Acquires, renders, submits and presents one frame; `after_acquire` sees it first.
    fn frame(&mut self, after_acquire: impl FnOnce(&Seen) -> Result<()>) -> Result<Seen> {
        let frame = match self.swapchain.acquire()? {
            Acquired::Frame(f) => f,
            _ => bail!("zero extent (the display never reports one here)"),
        };
        let seen = Seen {
            format: frame.surface_format(),
            generation: frame.generation(),
            changed: frame.swapchain_changed(),
        };
        after_acquire(&seen)?;
        self.history.push(Sample {
            interval_ms: 16.0,
            cpu_wait_ms: 1.0,
            latency_ms: 20.0,
        });
        let t = self.frames as f32 / 60.0;
        let cmd = self.renderer.record(
            RenderTarget::of(&mut self.swapchain, &frame),
            t,
            0.0,
            &self.history,
        )?;
        // SAFETY: `cmd` was recorded for this frame's free slot and lives until the renderer
        // is destroyed, after the swapchain waited for its submissions.
        let submitted = unsafe {
            self.swapchain.submit(
                frame,
                vkpace::Submission::command_buffers(
                    &[cmd],
                    vk::PipelineStageFlags::COLOR_ATTACHMENT_OUTPUT,
                ),
            )
        }?;
        self.swapchain.present(submitted)?;
        self.frames += 1;
        Ok(seen)
    }

    /// Destroys the swapchain (bounded waits), then the renderer; returns how many swapchains
    /// were made.
    fn finish(self) -> Result<u64> {
        let made = self.swapchain.stats().swapchains_created;
        self.swapchain.destroy()?;
        self.renderer.destroy();
        Ok(made)
    }
}

/// Sets display extent number `i` of [`SIZES`].
fn resize(i: u64) -> Result<()> {
    let (w, h) = SIZES[(i as usize) % SIZES.len()];
    ensure!(set_extent(0, w, h)? == 1, "one virtual display expected");
    Ok(())
}

fn pair(format: vk::Format, color_space: vk::ColorSpaceKHR) -> vk::SurfaceFormatKHR {
    vk::SurfaceFormatKHR {
        format,
        color_space,
    }
}

// ----- (a) only a non-SRGB color space offered, 100+ recreations ------------------------------

/// What a long run saw.
#[derive(Debug)]
struct Kept {
    format: vk::SurfaceFormatKHR,
    generations: u64,
    changed_frames: u64,
    swapchains: u64,
    pictures: usize,
}

/// Frames on a display offering only `color_space` (vdisplay's name), a new extent before each,
/// with the default `preferred_formats` (sRGB only, so vkpace falls back to the surface's first
/// pair); every frame must show the first frame's pair.
fn only_color_space(name: &'static str, expected: vk::ColorSpaceKHR) -> Result<Kept> {
    let pictures = artifacts_dir().join("color_spaces").join(name);
    let _ = std::fs::remove_dir_all(&pictures);
    let settings = [
        ("extent", "320x240".to_string()),
        ("color_spaces", name.to_string()),
        ("readback_dir", pictures.display().to_string()),
        ("readback_every", "1".to_string()),
    ];
    let kept = vdisplay_support::run(&settings, move || -> Result<Kept> {
        let ctx = Ctx::new(Exts {
            colorspace: true,
            hdr_metadata: false,
        })?;
        let offered = ctx.surface_formats()?;
        ensure!(
            !offered.is_empty() && offered.iter().all(|f| f.color_space == expected),
            "the display offers {offered:?}"
        );
        let kept = long_run(&ctx, expected);
        let destroyed = ctx.destroy();
        let mut kept = kept?;
        destroyed?;
        kept.pictures = count_files(&pictures);
        Ok(kept)
    })
    .with_context(|| format!("color_spaces = {name}"))?;
    Ok(kept)
}

fn long_run(ctx: &Ctx, expected: vk::ColorSpaceKHR) -> Result<Kept> {
    let mut run = Run::new(ctx, SwapchainConfig::default())?;
    let mut first: Option<Seen> = None;
    let mut changed_frames = 0;
    let mut last = 0;
    for i in 0..=RESIZED_FRAMES {
        if i > 0 {
            resize(i)?;
        }
        let seen = run.frame(|_| Ok(()))?;
        let first = *first.get_or_insert(seen);
        ensure!(
            seen.format == first.format,
            "frame {i}: {:?}, the first had {:?}",
            seen.format,
            first.format
        );
        ensure!(
            seen.format.color_space == expected,
            "frame {i}: {:?}",
            seen.format
        );
        changed_frames += u64::from(seen.changed);
        last = seen.generation;
        ctx.check_canary(&format!("after frame {i}"))?;
    }
    let format = first.context("no frame")?.format;
    let generations = last - first.map_or(0, |f| f.generation);
    let swapchains = run.finish()?;
    Ok(Kept {
        format,
        generations,
        changed_frames,
        swapchains,
        pictures: 0,
    })
}

fn count_files(dir: &std::path::Path) -> usize {
    std::fs::read_dir(dir).map_or(0, |d| d.count())
}

fn check_kept(name: &str, kept: &Kept, format: vk::Format) -> Result<()> {
    ensure!(kept.format.format == format, "{name}: {kept:?}");
    ensure!(
        kept.generations >= 100 && kept.changed_frames >= 100 && kept.swapchains > 100,
        "{name}: fewer than 100 recreations: {kept:?}"
    );
    ensure!(kept.pictures > 0, "{name}: no picture read back: {kept:?}");
    println!(
        "{name}: {:?} kept over {} recreations ({} frames saw a new swapchain, {} swapchains \
         made), {} pictures read back",
        kept.format, kept.generations, kept.changed_frames, kept.swapchains, kept.pictures
    );
    Ok(())
}

#[test]
fn hdr10_only_display_keeps_its_color_space_over_100_recreations() -> Result<()> {
    let kept = only_color_space("hdr10", vk::ColorSpaceKHR::HDR10_ST2084_EXT)?;
    check_kept("hdr10", &kept, vk::Format::A2B10G10R10_UNORM_PACK32)
}

#[test]
fn extended_srgb_only_display_keeps_its_color_space_over_100_recreations() -> Result<()> {
    let kept = only_color_space(
        "extended-srgb",
        vk::ColorSpaceKHR::EXTENDED_SRGB_NONLINEAR_EXT,
    )?;
    check_kept("extended-srgb", &kept, vk::Format::R16G16B16A16_SFLOAT)
}

#[test]
fn display_p3_only_display_keeps_its_color_space_over_100_recreations() -> Result<()> {
    let kept = only_color_space("display-p3", vk::ColorSpaceKHR::DISPLAY_P3_NONLINEAR_EXT)?;
    check_kept("display-p3", &kept, vk::Format::B8G8R8A8_UNORM)
}

// ----- (b) HDR10 asked for ---------------------------------------------------------------------

fn hdr10_first() -> SwapchainConfig {
    let mut c = SwapchainConfig::default();
    c.preferred_formats = vec![
        pair(
            vk::Format::A2B10G10R10_UNORM_PACK32,
            vk::ColorSpaceKHR::HDR10_ST2084_EXT,
        ),
        pair(vk::Format::B8G8R8A8_SRGB, vk::ColorSpaceKHR::SRGB_NONLINEAR),
    ];
    c
}

fn hdr10_only() -> SwapchainConfig {
    let mut c = hdr10_first();
    c.preferred_formats.truncate(1);
    c.any_format_if_none_offered = false;
    c
}

#[test]
fn hdr10_asked_for_and_offered_is_chosen() -> Result<()> {
    // The default `color_spaces` (srgb, then hdr10): HDR10 is not the surface's first pair.
    let settings = [("extent", "320x240".to_string())];
    vdisplay_support::run(&settings, || -> Result<()> {
        let ctx = Ctx::new(Exts {
            colorspace: true,
            hdr_metadata: false,
        })?;
        let result = (|| -> Result<()> {
            let offered = ctx.surface_formats()?;
            ensure!(
                offered.first().map(|f| f.color_space) == Some(vk::ColorSpaceKHR::SRGB_NONLINEAR),
                "{offered:?}"
            );
            let want = hdr10_first().preferred_formats[0];
            let mut run = Run::new(&ctx, hdr10_first())?;
            for i in 0..6 {
                if i > 0 {
                    resize(i)?;
                }
                let seen = run.frame(|_| Ok(()))?;
                ensure!(seen.format == want, "frame {i}: {:?}", seen.format);
                ctx.check_canary("after presenting")?;
            }
            run.finish()?;
            Ok(())
        })();
        let destroyed = ctx.destroy();
        result.and(destroyed)
    })
}

/// `hdr10_only()` must fail with `NoSurfaceFormat` at `Swapchain::new`, making nothing.
fn refused_without_hdr10(ctx: &Ctx) -> Result<()> {
    let offered = ctx.surface_formats()?;
    ensure!(
        offered
            .iter()
            .all(|f| f.color_space == vk::ColorSpaceKHR::SRGB_NONLINEAR),
        "{offered:?}"
    );
    match ctx.swapchain(hdr10_only()) {
        Err(vkpace::Error::NoSurfaceFormat) => Ok(()),
        Err(e) => bail!("expected NoSurfaceFormat, got {e}"),
        Ok(sc) => {
            let format = sc.info().surface_format;
            sc.destroy()?;
            bail!("expected NoSurfaceFormat, got a swapchain of {format:?}")
        }
    }
}

#[test]
fn hdr10_only_where_not_offered_is_no_surface_format() -> Result<()> {
    // The display offers sRGB only.
    let settings = [("color_spaces", "srgb".to_string())];
    vdisplay_support::run(&settings, || -> Result<()> {
        let ctx = Ctx::new(Exts {
            colorspace: true,
            hdr_metadata: false,
        })?;
        let result = refused_without_hdr10(&ctx);
        let destroyed = ctx.destroy();
        result.and(destroyed)
    })?;
    // The display would offer HDR10, but the instance did not enable
    // VK_EXT_swapchain_colorspace, so it may not (and then offers sRGB only).
    let settings = [("color_spaces", "hdr10".to_string())];
    vdisplay_support::run(&settings, || -> Result<()> {
        let ctx = Ctx::new(Exts {
            colorspace: false,
            hdr_metadata: false,
        })?;
        let result = refused_without_hdr10(&ctx);
        let destroyed = ctx.destroy();
        result.and(destroyed)
    })
}

// ----- (c) HDR metadata ------------------------------------------------------------------------

/// BT.2020 primaries, D65 white, a 1000-nit mastering display.
fn metadata() -> vk::HdrMetadataEXT<'static> {
    let xy = |x, y| vk::XYColorEXT { x, y };
    vk::HdrMetadataEXT::default()
        .display_primary_red(xy(0.708, 0.292))
        .display_primary_green(xy(0.170, 0.797))
        .display_primary_blue(xy(0.131, 0.046))
        .white_point(xy(0.3127, 0.3290))
        .max_luminance(1000.0)
        .min_luminance(0.001)
        .max_content_light_level(800.0)
        .max_frame_average_light_level(400.0)
}

/// The values of a metadata structure, to compare.
fn values(m: &vk::HdrMetadataEXT<'_>) -> [f32; 12] {
    [
        m.display_primary_red.x,
        m.display_primary_red.y,
        m.display_primary_green.x,
        m.display_primary_green.y,
        m.display_primary_blue.x,
        m.display_primary_blue.y,
        m.white_point.x,
        m.white_point.y,
        m.max_luminance,
        m.min_luminance,
        m.max_content_light_level,
        m.max_frame_average_light_level,
    ]
}

extern "C" {
    fn dlopen(filename: *const c_char, flags: c_int) -> *mut c_void;
    fn dlsym(handle: *mut c_void, symbol: *const c_char) -> *mut c_void;
}
const RTLD_NOW: c_int = 2;
const RTLD_NOLOAD: c_int = 4;

/// vdisplay's `vdisplay_hdr_metadata` for the newest display: the creation number of its
/// current swapchain and the metadata last set on it, if any.
fn displayed_metadata() -> Result<Option<(u64, vk::HdrMetadataEXT<'static>)>> {
    type Query = unsafe extern "C" fn(u64, *mut u64, *mut vk::HdrMetadataEXT<'static>) -> u32;
    let library = find_library()?.canonicalize()?;
    let path = CString::new(library.display().to_string())?;
    // SAFETY: RTLD_NOLOAD only finds the copy the loader already loaded; never closed.
    let handle = unsafe { dlopen(path.as_ptr(), RTLD_NOW | RTLD_NOLOAD) };
    ensure!(!handle.is_null(), "the layer is not loaded");
    // SAFETY: a valid handle and a C string.
    let sym = unsafe { dlsym(handle, c"vdisplay_hdr_metadata".as_ptr()) };
    ensure!(!sym.is_null(), "vdisplay_hdr_metadata is not exported");
    // SAFETY: the layer exports it with this signature (vdisplay/src/control.rs).
    let query: Query = unsafe { std::mem::transmute::<*mut c_void, Query>(sym) };
    let (mut seq, mut md) = (0u64, vk::HdrMetadataEXT::default());
    // SAFETY: both pointers are valid for a write.
    let found = unsafe { query(0, &mut seq, &mut md) };
    Ok((found == 1).then_some((seq, md)))
}

/// Frames with a new extent each; after every acquire the display's current swapchain must
/// carry the metadata. Returns the swapchains (creation numbers) seen with it.
fn metadata_run(ctx: &Ctx) -> Result<BTreeSet<u64>> {
    let mut config = hdr10_first();
    config.hdr_metadata = Some(metadata());
    let mut run = Run::new(ctx, config)?;
    let mut seen_swapchains = BTreeSet::new();
    for i in 0..24 {
        if i > 0 {
            resize(i)?;
        }
        run.frame(|seen| {
            let (sc, md) = displayed_metadata()?
                .with_context(|| format!("frame {i}: no HDR metadata on the display"))?;
            ensure!(
                values(&md) == values(&metadata()),
                "frame {i} (generation {}): {md:?}",
                seen.generation
            );
            seen_swapchains.insert(sc);
            Ok(())
        })?;
        ctx.check_canary("after presenting")?;
    }
    let made = run.finish()?;
    ensure!(
        seen_swapchains.len() as u64 == made && made >= 24,
        "{} swapchains seen with metadata of {made} made",
        seen_swapchains.len()
    );
    Ok(seen_swapchains)
}

#[test]
fn hdr_metadata_reaches_every_swapchain() -> Result<()> {
    let settings = [("extent", "320x240".to_string())];
    let seen = vdisplay_support::run(&settings, || -> Result<BTreeSet<u64>> {
        let ctx = Ctx::new(Exts {
            colorspace: true,
            hdr_metadata: true,
        })?;
        let result = metadata_run(&ctx);
        let destroyed = ctx.destroy();
        let seen = result?;
        destroyed?;
        Ok(seen)
    })?;
    println!(
        "HDR metadata seen by the display on {} swapchains (the first and each recreation)",
        seen.len()
    );
    Ok(())
}

#[test]
fn hdr_metadata_without_the_extension_is_invalid_config() -> Result<()> {
    vdisplay_support::run(&[], || -> Result<()> {
        let ctx = Ctx::new(Exts {
            colorspace: true,
            hdr_metadata: false,
        })?;
        let mut config = hdr10_first();
        config.hdr_metadata = Some(metadata());
        let result = match ctx.swapchain(config) {
            Err(vkpace::Error::InvalidConfig(why)) => {
                println!("refused: {why}");
                Ok(())
            }
            Err(e) => Err(anyhow::anyhow!("expected InvalidConfig, got {e}")),
            Ok(sc) => {
                sc.destroy()?;
                Err(anyhow::anyhow!("expected InvalidConfig, got a swapchain"))
            }
        };
        let destroyed = ctx.destroy();
        result.and(destroyed)
    })
}
