//! Short vectors used as queues on the frame path (a few fences, a few present records).

/// Removes the first element of a short vector, keeping the order of the rest. Swaps rather
/// than `Vec::remove`, whose `memmove` is a call into libc: code on a page of its own that
/// every frame would fetch (see `vk::Swapchain`'s layout note). Linear, so for vectors of a
/// few elements only. Does nothing on an empty vector.
#[inline(always)]
pub(crate) fn remove_first<T>(v: &mut Vec<T>) {
    for i in 1..v.len() {
        v.swap(i - 1, i);
    }
    v.pop();
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn removes_the_first_and_keeps_the_order() {
        let mut v = vec![1, 2, 3, 4];
        remove_first(&mut v);
        assert_eq!(v, [2, 3, 4]);
        remove_first(&mut v);
        remove_first(&mut v);
        assert_eq!(v, [4]);
        remove_first(&mut v);
        assert!(v.is_empty());
        remove_first(&mut v);
        assert!(v.is_empty());
    }
}
