//! [`RenderTargets`]: objects that follow the swapchain, made on first use, retired on change.

#![forbid(unsafe_code)]

use ash::vk;

use super::{Error, Frame, Swapchain};
use vkpace_core::SyncToken;

use super::deferred_release::DeferredRelease;

/// Which change of the swapchain makes a per-slot value stale ([`RenderTargets::per_slot`]).
#[derive(Copy, Clone, Debug, PartialEq, Eq)]
pub enum Rebuild {
    /// Any recreation (a new generation): anything that names the swapchain's images, or
    /// depends on its format only (vkpace keeps the format across recreations while it can).
    OnSwapchain,
    /// A new extent: a depth image, any attachment sized like the swapchain.
    OnExtent,
    /// A new extent or format: an offscreen color target in the swapchain's size and format.
    OnExtentOrFormat,
}

/// Values of `T` that follow the swapchain (depth images, framebuffers, descriptor sets naming
/// its views), one per frame slot, per swapchain image or per (slot, image), each made on first
/// use by the caller's closure and retired when the swapchain changes in a way it depends on.
///
/// Why retire, not destroy: frames in flight overlap on the GPU, so when a frame sees a new
/// extent, earlier frames may still draw with the old objects; each is kept until
/// [`Swapchain::last_submitted`] at the change is reached, then handed back to the caller to
/// destroy. Why per slot: a slot ([`Frame::slot`]) is handed out only once its previous
/// submission completed, so a value per slot is never shared by two frames in flight. Why per
/// image *and* generation: a recreated swapchain has new views and its image indices start over.
///
/// Vulkan handles have no `Drop`: call [`Self::release_completed`] once a frame and
/// [`Self::release_all`] at teardown. Dropping a `RenderTargets` that still holds values leaks
/// them (a warning is logged). Use one per [`Swapchain`]: its tokens are that swapchain's.
///
/// ```no_run
/// # use ash::vk;
/// # use vkpace::{Frame, Rebuild, RenderTargets, Swapchain};
/// # fn depth_image(f: &Frame) -> Result<(vk::Image, vk::ImageView), vk::Result> { todo!() }
/// # fn framebuffer(f: &Frame, d: vk::ImageView) -> Result<vk::Framebuffer, vk::Result> { todo!() }
/// # fn destroy_depth(d: (vk::Image, vk::ImageView)) {}
/// # fn destroy_framebuffer(f: vk::Framebuffer) {}
/// # fn f(swapchain: &mut Swapchain, frame: &Frame) -> Result<(), Box<dyn std::error::Error>> {
/// // Made once. A depth image per slot, new for a new extent; a framebuffer per slot and image
/// // (it names the slot's depth view and the image's view), new for any new swapchain.
/// let mut depth = RenderTargets::per_slot(Rebuild::OnExtent);
/// let mut framebuffers = RenderTargets::per_slot_and_image();
/// // Each frame: destroy what the GPU is done with (never blocks), then look up or make.
/// depth.release_completed(swapchain, destroy_depth)?;
/// framebuffers.release_completed(swapchain, destroy_framebuffer)?;
/// let (_, depth_view) = *depth.get_or_make(swapchain, frame, depth_image)?;
/// let fb = *framebuffers.get_or_make(swapchain, frame, |f| framebuffer(f, depth_view))?;
/// // Teardown: wait for `swapchain.last_submitted()`, then
/// depth.release_all(destroy_depth);
/// framebuffers.release_all(destroy_framebuffer);
/// # Ok(()) }
/// ```
#[derive(Debug)]
pub struct RenderTargets<T> {
    /// A frame's (slot, image index) to the key of its value (the parts not used as 0).
    key: fn((usize, u32)) -> (usize, u32),
    rebuild: Rebuild,
    /// What the current values were made for (as of the last lookup).
    made_for: Option<Shape>,
    /// A few values: a linear search beats hashing.
    current: Vec<((usize, u32), T)>,
    retired: DeferredRelease<T>,
}

/// What a frame's values are made for: the swapchain object, its generation, extent, format.
#[derive(Copy, Clone, Debug, PartialEq, Eq)]
struct Shape(u64, u64, vk::Extent2D, vk::Format);

impl<T> RenderTargets<T> {
    /// One value per frame slot, retired on the change `rebuild` names (and for the frames of
    /// another [`Swapchain`] object). For what a frame writes: depth images, attachments.
    #[must_use = "values are made by get_or_make and destroyed by release_completed/release_all"]
    pub fn per_slot(rebuild: Rebuild) -> Self {
        Self::new(|(slot, _)| (slot, 0), rebuild)
    }

    /// One value per swapchain image, retired when the swapchain changes (a recreation: new
    /// views). For what names only the image's view: descriptor sets, framebuffers.
    #[must_use = "values are made by get_or_make and destroyed by release_completed/release_all"]
    pub fn per_image() -> Self {
        Self::new(|(_, image)| (0, image), Rebuild::OnSwapchain)
    }

    /// One value per (slot, image), retired when the swapchain changes. For what names the
    /// image's view and a per-slot object: a framebuffer with the slot's depth image.
    #[must_use = "values are made by get_or_make and destroyed by release_completed/release_all"]
    pub fn per_slot_and_image() -> Self {
        Self::new(|at| at, Rebuild::OnSwapchain)
    }

    fn new(key: fn((usize, u32)) -> (usize, u32), rebuild: Rebuild) -> Self {
        let (made_for, current, retired) = (None, Vec::new(), DeferredRelease::new());
        Self {
            key,
            rebuild,
            made_for,
            current,
            retired,
        }
    }

    /// The value for `frame`, made by `make` if there is none yet. If the frame's swapchain
    /// changed in a way the values depend on, every current value is first retired until
    /// `swapchain.last_submitted()` (all frames that could use it); an error of `make` is
    /// returned and nothing is kept. `swapchain` is the one `frame` was acquired from.
    pub fn get_or_make<E>(
        &mut self,
        swapchain: &Swapchain,
        frame: &Frame,
        make: impl FnOnce(&Frame) -> Result<T, E>,
    ) -> Result<&T, E> {
        let (owner, generation, slot) = (frame.owner, frame.generation(), frame.slot());
        let now = Shape(owner, generation, frame.extent(), frame.format());
        let at = (slot, frame.image_index());
        self.get_or_make_at(now, at, swapchain.last_submitted(), || make(frame))
    }

    fn get_or_make_at<E>(
        &mut self,
        now: Shape,
        at: (usize, u32),
        retire_after: SyncToken,
        make: impl FnOnce() -> Result<T, E>,
    ) -> Result<&T, E> {
        if self.made_for.is_some_and(|was| self.stale(was, now)) {
            for (_, value) in self.current.drain(..) {
                self.retired.defer(retire_after, value);
            }
        }
        self.made_for = Some(now);
        let key = (self.key)(at);
        if let Some(index) = self.current.iter().position(|(k, _)| *k == key) {
            return Ok(&self.current[index].1);
        }
        self.current.push((key, make()?));
        Ok(&self.current[self.current.len() - 1].1)
    }

    /// Whether values made for `was` are stale for a frame of `now`.
    fn stale(&self, was: Shape, now: Shape) -> bool {
        let (extent, format) = (was.2 != now.2, was.3 != now.3);
        was.0 != now.0
            || match self.rebuild {
                Rebuild::OnSwapchain => was.1 != now.1,
                Rebuild::OnExtent => extent,
                Rebuild::OnExtentOrFormat => extent || format,
            }
    }

    /// Hands every retired value the GPU is done with to `release` (to destroy it), oldest
    /// first; returns how many. Never blocks: call it once a frame.
    pub fn release_completed(
        &mut self,
        swapchain: &mut Swapchain,
        release: impl FnMut(T),
    ) -> Result<usize, Error> {
        self.retired
            .release_reached(|t| swapchain.completed(t), release)
    }

    /// Hands every value, current and retired, to `release`. Only once no submission uses them:
    /// after a wait for [`Swapchain::last_submitted`], or the swapchain's teardown.
    pub fn release_all(&mut self, mut release: impl FnMut(T)) {
        self.retired.release_all(&mut release);
        self.current.drain(..).for_each(|(_, value)| release(value));
        self.made_for = None;
    }

    /// Values held, current and retired.
    #[must_use]
    pub fn len(&self) -> usize {
        self.current.len() + self.retired.len()
    }

    /// Whether no value is held.
    #[must_use]
    pub fn is_empty(&self) -> bool {
        self.len() == 0
    }
}

impl<T> Drop for RenderTargets<T> {
    fn drop(&mut self) {
        if !self.is_empty() {
            let n = self.len();
            log::warn!("vkpace: RenderTargets dropped holding {n} values: they leak");
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::vk::token_set::TokenSet;

    const RGBA: vk::Format = vk::Format::R8G8B8A8_UNORM;

    fn shape(generation: u64, width: u32, format: vk::Format) -> Shape {
        Shape(1, generation, vk::Extent2D { width, height: 9 }, format)
    }

    /// The value held for `at` (slot, image) at `now`, made as `value` if none; retires until
    /// the token whose value is `now`'s generation.
    fn get(t: &mut RenderTargets<u32>, now: Shape, at: (usize, u32), value: u32) -> u32 {
        let make = || Ok::<_, ()>(value);
        *t.get_or_make_at(now, at, SyncToken::new(9, now.1), make)
            .unwrap()
    }

    /// What is handed back once tokens up to `reached` are (`None`: everything).
    fn release(t: &mut RenderTargets<u32>, reached: Option<u64>) -> Vec<u32> {
        let mut out = Vec::new();
        let Some(r) = reached else {
            t.release_all(|v| out.push(v));
            return out;
        };
        let reached = |s: TokenSet| Ok::<_, ()>(s.tokens().all(|t| t.value() <= r));
        t.retired.release_reached(reached, |v| out.push(v)).unwrap();
        out
    }

    #[test]
    fn made_once_per_key() {
        let now = shape(1, 100, RGBA);
        let mut slots = RenderTargets::per_slot(Rebuild::OnExtent);
        let mut images = RenderTargets::per_image();
        let mut pairs = RenderTargets::per_slot_and_image();
        for (at, value) in [((0, 0), 1), ((0, 2), 2), ((1, 0), 3), ((1, 0), 4)] {
            for t in [&mut slots, &mut images, &mut pairs] {
                get(t, now, at, value);
            }
        }
        assert_eq!(release(&mut slots, None), [1, 3]);
        assert_eq!(release(&mut images, None), [1, 2]);
        assert_eq!(release(&mut pairs, None), [1, 2, 3]);
    }

    #[test]
    fn rebuilt_on_the_named_change_only() {
        // A new generation alone, a new extent, a new format, another swapchain object.
        let bgra = shape(4, 200, vk::Format::B8G8R8A8_UNORM);
        let changes = [
            shape(2, 100, RGBA),
            shape(3, 200, RGBA),
            bgra,
            Shape(2, 4, bgra.2, bgra.3),
        ];
        let slot = RenderTargets::per_slot;
        let cases = [
            (slot(Rebuild::OnSwapchain), [true, true, true, true]),
            (slot(Rebuild::OnExtent), [false, true, false, true]),
            (slot(Rebuild::OnExtentOrFormat), [false, true, true, true]),
            (RenderTargets::per_image(), [true; 4]),
            (RenderTargets::per_slot_and_image(), [true; 4]),
        ];
        for (case, (mut t, expected)) in cases.into_iter().enumerate() {
            let mut held = get(&mut t, shape(1, 100, RGBA), (0, 0), 0);
            for (change, (now, rebuilt)) in changes.into_iter().zip(expected).enumerate() {
                let got = get(&mut t, now, (0, 0), change as u32 + 1);
                assert_eq!(got != held, rebuilt, "case {case}, change {change}");
                held = got;
            }
        }
    }

    #[test]
    fn old_values_are_retired_until_their_token() {
        let mut t = RenderTargets::per_slot_and_image();
        get(&mut t, shape(1, 100, RGBA), (0, 0), 1);
        get(&mut t, shape(1, 100, RGBA), (1, 0), 2);
        get(&mut t, shape(2, 200, RGBA), (0, 0), 3); // retires 1 and 2 until 2
        get(&mut t, shape(3, 300, RGBA), (0, 1), 4); // retires 3 until 3
        assert_eq!(t.len(), 4, "retired, not dropped");
        assert_eq!(release(&mut t, Some(1)), []);
        assert_eq!(release(&mut t, Some(2)), [1, 2]);
        assert_eq!(release(&mut t, Some(3)), [3]);
        get(&mut t, shape(4, 400, RGBA), (0, 1), 5); // retires 4 until 4
        assert_eq!(release(&mut t, None), [4, 5]);
        assert!(t.is_empty());
        assert_eq!(get(&mut t, shape(4, 400, RGBA), (0, 1), 6), 6, "made anew");
    }

    #[test]
    fn a_failed_make_keeps_nothing() {
        let mut t = RenderTargets::<u32>::per_image();
        let (now, after) = (shape(1, 100, RGBA), SyncToken::new(9, 0));
        let failed = t.get_or_make_at(now, (0, 0), after, || Err("no memory"));
        assert_eq!(failed.err(), Some("no memory"));
        assert!(t.is_empty());
        assert_eq!(get(&mut t, now, (0, 0), 7), 7);
    }
}
