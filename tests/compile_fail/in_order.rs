// expect: compiles
// The control: the same calls in the right order compile, so the other cases fail for the
// reason they name and not because the harness cannot build against vkpace.
fn order(swapchain: &mut vkpace::Swapchain, frame: vkpace::Frame) {
    // SAFETY: never run; only compiled.
    if let Ok(submitted) = unsafe { swapchain.submitted_by_renderer(frame, vkpace::RendererTiming::Untimed) } {
        let _ = swapchain.present(submitted);
    }
}

fn main() {
    let _ = order;
}
