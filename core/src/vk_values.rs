//! The few Vulkan values the core reasons about, as plain numbers with the same values as in the
//! Vulkan registry (`vk.xml`): result codes, present modes, surface formats, extents and the
//! bits of image usage and composite alpha. The shell converts with `from_raw`/`as_raw`, and the
//! core stays free of any Vulkan crate, so the simulator can drive it.

/// A `VkResult` code, as returned by the call the shell made for a request.
#[derive(Copy, Clone, Debug, PartialEq, Eq, Hash)]
pub struct VkStatus(pub i32);

impl VkStatus {
    /// `VK_SUCCESS`.
    pub const SUCCESS: Self = Self(0);
    /// `VK_NOT_READY`.
    pub const NOT_READY: Self = Self(1);
    /// `VK_TIMEOUT`.
    pub const TIMEOUT: Self = Self(2);
    /// `VK_SUBOPTIMAL_KHR`.
    pub const SUBOPTIMAL: Self = Self(1_000_001_003);
    /// `VK_ERROR_OUT_OF_HOST_MEMORY`.
    pub const OUT_OF_HOST_MEMORY: Self = Self(-1);
    /// `VK_ERROR_OUT_OF_DEVICE_MEMORY`.
    pub const OUT_OF_DEVICE_MEMORY: Self = Self(-2);
    /// `VK_ERROR_DEVICE_LOST`.
    pub const DEVICE_LOST: Self = Self(-4);
    /// `VK_ERROR_SURFACE_LOST_KHR`.
    pub const SURFACE_LOST: Self = Self(-1_000_000_000);
    /// `VK_ERROR_OUT_OF_DATE_KHR`.
    pub const OUT_OF_DATE: Self = Self(-1_000_001_004);
    /// `VK_ERROR_PRESENT_TIMING_QUEUE_FULL_EXT`.
    pub const PRESENT_TIMING_QUEUE_FULL: Self = Self(-1_000_208_000);
    /// `VK_ERROR_FULL_SCREEN_EXCLUSIVE_MODE_LOST_EXT`.
    pub const FULL_SCREEN_EXCLUSIVE_MODE_LOST: Self = Self(-1_000_255_000);

    /// A success code (not an error): the call did what it was asked.
    #[must_use]
    pub fn is_success(self) -> bool {
        self.0 >= 0
    }

    /// The swapchain no longer matches its surface (`SUBOPTIMAL`, `OUT_OF_DATE`) or lost its
    /// full-screen exclusive mode: what both doors count as out of date or suboptimal in their
    /// statistics. A lost surface is a failure of its own, and present timing's `QUEUE_FULL`
    /// leaves the swapchain fine.
    #[must_use]
    pub fn is_stale_swapchain(self) -> bool {
        matches!(
            self,
            Self::SUBOPTIMAL | Self::OUT_OF_DATE | Self::FULL_SCREEN_EXCLUSIVE_MODE_LOST
        )
    }
}

/// A `VkPresentModeKHR`.
#[derive(Copy, Clone, Debug, PartialEq, Eq, Hash)]
pub struct PresentMode(pub i32);

impl PresentMode {
    /// `VK_PRESENT_MODE_IMMEDIATE_KHR`.
    pub const IMMEDIATE: Self = Self(0);
    /// `VK_PRESENT_MODE_MAILBOX_KHR`.
    pub const MAILBOX: Self = Self(1);
    /// `VK_PRESENT_MODE_FIFO_KHR`: the one mode every surface supports.
    pub const FIFO: Self = Self(2);
    /// `VK_PRESENT_MODE_FIFO_RELAXED_KHR`.
    pub const FIFO_RELAXED: Self = Self(3);

    /// Whether the mode shows every frame in order at the display's refresh (FIFO and
    /// FIFO_RELAXED), so the display can be a bottleneck frames wait for, and a present may
    /// carry a target (VUID-VkPresentTimingsInfoEXT-pSwapchains-12235).
    #[must_use]
    pub fn queues_frames(self) -> bool {
        self == Self::FIFO || self == Self::FIFO_RELAXED
    }
}

/// A `VkSurfaceFormatKHR`: an image format and the color space it is shown in. The two are
/// chosen together and kept together across recreation: a format paired with a color space the
/// surface did not report is invalid (`VUID-VkSwapchainCreateInfoKHR-imageFormat-01273`).
#[derive(Copy, Clone, Debug, PartialEq, Eq, Hash)]
pub struct SurfaceFormat {
    /// The `VkFormat`.
    pub format: i32,
    /// The `VkColorSpaceKHR`.
    pub color_space: i32,
}

impl SurfaceFormat {
    /// `VK_FORMAT_B8G8R8A8_SRGB` in `VK_COLOR_SPACE_SRGB_NONLINEAR_KHR`.
    pub const BGRA8_SRGB: Self = Self::srgb_nonlinear(50);
    /// `VK_FORMAT_R8G8B8A8_SRGB` in `VK_COLOR_SPACE_SRGB_NONLINEAR_KHR`.
    pub const RGBA8_SRGB: Self = Self::srgb_nonlinear(43);
    /// `VK_FORMAT_B8G8R8A8_UNORM` in `VK_COLOR_SPACE_SRGB_NONLINEAR_KHR`.
    pub const BGRA8_UNORM: Self = Self::srgb_nonlinear(44);
    /// `VK_FORMAT_R8G8B8A8_UNORM` in `VK_COLOR_SPACE_SRGB_NONLINEAR_KHR`.
    pub const RGBA8_UNORM: Self = Self::srgb_nonlinear(37);

    /// `format` in `VK_COLOR_SPACE_SRGB_NONLINEAR_KHR` (value 0).
    #[must_use]
    pub const fn srgb_nonlinear(format: i32) -> Self {
        Self {
            format,
            color_space: 0,
        }
    }
}

/// A `VkExtent2D`.
#[derive(Copy, Clone, Debug, Default, PartialEq, Eq, Hash)]
pub struct Extent {
    /// Width in pixels.
    pub width: u32,
    /// Height in pixels.
    pub height: u32,
}

impl Extent {
    /// Whether either side is zero: nothing can be created or shown (a minimized window;
    /// `VUID-VkSwapchainCreateInfoKHR-imageExtent-01689`).
    #[must_use]
    pub fn is_empty(self) -> bool {
        self.width == 0 || self.height == 0
    }
}

/// Bits of `VkCompositeAlphaFlagBitsKHR`.
pub mod composite_alpha {
    /// `VK_COMPOSITE_ALPHA_OPAQUE_BIT_KHR`.
    pub const OPAQUE: u32 = 0x1;
    /// `VK_COMPOSITE_ALPHA_PRE_MULTIPLIED_BIT_KHR`.
    pub const PRE_MULTIPLIED: u32 = 0x2;
    /// `VK_COMPOSITE_ALPHA_POST_MULTIPLIED_BIT_KHR`.
    pub const POST_MULTIPLIED: u32 = 0x4;
    /// `VK_COMPOSITE_ALPHA_INHERIT_BIT_KHR`.
    pub const INHERIT: u32 = 0x8;
}
