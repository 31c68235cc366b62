//! GPU start and end of each frame: two timestamp queries around the frame's command buffers,
//! mapped to the CPU clock with `VK_EXT_calibrated_timestamps`.
//!
//! Per frame slot there is a pre-recorded "begin" command buffer (reset the slot's two queries,
//! write the first at `TOP_OF_PIPE`) and an "end" one (write the second at `BOTTOM_OF_PIPE`).
//! [`super::Swapchain::submit`] puts them first and last in the frame's one batch. A slot is
//! handed out again only after the submission that used it completed, so the command buffers
//! are never pending when resubmitted (VUID-vkQueueSubmit-pCommandBuffers-00071) and the
//! results are read before the queries are reset again.

use ash::vk;

use super::clock::Clock;
use super::error::{Error, Result, VkContext};
use super::extensions::device_offers;
use super::names::Namer;
use vkpace_core::{GpuClock, MAX_FRAMES_IN_FLIGHT};

/// The device extension GPU timing needs.
pub const GPU_TIMING_DEVICE_EXTENSION: &std::ffi::CStr = ash::ext::calibrated_timestamps::NAME;

/// Whether GPU timing can be used on `physical`'s queue family `queue_family`: the device
/// offers [`GPU_TIMING_DEVICE_EXTENSION`], its device time domain can be read from the host
/// (`VK_TIME_DOMAIN_DEVICE_EXT`) and the family has timestamps. Enable the extension, then set
/// [`super::SwapchainConfig::gpu_timestamps`].
///
/// # Safety
///
/// `physical` must come from `instance`, and `queue_family` be one of its families.
pub(crate) unsafe fn gpu_timestamps_usable(
    entry: &ash::Entry,
    instance: &ash::Instance,
    physical: vk::PhysicalDevice,
    queue_family: u32,
) -> Result<bool> {
    // SAFETY: `physical` comes from `instance` (caller contract).
    let offered = unsafe { device_offers(instance, physical, &[GPU_TIMING_DEVICE_EXTENSION]) }?;
    // SAFETY: as above.
    if !offered || unsafe { timestamp_valid_bits(instance, physical, queue_family) } == 0 {
        return Ok(false);
    }
    let fns = ash::ext::calibrated_timestamps::Instance::new(entry, instance);
    // SAFETY: the device offers the extension, so the query is defined for it.
    let domains = unsafe { fns.get_physical_device_calibrateable_time_domains(physical) }
        .during("vkGetPhysicalDeviceCalibrateableTimeDomainsEXT")?;
    Ok(domains.contains(&vk::TimeDomainEXT::DEVICE))
}

/// The queue family's `timestampValidBits` (0: no timestamps on it, or no such family).
///
/// # Safety
///
/// `physical` must come from `instance`.
unsafe fn timestamp_valid_bits(
    instance: &ash::Instance,
    physical: vk::PhysicalDevice,
    queue_family: u32,
) -> u32 {
    // SAFETY: caller contract.
    let families = unsafe { instance.get_physical_device_queue_family_properties(physical) };
    families
        .get(queue_family as usize)
        .map_or(0, |f| f.timestamp_valid_bits)
}

/// The timestamp queries and their command buffers. The mapping of ticks to the CPU clock
/// ([`GpuClock`]) is the core's; this takes the readings.
pub(crate) struct GpuTimer {
    command_pool: vk::CommandPool,
    query_pool: vk::QueryPool,
    begin: [vk::CommandBuffer; MAX_FRAMES_IN_FLIGHT],
    end: [vk::CommandBuffer; MAX_FRAMES_IN_FLIGHT],
    calibrated: ash::ext::calibrated_timestamps::Device,
    /// The device clock's description, for the core.
    pub(crate) clock: GpuClock,
}

impl GpuTimer {
    /// Makes the query pool and records the command buffers.
    ///
    /// # Safety
    ///
    /// `device` must have enabled [`GPU_TIMING_DEVICE_EXTENSION`], `queue_family` must be a
    /// family of it with `timestampValidBits > 0` (checked here), and the timer must be
    /// destroyed with [`GpuTimer::destroy`] before the device, once nothing is pending.
    pub(crate) unsafe fn new(
        instance: &ash::Instance,
        physical: vk::PhysicalDevice,
        device: &ash::Device,
        queue_family: u32,
        namer: &Namer,
    ) -> Result<Self> {
        // SAFETY: `physical` is the device's physical device (swapchain constructor contract).
        let bits = unsafe { timestamp_valid_bits(instance, physical, queue_family) };
        if bits == 0 {
            return Err(Error::InvalidConfig(
                "gpu_timestamps: the queue family has no timestamps (timestampValidBits is 0)",
            ));
        }
        // SAFETY: as above.
        let period = unsafe { instance.get_physical_device_properties(physical) }
            .limits
            .timestamp_period;
        let clock = GpuClock::new(f64::from(period), bits)?;

        let pool_info = vk::CommandPoolCreateInfo::default().queue_family_index(queue_family);
        // SAFETY: valid device and family.
        let command_pool = unsafe { device.create_command_pool(&pool_info, None) }
            .during("vkCreateCommandPool")?;
        let mut timer = Self {
            command_pool,
            query_pool: vk::QueryPool::null(),
            begin: [vk::CommandBuffer::null(); MAX_FRAMES_IN_FLIGHT],
            end: [vk::CommandBuffer::null(); MAX_FRAMES_IN_FLIGHT],
            calibrated: ash::ext::calibrated_timestamps::Device::new(instance, device),
            clock,
        };
        // On any failure below, what was made so far is destroyed (nothing was submitted).
        // SAFETY: nothing made by `timer` has been submitted.
        match unsafe { timer.record(device, namer) } {
            Ok(()) => Ok(timer),
            Err(e) => {
                // SAFETY: as above.
                unsafe { timer.destroy(device) };
                Err(e)
            }
        }
    }

    /// # Safety
    /// `self.command_pool` is valid and nothing from it is pending.
    unsafe fn record(&mut self, device: &ash::Device, namer: &Namer) -> Result<()> {
        let queries = u32::try_from(2 * MAX_FRAMES_IN_FLIGHT).unwrap_or(u32::MAX);
        let info = vk::QueryPoolCreateInfo::default()
            .query_type(vk::QueryType::TIMESTAMP)
            .query_count(queries);
        // SAFETY: valid device.
        self.query_pool =
            unsafe { device.create_query_pool(&info, None) }.during("vkCreateQueryPool")?;
        namer.name(self.query_pool, format_args!("vkpace GPU timestamps"));
        let alloc = vk::CommandBufferAllocateInfo::default()
            .command_pool(self.command_pool)
            .level(vk::CommandBufferLevel::PRIMARY)
            .command_buffer_count(queries);
        // SAFETY: valid pool of this device.
        let buffers = unsafe { device.allocate_command_buffers(&alloc) }
            .during("vkAllocateCommandBuffers")?;
        for slot in 0..MAX_FRAMES_IN_FLIGHT {
            let (begin, end) = (buffers[2 * slot], buffers[2 * slot + 1]);
            let first = u32::try_from(2 * slot).unwrap_or(0);
            // SAFETY: fresh command buffers in the initial state; the query range lies in the
            // pool; the reset precedes the write in submission order
            // (VUID-vkCmdWriteTimestamp-None-00830).
            unsafe {
                device
                    .begin_command_buffer(begin, &vk::CommandBufferBeginInfo::default())
                    .during("vkBeginCommandBuffer")?;
                device.cmd_reset_query_pool(begin, self.query_pool, first, 2);
                device.cmd_write_timestamp(
                    begin,
                    vk::PipelineStageFlags::TOP_OF_PIPE,
                    self.query_pool,
                    first,
                );
                device
                    .end_command_buffer(begin)
                    .during("vkEndCommandBuffer")?;
                device
                    .begin_command_buffer(end, &vk::CommandBufferBeginInfo::default())
                    .during("vkBeginCommandBuffer")?;
                device.cmd_write_timestamp(
                    end,
                    vk::PipelineStageFlags::BOTTOM_OF_PIPE,
                    self.query_pool,
                    first + 1,
                );
                device
                    .end_command_buffer(end)
                    .during("vkEndCommandBuffer")?;
            }
            namer.name(begin, format_args!("vkpace GPU timer begin (slot {slot})"));
            namer.name(end, format_args!("vkpace GPU timer end (slot {slot})"));
            self.begin[slot] = begin;
            self.end[slot] = end;
        }
        Ok(())
    }

    /// The command buffers to put first and last in the submission of the frame in `slot`.
    pub(crate) fn command_buffers(
        &self,
        slot: usize,
    ) -> Option<(vk::CommandBuffer, vk::CommandBuffer)> {
        Some((*self.begin.get(slot)?, *self.end.get(slot)?))
    }

    /// Reads the device clock together with `clock`: the CPU time of the reading is the middle
    /// of a bracket of two clock readings around it, and the narrowest of three tries is kept,
    /// so a preemption during one does not skew the mapping. Returns (ticks, CPU ns).
    pub(crate) fn calibrate(&self, clock: &Clock) -> Result<(u64, u64)> {
        let info =
            [vk::CalibratedTimestampInfoEXT::default().time_domain(vk::TimeDomainEXT::DEVICE)];
        let mut best: Option<(u64, u64, u64)> = None;
        for _ in 0..3 {
            let mut ticks = [0u64; 1];
            let mut deviation = 0u64;
            let before = clock.now_ns();
            // SAFETY: the device enabled the extension (constructor contract); the arrays hold
            // one element each, matching the count. The raw entry point is used because ash's
            // wrapper allocates a Vec, and this runs in the frame loop.
            let r = unsafe {
                (self.calibrated.fp().get_calibrated_timestamps_ext)(
                    self.calibrated.device(),
                    1,
                    info.as_ptr(),
                    ticks.as_mut_ptr(),
                    &mut deviation,
                )
            };
            let after = clock.now_ns();
            r.result().during("vkGetCalibratedTimestampsEXT")?;
            let bracket = after.saturating_sub(before);
            if best.is_none_or(|(b, _, _)| bracket < b) {
                best = Some((bracket, ticks[0], before + bracket / 2));
            }
        }
        Ok(best.map_or((0, 0), |(_, ticks, mid)| (ticks, mid)))
    }

    /// The two timestamps (device ticks) of the completed frame that used `slot`; `None` when
    /// the results are not available.
    ///
    /// # Safety
    ///
    /// The submission that used `slot` completed (its fence was seen signalled).
    pub(crate) unsafe fn read(&self, device: &ash::Device, slot: usize) -> Option<(u64, u64)> {
        let first = u32::try_from(2 * slot).ok()?;
        let mut ticks = [0u64; 2];
        // SAFETY: the range lies in the pool; the submission writing it completed (caller
        // contract), so without WAIT the call returns the values or NOT_READY, never blocks.
        unsafe {
            device.get_query_pool_results(
                self.query_pool,
                first,
                &mut ticks,
                vk::QueryResultFlags::TYPE_64,
            )
        }
        .ok()?;
        Some((ticks[0], ticks[1]))
    }

    /// Destroys the pools (and with them the command buffers).
    ///
    /// # Safety
    ///
    /// Nothing recorded by the timer is pending.
    pub(crate) unsafe fn destroy(&mut self, device: &ash::Device) {
        // SAFETY: caller contract; null handles are ignored by vkDestroy*.
        unsafe {
            device.destroy_query_pool(self.query_pool, None);
            device.destroy_command_pool(self.command_pool, None);
        }
        self.query_pool = vk::QueryPool::null();
        self.command_pool = vk::CommandPool::null();
    }
}
