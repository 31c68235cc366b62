//! GPU side of the live graph: one host-visible storage buffer per frame slot (allocated with
//! gpu-allocator) and the descriptor set that hands it to the fragment shader.
//!
//! One buffer per slot, not one shared: the CPU rewrites a slot's buffer only when it records
//! that slot again, and vkpace's pacing guarantees the slot's previous submission completed by
//! then (`Frame::slot`), so the GPU never reads a buffer the host is writing.
//!
//! The same buffer carries the HUD's text (`crate::hud`): the grid's size, the font (written
//! once) and the cells (written each frame).

use anyhow::{Context as _, Result};
use ash::vk;
use gpu_allocator::vulkan::{
    Allocation, AllocationCreateDesc, AllocationScheme, Allocator, AllocatorCreateDesc,
};
use gpu_allocator::MemoryLocation;

use super::frame_history::{FrameHistory, GRAPH_SAMPLES};
use super::hud::{font_words, HudText, FONT_WORDS, MAX_CELLS};

/// Where the text's `uvec4 text_info` starts (std430): after the header and the samples.
const TEXT_INFO_AT: usize = 16 * (1 + GRAPH_SAMPLES);
/// Where the font's words start.
const FONT_AT: usize = TEXT_INFO_AT + 16;
/// Where the text cells start.
const CELLS_AT: usize = FONT_AT + 4 * FONT_WORDS;
/// Header (one vec4), one vec4 per sample, the text's size, font and cells, std430.
const BUFFER_BYTES: usize = CELLS_AT + 4 * MAX_CELLS;

/// Where the graph's reference line sits: one 60 Hz interval.
const REFERENCE_MS: f32 = 1000.0 / 60.0;

/// The graph buffers and their descriptor sets.
pub struct GraphBuffers {
    device: ash::Device,
    allocator: Option<Allocator>,
    buffers: Vec<(vk::Buffer, Option<Allocation>)>,
    set_layout: vk::DescriptorSetLayout,
    pool: vk::DescriptorPool,
    sets: Vec<vk::DescriptorSet>,
}

impl GraphBuffers {
    /// Makes `slots` buffers and sets.
    pub fn new(
        instance: &ash::Instance,
        physical: vk::PhysicalDevice,
        device: &ash::Device,
        slots: usize,
    ) -> Result<Self> {
        let mut allocator = Self::make_allocator(instance, physical, device)?;
        let (set_layout, pool, sets) = Self::make_descriptor_sets(device, slots)?;
        let mut this = Self {
            device: device.clone(),
            allocator: None,
            buffers: Vec::with_capacity(slots),
            set_layout,
            pool,
            sets,
        };
        for i in 0..slots {
            let made = Self::make_buffer(device, &mut allocator, i);
            match made {
                Ok(b) => this.buffers.push(b),
                Err(e) => {
                    this.allocator = Some(allocator);
                    this.destroy();
                    return Err(e);
                }
            }
        }
        this.allocator = Some(allocator);
        if let Err(e) = this.write_font() {
            this.destroy();
            return Err(e);
        }
        this.point_sets_at_buffers();
        Ok(this)
    }

    /// The gpu-allocator instance that the buffers' memory comes from.
    fn make_allocator(
        instance: &ash::Instance,
        physical: vk::PhysicalDevice,
        device: &ash::Device,
    ) -> Result<Allocator> {
        Allocator::new(&AllocatorCreateDesc {
            instance: instance.clone(),
            device: device.clone(),
            physical_device: physical,
            debug_settings: Default::default(),
            buffer_device_address: false,
            allocation_sizes: Default::default(),
        })
        .context("gpu-allocator")
    }

    /// The set layout (one fragment-stage storage buffer), a pool for `slots` sets and the
    /// `slots` sets allocated from it.
    fn make_descriptor_sets(
        device: &ash::Device,
        slots: usize,
    ) -> Result<(
        vk::DescriptorSetLayout,
        vk::DescriptorPool,
        Vec<vk::DescriptorSet>,
    )> {
        let bindings = [vk::DescriptorSetLayoutBinding::default()
            .binding(0)
            .descriptor_type(vk::DescriptorType::STORAGE_BUFFER)
            .descriptor_count(1)
            .stage_flags(vk::ShaderStageFlags::FRAGMENT)];
        // SAFETY: valid device; the create info references `bindings`, alive for the call.
        let set_layout = unsafe {
            device.create_descriptor_set_layout(
                &vk::DescriptorSetLayoutCreateInfo::default().bindings(&bindings),
                None,
            )
        }?;
        let count = u32::try_from(slots)?;
        let sizes = [vk::DescriptorPoolSize {
            ty: vk::DescriptorType::STORAGE_BUFFER,
            descriptor_count: count,
        }];
        // SAFETY: as above.
        let pool = unsafe {
            device.create_descriptor_pool(
                &vk::DescriptorPoolCreateInfo::default()
                    .max_sets(count)
                    .pool_sizes(&sizes),
                None,
            )
        }?;
        let layouts = vec![set_layout; slots];
        // SAFETY: the pool has room for `slots` sets of this layout.
        let sets = unsafe {
            device.allocate_descriptor_sets(
                &vk::DescriptorSetAllocateInfo::default()
                    .descriptor_pool(pool)
                    .set_layouts(&layouts),
            )
        }?;
        Ok((set_layout, pool, sets))
    }

    /// Writes the HUD's font into every buffer, once: the frames rewrite only the samples and
    /// the text cells.
    fn write_font(&mut self) -> Result<()> {
        let font = font_words();
        self.buffers
            .iter_mut()
            .try_for_each(|b| Self::mapped(b).map(|bytes| put_words(bytes, FONT_AT, &font)))
    }

    /// Points each slot's descriptor set at that slot's buffer (the whole buffer).
    fn point_sets_at_buffers(&self) {
        for (set, (buffer, _)) in self.sets.iter().zip(&self.buffers) {
            let info = [vk::DescriptorBufferInfo {
                buffer: *buffer,
                offset: 0,
                range: vk::WHOLE_SIZE,
            }];
            let write = vk::WriteDescriptorSet::default()
                .dst_set(*set)
                .dst_binding(0)
                .descriptor_type(vk::DescriptorType::STORAGE_BUFFER)
                .buffer_info(&info);
            // SAFETY: the set and buffer are alive and not in use by any submission yet.
            unsafe { self.device.update_descriptor_sets(&[write], &[]) };
        }
    }

    fn make_buffer(
        device: &ash::Device,
        allocator: &mut Allocator,
        index: usize,
    ) -> Result<(vk::Buffer, Option<Allocation>)> {
        let info = vk::BufferCreateInfo::default()
            .size(BUFFER_BYTES as u64)
            .usage(vk::BufferUsageFlags::STORAGE_BUFFER)
            .sharing_mode(vk::SharingMode::EXCLUSIVE);
        // SAFETY: valid device and create info.
        let buffer = unsafe { device.create_buffer(&info, None) }?;
        // SAFETY: `buffer` was just created on `device`.
        let requirements = unsafe { device.get_buffer_memory_requirements(buffer) };
        let allocation = allocator.allocate(&AllocationCreateDesc {
            name: &format!("vkpace demo graph {index}"),
            requirements,
            location: MemoryLocation::CpuToGpu,
            linear: true,
            allocation_scheme: AllocationScheme::GpuAllocatorManaged,
        });
        let allocation = match allocation {
            Ok(a) => a,
            Err(e) => {
                // SAFETY: never bound or used.
                unsafe { device.destroy_buffer(buffer, None) };
                return Err(e.into());
            }
        };
        // SAFETY: the allocation satisfies the buffer's requirements and is bound once.
        unsafe { device.bind_buffer_memory(buffer, allocation.memory(), allocation.offset()) }?;
        Ok((buffer, Some(allocation)))
    }

    /// The set layout the pipeline layout needs.
    pub fn set_layout(&self) -> vk::DescriptorSetLayout {
        self.set_layout
    }

    /// Writes `history` into `slot`'s buffer and returns the set to bind. The slot's previous
    /// submission must have completed (vkpace's pacing guarantees it for `Frame::slot`).
    /// With `hud`, its text is drawn too.
    pub fn write(
        &mut self,
        slot: usize,
        history: &FrameHistory,
        hud: Option<&HudText>,
    ) -> Result<vk::DescriptorSet> {
        let i = slot % self.buffers.len();
        let bytes = Self::mapped(&mut self.buffers[i])?;
        let header = [
            history.len() as f32,
            graph_scale_ms(history),
            REFERENCE_MS,
            0.0,
        ];
        put(bytes, 0, &header);
        // Newest sample in the last column: leading columns stay unused until the ring fills.
        let first = GRAPH_SAMPLES - history.len();
        for (k, s) in history.iter().enumerate() {
            let v = [s.interval_ms, s.cpu_wait_ms, s.latency_ms, 0.0];
            put(bytes, 16 * (1 + first + k), &v);
        }
        match hud {
            Some(hud) => {
                put_words(bytes, TEXT_INFO_AT, &hud.info());
                put_words(bytes, CELLS_AT, hud.cells());
            }
            None => put_words(bytes, TEXT_INFO_AT, &[0; 4]),
        }
        // Host-coherent memory (CpuToGpu): the host writes are made available by the
        // vkQueueSubmit that follows (the submission's implicit host-write dependency).
        Ok(self.sets[i])
    }

    fn mapped(buffer: &mut (vk::Buffer, Option<Allocation>)) -> Result<&mut [u8]> {
        buffer
            .1
            .as_mut()
            .and_then(Allocation::mapped_slice_mut)
            .context("graph buffer is not host-visible")
    }

    /// Frees the buffers, sets and allocator. Call once no submission uses them.
    pub fn destroy(mut self) {
        for (buffer, allocation) in self.buffers.drain(..) {
            if let (Some(alloc), Some(allocator)) = (allocation, self.allocator.as_mut()) {
                if let Err(e) = allocator.free(alloc) {
                    eprintln!("vkpace demo: freeing a graph buffer: {e}");
                }
            }
            // SAFETY: no pending submission uses the buffer (caller's contract).
            unsafe { self.device.destroy_buffer(buffer, None) };
        }
        self.allocator = None;
        // SAFETY: as above; destroying the pool frees its sets.
        unsafe {
            self.device.destroy_descriptor_pool(self.pool, None);
            self.device
                .destroy_descriptor_set_layout(self.set_layout, None);
        }
    }
}

/// Milliseconds at the top of the graph: a little above the highest sample, at least two
/// 60 Hz intervals (the HUD labels the scale with it).
pub fn graph_scale_ms(history: &FrameHistory) -> f32 {
    (history.peak_ms() * 1.1).max(2.0 * REFERENCE_MS)
}

/// The graph's reference line, in milliseconds.
pub fn reference_ms() -> f32 {
    REFERENCE_MS
}

fn put_words(bytes: &mut [u8], at: usize, words: &[u32]) {
    let Some(dst) = bytes.get_mut(at..at + 4 * words.len()) else {
        return;
    };
    for (chunk, w) in dst.chunks_exact_mut(4).zip(words) {
        chunk.copy_from_slice(&w.to_ne_bytes());
    }
}

fn put(bytes: &mut [u8], at: usize, values: &[f32; 4]) {
    for (k, v) in values.iter().enumerate() {
        let o = at + 4 * k;
        if let Some(dst) = bytes.get_mut(o..o + 4) {
            dst.copy_from_slice(&v.to_ne_bytes());
        }
    }
}
