//! What the next swapchain looks like, decided from what the surface reports: extent, image
//! count, surface format (format and color space, kept across recreation), present mode,
//! composite alpha, usage. Pure: the shell queries the surface and creates the swapchain.

use super::error::Failure;
use super::vk_values::{composite_alpha, Extent, PresentMode, SurfaceFormat};

/// What the surface reports (`vkGetPhysicalDeviceSurfaceCapabilitiesKHR`, `...FormatsKHR`,
/// `...PresentModesKHR`).
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct SurfaceInfo {
    /// `minImageCount`.
    pub min_image_count: u32,
    /// `maxImageCount` (0: no limit).
    pub max_image_count: u32,
    /// `currentExtent`, or `None` where the application chooses it (`0xFFFFFFFF`).
    pub current_extent: Option<Extent>,
    /// `minImageExtent`.
    pub min_extent: Extent,
    /// `maxImageExtent`.
    pub max_extent: Extent,
    /// `supportedUsageFlags`.
    pub supported_usage: u32,
    /// `supportedCompositeAlpha`.
    pub supported_composite_alpha: u32,
    /// `currentTransform`.
    pub current_transform: u32,
    /// The surface formats offered.
    pub formats: Vec<SurfaceFormat>,
    /// The present modes offered.
    pub present_modes: Vec<PresentMode>,
}

/// What the application asks of every swapchain.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct SurfaceWishes {
    /// Surface formats in order of preference.
    pub formats: Vec<SurfaceFormat>,
    /// Whether to take the surface's first format when none of `formats` is offered.
    pub any_format_if_none_offered: bool,
    /// The present mode (FIFO where the surface lacks it).
    pub present_mode: PresentMode,
    /// `VkImageUsageFlags` the images need.
    pub usage: u32,
    /// The extent where the surface lets the application choose.
    pub extent: Extent,
    /// Images beyond the surface's minimum.
    pub extra_images: u32,
}

/// A swapchain to create (the shell adds `oldSwapchain` and what it owns).
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct SwapchainPlan {
    /// `minImageCount`.
    pub image_count: u32,
    /// Format and color space.
    pub format: SurfaceFormat,
    /// `imageExtent`, never empty.
    pub extent: Extent,
    /// `imageUsage`.
    pub usage: u32,
    /// `preTransform`.
    pub transform: u32,
    /// `compositeAlpha`.
    pub composite_alpha: u32,
    /// `presentMode`.
    pub present_mode: PresentMode,
    /// Modes it may switch to per present (maintenance1; empty: none, or not asked).
    pub compatible_modes: Vec<PresentMode>,
}

/// The extent to create: the surface's, or the wished one clamped to the surface's range.
/// Empty means minimized: create nothing.
#[must_use]
pub fn choose_extent(info: &SurfaceInfo, wished: Extent) -> Extent {
    match info.current_extent {
        Some(e) => e,
        None if wished.is_empty() => Extent::default(),
        None => Extent {
            width: wished
                .width
                .clamp(info.min_extent.width, info.max_extent.width.max(1)),
            height: wished
                .height
                .clamp(info.min_extent.height, info.max_extent.height.max(1)),
        },
    }
}

/// The surface format: the one in use (`keep`) while the surface still offers it, so pipelines
/// stay valid across recreation; else the first wished one offered; else the surface's first
/// if allowed.
pub fn choose_format(
    info: &SurfaceInfo,
    wishes: &SurfaceWishes,
    keep: Option<SurfaceFormat>,
) -> Result<SurfaceFormat, Failure> {
    if let Some(k) = keep.filter(|k| info.formats.contains(k)) {
        return Ok(k);
    }
    let wished = wishes.formats.iter().find(|w| info.formats.contains(w));
    match (wished, info.formats.first()) {
        (Some(w), _) => Ok(*w),
        (None, Some(first)) if wishes.any_format_if_none_offered => Ok(*first),
        _ => Err(Failure::NoSurfaceFormat),
    }
}

/// The wished present mode if offered, else FIFO (which every surface supports).
#[must_use]
pub fn choose_present_mode(info: &SurfaceInfo, wished: PresentMode) -> PresentMode {
    if info.present_modes.contains(&wished) {
        wished
    } else {
        PresentMode::FIFO
    }
}

/// The plan for the next swapchain, or `Ok(None)` when the extent is empty (minimized).
pub fn plan(
    info: &SurfaceInfo,
    wishes: &SurfaceWishes,
    keep: Option<SurfaceFormat>,
) -> Result<Option<SwapchainPlan>, Failure> {
    let extent = choose_extent(info, wishes.extent);
    if extent.is_empty() {
        return Ok(None);
    }
    if wishes.usage & !info.supported_usage != 0 {
        return Err(Failure::UnsupportedImageUsage {
            requested: wishes.usage,
            supported: info.supported_usage,
        });
    }
    let mut image_count = info.min_image_count.saturating_add(wishes.extra_images);
    if info.max_image_count != 0 {
        image_count = image_count.min(info.max_image_count);
    }
    let composite = [
        composite_alpha::OPAQUE,
        composite_alpha::INHERIT,
        composite_alpha::PRE_MULTIPLIED,
        composite_alpha::POST_MULTIPLIED,
    ]
    .into_iter()
    .find(|c| info.supported_composite_alpha & c != 0)
    .unwrap_or(composite_alpha::OPAQUE);
    Ok(Some(SwapchainPlan {
        image_count,
        format: choose_format(info, wishes, keep)?,
        extent,
        usage: wishes.usage,
        transform: info.current_transform,
        composite_alpha: composite,
        present_mode: choose_present_mode(info, wishes.present_mode),
        compatible_modes: Vec::new(),
    }))
}

#[cfg(test)]
mod tests {
    use super::*;

    fn info() -> SurfaceInfo {
        SurfaceInfo {
            min_image_count: 2,
            max_image_count: 3,
            current_extent: None,
            min_extent: Extent {
                width: 1,
                height: 1,
            },
            max_extent: Extent {
                width: 4096,
                height: 4096,
            },
            supported_usage: 0x10 | 0x2,
            supported_composite_alpha: composite_alpha::INHERIT,
            current_transform: 1,
            formats: vec![
                SurfaceFormat::BGRA8_UNORM,
                SurfaceFormat::BGRA8_SRGB,
                SurfaceFormat {
                    format: 64,
                    color_space: 1_000_104_008,
                },
            ],
            present_modes: vec![PresentMode::FIFO, PresentMode::MAILBOX],
        }
    }

    fn wishes() -> SurfaceWishes {
        SurfaceWishes {
            formats: vec![SurfaceFormat::RGBA8_SRGB, SurfaceFormat::BGRA8_SRGB],
            any_format_if_none_offered: true,
            present_mode: PresentMode::IMMEDIATE,
            usage: 0x10,
            extent: Extent {
                width: 640,
                height: 480,
            },
            extra_images: 5,
        }
    }

    #[test]
    fn a_plan_takes_the_first_wished_format_offered_and_clamps_what_it_must() {
        let p = plan(&info(), &wishes(), None).unwrap().unwrap();
        assert_eq!(p.format, SurfaceFormat::BGRA8_SRGB);
        assert_eq!(p.image_count, 3, "min 2 + 5 extra, clamped to max 3");
        assert_eq!(p.present_mode, PresentMode::FIFO, "IMMEDIATE not offered");
        assert_eq!(p.composite_alpha, composite_alpha::INHERIT);
        assert_eq!(p.extent.width, 640);
    }

    #[test]
    fn the_color_space_in_use_is_kept_while_offered() {
        let hdr = info().formats[2];
        let p = plan(&info(), &wishes(), Some(hdr)).unwrap().unwrap();
        assert_eq!(p.format, hdr, "format and color space kept together");
        let mut gone = info();
        gone.formats.pop();
        let p = plan(&gone, &wishes(), Some(hdr)).unwrap().unwrap();
        assert_eq!(
            p.format,
            SurfaceFormat::BGRA8_SRGB,
            "chosen anew when no longer offered"
        );
    }

    #[test]
    fn refusals_are_typed() {
        let mut w = wishes();
        w.usage = 0x10 | 0x1;
        assert_eq!(
            plan(&info(), &w, None),
            Err(Failure::UnsupportedImageUsage {
                requested: 0x11,
                supported: 0x12
            })
        );
        let mut w = wishes();
        w.formats = vec![SurfaceFormat::RGBA8_UNORM];
        w.any_format_if_none_offered = false;
        assert_eq!(plan(&info(), &w, None), Err(Failure::NoSurfaceFormat));
        w.any_format_if_none_offered = true;
        assert_eq!(
            plan(&info(), &w, None).unwrap().unwrap().format,
            SurfaceFormat::BGRA8_UNORM
        );
    }

    #[test]
    fn an_empty_extent_plans_nothing_and_huge_sides_do_not_overflow() {
        let mut w = wishes();
        w.extent = Extent {
            width: 0,
            height: 480,
        };
        assert_eq!(plan(&info(), &w, None), Ok(None));
        w.extent = Extent {
            width: u32::MAX,
            height: u32::MAX,
        };
        let p = plan(&info(), &w, None).unwrap().unwrap();
        assert_eq!(p.extent.width, 4096);
        let mut i = info();
        i.current_extent = Some(Extent {
            width: 0,
            height: 0,
        });
        assert_eq!(plan(&i, &wishes(), None), Ok(None));
    }
}
