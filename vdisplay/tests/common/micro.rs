//! One acquire / one present at a time, for tests of swapchain behaviour: each present
//! transitions the image to PRESENT_SRC in a submission that waits on the acquire semaphore and
//! signals a render semaphore (so the validation layer above sees correct usage).

use std::ffi::c_void;

use ash::vk;

use super::context::Vk;
use super::swap::Swap;

/// Per-test objects; every semaphore is fresh and destroyed at the end (after device idle).
pub struct Micro<'a> {
    vk: &'a Vk,
    pool: vk::CommandPool,
    fence: vk::Fence,
    sems: Vec<vk::Semaphore>,
    acquire_sem: Option<vk::Semaphore>,
}

impl<'a> Micro<'a> {
    pub fn new(vk: &'a Vk) -> Self {
        let d = &vk.device;
        // SAFETY: objects this test created and owns; the validation layer above checks the call's valid usage.
        let pool = unsafe {
            d.create_command_pool(
                &vk::CommandPoolCreateInfo::default()
                    .queue_family_index(vk.family)
                    .flags(vk::CommandPoolCreateFlags::RESET_COMMAND_BUFFER),
                None,
            )
        }
        .unwrap();
        // SAFETY: objects this test created and owns; the validation layer above checks the call's valid usage.
        let fence = unsafe { d.create_fence(&vk::FenceCreateInfo::default(), None) }.unwrap();
        Self {
            vk,
            pool,
            fence,
            sems: Vec::new(),
            acquire_sem: None,
        }
    }

    fn semaphore(&mut self) -> vk::Semaphore {
        // SAFETY: objects this test created and owns; the validation layer above checks the call's valid usage.
        let s = unsafe {
            self.vk
                .device
                .create_semaphore(&vk::SemaphoreCreateInfo::default(), None)
        }
        .unwrap();
        self.sems.push(s);
        s
    }

    /// Acquires with a fresh semaphore; the semaphore is waited by the next [`Micro::present`].
    pub fn acquire(&mut self, sc: &Swap, timeout: u64) -> Result<(u32, bool), vk::Result> {
        let s = self.semaphore();
        // SAFETY: objects this test created and owns; the validation layer above checks the call's valid usage.
        let r = unsafe {
            self.vk
                .swapchain_fn
                .acquire_next_image(sc.handle, timeout, s, vk::Fence::null())
        };
        if r.is_ok() {
            self.acquire_sem = Some(s);
        }
        r
    }

    /// Transitions image `index` (waiting on the last acquire's semaphore) and presents it with
    /// `p_next` chained into VkPresentInfoKHR. Returns the present's result.
    pub fn present(&mut self, sc: &Swap, index: u32, p_next: *const c_void) -> vk::Result {
        let render = self.semaphore();
        let acquire = self.acquire_sem.take().expect("acquire before present");
        self.transition(sc.images[index as usize], acquire, render);
        let chains = [sc.handle];
        let indices = [index];
        let waits = [render];
        let mut info = vk::PresentInfoKHR::default()
            .wait_semaphores(&waits)
            .swapchains(&chains)
            .image_indices(&indices);
        info.p_next = p_next;
        // SAFETY: objects this test created and owns; the validation layer above checks the call's valid usage.
        match unsafe { self.vk.swapchain_fn.queue_present(self.vk.queue, &info) } {
            Ok(false) => vk::Result::SUCCESS,
            Ok(true) => vk::Result::SUBOPTIMAL_KHR,
            Err(e) => e,
        }
    }

    fn transition(&mut self, image: vk::Image, acquire: vk::Semaphore, render: vk::Semaphore) {
        let d = &self.vk.device;
        // SAFETY: objects this test created and owns; the validation layer above checks the call's valid usage.
        let cmd = unsafe {
            d.allocate_command_buffers(
                &vk::CommandBufferAllocateInfo::default()
                    .command_pool(self.pool)
                    .command_buffer_count(1),
            )
        }
        .unwrap()[0];
        let range = vk::ImageSubresourceRange::default()
            .aspect_mask(vk::ImageAspectFlags::COLOR)
            .level_count(1)
            .layer_count(1);
        let barrier = vk::ImageMemoryBarrier::default()
            .old_layout(vk::ImageLayout::UNDEFINED)
            .new_layout(vk::ImageLayout::PRESENT_SRC_KHR)
            .src_queue_family_index(vk::QUEUE_FAMILY_IGNORED)
            .dst_queue_family_index(vk::QUEUE_FAMILY_IGNORED)
            .image(image)
            .subresource_range(range);
        let stage = vk::PipelineStageFlags::COLOR_ATTACHMENT_OUTPUT;
        // SAFETY: objects this test created and owns; the validation layer above checks the call's valid usage.
        unsafe {
            d.begin_command_buffer(cmd, &vk::CommandBufferBeginInfo::default())
                .unwrap();
            d.cmd_pipeline_barrier(
                cmd,
                stage,
                vk::PipelineStageFlags::BOTTOM_OF_PIPE,
                vk::DependencyFlags::empty(),
                &[],
                &[],
                &[barrier],
            );
            d.end_command_buffer(cmd).unwrap();
        }
        let (w, st, c, sg) = ([acquire], [stage], [cmd], [render]);
        let submit = vk::SubmitInfo::default()
            .wait_semaphores(&w)
            .wait_dst_stage_mask(&st)
            .command_buffers(&c)
            .signal_semaphores(&sg);
        // SAFETY: objects this test created and owns; the validation layer above checks the call's valid usage.
        unsafe {
            d.queue_submit(self.vk.queue, &[submit], self.fence)
                .unwrap();
            d.wait_for_fences(&[self.fence], true, u64::MAX).unwrap();
            d.reset_fences(&[self.fence]).unwrap();
        }
    }
}

impl Drop for Micro<'_> {
    fn drop(&mut self) {
        let d = &self.vk.device;
        // SAFETY: objects this test created and owns; the validation layer above checks the call's valid usage.
        unsafe {
            d.device_wait_idle().unwrap();
            for s in &self.sems {
                d.destroy_semaphore(*s, None);
            }
            d.destroy_fence(self.fence, None);
            d.destroy_command_pool(self.pool, None);
        }
    }
}
