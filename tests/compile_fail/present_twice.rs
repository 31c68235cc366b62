// expect: E0382
// A frame cannot be used after it was presented: presenting consumes it.
fn order(swapchain: &mut vkpace::Swapchain, frame: vkpace::SubmittedFrame) {
    let _ = swapchain.present(frame);
    let _ = swapchain.present(frame);
}

fn main() {
    let _ = order;
}
