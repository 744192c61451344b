// SPDX-License-Identifier: GPL-2.0

//! A small fixed-size batch, to carry work off a ring (no counterpart in `igc_main.c`, whose
//! ring walks hand each skb on from inside the walk).
//!
//! The poll holds a ring only while it walks the descriptors (the TX ring under its queue's
//! lock): received skbs go to GRO, and transmitted skbs are freed, after the walk, so the
//! network stack (and whatever it sends from the receive path) never runs inside the TX
//! queue's lock.

/// Up to `N` items, in the order they were pushed.
pub(crate) struct Batch<T, const N: usize> {
    items: [Option<T>; N],
    len: usize,
    limit: usize,
}

impl<T, const N: usize> Batch<T, N> {
    /// An empty batch.
    pub(crate) const fn new() -> Self {
        Self::with_limit(N)
    }

    /// An empty batch that takes at most `limit` items (and never more than `N`).
    pub(crate) const fn with_limit(limit: usize) -> Self {
        Self {
            items: [const { None }; N],
            len: 0,
            limit: if limit < N { limit } else { N },
        }
    }

    /// Whether no more items fit.
    pub(crate) fn is_full(&self) -> bool {
        self.len >= self.limit
    }

    /// The most items it takes.
    pub(crate) fn limit(&self) -> usize {
        self.limit
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
