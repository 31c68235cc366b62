// expect: E0382
// A frame cannot be submitted twice: submitting consumes it.
fn order(swapchain: &mut vkpace::Swapchain, frame: vkpace::Frame) {
    // SAFETY: never run; this file must not compile.
    let _ = unsafe { swapchain.submitted_by_renderer(frame) };
    // SAFETY: as above.
    let _ = unsafe { swapchain.submitted_by_renderer(frame) };
}

fn main() {
    let _ = order;
}
