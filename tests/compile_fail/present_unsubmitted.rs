// expect: E0308
// A frame that was not submitted cannot be presented: `present` takes a `SubmittedFrame`.
fn order(swapchain: &mut vkpace::Swapchain, frame: vkpace::Frame) {
    let _ = swapchain.present(frame);
}

fn main() {
    let _ = order;
}
