//! Read-back of shown frames to PNG, for picture tests.
//!
//! When enabled (`readback_dir`), each selected present's batch also runs a pre-recorded copy of
//! its image into a host-visible buffer. The copy sits in the batch that waits on the present
//! semaphores, so the application's rendering is visible to it (the semaphore wait's second
//! scope: the batch's commands, ALL_COMMANDS); a buffer barrier to HOST_READ plus the batch
//! fence, which the engine saw signal before the image is shown, make the bytes visible to the
//! host. At "shown", the engine copies them out and a writer thread encodes the PNG.

use std::path::PathBuf;
use std::sync::mpsc::{channel, Sender};
use std::sync::Mutex;
use std::thread::JoinHandle;

use ash::vk;

use crate::device::Device;
use crate::engine::Request;
use crate::swapchain::Info;

/// A frame on its way to disk.
struct Frame {
    path: PathBuf,
    width: u32,
    height: u32,
    format: vk::Format,
    bytes: Vec<u8>,
}

/// The device's read-back writer.
pub struct Readback {
    dir: PathBuf,
    tx: Mutex<Option<Sender<Frame>>>,
    thread: Mutex<Option<JoinHandle<()>>>,
}

impl Readback {
    /// Starts the writer thread for `dir` (created if missing).
    pub fn new(dir: PathBuf) -> Self {
        if let Err(e) = std::fs::create_dir_all(&dir) {
            eprintln!("vdisplay: cannot create {}: {e}", dir.display());
        }
        let (tx, rx) = channel::<Frame>();
        let thread = std::thread::Builder::new()
            .name("vdisplay-png".into())
            .spawn(move || {
                for f in rx {
                    if let Err(e) = write_png(&f) {
                        eprintln!("vdisplay: writing {} failed: {e}", f.path.display());
                    }
                }
            })
            .ok();
        Self {
            dir,
            tx: Mutex::new(Some(tx)),
            thread: Mutex::new(thread),
        }
    }

    /// Copies out the frame of a request that was just shown and queues it for writing.
    pub fn capture(&self, _dev: &Device, r: &Request) {
        let Some(images) = &r.sc.readback else { return };
        let e = r.sc.info.extent;
        let name = format!(
            "s{}_c{}_p{:06}_id{}.png",
            r.sc.surface.seq, r.sc.seq, r.seq, r.present_id
        );
        let frame = Frame {
            path: self.dir.join(name),
            width: e.width,
            height: e.height,
            format: r.sc.info.format,
            bytes: images.bytes(r.image),
        };
        if let Some(tx) = self.tx.lock().unwrap_or_else(|e| e.into_inner()).as_ref() {
            let _ = tx.send(frame);
        }
    }

    /// Writes the queued frames and stops the writer (device destruction).
    pub fn finish(&self, _dev: &Device) {
        self.tx.lock().unwrap_or_else(|e| e.into_inner()).take();
        if let Some(t) = self.thread.lock().unwrap_or_else(|e| e.into_inner()).take() {
            let _ = t.join();
        }
    }
}

fn write_png(f: &Frame) -> Result<(), Box<dyn std::error::Error>> {
    let file = std::io::BufWriter::new(std::fs::File::create(&f.path)?);
    let mut enc = png::Encoder::new(file, f.width, f.height);
    enc.set_color(png::ColorType::Rgba);
    enc.set_depth(png::BitDepth::Eight);
    let mut w = enc.write_header()?;
    w.write_image_data(&to_rgba8(f.format, &f.bytes))?;
    Ok(())
}

/// Converts texels of `format` (4 bytes each, 8 for `R16G16B16A16_SFLOAT`) to RGBA8, alpha
/// forced opaque (the display composites OPAQUE). Wider formats are reduced to 8 bits per
/// channel without tone mapping: 10-bit values drop their low bits, half floats are clamped to
/// [0, 1] (so extended-range values saturate).
pub fn to_rgba8(format: vk::Format, bytes: &[u8]) -> Vec<u8> {
    let texel = texel_size(format).unwrap_or(4);
    let mut out = Vec::with_capacity(bytes.len() / texel * 4);
    for px in bytes.chunks_exact(texel) {
        let rgba = match format {
            vk::Format::B8G8R8A8_UNORM | vk::Format::B8G8R8A8_SRGB => [px[2], px[1], px[0], 255],
            vk::Format::A2B10G10R10_UNORM_PACK32 => {
                let v = u32::from_le_bytes([px[0], px[1], px[2], px[3]]);
                [
                    ((v & 0x3FF) >> 2) as u8,
                    ((v >> 10 & 0x3FF) >> 2) as u8,
                    ((v >> 20 & 0x3FF) >> 2) as u8,
                    255,
                ]
            }
            vk::Format::R16G16B16A16_SFLOAT => {
                let c = |i: usize| half_to_u8(u16::from_le_bytes([px[2 * i], px[2 * i + 1]]));
                [c(0), c(1), c(2), 255]
            }
            _ => [px[0], px[1], px[2], 255],
        };
        out.extend_from_slice(&rgba);
    }
    out
}

/// An IEEE 754 half float, clamped to [0, 1], as an 8-bit value (NaN reads as 0).
fn half_to_u8(h: u16) -> u8 {
    let sign = h >> 15 != 0;
    let exp = i32::from(h >> 10 & 0x1F);
    let mant = f32::from(h & 0x3FF);
    let v = match exp {
        0 => mant / 1024.0 * 2f32.powi(-14),
        0x1F if mant != 0.0 => return 0,
        0x1F => f32::INFINITY,
        _ => (1.0 + mant / 1024.0) * 2f32.powi(exp - 15),
    };
    if sign {
        return 0;
    }
    (v.min(1.0) * 255.0).round() as u8
}

/// Per-swapchain read-back resources: one buffer and one recorded command buffer per image.
pub struct ReadbackImages {
    pool: vk::CommandPool,
    cmds: Vec<vk::CommandBuffer>,
    buffers: Vec<vk::Buffer>,
    memory: Vec<vk::DeviceMemory>,
    /// Persistently mapped addresses (as integers so the type is `Send`/`Sync`).
    mapped: Vec<usize>,
    size: usize,
}

/// Bytes per texel of the formats read back; `None` for the others.
fn texel_size(format: vk::Format) -> Option<usize> {
    match format {
        vk::Format::B8G8R8A8_UNORM
        | vk::Format::B8G8R8A8_SRGB
        | vk::Format::R8G8B8A8_UNORM
        | vk::Format::R8G8B8A8_SRGB
        | vk::Format::A2B10G10R10_UNORM_PACK32 => Some(4),
        vk::Format::R16G16B16A16_SFLOAT => Some(8),
        _ => None,
    }
}

impl ReadbackImages {
    /// Creates the resources for `images`; `None` (with a message) if the format is not one
    /// read back or creation fails.
    pub fn new(dev: &Device, images: &[vk::Image], info: &Info) -> Option<Self> {
        let Some(texel) = texel_size(info.format) else {
            eprintln!("vdisplay: no read-back for format {:?}", info.format);
            return None;
        };
        let size = info.extent.width as usize * info.extent.height as usize * texel;
        // SAFETY: a valid device; the objects are destroyed in `destroy`.
        match unsafe { Self::create(dev, images, info.extent, size) } {
            Ok(rb) => Some(rb),
            Err(e) => {
                eprintln!("vdisplay: read-back setup failed: {e:?}");
                None
            }
        }
    }

    /// # Safety
    /// `images` must be valid images of `dev` with `extent`.
    unsafe fn create(
        dev: &Device,
        images: &[vk::Image],
        extent: vk::Extent2D,
        size: usize,
    ) -> Result<Self, vk::Result> {
        let pool_info = vk::CommandPoolCreateInfo::default().queue_family_index(dev.default_family);
        // SAFETY: valid device and create info.
        let pool = unsafe { dev.fp.create_command_pool(&pool_info, None)? };
        let mut rb = Self {
            pool,
            cmds: Vec::new(),
            buffers: Vec::new(),
            memory: Vec::new(),
            mapped: Vec::new(),
            size,
        };
        let alloc = vk::CommandBufferAllocateInfo::default()
            .command_pool(pool)
            .command_buffer_count(images.len() as u32);
        // SAFETY: valid pool.
        rb.cmds =
            unsafe { dev.fp.allocate_command_buffers(&alloc) }.inspect_err(|_| rb.destroy(dev))?;
        for (i, image) in images.iter().enumerate() {
            if let Some(set) = dev.set_loader_data {
                // SAFETY: the command buffer is a new dispatchable object made behind the
                // loader's back; the loader's callback installs its dispatch pointer
                // (LoaderLayerInterface.md, "Creating New Dispatchable Objects").
                let _ = unsafe { set(dev.handle, vk::Handle::as_raw(rb.cmds[i]) as *mut _) };
            }
            // SAFETY: valid device; objects recorded in `rb` for destruction.
            unsafe { rb.add_buffer(dev) }.inspect_err(|_| rb.destroy(dev))?;
            // SAFETY: the command buffer is new, the buffer and image valid.
            unsafe { record(dev, rb.cmds[i], *image, rb.buffers[i], extent) }
                .inspect_err(|_| rb.destroy(dev))?;
        }
        Ok(rb)
    }

    /// # Safety
    /// `dev` must be valid.
    unsafe fn add_buffer(&mut self, dev: &Device) -> Result<(), vk::Result> {
        let info = vk::BufferCreateInfo::default()
            .size(self.size as u64)
            .usage(vk::BufferUsageFlags::TRANSFER_DST);
        // SAFETY: valid create info.
        let buffer = unsafe { dev.fp.create_buffer(&info, None)? };
        self.buffers.push(buffer);
        // SAFETY: valid buffer.
        let req = unsafe { dev.fp.get_buffer_memory_requirements(buffer) };
        let flags = vk::MemoryPropertyFlags::HOST_VISIBLE | vk::MemoryPropertyFlags::HOST_COHERENT;
        let ty = dev
            .memory_type(req.memory_type_bits, flags)
            .ok_or(vk::Result::ERROR_OUT_OF_DEVICE_MEMORY)?;
        let alloc = vk::MemoryAllocateInfo::default()
            .allocation_size(req.size)
            .memory_type_index(ty);
        // SAFETY: valid allocation info.
        let mem = unsafe { dev.fp.allocate_memory(&alloc, None)? };
        self.memory.push(mem);
        // SAFETY: fresh host-visible memory of the right size, bound and mapped once.
        unsafe {
            dev.fp.bind_buffer_memory(buffer, mem, 0)?;
            let ptr = dev
                .fp
                .map_memory(mem, 0, vk::WHOLE_SIZE, vk::MemoryMapFlags::empty())?;
            self.mapped.push(ptr as usize);
        }
        Ok(())
    }

    /// The recorded copy of image `i`.
    pub fn command_buffer(&self, i: u32) -> vk::CommandBuffer {
        self.cmds[i as usize]
    }

    /// The bytes of image `i`'s last copy.
    pub fn bytes(&self, i: u32) -> Vec<u8> {
        let ptr = self.mapped[i as usize] as *const u8;
        // SAFETY: a persistent mapping of `size` bytes; the copy that wrote them completed
        // (its batch fence signaled) and nothing writes them until the image is re-presented,
        // which cannot happen before it is freed, after this read.
        unsafe { std::slice::from_raw_parts(ptr, self.size) }.to_vec()
    }

    /// Frees everything (no batch using it may be pending).
    pub fn destroy(&self, dev: &Device) {
        // SAFETY: the caller waited for the batches that used these objects.
        unsafe {
            for (b, m) in self.buffers.iter().zip(&self.memory) {
                dev.fp.destroy_buffer(*b, None);
                dev.fp.free_memory(*m, None);
            }
            for m in self.memory.iter().skip(self.buffers.len()) {
                dev.fp.free_memory(*m, None);
            }
            for b in self.buffers.iter().skip(self.memory.len()) {
                dev.fp.destroy_buffer(*b, None);
            }
            dev.fp.destroy_command_pool(self.pool, None);
        }
    }
}

/// Records: PRESENT_SRC -> TRANSFER_SRC, copy to the buffer, back to PRESENT_SRC, and make the
/// buffer visible to the host.
///
/// # Safety
/// All handles valid; `cmd` in the initial state.
unsafe fn record(
    dev: &Device,
    cmd: vk::CommandBuffer,
    image: vk::Image,
    buffer: vk::Buffer,
    extent: vk::Extent2D,
) -> Result<(), vk::Result> {
    let (to_src, back) = layout_barriers(image);
    let host = host_barrier(buffer);
    let region = copy_region(extent);
    let stage = vk::PipelineStageFlags::TRANSFER;
    let none = vk::DependencyFlags::empty();
    // SAFETY: caller's contract; a valid recording sequence.
    unsafe {
        dev.fp
            .begin_command_buffer(cmd, &vk::CommandBufferBeginInfo::default())?;
        dev.fp.cmd_pipeline_barrier(
            cmd,
            vk::PipelineStageFlags::ALL_COMMANDS,
            stage,
            none,
            &[],
            &[],
            &[to_src],
        );
        dev.fp.cmd_copy_image_to_buffer(
            cmd,
            image,
            vk::ImageLayout::TRANSFER_SRC_OPTIMAL,
            buffer,
            &[region],
        );
        dev.fp.cmd_pipeline_barrier(
            cmd,
            stage,
            vk::PipelineStageFlags::BOTTOM_OF_PIPE,
            none,
            &[],
            &[],
            &[back],
        );
        dev.fp.cmd_pipeline_barrier(
            cmd,
            stage,
            vk::PipelineStageFlags::HOST,
            none,
            &[],
            &[host],
            &[],
        );
        dev.fp.end_command_buffer(cmd)
    }
}

/// Makes the copy's writes visible to the host.
fn host_barrier(buffer: vk::Buffer) -> vk::BufferMemoryBarrier<'static> {
    vk::BufferMemoryBarrier::default()
        .src_access_mask(vk::AccessFlags::TRANSFER_WRITE)
        .dst_access_mask(vk::AccessFlags::HOST_READ)
        .src_queue_family_index(vk::QUEUE_FAMILY_IGNORED)
        .dst_queue_family_index(vk::QUEUE_FAMILY_IGNORED)
        .buffer(buffer)
        .size(vk::WHOLE_SIZE)
}

/// The whole of layer 0, mip 0.
fn copy_region(extent: vk::Extent2D) -> vk::BufferImageCopy {
    let layers = vk::ImageSubresourceLayers::default()
        .aspect_mask(vk::ImageAspectFlags::COLOR)
        .layer_count(1);
    vk::BufferImageCopy::default()
        .image_subresource(layers)
        .image_extent(vk::Extent3D {
            width: extent.width,
            height: extent.height,
            depth: 1,
        })
}

/// The image barriers around the copy: PRESENT_SRC -> TRANSFER_SRC (reads after everything
/// the batch waited for) and back.
fn layout_barriers(
    image: vk::Image,
) -> (
    vk::ImageMemoryBarrier<'static>,
    vk::ImageMemoryBarrier<'static>,
) {
    let range = vk::ImageSubresourceRange::default()
        .aspect_mask(vk::ImageAspectFlags::COLOR)
        .level_count(1)
        .layer_count(1);
    let to_src = vk::ImageMemoryBarrier::default()
        .old_layout(vk::ImageLayout::PRESENT_SRC_KHR)
        .new_layout(vk::ImageLayout::TRANSFER_SRC_OPTIMAL)
        .dst_access_mask(vk::AccessFlags::TRANSFER_READ)
        .src_queue_family_index(vk::QUEUE_FAMILY_IGNORED)
        .dst_queue_family_index(vk::QUEUE_FAMILY_IGNORED)
        .image(image)
        .subresource_range(range);
    let back = vk::ImageMemoryBarrier {
        old_layout: vk::ImageLayout::TRANSFER_SRC_OPTIMAL,
        new_layout: vk::ImageLayout::PRESENT_SRC_KHR,
        src_access_mask: vk::AccessFlags::empty(),
        dst_access_mask: vk::AccessFlags::empty(),
        ..to_src
    };
    (to_src, back)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn texels_convert_to_rgba8() {
        assert_eq!(
            to_rgba8(vk::Format::B8G8R8A8_UNORM, &[1, 2, 3, 4]),
            vec![3, 2, 1, 255]
        );
        assert_eq!(
            to_rgba8(vk::Format::R8G8B8A8_SRGB, &[1, 2, 3, 4]),
            vec![1, 2, 3, 255]
        );
        // A2B10G10R10: R = 0x3FF (max), G = 0x200 (half), B = 0.
        let v: u32 = 0x3FF | (0x200 << 10) | (3 << 30);
        assert_eq!(
            to_rgba8(vk::Format::A2B10G10R10_UNORM_PACK32, &v.to_le_bytes()),
            vec![255, 128, 0, 255]
        );
        // R16G16B16A16_SFLOAT: 1.0, 0.5, 2.0 (clamped), -1.0 (clamped), alpha ignored.
        let halves: [u16; 4] = [0x3C00, 0x3800, 0x4000, 0xBC00];
        let bytes: Vec<u8> = halves.iter().flat_map(|h| h.to_le_bytes()).collect();
        assert_eq!(
            to_rgba8(vk::Format::R16G16B16A16_SFLOAT, &bytes),
            vec![255, 128, 255, 255]
        );
        assert_eq!(half_to_u8(0x0000), 0);
        assert_eq!(half_to_u8(0x7E00), 0); // NaN
    }
}
