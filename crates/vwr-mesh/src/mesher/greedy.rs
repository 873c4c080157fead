//! The greedy path: visible-face rows per slice, merged into rectangles of equal face key
//! (block and AO). [`Mesher::emit_rows`] also turns the transparent pass's rows into quads.

use super::{Face, MeshOptions, Mesher, Neighborhood, Quad, N};

/// Visible-face rows of one pass: `[face][slice][row]`, bit = position along the row.
pub(super) type FaceRows = [[[u16; N]; N]; 6];

/// Local (x, y, z) of bit `b` in row `q` of slice `s` of face `f`.
#[inline(always)]
fn local_of(face: usize, s: usize, q: usize, b: usize) -> (usize, usize, usize) {
    match face {
        0 | 1 => (s, b, q),
        2 | 3 => (b, s, q),
        _ => (b, q, s),
    }
}

/// Slice, row and bit of local cell (x, y, z) in the rows of `face`: the inverse of
/// [`local_of`].
#[inline(always)]
pub(super) fn slot_of(face: Face, x: usize, y: usize, z: usize) -> (usize, usize, usize) {
    match face.axis() {
        0 => (x, z, y),
        1 => (y, z, x),
        _ => (z, y, x),
    }
}

impl Mesher {
    /// Greedy rectangles of the visible opaque faces.
    pub(super) fn greedy_opaque_quads(
        &mut self,
        nb: &Neighborhood,
        origin: [i32; 3],
        opts: MeshOptions,
        out: &mut Vec<Quad>,
    ) {
        // Every row of the ±Y and ±Z slices is written below; ±X rows are scattered bit by bit.
        let [pos_x, neg_x, pos_y, neg_y, pos_z, neg_z] = &mut *self.vis;
        *pos_x = [[0; N]; N];
        *neg_x = [[0; N]; N];
        // Per face, a bit per slice holding a visible face.
        let mut nonempty = [0u16; 6];
        for (z, (pz, nz)) in pos_z.iter_mut().zip(neg_z.iter_mut()).enumerate() {
            for y in 0..N {
                let rows = nb.opaque_face_rows(y, z);
                // ±Y: slice y, row z, bits x. ±Z: slice z, row y, bits x.
                pos_y[y][z] = rows[2];
                neg_y[y][z] = rows[3];
                pz[y] = rows[4];
                nz[y] = rows[5];
                nonempty[2] |= ((rows[2] != 0) as u16) << y;
                nonempty[3] |= ((rows[3] != 0) as u16) << y;
                nonempty[4] |= ((rows[4] != 0) as u16) << z;
                nonempty[5] |= ((rows[5] != 0) as u16) << z;
                // ±X: the row runs along x here, so scatter it into slice x, row z, bit y.
                for (f, slices) in [(0, &mut *pos_x), (1, &mut *neg_x)] {
                    let mut bits = rows[f];
                    nonempty[f] |= bits;
                    while bits != 0 {
                        let x = bits.trailing_zeros() as usize;
                        bits &= bits - 1;
                        slices[x][z] |= 1 << y;
                    }
                }
            }
        }
        if nonempty.iter().any(|&m| m != 0) {
            self.emit_rows(nb, origin, opts, nonempty, out);
        }
    }

    /// Emits the quads of the visible-face rows in `self.vis` (merged when `opts.greedy`),
    /// visiting only the slices flagged in `nonempty`.
    pub(super) fn emit_rows(
        &mut self,
        nb: &Neighborhood,
        origin: [i32; 3],
        opts: MeshOptions,
        nonempty: [u16; 6],
        out: &mut Vec<Quad>,
    ) {
        let keys = &mut self.keys;
        for (f, slices) in self.vis.iter().enumerate() {
            let face = Face::ALL[f];
            let mut todo = nonempty[f];
            while todo != 0 {
                let s = todo.trailing_zeros() as usize;
                todo &= todo - 1;
                let rows = &slices[s];
                if rows.iter().all(|&r| r == 0) {
                    continue;
                }
                // Y and Z faces merge column-first (on the transposed slice), X faces
                // row-first: rectangles grow along X first on Y faces, along Y first on Z
                // faces and along Z first on X faces, which on the benchmark worlds gives
                // no more quads than either peer library.
                let transposed = f >= 2 && opts.greedy;
                let mut tmask = [0u16; N];
                let mut count = 0u32;
                let mut first = None;
                let mut uniform = true;
                for (q, &row) in rows.iter().enumerate() {
                    let mut bits = row;
                    count += row.count_ones();
                    while bits != 0 {
                        let b = bits.trailing_zeros() as usize;
                        bits &= bits - 1;
                        let (x, y, z) = local_of(f, s, q, b);
                        let k = nb.face_key(face, x, y, z, opts.ao);
                        if transposed {
                            tmask[b] |= 1 << q;
                            self.tkeys[b][q] = k;
                        } else {
                            keys[q][b] = k;
                        }
                        match first {
                            None => first = Some(k),
                            Some(f) => uniform &= f == k,
                        }
                    }
                }
                if !opts.greedy || count == 1 {
                    for (q, &row) in rows.iter().enumerate() {
                        let mut bits = row;
                        while bits != 0 {
                            let b = bits.trailing_zeros() as usize;
                            bits &= bits - 1;
                            let k = if transposed {
                                self.tkeys[b][q]
                            } else {
                                keys[q][b]
                            };
                            self.rects.push((b as u8, q as u8, 1, 1, k));
                        }
                    }
                } else if transposed {
                    merge_rows(&tmask, &self.tkeys, uniform, &mut self.rects2);
                    self.rects
                        .extend(self.rects2.iter().map(|&(b, q, w, h, k)| (q, b, h, w, k)));
                } else {
                    merge_rows(rows, keys, uniform, &mut self.rects);
                }
                for &(b, q, w, h, k) in &self.rects {
                    let (x, y, z) = local_of(f, s, q as usize, b as usize);
                    out.push(Quad::from_key(origin, [x, y, z], face, [w, h], k));
                }
                self.rects.clear();
            }
        }
    }
}

/// Greedy rectangles: widest run along the row, then as many rows down as match. With
/// `uniform` (every key of the slice equal) only the bit masks are compared.
#[inline]
fn merge_rows(
    rows: &[u16; N],
    keys: &[[u32; N]; N],
    uniform: bool,
    out: &mut Vec<(u8, u8, u8, u8, u32)>,
) {
    out.clear();
    let mut mask = *rows;
    let mut live = 0u16;
    for (q, &m) in mask.iter().enumerate() {
        live |= ((m != 0) as u16) << q;
    }
    while live != 0 {
        let q = live.trailing_zeros() as usize;
        let row = mask[q];
        let b = row.trailing_zeros() as usize;
        let k = keys[q][b];
        let run = (!(row >> b)).trailing_zeros() as usize;
        let w = if uniform {
            run
        } else {
            let kr = &keys[q][b..b + run];
            kr.iter().position(|&kk| kk != k).unwrap_or(run)
        };
        let span: u16 = (((1u32 << w) - 1) << b) as u16;
        let mut h = 1;
        while q + h < N && mask[q + h] & span == span {
            if !uniform && keys[q + h][b..b + w].iter().any(|&kk| kk != k) {
                break;
            }
            h += 1;
        }
        for (j, m) in mask[q..q + h].iter_mut().enumerate() {
            *m &= !span;
            if *m == 0 {
                live &= !(1 << (q + j));
            }
        }
        out.push((b as u8, q as u8, w as u8, h as u8, k));
    }
}
