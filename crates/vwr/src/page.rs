//! One page of a [`crate::store::ChunkStore`]: the chunk slots of a block of up to 512 chunk
//! positions, held in one of two forms.
//!
//! - **Dense**: all 512 slots inline (about 56 KiB), one dependent load from the page table to
//!   a chunk: what pages of small worlds and well-filled pages use.
//! - **Few**: only the occupied slots, sorted by slot number, up to [`FEW_MAX`] of them: what a
//!   sparse page of a large world uses, so that a world whose edits are scattered over many
//!   pages (40,000 single-block edits over a 255³-chunk world touch nearly all of its 32,768
//!   pages) costs memory in proportion to its chunks, not to its pages. A Few page becomes
//!   Dense when it would hold more than [`FEW_MAX`] chunks.
//!
//! Few pages move their chunks when a slot is inserted, so the store uses them only where it
//! keeps no fast table (the fast table holds chunk addresses).

use crate::chunk::Chunk;

/// Slots in a page (the largest page: `2^PAGE_BITS`).
pub(crate) const PAGE_SLOTS: usize = 512;

/// Most chunks a Few page holds before it becomes Dense: 32 × ~114 bytes, a sixteenth of a
/// Dense page.
pub(crate) const FEW_MAX: usize = 32;

pub(crate) type Slot = Option<Chunk>;

#[derive(Clone, Debug)]
pub(crate) enum Page {
    /// Every slot, indexed by slot number.
    Dense(Box<[Slot; PAGE_SLOTS]>),
    /// The occupied slots (a slot lent mutably may hold `None` until the next clean-up),
    /// sorted by slot number. Boxed so that a page entry stays 16 bytes (a thin pointer in
    /// each variant): a directory of the page table holds 4096 entries.
    #[allow(clippy::box_collection)]
    Few(Box<Vec<(u16, Slot)>>),
}

impl Page {
    /// A new page: Few where `few` allows it, else Dense.
    pub(crate) fn new(few: bool) -> Page {
        if few {
            Page::Few(Box::default())
        } else {
            Page::dense()
        }
    }

    fn dense() -> Page {
        let mut v = Vec::with_capacity(PAGE_SLOTS);
        v.resize_with(PAGE_SLOTS, || None);
        match v.into_boxed_slice().try_into() {
            Ok(b) => Page::Dense(b),
            // The vector has exactly PAGE_SLOTS elements.
            Err(_) => unreachable!("a page has PAGE_SLOTS slots"),
        }
    }

    /// The chunk in `slot`, if any.
    #[inline]
    pub(crate) fn get(&self, slot: usize) -> Option<&Chunk> {
        match self {
            Page::Dense(s) => s.get(slot).and_then(Option::as_ref),
            Page::Few(v) => v
                .binary_search_by_key(&(slot as u16), |e| e.0)
                .ok()
                .and_then(|k| v[k].1.as_ref()),
        }
    }

    /// The slot `slot`, made if missing (a Few page that is full becomes Dense first).
    pub(crate) fn slot_mut(&mut self, slot: usize) -> &mut Slot {
        if let Page::Few(v) = self {
            if v.binary_search_by_key(&(slot as u16), |e| e.0).is_err() && v.len() >= FEW_MAX {
                let mut dense = Page::dense();
                if let Page::Dense(d) = &mut dense {
                    for (s, c) in v.drain(..) {
                        d[s as usize] = c;
                    }
                }
                *self = dense;
            }
        }
        match self {
            Page::Dense(s) => &mut s[slot],
            Page::Few(v) => {
                let k = match v.binary_search_by_key(&(slot as u16), |e| e.0) {
                    Ok(k) => k,
                    Err(k) => {
                        v.insert(k, (slot as u16, None));
                        k
                    }
                };
                &mut v[k].1
            }
        }
    }

    /// The slot `slot` if the page has it (a Few page has only its occupied slots).
    pub(crate) fn existing_mut(&mut self, slot: usize) -> Option<&mut Slot> {
        match self {
            Page::Dense(s) => s.get_mut(slot),
            Page::Few(v) => {
                let k = v.binary_search_by_key(&(slot as u16), |e| e.0).ok()?;
                Some(&mut v[k].1)
            }
        }
    }

    /// The chunks of slots `from..to`, in slot order (no allocation: the file-order walk
    /// of the store calls it for every stretch of every row).
    pub(crate) fn range(&self, from: usize, to: usize) -> impl Iterator<Item = (usize, &Chunk)> {
        let (dense, few): (&[Slot], &[(u16, Slot)]) = match self {
            Page::Dense(s) => (s.get(from..to.min(PAGE_SLOTS)).unwrap_or(&[]), &[]),
            Page::Few(v) => {
                let start = v.partition_point(|e| (e.0 as usize) < from);
                let end = v.partition_point(|e| (e.0 as usize) < to);
                (&[], v.get(start..end).unwrap_or(&[]))
            }
        };
        let dense = dense
            .iter()
            .enumerate()
            .filter_map(move |(i, c)| c.as_ref().map(|c| (from + i, c)));
        let few = few
            .iter()
            .filter_map(|(s, c)| c.as_ref().map(|c| (*s as usize, c)));
        dense.chain(few)
    }

    /// Every occupied slot with its number, mutably.
    pub(crate) fn chunks_mut(&mut self) -> Vec<(usize, &mut Chunk)> {
        match self {
            Page::Dense(s) => s
                .iter_mut()
                .enumerate()
                .filter_map(|(i, c)| c.as_mut().map(|c| (i, c)))
                .collect(),
            Page::Few(v) => v
                .iter_mut()
                .filter_map(|(s, c)| c.as_mut().map(|c| (*s as usize, c)))
                .collect(),
        }
    }

    /// Keeps the chunks for which `f` is true (a Few page also drops its empty slots); whether
    /// any chunk is left.
    pub(crate) fn retain(&mut self, mut f: impl FnMut(&mut Chunk) -> bool) -> bool {
        let keep = |slot: &mut Slot, f: &mut dyn FnMut(&mut Chunk) -> bool| {
            if let Some(c) = slot {
                if f(c) {
                    return true;
                }
                *slot = None;
            }
            false
        };
        match self {
            Page::Dense(s) => s.iter_mut().fold(false, |live, c| keep(c, &mut f) | live),
            Page::Few(v) => {
                v.retain_mut(|(_, c)| keep(c, &mut f));
                !v.is_empty()
            }
        }
    }

    /// Bytes this page holds outside its chunks' own heap data.
    #[cfg(test)]
    pub(crate) fn bytes(&self) -> usize {
        match self {
            Page::Dense(_) => PAGE_SLOTS * std::mem::size_of::<Slot>(),
            Page::Few(v) => v.capacity() * std::mem::size_of::<(u16, Slot)>(),
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::block::Block;

    fn chunk(v: u16) -> Chunk {
        let mut c = Chunk::new();
        c.set(0, Block::from_raw(v)).unwrap();
        c
    }

    #[test]
    fn few_pages_hold_their_chunks_in_slot_order_and_become_dense_when_full() {
        let mut p = Page::new(true);
        // Slots written out of order, more than FEW_MAX of them.
        let slots: Vec<usize> = (0..FEW_MAX + 5)
            .map(|k| (k * 97 + 13) % PAGE_SLOTS)
            .collect();
        for (k, &s) in slots.iter().enumerate() {
            assert!(
                matches!(p, Page::Few(_)) == (k <= FEW_MAX),
                "after {k} chunks"
            );
            *p.slot_mut(s) = Some(chunk(k as u16 + 1));
        }
        assert!(matches!(p, Page::Dense(_)));
        for (k, &s) in slots.iter().enumerate() {
            assert_eq!(p.get(s), Some(&chunk(k as u16 + 1)));
        }
        let mut sorted = slots.clone();
        sorted.sort_unstable();
        let got: Vec<usize> = p.range(0, PAGE_SLOTS).map(|e| e.0).collect();
        assert_eq!(got, sorted);
    }

    #[test]
    fn few_and_dense_pages_answer_alike() {
        let mut few = Page::new(true);
        let mut dense = Page::new(false);
        for s in [400usize, 3, 77, 78, 511, 0] {
            *few.slot_mut(s) = Some(chunk(s as u16 + 1));
            *dense.slot_mut(s) = Some(chunk(s as u16 + 1));
        }
        // A slot lent and left empty is not a chunk.
        let _ = few.slot_mut(200);
        for s in 0..PAGE_SLOTS {
            assert_eq!(few.get(s), dense.get(s), "slot {s}");
        }
        for (a, b) in [(0, 78), (70, 512), (78, 79), (401, 511)] {
            assert!(few.range(a, b).eq(dense.range(a, b)), "{a}..{b}");
        }
        assert!(few.existing_mut(200).is_some() && few.existing_mut(201).is_none());
        // Dropping all but the odd slots, then everything.
        let odd = |c: &mut Chunk| c.get(0).raw().is_multiple_of(2);
        assert!(few.retain(odd) && dense.retain(odd));
        let a: Vec<usize> = few.range(0, 512).map(|e| e.0).collect();
        let b: Vec<usize> = dense.range(0, 512).map(|e| e.0).collect();
        assert_eq!(a, [3, 77, 511]);
        assert_eq!(a, b);
        assert!(!few.retain(|_| false) && !dense.retain(|_| false));
        assert!(few.bytes() < dense.bytes() / 8);
    }
}
