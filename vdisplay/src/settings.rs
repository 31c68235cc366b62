//! The layer's settings: defaults, overridden by a settings file (`VDISPLAY_SETTINGS_FILE`,
//! `key = value` lines), then by environment variables (`VDISPLAY_<KEY>`), then by
//! `VkLayerSettingsCreateInfoEXT` entries for `VK_LAYER_VKPACE_vdisplay` in the
//! `VkInstanceCreateInfo` chain (per instance, so tests in one process can differ).
//! Read once per `vkCreateInstance`.

use std::ffi::{c_void, CStr};
use std::path::PathBuf;

use ash::vk;

use crate::gpu_model::GpuModel;
use crate::LAYER_NAME;
use vkpace_layer_plumbing::chain;

mod engine_timing;

use engine_timing::{
    parse_calibrated_names, parse_relative_from, parse_reported, parse_result_domain, Reported,
};
pub use engine_timing::{RelativeFrom, ResultDomain};

/// Which present modes may be switched between without recreation (maintenance1).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum ModeCompat {
    /// {FIFO, FIFO_RELAXED} and {MAILBOX, IMMEDIATE}: the queued modes and the unqueued ones.
    Groups,
    /// All four modes are mutually compatible.
    All,
}

/// A color space a virtual display can offer (the `color_spaces` setting), each with the
/// formats it is offered in. Every format here is one lavapipe can render to (color attachment,
/// transfer source for the read-back).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum DisplayColorSpace {
    /// `srgb`: `SRGB_NONLINEAR_KHR` with B8G8R8A8 and R8G8B8A8, SRGB and UNORM.
    Srgb,
    /// `hdr10`: `HDR10_ST2084_EXT` with `A2B10G10R10_UNORM_PACK32`.
    Hdr10,
    /// `extended-srgb`: `EXTENDED_SRGB_NONLINEAR_EXT` with `R16G16B16A16_SFLOAT`.
    ExtendedSrgb,
    /// `extended-srgb-linear` (scRGB): `EXTENDED_SRGB_LINEAR_EXT` with `R16G16B16A16_SFLOAT`.
    ExtendedSrgbLinear,
    /// `display-p3`: `DISPLAY_P3_NONLINEAR_EXT` with `B8G8R8A8_UNORM` and
    /// `A2B10G10R10_UNORM_PACK32`.
    DisplayP3,
}

impl DisplayColorSpace {
    /// The Vulkan color space.
    pub fn color_space(self) -> vk::ColorSpaceKHR {
        match self {
            Self::Srgb => vk::ColorSpaceKHR::SRGB_NONLINEAR,
            Self::Hdr10 => vk::ColorSpaceKHR::HDR10_ST2084_EXT,
            Self::ExtendedSrgb => vk::ColorSpaceKHR::EXTENDED_SRGB_NONLINEAR_EXT,
            Self::ExtendedSrgbLinear => vk::ColorSpaceKHR::EXTENDED_SRGB_LINEAR_EXT,
            Self::DisplayP3 => vk::ColorSpaceKHR::DISPLAY_P3_NONLINEAR_EXT,
        }
    }

    /// The formats it is offered in, in the order reported.
    pub fn formats(self) -> &'static [vk::Format] {
        match self {
            Self::Srgb => &[
                vk::Format::B8G8R8A8_SRGB,
                vk::Format::B8G8R8A8_UNORM,
                vk::Format::R8G8B8A8_SRGB,
                vk::Format::R8G8B8A8_UNORM,
            ],
            Self::Hdr10 => &[vk::Format::A2B10G10R10_UNORM_PACK32],
            Self::ExtendedSrgb | Self::ExtendedSrgbLinear => &[vk::Format::R16G16B16A16_SFLOAT],
            Self::DisplayP3 => &[
                vk::Format::B8G8R8A8_UNORM,
                vk::Format::A2B10G10R10_UNORM_PACK32,
            ],
        }
    }

    /// Whether only an instance with `VK_EXT_swapchain_colorspace` may be offered it (every
    /// color space but `SRGB_NONLINEAR_KHR`: VkColorSpaceKHR's values other than it are that
    /// extension's).
    pub fn needs_colorspace_ext(self) -> bool {
        self != Self::Srgb
    }
}

/// What time domains swapchains offer for present timing (the `timing_domains` setting).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum TimingDomains {
    /// `monotonic`: ids 1 PRESENT_STAGE_LOCAL, 2 SWAPCHAIN_LOCAL and 3 CLOCK_MONOTONIC, the
    /// local ones running at CLOCK_MONOTONIC itself.
    Monotonic,
    /// `local`: only ids 1 and 2, running at CLOCK_MONOTONIC plus `timing_local_offset_ms`,
    /// and listed by `vkGetPhysicalDeviceCalibrateableTimeDomainsKHR`, so a client has to
    /// calibrate them.
    Local,
}

/// Everything configurable. See the crate README for the meaning of each key.
#[derive(Clone, Debug)]
pub struct Settings {
    /// Refresh rate of new virtual displays, in Hz.
    pub refresh_hz: f64,
    /// Initial current extent of new surfaces.
    pub extent: vk::Extent2D,
    /// `minImageCount` reported for every present mode.
    pub min_images: u32,
    /// `maxImageCount` reported.
    pub max_images: u32,
    /// Present-mode compatibility classes.
    pub mode_compat: ModeCompat,
    /// JSON-lines log of every present, if set.
    pub log_path: Option<PathBuf>,
    /// Directory for PNG read-backs of shown frames, if set.
    pub readback_dir: Option<PathBuf>,
    /// Read back every Nth present (by the swapchain's present sequence number).
    pub readback_every: u64,
    /// Seed of the fault generator.
    pub seed: u64,
    /// Probability that an acquire or present returns (and the swapchain stays) OUT_OF_DATE.
    pub fault_out_of_date: f64,
    /// Probability that an acquire or present returns SUBOPTIMAL.
    pub fault_suboptimal: f64,
    /// The surface is lost after this many presents on it (0: never).
    pub fault_surface_lost_after: u64,
    /// Free images are handed out in random order instead of oldest-freed first.
    pub fault_random_order: bool,
    /// Extra delay between a present's queue operations completing and the engine seeing it.
    pub fault_slow_engine_ms: f64,
    /// The modelled GPU: a present's image is ready no sooner than this long after the present
    /// call (`crate::gpu_model`).
    pub gpu_ms: GpuModel,
    /// Present fences (maintenance1) signal this long after the image was shown (0: at once).
    pub fault_present_fence_late_ms: f64,
    /// Probability that a present fence never signals.
    pub fault_present_fence_never: f64,
    /// Change the surface extent every K presents (0: never), cycling `fault_resize_extents`;
    /// while the extent is zero (minimized, when nothing is presented) every K capability
    /// queries instead, so a minimized display comes back.
    pub fault_resize_every: u64,
    /// Extents the resize fault cycles through (`WxH,WxH,...`; 0x0 = minimized).
    pub fault_resize_extents: Vec<vk::Extent2D>,
    /// The color spaces surfaces offer, in the order their formats are reported.
    pub color_spaces: Vec<DisplayColorSpace>,
    /// Surfaces report `presentId2Supported` (VK_KHR_present_id2 stays offered by the device
    /// either way): false makes a surface that says no while the device says yes.
    pub surface_present_id2: bool,
    /// Surfaces report `presentWait2Supported` (as above, for VK_KHR_present_wait2).
    pub surface_present_wait2: bool,
    /// What surfaces report of VK_EXT_present_timing (`VkPresentTimingSurfaceCapabilitiesEXT`).
    pub surface_present_timing: TimingOffer,
    /// A results queue holds at most this many entries whatever the application sized it to
    /// (0: no cap): a presentation engine with less room than it was asked for, which makes
    /// `VK_ERROR_PRESENT_TIMING_QUEUE_FULL_EXT` reachable for a careful application.
    pub fault_timing_queue_cap: u32,
    /// The time domains swapchains offer.
    pub timing_domains: TimingDomains,
    /// How far ahead of CLOCK_MONOTONIC the local domains run with `TimingDomains::Local`, in
    /// milliseconds.
    pub timing_local_offset_ms: u64,
    /// `refreshDuration` reported instead of the display's period (`None`: the period).
    pub timing_refresh_duration: Reported,
    /// `refreshInterval` reported (`None`: the reported duration; `u64::MAX`: variable).
    pub timing_refresh_interval: Reported,
    /// The time domain results are reported in.
    pub timing_result_domain: ResultDomain,
    /// What relative targets count from.
    pub timing_relative_from: RelativeFrom,
    /// Devices offer `VK_KHR_calibrated_timestamps` (the layer forwards it to the driver's EXT
    /// where the driver lacks it); false (`calibrated_timestamps = ext`): only the EXT name is
    /// listed, the driver's KHR name hidden, as on a driver that has only the EXT one (present
    /// timing stays offered: a device offering less than the extension depends on).
    pub calibrated_khr: bool,
    /// Devices offer `VK_KHR_present_id` and `VK_KHR_present_wait` (`present_wait = off`: not
    /// listed, as on a driver without them; present_id2 and present_wait2 stay, present timing
    /// names presents by their id2).
    pub present_wait: bool,
    /// X11 (xcb, Xlib) and Wayland surfaces become virtual displays too (`window_surfaces =
    /// virtual`), so a program that only knows windows runs over vdisplay unmodified; the
    /// window itself then shows nothing. False (`driver`): they go to the driver.
    pub virtual_window_surfaces: bool,
    /// Each instance's creation and destruction is said on stderr (`trace_instances = on`):
    /// a test counts how often the driver's `vkDestroyInstance` is reached through the layers
    /// above vdisplay (once per instance, whatever their order).
    pub trace_instances: bool,
}

/// What a surface offers of present timing.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct TimingOffer {
    /// `presentTimingSupported`.
    pub supported: bool,
    /// `presentAtRelativeTimeSupported`.
    pub relative: bool,
    /// `presentAtAbsoluteTimeSupported`.
    pub absolute: bool,
}

impl TimingOffer {
    /// Everything (the default).
    pub const ALL: Self = Self {
        supported: true,
        relative: true,
        absolute: true,
    };
}

impl Default for Settings {
    fn default() -> Self {
        Self {
            refresh_hz: 60.0,
            extent: vk::Extent2D {
                width: 1280,
                height: 720,
            },
            min_images: 2,
            max_images: 8,
            mode_compat: ModeCompat::Groups,
            log_path: None,
            readback_dir: None,
            readback_every: 1,
            seed: 1,
            fault_out_of_date: 0.0,
            fault_suboptimal: 0.0,
            fault_surface_lost_after: 0,
            fault_random_order: false,
            fault_slow_engine_ms: 0.0,
            gpu_ms: GpuModel::Off,
            fault_present_fence_late_ms: 0.0,
            fault_present_fence_never: 0.0,
            fault_resize_every: 0,
            fault_resize_extents: vec![
                vk::Extent2D {
                    width: 800,
                    height: 600,
                },
                vk::Extent2D {
                    width: 1280,
                    height: 720,
                },
            ],
            color_spaces: vec![DisplayColorSpace::Srgb, DisplayColorSpace::Hdr10],
            surface_present_id2: true,
            surface_present_wait2: true,
            surface_present_timing: TimingOffer::ALL,
            fault_timing_queue_cap: 0,
            timing_domains: TimingDomains::Monotonic,
            timing_local_offset_ms: 1_000_000,
            timing_refresh_duration: None,
            timing_refresh_interval: None,
            timing_result_domain: ResultDomain::Offered,
            timing_relative_from: RelativeFrom::Grid,
            calibrated_khr: true,
            present_wait: true,
            virtual_window_surfaces: false,
            trace_instances: false,
        }
    }
}

/// Every key, for the environment lookup (`VDISPLAY_` + upper case).
pub const KEYS: &[&str] = &[
    "refresh_hz",
    "extent",
    "min_images",
    "max_images",
    "mode_compat",
    "log",
    "readback_dir",
    "readback_every",
    "seed",
    "fault_out_of_date",
    "fault_suboptimal",
    "fault_surface_lost_after",
    "fault_random_order",
    "fault_slow_engine_ms",
    "gpu_ms",
    "fault_present_fence_late_ms",
    "fault_present_fence_never",
    "fault_resize_every",
    "fault_resize_extents",
    "color_spaces",
    "surface_present_id2",
    "surface_present_wait2",
    "surface_present_timing",
    "fault_timing_queue_cap",
    "timing_domains",
    "timing_local_offset_ms",
    "timing_refresh_duration",
    "timing_refresh_interval",
    "timing_result_domain",
    "timing_relative_from",
    "calibrated_timestamps",
    "present_wait",
    "window_surfaces",
    "trace_instances",
];

impl Settings {
    /// Applies one `key = value`; unknown keys and unparsable values are reported and ignored.
    pub fn apply(&mut self, key: &str, value: &str) {
        let v = value.trim();
        let ok = match key.trim() {
            "refresh_hz" => set(
                &mut self.refresh_hz,
                v.parse().ok().filter(|h: &f64| *h > 0.0),
            ),
            "extent" => set(&mut self.extent, parse_extent(v)),
            "min_images" => set(&mut self.min_images, v.parse().ok().filter(|n| *n >= 1)),
            "max_images" => set(&mut self.max_images, v.parse().ok().filter(|n| *n >= 1)),
            "mode_compat" => set(&mut self.mode_compat, parse_compat(v)),
            "log" => set(&mut self.log_path, Some(non_empty_path(v))),
            "readback_dir" => set(&mut self.readback_dir, Some(non_empty_path(v))),
            "readback_every" => set(&mut self.readback_every, v.parse().ok().filter(|n| *n >= 1)),
            "seed" => set(&mut self.seed, v.parse().ok()),
            "fault_out_of_date" => set(&mut self.fault_out_of_date, parse_prob(v)),
            "fault_suboptimal" => set(&mut self.fault_suboptimal, parse_prob(v)),
            "fault_surface_lost_after" => set(&mut self.fault_surface_lost_after, v.parse().ok()),
            "fault_random_order" => set(&mut self.fault_random_order, parse_bool(v)),
            "fault_slow_engine_ms" => set(&mut self.fault_slow_engine_ms, parse_ms(v)),
            "gpu_ms" => set(&mut self.gpu_ms, GpuModel::parse(v)),
            "fault_present_fence_late_ms" => {
                set(&mut self.fault_present_fence_late_ms, parse_ms(v))
            }
            "fault_present_fence_never" => set(&mut self.fault_present_fence_never, parse_prob(v)),
            "fault_resize_every" => set(&mut self.fault_resize_every, v.parse().ok()),
            "fault_resize_extents" => set(&mut self.fault_resize_extents, parse_extents(v)),
            "color_spaces" => set(&mut self.color_spaces, parse_color_spaces(v)),
            "surface_present_id2" => set(&mut self.surface_present_id2, parse_bool(v)),
            "surface_present_wait2" => set(&mut self.surface_present_wait2, parse_bool(v)),
            "surface_present_timing" => set(&mut self.surface_present_timing, parse_timing(v)),
            "fault_timing_queue_cap" => set(&mut self.fault_timing_queue_cap, v.parse().ok()),
            "timing_domains" => set(&mut self.timing_domains, parse_domains(v)),
            "timing_local_offset_ms" => set(&mut self.timing_local_offset_ms, v.parse().ok()),
            "timing_refresh_duration" => set(&mut self.timing_refresh_duration, parse_reported(v)),
            "timing_refresh_interval" => set(&mut self.timing_refresh_interval, parse_reported(v)),
            "timing_result_domain" => set(&mut self.timing_result_domain, parse_result_domain(v)),
            "timing_relative_from" => set(&mut self.timing_relative_from, parse_relative_from(v)),
            "calibrated_timestamps" => set(&mut self.calibrated_khr, parse_calibrated_names(v)),
            "present_wait" => set(&mut self.present_wait, parse_bool(v)),
            "window_surfaces" => set(&mut self.virtual_window_surfaces, parse_window_surfaces(v)),
            "trace_instances" => set(&mut self.trace_instances, parse_bool(v)),
            _ => false,
        };
        if !ok {
            eprintln!("vdisplay: ignoring setting {key} = {value:?}");
        }
    }

    /// Defaults, then the settings file, then the environment.
    pub fn from_environment() -> Self {
        let mut s = Self::default();
        if let Ok(path) = std::env::var("VDISPLAY_SETTINGS_FILE") {
            match std::fs::read_to_string(&path) {
                Ok(text) => s.apply_file(&text),
                Err(e) => eprintln!("vdisplay: cannot read {path}: {e}"),
            }
        }
        for key in KEYS {
            if let Ok(value) = std::env::var(format!("VDISPLAY_{}", key.to_uppercase())) {
                s.apply(key, &value);
            }
        }
        s
    }

    /// Applies a settings file's `key = value` lines (`#` starts a comment).
    pub fn apply_file(&mut self, text: &str) {
        for line in text.lines() {
            let line = line.split('#').next().unwrap_or("").trim();
            if let Some((k, v)) = line.split_once('=') {
                self.apply(k, v);
            }
        }
    }

    /// Applies `VkLayerSettingsCreateInfoEXT` entries addressed to this layer.
    ///
    /// # Safety
    /// `p_next` must be a valid `VkInstanceCreateInfo` chain.
    pub unsafe fn apply_layer_settings(&mut self, p_next: *const c_void) {
        // SAFETY: caller's contract.
        let Some(info) = (unsafe { chain::find::<vk::LayerSettingsCreateInfoEXT>(p_next) }) else {
            return;
        };
        for i in 0..info.setting_count as usize {
            // SAFETY: `p_settings` has `setting_count` entries (VUID-VkLayerSettingsCreateInfoEXT).
            let setting = unsafe { &*info.p_settings.add(i) };
            // SAFETY: names are NUL-terminated strings.
            let (layer, name) = unsafe {
                (
                    CStr::from_ptr(setting.p_layer_name),
                    CStr::from_ptr(setting.p_setting_name),
                )
            };
            if layer != LAYER_NAME || setting.value_count == 0 {
                continue;
            }
            // SAFETY: `p_values` holds `value_count` values of `type` (the structure's contract).
            if let Some(value) = unsafe { setting_value(setting) } {
                self.apply(&name.to_string_lossy(), &value);
            }
        }
    }

    /// How far the local time domains run ahead of CLOCK_MONOTONIC, in nanoseconds (0 with
    /// `TimingDomains::Monotonic`).
    pub fn local_offset_ns(&self) -> u64 {
        match self.timing_domains {
            TimingDomains::Monotonic => 0,
            TimingDomains::Local => self.timing_local_offset_ms.saturating_mul(1_000_000),
        }
    }

    /// Refresh period in nanoseconds (at least 1).
    pub fn refresh_ns(&self) -> u64 {
        ((1e9 / self.refresh_hz).round() as u64).max(1)
    }

    /// `refreshDuration` and `refreshInterval` as `vkGetSwapchainTimingPropertiesEXT` reports
    /// them: the period (a fixed rate) unless `timing_refresh_duration` or
    /// `timing_refresh_interval` say otherwise; the interval follows the duration.
    pub fn reported_refresh(&self) -> (u64, u64) {
        let duration = self.timing_refresh_duration.unwrap_or(self.refresh_ns());
        (duration, self.timing_refresh_interval.unwrap_or(duration))
    }
}

/// The first value of a layer setting as text.
///
/// # Safety
/// `setting.p_values` must hold at least one value of `setting.type`.
unsafe fn setting_value(setting: &vk::LayerSettingEXT) -> Option<String> {
    let p = setting.p_values;
    // SAFETY: caller's contract: `p` points at a value of the declared type.
    unsafe {
        Some(match setting.ty {
            vk::LayerSettingTypeEXT::BOOL32 => (*p.cast::<vk::Bool32>() != 0).to_string(),
            vk::LayerSettingTypeEXT::INT32 => (*p.cast::<i32>()).to_string(),
            vk::LayerSettingTypeEXT::INT64 => (*p.cast::<i64>()).to_string(),
            vk::LayerSettingTypeEXT::UINT32 => (*p.cast::<u32>()).to_string(),
            vk::LayerSettingTypeEXT::UINT64 => (*p.cast::<u64>()).to_string(),
            vk::LayerSettingTypeEXT::FLOAT32 => (*p.cast::<f32>()).to_string(),
            vk::LayerSettingTypeEXT::FLOAT64 => (*p.cast::<f64>()).to_string(),
            vk::LayerSettingTypeEXT::STRING => CStr::from_ptr(*p.cast::<*const std::ffi::c_char>())
                .to_string_lossy()
                .into_owned(),
            _ => return None,
        })
    }
}

fn set<T>(slot: &mut T, value: Option<T>) -> bool {
    match value {
        Some(v) => {
            *slot = v;
            true
        }
        None => false,
    }
}

fn non_empty_path(v: &str) -> Option<PathBuf> {
    (!v.is_empty()).then(|| PathBuf::from(v))
}

fn parse_prob(v: &str) -> Option<f64> {
    v.parse().ok().filter(|p: &f64| (0.0..=1.0).contains(p))
}

fn parse_ms(v: &str) -> Option<f64> {
    v.parse().ok().filter(|p: &f64| *p >= 0.0)
}

fn parse_bool(v: &str) -> Option<bool> {
    match v {
        "1" | "true" | "on" | "yes" => Some(true),
        "0" | "false" | "off" | "no" => Some(false),
        _ => None,
    }
}

/// `off` (no present timing), `stages` (timing results, no target times), or a comma list of
/// `relative` and `absolute` (the target kinds offered).
fn parse_timing(v: &str) -> Option<TimingOffer> {
    let none = TimingOffer {
        supported: true,
        relative: false,
        absolute: false,
    };
    match v {
        "off" => {
            return Some(TimingOffer {
                supported: false,
                ..none
            })
        }
        "stages" => return Some(none),
        _ => {}
    }
    let mut offer = none;
    for kind in v.split(',') {
        match kind.trim() {
            "relative" => offer.relative = true,
            "absolute" => offer.absolute = true,
            _ => return None,
        }
    }
    Some(offer)
}

fn parse_domains(v: &str) -> Option<TimingDomains> {
    match v {
        "monotonic" => Some(TimingDomains::Monotonic),
        "local" => Some(TimingDomains::Local),
        _ => None,
    }
}

fn parse_window_surfaces(v: &str) -> Option<bool> {
    match v {
        "driver" => Some(false),
        "virtual" => Some(true),
        _ => None,
    }
}

fn parse_compat(v: &str) -> Option<ModeCompat> {
    match v {
        "groups" => Some(ModeCompat::Groups),
        "all" => Some(ModeCompat::All),
        _ => None,
    }
}

/// `WxH`.
pub fn parse_extent(v: &str) -> Option<vk::Extent2D> {
    let (w, h) = v.trim().split_once(['x', 'X'])?;
    Some(vk::Extent2D {
        width: w.trim().parse().ok()?,
        height: h.trim().parse().ok()?,
    })
}

/// `name,name,...` of [`DisplayColorSpace`] (no repeats; at least one).
fn parse_color_spaces(v: &str) -> Option<Vec<DisplayColorSpace>> {
    let mut out = Vec::new();
    for name in v.split(',') {
        let cs = match name.trim() {
            "srgb" => DisplayColorSpace::Srgb,
            "hdr10" => DisplayColorSpace::Hdr10,
            "extended-srgb" => DisplayColorSpace::ExtendedSrgb,
            "extended-srgb-linear" => DisplayColorSpace::ExtendedSrgbLinear,
            "display-p3" => DisplayColorSpace::DisplayP3,
            _ => return None,
        };
        if !out.contains(&cs) {
            out.push(cs);
        }
    }
    (!out.is_empty()).then_some(out)
}

fn parse_extents(v: &str) -> Option<Vec<vk::Extent2D>> {
    let list: Option<Vec<_>> = v.split(',').map(parse_extent).collect();
    list.filter(|l| !l.is_empty())
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn file_lines_override_defaults_and_bad_values_are_ignored() {
        let mut s = Settings::default();
        s.apply_file("refresh_hz = 144 # fast\nextent=640x480\nfault_suboptimal = 2\nfault_resize_extents = 10x10,0x0\n");
        assert_eq!(s.refresh_hz, 144.0);
        assert_eq!(
            s.extent,
            vk::Extent2D {
                width: 640,
                height: 480
            }
        );
        assert_eq!(s.fault_suboptimal, 0.0);
        assert_eq!(s.fault_resize_extents.len(), 2);
        assert_eq!(
            s.fault_resize_extents[1],
            vk::Extent2D {
                width: 0,
                height: 0
            }
        );
        assert_eq!(s.refresh_ns(), 6_944_444);
    }

    #[test]
    fn gpu_model_is_off_unless_asked_and_bad_values_change_nothing() {
        let mut s = Settings::default();
        assert_eq!(s.gpu_ms, GpuModel::Off);
        s.apply_file("gpu_ms = 6..10 # a GPU frame of 6 to 10 ms\n");
        assert_eq!(s.gpu_ms, GpuModel::Uniform { lo: 6.0, hi: 10.0 });
        s.apply("gpu_ms", "10..6");
        assert_eq!(s.gpu_ms, GpuModel::Uniform { lo: 6.0, hi: 10.0 });
        s.apply("gpu_ms", "0");
        assert_eq!(s.gpu_ms, GpuModel::Off);
    }

    #[test]
    fn window_surfaces_are_the_drivers_unless_asked() {
        let mut s = Settings::default();
        assert!(!s.virtual_window_surfaces);
        s.apply("window_surfaces", "virtual");
        assert!(s.virtual_window_surfaces);
        s.apply("window_surfaces", "sometimes");
        assert!(s.virtual_window_surfaces, "a bad value changes nothing");
        s.apply("window_surfaces", "driver");
        assert!(!s.virtual_window_surfaces);
    }

    #[test]
    fn color_spaces_parse_in_order_and_bad_lists_are_ignored() {
        let mut s = Settings::default();
        assert_eq!(
            s.color_spaces,
            vec![DisplayColorSpace::Srgb, DisplayColorSpace::Hdr10]
        );
        s.apply("color_spaces", "display-p3, hdr10,extended-srgb-linear");
        assert_eq!(
            s.color_spaces,
            vec![
                DisplayColorSpace::DisplayP3,
                DisplayColorSpace::Hdr10,
                DisplayColorSpace::ExtendedSrgbLinear
            ]
        );
        s.apply("color_spaces", "hdr10,rec2020");
        s.apply("color_spaces", "");
        assert_eq!(s.color_spaces.len(), 3);
        s.apply("color_spaces", "extended-srgb");
        assert_eq!(
            s.color_spaces[0].color_space(),
            vk::ColorSpaceKHR::EXTENDED_SRGB_NONLINEAR_EXT
        );
        assert!(!DisplayColorSpace::Srgb.needs_colorspace_ext());
    }

    #[test]
    fn present_timing_offers() {
        let mut s = Settings::default();
        assert_eq!(s.surface_present_timing, TimingOffer::ALL);
        s.apply("surface_present_timing", "absolute");
        assert!(!s.surface_present_timing.relative && s.surface_present_timing.absolute);
        s.apply("surface_present_timing", "stages");
        assert!(s.surface_present_timing.supported && !s.surface_present_timing.absolute);
        s.apply("surface_present_timing", "off");
        assert!(!s.surface_present_timing.supported);
        s.apply("surface_present_timing", "sideways");
        assert!(
            !s.surface_present_timing.supported,
            "a bad value is ignored"
        );
        s.apply("fault_timing_queue_cap", "2");
        assert_eq!(s.fault_timing_queue_cap, 2);
    }

    #[test]
    fn timing_domains_and_local_offset() {
        let mut s = Settings::default();
        assert_eq!(s.timing_domains, TimingDomains::Monotonic);
        assert_eq!(s.timing_local_offset_ms, 1_000_000);
        assert_eq!(s.local_offset_ns(), 0, "monotonic: no offset");
        s.apply("timing_domains", "local");
        assert_eq!(s.timing_domains, TimingDomains::Local);
        assert_eq!(s.local_offset_ns(), 1_000_000_000_000);
        s.apply_file("timing_local_offset_ms = 250\ntiming_domains = swapchain\n");
        assert_eq!(
            s.timing_domains,
            TimingDomains::Local,
            "a bad value is ignored"
        );
        assert_eq!(s.local_offset_ns(), 250_000_000);
        s.apply("timing_local_offset_ms", "-5");
        assert_eq!(
            s.timing_local_offset_ms, 250,
            "negative offsets are refused"
        );
        s.apply("timing_local_offset_ms", &u64::MAX.to_string());
        assert_eq!(s.local_offset_ns(), u64::MAX, "saturates");
        s.apply("timing_domains", "monotonic");
        assert_eq!(s.local_offset_ns(), 0);
    }

    #[test]
    fn surface_present_wait2_switches_default_on() {
        let mut s = Settings::default();
        assert!(s.surface_present_id2 && s.surface_present_wait2);
        s.apply_file("surface_present_wait2 = false\nsurface_present_id2 = maybe\n");
        assert!(s.surface_present_id2, "a bad value is ignored");
        assert!(!s.surface_present_wait2);
    }
}
