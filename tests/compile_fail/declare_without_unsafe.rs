// expect: E0133
// Declaring the renderer's own submission is a promise vkpace cannot check: it needs `unsafe`.
fn order(swapchain: &mut vkpace::Swapchain, frame: vkpace::Frame) {
    let _ = swapchain.submitted_by_renderer(frame, vkpace::RendererTiming::Untimed);
}

fn main() {
    let _ = order;
}
