// SPDX-License-Identifier: GPL-2.0

//! A small fixed-size batch, to carry work off a ring (no counterpart in `igc_main.c`, whose
//! TX clean frees each skb from inside the walk).
//!
//! The poll walks the TX ring under its queue's lock: transmitted skbs are unmapped into a
//! batch and freed after the walk, so nothing the stack does when an skb is freed runs inside
//! the TX queue's lock.

use core::mem::ManuallyDrop;

/// Up to `N` items, in the order they were pushed.
pub(crate) struct Batch<T, const N: usize> {
    /// `items[..filled]` may hold items, the rest are `None`. Out of the compiler's drop glue,
    /// which would visit all `N` slots every time a batch goes (a loop over all of them per poll
    /// pass): `Drop` visits the slots ever filled.
    items: ManuallyDrop<[Option<T>; N]>,
    len: usize,
    /// The most items the batch has held.
    filled: usize,
}

impl<T, const N: usize> Batch<T, N> {
    /// An empty batch.
    pub(crate) const fn new() -> Self {
        Self {
            items: ManuallyDrop::new([const { None }; N]),
            len: 0,
            filled: 0,
        }
    }

    /// Whether no more items fit.
    pub(crate) fn is_full(&self) -> bool {
        self.len >= N
    }

    /// The number of items.
    pub(crate) fn len(&self) -> usize {
        self.len
    }

    /// Adds `item`; gives it back if the batch is full.
    pub(crate) fn push(&mut self, item: T) -> Result<(), T> {
        if self.is_full() {
            return Err(item);
        }
        match self.items.get_mut(self.len) {
            Some(slot) => {
                *slot = Some(item);
                self.len += 1;
                self.filled = self.filled.max(self.len);
                Ok(())
            }
            None => Err(item),
        }
    }

    /// Takes every item out, in order.
    pub(crate) fn drain(&mut self) -> impl Iterator<Item = T> + '_ {
        let n = core::mem::take(&mut self.len);
        self.items.iter_mut().take(n).filter_map(Option::take)
    }
}

impl<T, const N: usize> Drop for Batch<T, N> {
    fn drop(&mut self) {
        // Whatever a drain left behind (an iterator dropped early) is dropped here.
        for item in self.items.iter_mut().take(self.filled) {
            drop(item.take());
        }
    }
}

#[cfg(CONFIG_RIGC_KUNIT_TEST)]
#[kernel::prelude::kunit_tests(rigc_batch)]
mod tests {
    use super::Batch;
    use kernel::sync::atomic::{Atomic, Relaxed};

    static DROPPED: Atomic<u32> = Atomic::new(0);

    struct Counted;

    impl Drop for Counted {
        fn drop(&mut self) {
            DROPPED.fetch_add(1, Relaxed);
        }
    }

    #[test]
    fn drops_every_item_once() {
        DROPPED.store(0, Relaxed);
        let mut b = Batch::<Counted, 8>::new();
        for _ in 0..3 {
            assert!(b.push(Counted).is_ok());
        }
        // A drain that takes one item and stops: two stay in the batch.
        drop(b.drain().next());
        assert_eq!(DROPPED.load(Relaxed), 1);
        assert!(b.push(Counted).is_ok());
        drop(b);
        assert_eq!(DROPPED.load(Relaxed), 4);
    }
}
