//! The page table of a [`crate::store::ChunkStore`]: its pages by number, in two levels so
//! that memory follows the pages a world uses, not its nominal size.
//!
//! Pages are grouped in directories of [`DIR_PAGES`] entries, each allocated on the first
//! write to one of its pages and freed when its last page goes. A world pays 16 bytes per
//! directory it could have (32 KiB for the largest world, 65535 × 1 × 65535 chunks in
//! 8.4 million pages) plus 16 bytes per entry of the directories it writes to, instead of
//! 16 bytes for every page it could have (134 MB for the largest world, empty). A lookup is
//! one more dependent load (the directory) than a flat table's.

use crate::page::Page;

/// log2 of the pages in a directory.
const DIR_BITS: u32 = 12;
/// Pages in a directory (the last one of a table may have fewer).
pub(crate) const DIR_PAGES: usize = 1 << DIR_BITS;

type Dir = Box<[Option<Page>]>;

#[derive(Clone, Debug, Default)]
pub(crate) struct PageTable {
    /// Pages in the table.
    len: usize,
    dirs: Vec<Option<Dir>>,
}

impl PageTable {
    /// A table of `len` absent pages.
    pub(crate) fn new(len: usize) -> PageTable {
        let mut dirs = Vec::new();
        dirs.resize_with(len.div_ceil(DIR_PAGES), || None);
        PageTable { len, dirs }
    }

    /// Page `i`, if it exists.
    #[inline]
    pub(crate) fn get(&self, i: usize) -> Option<&Page> {
        let dir = self.dirs.get(i >> DIR_BITS)?.as_ref()?;
        dir.get(i & (DIR_PAGES - 1))?.as_ref()
    }

    /// Page `i`, if it exists, mutably.
    pub(crate) fn get_mut(&mut self, i: usize) -> Option<&mut Page> {
        let dir = self.dirs.get_mut(i >> DIR_BITS)?.as_mut()?;
        dir.get_mut(i & (DIR_PAGES - 1))?.as_mut()
    }

    /// Page `i` (below the table's length), made by `new` if it does not exist.
    pub(crate) fn get_or_insert_with(&mut self, i: usize, new: impl FnOnce() -> Page) -> &mut Page {
        let d = i >> DIR_BITS;
        let dir_len = (self.len - (d << DIR_BITS)).min(DIR_PAGES);
        let dir = self.dirs[d].get_or_insert_with(|| {
            let mut v = Vec::with_capacity(dir_len);
            v.resize_with(dir_len, || None);
            v.into_boxed_slice()
        });
        dir[i & (DIR_PAGES - 1)].get_or_insert_with(new)
    }

    /// The existing pages numbered `from..to`, with their numbers, in order: a directory
    /// never written to costs one look.
    pub(crate) fn range(&self, from: usize, to: usize) -> impl Iterator<Item = (usize, &Page)> {
        let to = to.min(self.len);
        let dirs = from >> DIR_BITS..to.div_ceil(DIR_PAGES);
        dirs.filter_map(move |d| Some((d, self.dirs.get(d)?.as_ref()?)))
            .flat_map(move |(d, dir)| {
                let base = d << DIR_BITS;
                let lo = from.max(base) - base;
                let hi = to.min(base + dir.len()) - base;
                let pages = dir.get(lo..hi).unwrap_or(&[]);
                (base + lo..).zip(pages)
            })
            .filter_map(|(i, p)| Some((i, p.as_ref()?)))
    }

    /// Every existing page with its number, mutably, in order.
    pub(crate) fn iter_mut(&mut self) -> impl Iterator<Item = (usize, &mut Page)> {
        self.dirs
            .iter_mut()
            .enumerate()
            .filter_map(|(d, dir)| Some((d << DIR_BITS, dir.as_mut()?)))
            .flat_map(|(base, dir)| (base..).zip(dir.iter_mut()))
            .filter_map(|(i, p)| Some((i, p.as_mut()?)))
    }

    /// Keeps the pages for which `keep` is true, freeing the others and the directories left
    /// with none.
    pub(crate) fn retain(&mut self, mut keep: impl FnMut(&mut Page) -> bool) {
        for slot in &mut self.dirs {
            let Some(dir) = slot else { continue };
            let mut any = false;
            for page in dir.iter_mut() {
                if !page.as_mut().is_some_and(&mut keep) {
                    *page = None;
                }
                any |= page.is_some();
            }
            if !any {
                *slot = None;
            }
        }
    }

    /// Bytes held by the table and its pages (not the chunks themselves).
    #[cfg(test)]
    pub(crate) fn bytes(&self) -> usize {
        let entry = std::mem::size_of::<Option<Page>>();
        let dirs = self.dirs.iter().flatten();
        self.dirs.len() * std::mem::size_of::<Option<Dir>>()
            + dirs.map(|d| d.len() * entry).sum::<usize>()
            + self
                .range(0, self.len)
                .map(|(_, p)| p.bytes())
                .sum::<usize>()
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn pages_are_found_listed_and_freed_by_number() {
        let len = 3 * DIR_PAGES + 5;
        let mut t = PageTable::new(len);
        let empty = t.bytes();
        assert!(empty <= 4 * 16, "{empty} bytes for an empty table");
        let numbers = [len - 1, 0, DIR_PAGES + 7, DIR_PAGES - 1, 3 * DIR_PAGES];
        for &i in &numbers {
            t.get_or_insert_with(i, || Page::new(true));
        }
        let mut sorted = numbers.to_vec();
        sorted.sort();
        let listed: Vec<usize> = t.range(0, len).map(|(i, _)| i).collect();
        assert_eq!(listed, sorted);
        let some: Vec<usize> = t.range(5, DIR_PAGES + 8).map(|(i, _)| i).collect();
        assert_eq!(some, vec![DIR_PAGES - 1, DIR_PAGES + 7]);
        assert!(t.range(DIR_PAGES + 8, 3 * DIR_PAGES).next().is_none());
        let walked: Vec<usize> = t.iter_mut().map(|(i, _)| i).collect();
        assert_eq!(walked, sorted);
        assert!(t.get(1).is_none() && t.get(len).is_none() && t.get(len - 1).is_some());
        assert!(t.get_mut(DIR_PAGES + 7).is_some());
        // Three directories of pages and the last, short one (5 pages) are allocated.
        let entry = std::mem::size_of::<Option<Page>>();
        assert!(t.bytes() >= empty + (2 * DIR_PAGES + 5) * entry);
        // Dropping every page but the first frees the directories left empty.
        let mut seen = 0;
        t.retain(|_| {
            seen += 1;
            seen == 1
        });
        let left: Vec<usize> = t.range(0, len).map(|(i, _)| i).collect();
        assert_eq!(left, vec![0]);
        let first_dir = DIR_PAGES * entry + Page::new(true).bytes();
        assert_eq!(t.bytes(), empty + first_dir);
        t.retain(|_| false);
        assert_eq!(t.bytes(), empty);
    }
}
