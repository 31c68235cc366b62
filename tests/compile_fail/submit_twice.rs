// expect: E0382
// A frame cannot be submitted twice: submitting consumes it.
fn order(swapchain: &mut vkpace::Swapchain, frame: vkpace::Frame) {
    // SAFETY: never run; this file must not compile.
    let _ = unsafe { swapchain.submitted_by_renderer(frame, vkpace::RendererTiming::Untimed) };
    // SAFETY: as above.
    let _ = unsafe { swapchain.submitted_by_renderer(frame, vkpace::RendererTiming::Untimed) };
}

fn main() {
    let _ = order;
}
