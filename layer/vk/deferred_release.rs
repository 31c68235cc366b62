//! The renderer's own objects kept until the GPU is done with them: each with the completion
//! token after which nothing uses it, handed back once that token is reached. This is how a
//! renderer retires framebuffers, depth images or anything sized to the swapchain when it
//! changes, without idling the device.

use std::collections::VecDeque;

use super::token_set::TokenSet;

/// Objects waiting for their completion tokens, oldest first.
///
/// Tokens of one stream are reached in order, so only the oldest entry is ever tested: releasing
/// costs one test per call plus one per object handed back. An entry pushed with an older token
/// (or one of another stream) than the one before it is released no earlier than that one
/// (late, never early).
///
/// ```
/// use vkpace::{DeferredRelease, SyncToken, TokenSet};
///
/// let mut framebuffers: DeferredRelease<u32> = DeferredRelease::new();
/// # let token_after_last_use = SyncToken::new(1, 0);
/// framebuffers.defer(token_after_last_use, 7);
/// // Each frame: hand back what the GPU finished with (here: the "nothing submitted" token,
/// // reached at once). With a swapchain, `reached` is `|t| swapchain.completed(t)`.
/// let mut destroyed = Vec::new();
/// framebuffers.release_reached(|t: TokenSet| Ok::<_, ()>(t.tokens().all(|t| t.is_none())), |fb| {
///     destroyed.push(fb)
/// })?;
/// assert_eq!(destroyed, [7]);
/// # Ok::<(), ()>(())
/// ```
#[derive(Debug)]
pub struct DeferredRelease<T> {
    pending: VecDeque<(TokenSet, T)>,
}

impl<T> Default for DeferredRelease<T> {
    fn default() -> Self {
        Self::new()
    }
}

impl<T> DeferredRelease<T> {
    /// An empty list.
    #[must_use]
    pub fn new() -> Self {
        Self {
            pending: VecDeque::new(),
        }
    }

    /// Keeps `item` until `after` (a token or a merged set) is reached.
    pub fn defer(&mut self, after: impl Into<TokenSet>, item: T) {
        self.pending.push_back((after.into(), item));
    }

    /// Objects still waiting.
    #[must_use]
    pub fn len(&self) -> usize {
        self.pending.len()
    }

    /// Whether nothing is waiting.
    #[must_use]
    pub fn is_empty(&self) -> bool {
        self.pending.is_empty()
    }

    /// Hands every object whose token `reached` reports reached to `release`, oldest first,
    /// stopping at the first that is not; returns how many were handed back. An error of
    /// `reached` stops the walk and keeps that object.
    pub fn release_reached<E>(
        &mut self,
        mut reached: impl FnMut(TokenSet) -> Result<bool, E>,
        mut release: impl FnMut(T),
    ) -> Result<usize, E> {
        let mut released = 0;
        while let Some(&(token, _)) = self.pending.front() {
            if !reached(token)? {
                break;
            }
            if let Some((_, item)) = self.pending.pop_front() {
                release(item);
                released += 1;
            }
        }
        Ok(released)
    }

    /// Hands back everything regardless of tokens: only once the GPU is known idle (after the
    /// swapchain's teardown, or a wait for its last token).
    pub fn release_all(&mut self, release: impl FnMut(T)) {
        self.pending
            .drain(..)
            .map(|(_, item)| item)
            .for_each(release);
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use vkpace_core::SyncToken;

    #[test]
    fn releases_in_order_and_stops_at_the_first_unreached() {
        let mut list = DeferredRelease::new();
        for v in [1, 2, 3, 5] {
            list.defer(SyncToken::new(9, v), v);
        }
        let mut out = Vec::new();
        let n = list
            .release_reached(
                |t: TokenSet| Ok::<_, ()>(t.tokens().all(|t| t.value() <= 3)),
                |v| out.push(v),
            )
            .unwrap();
        assert_eq!((n, out.as_slice(), list.len()), (3, &[1, 2, 3][..], 1));
    }

    #[test]
    fn an_error_keeps_the_object() {
        let mut list = DeferredRelease::new();
        list.defer(SyncToken::new(9, 1), 'a');
        assert_eq!(list.release_reached(|_| Err("lost"), |_| {}), Err("lost"));
        assert_eq!(list.len(), 1);
        let mut out = Vec::new();
        list.release_all(|c| out.push(c));
        assert!(out == ['a'] && list.is_empty());
    }
}
