//! The textbook frame loop, plain ash, nothing of vkpace: N frames in flight, a fence, a
//! command buffer and an acquire semaphore per frame slot, a render-finished semaphore per
//! swapchain image. Each frame copies a pattern into the swapchain image; optional GPU load
//! (a fragment-shader loop into an offscreen target, `load.rs`) makes frames take time.

use ash::vk;

use super::context::Vk;
use super::load::DrawLoad;
use super::swap::Swap;

/// CLOCK_MONOTONIC now, ns (the layer's clock).
pub fn now_ns() -> u64 {
    let mut ts = libc::timespec {
        tv_sec: 0,
        tv_nsec: 0,
    };
    // SAFETY: objects this test created and owns; the validation layer above checks the call's valid usage.
    unsafe { libc::clock_gettime(libc::CLOCK_MONOTONIC, &mut ts) };
    ts.tv_sec as u64 * 1_000_000_000 + ts.tv_nsec as u64
}

/// The loop's parameters.
#[derive(Clone)]
pub struct LoopDesc {
    pub frames: usize,
    pub in_flight: usize,
    /// GPU load: fragment-shader loop iterations per pixel (0: no load).
    pub load_iterations: u32,
    /// Attach present ids 1, 2, ... (VK_KHR_present_id).
    pub present_ids: bool,
    /// Call vkWaitForPresentKHR(id) right after each present and record when it returns.
    pub wait_each: bool,
    /// The WRONG variant: a per-frame buffer made each frame and destroyed right after the
    /// frame's submit and present, while the frame is still pending.
    pub destroy_early: bool,
    /// maintenance1 present fences (waited before a slot's semaphores are reused).
    pub present_fences: bool,
    /// Per-present modes (maintenance1), cycled, if not empty.
    pub mode_cycle: Vec<vk::PresentModeKHR>,
}

impl Default for LoopDesc {
    fn default() -> Self {
        Self {
            frames: 60,
            in_flight: 3,
            load_iterations: 0,
            present_ids: true,
            wait_each: false,
            destroy_early: false,
            present_fences: false,
            mode_cycle: Vec::new(),
        }
    }
}

/// What the loop saw.
#[derive(Default, Debug)]
pub struct LoopStats {
    /// Per frame: fences of the loop still unsignaled right after this frame's submit
    /// (including its own).
    pub pending: Vec<usize>,
    /// Per frame: when its slot's fence wait returned.
    pub frame_start_ns: Vec<u64>,
    /// Per frame: the image index acquired.
    pub images: Vec<u32>,
    /// (present id, when vkWaitForPresentKHR returned).
    pub wait_return: Vec<(u64, u64)>,
    /// Per frame: what vkQueuePresentKHR returned (or, for the last entry, the error of an
    /// acquire that stopped the loop).
    pub results: Vec<vk::Result>,
    /// Per frame: time spent in (acquire, submit, present), ms.
    pub call_ms: Vec<(f64, f64, f64)>,
}

/// The texel bytes of frame `f` at (x, y): B = x, G = y, R = f (format B8G8R8A8).
pub fn pattern(f: usize, x: u32, y: u32) -> [u8; 4] {
    [(x % 256) as u8, (y % 256) as u8, (f % 256) as u8, 255]
}

struct Buf {
    buffer: vk::Buffer,
    memory: vk::DeviceMemory,
}

fn make_buffer(vk: &Vk, size: u64, usage: vk::BufferUsageFlags, host: bool) -> Buf {
    let d = &vk.device;
    // SAFETY: objects this test created and owns; the validation layer above checks the call's valid usage.
    let buffer = unsafe {
        d.create_buffer(
            &vk::BufferCreateInfo::default().size(size).usage(usage),
            None,
        )
    }
    .unwrap();
    // SAFETY: objects this test created and owns; the validation layer above checks the call's valid usage.
    let req = unsafe { d.get_buffer_memory_requirements(buffer) };
    let flags = if host {
        vk::MemoryPropertyFlags::HOST_VISIBLE | vk::MemoryPropertyFlags::HOST_COHERENT
    } else {
        vk::MemoryPropertyFlags::DEVICE_LOCAL
    };
    let info = vk::MemoryAllocateInfo::default()
        .allocation_size(req.size)
        .memory_type_index(vk.memory_type(req.memory_type_bits, flags));
    // SAFETY: objects this test created and owns; the validation layer above checks the call's valid usage.
    let memory = unsafe { d.allocate_memory(&info, None) }.unwrap();
    // SAFETY: objects this test created and owns; the validation layer above checks the call's valid usage.
    unsafe { d.bind_buffer_memory(buffer, memory, 0) }.unwrap();
    Buf { buffer, memory }
}

fn free_buffer(vk: &Vk, b: &Buf) {
    // SAFETY: objects this test created and owns; the validation layer above checks the call's valid usage.
    unsafe {
        vk.device.destroy_buffer(b.buffer, None);
        vk.device.free_memory(b.memory, None);
    }
}

fn fill_pattern(vk: &Vk, b: &Buf, sc: &Swap, f: usize) {
    let size = sc.extent.width as u64 * sc.extent.height as u64 * 4;
    // SAFETY: objects this test created and owns; the validation layer above checks the call's valid usage.
    let ptr = unsafe {
        vk.device
            .map_memory(b.memory, 0, size, vk::MemoryMapFlags::empty())
    }
    .unwrap() as *mut u8;
    // SAFETY: objects this test created and owns; the validation layer above checks the call's valid usage.
    let bytes = unsafe { std::slice::from_raw_parts_mut(ptr, size as usize) };
    for y in 0..sc.extent.height {
        for x in 0..sc.extent.width {
            let i = ((y * sc.extent.width + x) * 4) as usize;
            bytes[i..i + 4].copy_from_slice(&pattern(f, x, y));
        }
    }
    // SAFETY: objects this test created and owns; the validation layer above checks the call's valid usage.
    unsafe { vk.device.unmap_memory(b.memory) };
}

/// Per-loop objects.
struct Objects {
    pool: vk::CommandPool,
    cmds: Vec<vk::CommandBuffer>,
    fences: Vec<vk::Fence>,
    acquire: Vec<vk::Semaphore>,
    render: Vec<vk::Semaphore>,
    present_fences: Vec<vk::Fence>,
    present_fence_used: Vec<bool>,
    staging: Vec<Buf>,
    load: Option<DrawLoad>,
}

fn make_objects(vk: &Vk, sc: &Swap, d: &LoopDesc) -> Objects {
    let dev = &vk.device;
    // SAFETY: objects this test created and owns; the validation layer above checks the call's valid usage.
    let pool = unsafe {
        dev.create_command_pool(
            &vk::CommandPoolCreateInfo::default()
                .queue_family_index(vk.family)
                .flags(vk::CommandPoolCreateFlags::RESET_COMMAND_BUFFER),
            None,
        )
    }
    .unwrap();
    let alloc = vk::CommandBufferAllocateInfo::default()
        .command_pool(pool)
        .command_buffer_count(d.in_flight as u32);
    let sem =
        // SAFETY: objects this test created and owns; the validation layer above checks the call's valid usage.
        || unsafe { dev.create_semaphore(&vk::SemaphoreCreateInfo::default(), None) }.unwrap();
    let fence = |signaled: bool| {
        let flags = if signaled {
            vk::FenceCreateFlags::SIGNALED
        } else {
            vk::FenceCreateFlags::empty()
        };
        // SAFETY: objects this test created and owns; the validation layer above checks the call's valid usage.
        unsafe { dev.create_fence(&vk::FenceCreateInfo::default().flags(flags), None) }.unwrap()
    };
    let size = sc.extent.width as u64 * sc.extent.height as u64 * 4;
    Objects {
        pool,
        // SAFETY: objects this test created and owns; the validation layer above checks the call's valid usage.
        cmds: unsafe { dev.allocate_command_buffers(&alloc) }.unwrap(),
        fences: (0..d.in_flight).map(|_| fence(true)).collect(),
        acquire: (0..d.in_flight).map(|_| sem()).collect(),
        render: sc.images.iter().map(|_| sem()).collect(),
        present_fences: (0..d.in_flight).map(|_| fence(false)).collect(),
        present_fence_used: vec![false; d.in_flight],
        staging: if d.destroy_early {
            Vec::new()
        } else {
            (0..d.in_flight)
                .map(|_| make_buffer(vk, size, vk::BufferUsageFlags::TRANSFER_SRC, true))
                .collect()
        },
        load: (d.load_iterations > 0).then(|| DrawLoad::new(vk, d.in_flight, d.load_iterations)),
    }
}

fn destroy_objects(vk: &Vk, o: Objects) {
    let dev = &vk.device;
    // SAFETY: objects this test created and owns; the validation layer above checks the call's valid usage.
    unsafe {
        dev.device_wait_idle().unwrap();
        for s in o.acquire.iter().chain(&o.render) {
            dev.destroy_semaphore(*s, None);
        }
        for f in o.fences.iter().chain(&o.present_fences) {
            dev.destroy_fence(*f, None);
        }
        dev.destroy_command_pool(o.pool, None);
    }
    for b in &o.staging {
        free_buffer(vk, b);
    }
    if let Some(l) = &o.load {
        l.destroy(vk);
    }
}

fn record(
    vk: &Vk,
    cmd: vk::CommandBuffer,
    o: &Objects,
    slot: usize,
    image: vk::Image,
    staging: vk::Buffer,
    sc: &Swap,
) {
    let dev = &vk.device;
    let (to_dst, to_present) = copy_barriers(image);
    let region = whole_image_copy(sc);
    let t = vk::PipelineStageFlags::TRANSFER;
    // SAFETY: objects this test created and owns; the validation layer above checks the call's valid usage.
    unsafe {
        dev.begin_command_buffer(
            cmd,
            &vk::CommandBufferBeginInfo::default()
                .flags(vk::CommandBufferUsageFlags::ONE_TIME_SUBMIT),
        )
        .unwrap();
        if let Some(load) = &o.load {
            load.record(vk, cmd, slot);
        }
        dev.cmd_pipeline_barrier(cmd, t, t, vk::DependencyFlags::empty(), &[], &[], &[to_dst]);
        dev.cmd_copy_buffer_to_image(
            cmd,
            staging,
            image,
            vk::ImageLayout::TRANSFER_DST_OPTIMAL,
            &[region],
        );
        dev.cmd_pipeline_barrier(
            cmd,
            t,
            vk::PipelineStageFlags::BOTTOM_OF_PIPE,
            vk::DependencyFlags::empty(),
            &[],
            &[],
            &[to_present],
        );
        dev.end_command_buffer(cmd).unwrap();
    }
}

/// The barriers around the copy into a swapchain image: undefined to transfer destination
/// before it, transfer destination to present source after it.
fn copy_barriers(
    image: vk::Image,
) -> (
    vk::ImageMemoryBarrier<'static>,
    vk::ImageMemoryBarrier<'static>,
) {
    let range = vk::ImageSubresourceRange::default()
        .aspect_mask(vk::ImageAspectFlags::COLOR)
        .level_count(1)
        .layer_count(1);
    let to_dst = vk::ImageMemoryBarrier::default()
        .old_layout(vk::ImageLayout::UNDEFINED)
        .new_layout(vk::ImageLayout::TRANSFER_DST_OPTIMAL)
        .dst_access_mask(vk::AccessFlags::TRANSFER_WRITE)
        .src_queue_family_index(vk::QUEUE_FAMILY_IGNORED)
        .dst_queue_family_index(vk::QUEUE_FAMILY_IGNORED)
        .image(image)
        .subresource_range(range);
    let to_present = vk::ImageMemoryBarrier {
        old_layout: vk::ImageLayout::TRANSFER_DST_OPTIMAL,
        new_layout: vk::ImageLayout::PRESENT_SRC_KHR,
        src_access_mask: vk::AccessFlags::TRANSFER_WRITE,
        dst_access_mask: vk::AccessFlags::empty(),
        ..to_dst
    };
    (to_dst, to_present)
}

/// The buffer-to-image copy of a whole swapchain image of `sc`.
fn whole_image_copy(sc: &Swap) -> vk::BufferImageCopy {
    vk::BufferImageCopy::default()
        .image_subresource(
            vk::ImageSubresourceLayers::default()
                .aspect_mask(vk::ImageAspectFlags::COLOR)
                .layer_count(1),
        )
        .image_extent(vk::Extent3D {
            width: sc.extent.width,
            height: sc.extent.height,
            depth: 1,
        })
}

/// Waits until present `id` of `sc` was shown (so that a test can destroy the swapchain with
/// every frame on the display).
pub fn wait_shown(vk: &Vk, sc: &Swap, id: u64) {
    // SAFETY: objects this test created and owns; the validation layer above checks the call's valid usage.
    unsafe {
        vk.present_wait_fn
            .wait_for_present(sc.handle, id, 2_000_000_000)
    }
    .expect("last present shown");
}

/// Runs the loop on `sc`. Stops early (returning what it saw) when acquire or present reports
/// an error; OUT_OF_DATE / SUBOPTIMAL presents are recorded in `results`.
pub fn run(vk: &Vk, sc: &Swap, d: &LoopDesc) -> LoopStats {
    let mut o = make_objects(vk, sc, d);
    let mut stats = LoopStats::default();
    let size = sc.extent.width as u64 * sc.extent.height as u64 * 4;
    for f in 0..d.frames {
        let slot = f % d.in_flight;
        if !frame(vk, sc, d, &mut o, &mut stats, f, slot, size) {
            break;
        }
    }
    destroy_objects(vk, o);
    stats
}

#[allow(clippy::too_many_arguments)]
fn frame(
    vk: &Vk,
    sc: &Swap,
    d: &LoopDesc,
    o: &mut Objects,
    stats: &mut LoopStats,
    f: usize,
    slot: usize,
    size: u64,
) -> bool {
    wait_slot_fences(vk, o, slot);
    let t0 = now_ns();
    stats.frame_start_ns.push(t0);
    // SAFETY: objects this test created and owns; the validation layer above checks the call's valid usage.
    let (index, _) = match unsafe {
        vk.swapchain_fn
            .acquire_next_image(sc.handle, u64::MAX, o.acquire[slot], vk::Fence::null())
    } {
        Ok(v) => v,
        Err(e) => {
            stats.results.push(e);
            return false;
        }
    };
    stats.images.push(index);
    let t1 = now_ns();
    let early = d
        .destroy_early
        .then(|| make_buffer(vk, size, vk::BufferUsageFlags::TRANSFER_SRC, true));
    let staging = early.as_ref().unwrap_or_else(|| &o.staging[slot]);
    fill_pattern(vk, staging, sc, f);
    let cmd = o.cmds[slot];
    record(
        vk,
        cmd,
        o,
        slot,
        sc.images[index as usize],
        staging.buffer,
        sc,
    );
    let (t2, t3) = submit_frame(vk, o, slot, index, cmd);
    stats.pending.push(frames_pending(vk, o));
    let r = present(vk, sc, d, o, f, slot, index);
    let ms = |a: u64, b: u64| (b - a) as f64 / 1e6;
    stats
        .call_ms
        .push((ms(t0, t1), ms(t2, t3), ms(t3, now_ns())));
    stats.results.push(r);
    if let Some(b) = early {
        free_buffer(vk, &b); // WRONG on purpose: the frame is still pending.
    }
    if d.wait_each && r.as_raw() >= 0 {
        wait_present_returned(vk, sc, f as u64 + 1, stats);
    }
    r.as_raw() >= 0
}

/// Waits for slot `slot`'s frame fence, and its present fence if it was used, and resets them.
fn wait_slot_fences(vk: &Vk, o: &Objects, slot: usize) {
    let dev = &vk.device;
    // SAFETY: objects this test created and owns; the validation layer above checks the call's valid usage.
    unsafe {
        dev.wait_for_fences(&[o.fences[slot]], true, u64::MAX)
            .unwrap();
        dev.reset_fences(&[o.fences[slot]]).unwrap();
        if o.present_fence_used[slot] {
            dev.wait_for_fences(&[o.present_fences[slot]], true, 5_000_000_000)
                .expect("present fence");
            dev.reset_fences(&[o.present_fences[slot]]).unwrap();
        }
    }
}

/// Submits the frame's command buffer (waiting for slot `slot`'s acquire, signalling image
/// `index`'s render semaphore and the slot's fence); returns the times before and after the
/// submit call.
fn submit_frame(
    vk: &Vk,
    o: &Objects,
    slot: usize,
    index: u32,
    cmd: vk::CommandBuffer,
) -> (u64, u64) {
    let dev = &vk.device;
    let waits = [o.acquire[slot]];
    let stages = [vk::PipelineStageFlags::TRANSFER];
    let signals = [o.render[index as usize]];
    let cmds = [cmd];
    let submit = vk::SubmitInfo::default()
        .wait_semaphores(&waits)
        .wait_dst_stage_mask(&stages)
        .command_buffers(&cmds)
        .signal_semaphores(&signals);
    let t2 = now_ns();
    // SAFETY: objects this test created and owns; the validation layer above checks the call's valid usage.
    unsafe { dev.queue_submit(vk.queue, &[submit], o.fences[slot]) }.unwrap();
    let t3 = now_ns();
    (t2, t3)
}

/// How many of the slots' frame fences are not signaled yet (frames still pending).
fn frames_pending(vk: &Vk, o: &Objects) -> usize {
    let dev = &vk.device;
    o.fences
        .iter()
        // SAFETY: objects this test created and owns; the validation layer above checks the call's valid usage.
        .filter(|f| !unsafe { dev.get_fence_status(**f) }.unwrap())
        .count()
}

/// Calls vkWaitForPresentKHR(`id`) and records when it returned (`LoopDesc::wait_each`).
fn wait_present_returned(vk: &Vk, sc: &Swap, id: u64, stats: &mut LoopStats) {
    // SAFETY: objects this test created and owns; the validation layer above checks the call's valid usage.
    let w = unsafe {
        vk.present_wait_fn
            .wait_for_present(sc.handle, id, 2_000_000_000)
    };
    assert!(w.is_ok(), "vkWaitForPresentKHR: {w:?}");
    stats.wait_return.push((id, now_ns()));
}

fn present(
    vk: &Vk,
    sc: &Swap,
    d: &LoopDesc,
    o: &mut Objects,
    f: usize,
    slot: usize,
    index: u32,
) -> vk::Result {
    let chains = [sc.handle];
    let indices = [index];
    let waits = [o.render[index as usize]];
    let ids = [f as u64 + 1];
    let fences = [o.present_fences[slot]];
    let modes = [d
        .mode_cycle
        .get(f % d.mode_cycle.len().max(1))
        .copied()
        .unwrap_or_default()];
    let mut id_info = vk::PresentIdKHR::default().present_ids(&ids);
    let mut fence_info = vk::SwapchainPresentFenceInfoEXT::default().fences(&fences);
    let mut mode_info = vk::SwapchainPresentModeInfoEXT::default().present_modes(&modes);
    let mut info = vk::PresentInfoKHR::default()
        .wait_semaphores(&waits)
        .swapchains(&chains)
        .image_indices(&indices);
    if d.present_ids {
        info = info.push_next(&mut id_info);
    }
    if d.present_fences {
        info = info.push_next(&mut fence_info);
        o.present_fence_used[slot] = true;
    }
    if !d.mode_cycle.is_empty() {
        info = info.push_next(&mut mode_info);
    }
    // SAFETY: objects this test created and owns; the validation layer above checks the call's valid usage.
    match unsafe { vk.swapchain_fn.queue_present(vk.queue, &info) } {
        Ok(false) => vk::Result::SUCCESS,
        Ok(true) => vk::Result::SUBOPTIMAL_KHR,
        Err(e) => e,
    }
}

/// Fragment-shader iterations that make about `target_ms` of GPU work per frame on this machine
/// (measured once after a warm-up; at least 1).
pub fn calibrate_iterations(vk: &Vk, target_ms: f64) -> u32 {
    let dev = &vk.device;
    let probe = 2000;
    let load = DrawLoad::new(vk, 1, probe);
    // SAFETY: objects this test created and owns; the validation layer above checks the call's valid usage.
    let pool = unsafe {
        dev.create_command_pool(
            &vk::CommandPoolCreateInfo::default().queue_family_index(vk.family),
            None,
        )
    }
    .unwrap();
    // SAFETY: objects this test created and owns; the validation layer above checks the call's valid usage.
    let cmd = unsafe {
        dev.allocate_command_buffers(
            &vk::CommandBufferAllocateInfo::default()
                .command_pool(pool)
                .command_buffer_count(1),
        )
    }
    .unwrap()[0];
    // SAFETY: objects this test created and owns; the validation layer above checks the call's valid usage.
    unsafe {
        dev.begin_command_buffer(cmd, &vk::CommandBufferBeginInfo::default())
            .unwrap()
    };
    load.record(vk, cmd, 0);
    // SAFETY: objects this test created and owns; the validation layer above checks the call's valid usage.
    unsafe { dev.end_command_buffer(cmd).unwrap() };
    // SAFETY: objects this test created and owns; the validation layer above checks the call's valid usage.
    let fence = unsafe { dev.create_fence(&vk::FenceCreateInfo::default(), None) }.unwrap();
    let cmds = [cmd];
    let mut ms = 0.0;
    for _ in 0..3 {
        let t0 = now_ns();
        // SAFETY: objects this test created and owns; the validation layer above checks the call's valid usage.
        unsafe {
            dev.queue_submit(
                vk.queue,
                &[vk::SubmitInfo::default().command_buffers(&cmds)],
                fence,
            )
            .unwrap();
            dev.wait_for_fences(&[fence], true, u64::MAX).unwrap();
            dev.reset_fences(&[fence]).unwrap();
        }
        ms = (now_ns() - t0) as f64 / 1e6;
    }
    // SAFETY: objects this test created and owns; the validation layer above checks the call's valid usage.
    unsafe {
        dev.destroy_fence(fence, None);
        dev.destroy_command_pool(pool, None);
    }
    load.destroy(vk);
    ((target_ms / ms * probe as f64).round() as u32).max(1)
}
