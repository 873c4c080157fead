//! The greedy path: visible-face rows per slice, merged into rectangles of equal face key
//! (block and AO). [`Mesher::emit_rows`] also turns the transparent pass's rows into quads.

use super::{Face, MeshOptions, Mesher, Neighborhood, Quad, N, ROW};

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
        let [pos_x, neg_x, pos_y, neg_y, pos_z, neg_z] = &mut *self.vis;
        // ±Y and ±Z: every row of every slice written, branch-free (fixed trip counts, so
        // the compiler keeps whole rows of y in vector registers). ±Y: slice y, row z,
        // bits x. ±Z: slice z, row y, bits x.
        for z in 0..N {
            for y in 0..N {
                let rows = nb.opaque_face_rows(y, z);
                pos_y[y][z] = rows[2];
                neg_y[y][z] = rows[3];
                pos_z[z][y] = rows[4];
                neg_z[z][y] = rows[5];
            }
        }
        // ±X: the rows run along x here, so each visible face is scattered into slice x,
        // row z, bit y; rows with no opaque cell are skipped.
        *pos_x = [[0; N]; N];
        *neg_x = [[0; N]; N];
        for z in 0..N {
            // The layer's rows holding an opaque cell, all ten tested at once.
            let mut live = 0u16;
            for (y, &row) in nb.occ[z + 1][1..=N].iter().enumerate() {
                live |= ((row & (ROW << 1) != 0) as u16) << y;
            }
            while live != 0 {
                let y = live.trailing_zeros() as usize;
                live &= live - 1;
                let rows = nb.opaque_face_rows(y, z);
                for (mut bits, slices) in [(rows[0], &mut *pos_x), (rows[1], &mut *neg_x)] {
                    while bits != 0 {
                        let x = bits.trailing_zeros() as usize;
                        bits &= bits - 1;
                        slices[x][z] |= 1 << y;
                    }
                }
            }
        }
        // Per face, a bit per slice holding a visible face: each slice's ten rows tested as
        // one 16-byte and one 4-byte word instead of ten OR-ed loads.
        let mut nonempty = [0u16; 6];
        for (flags, slices) in nonempty.iter_mut().zip(self.vis.iter()) {
            for (s, rows) in slices.iter().enumerate() {
                *flags |= (any_row(rows) as u16) << s;
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
        match (opts.greedy, opts.ao) {
            (true, false) => self.emit_faces::<true, false>(nb, origin, nonempty, out),
            (true, true) => self.emit_faces::<true, true>(nb, origin, nonempty, out),
            (false, false) => self.emit_faces::<false, false>(nb, origin, nonempty, out),
            (false, true) => self.emit_faces::<false, true>(nb, origin, nonempty, out),
        }
    }

    /// [`Mesher::emit_rows`] with the options as constants, face by face.
    fn emit_faces<const G: bool, const AO: bool>(
        &mut self,
        nb: &Neighborhood,
        origin: [i32; 3],
        nonempty: [u16; 6],
        out: &mut Vec<Quad>,
    ) {
        self.emit_face::<0, G, AO>(nb, origin, nonempty[0], out);
        self.emit_face::<1, G, AO>(nb, origin, nonempty[1], out);
        self.emit_face::<2, G, AO>(nb, origin, nonempty[2], out);
        self.emit_face::<3, G, AO>(nb, origin, nonempty[3], out);
        self.emit_face::<4, G, AO>(nb, origin, nonempty[4], out);
        self.emit_face::<5, G, AO>(nb, origin, nonempty[5], out);
    }

    /// The quads of face `F`'s slices flagged in `nonempty`: the keys of the visible faces
    /// read once, then rectangles (greedy) or unit quads, in the order of their first cell.
    #[inline(never)]
    fn emit_face<const F: usize, const G: bool, const AO: bool>(
        &mut self,
        nb: &Neighborhood,
        origin: [i32; 3],
        nonempty: u16,
        out: &mut Vec<Quad>,
    ) {
        let face = Face::ALL[F];
        // Y and Z faces merge column-first (on the transposed slice), X faces row-first:
        // rectangles grow along X first on Y faces, along Y first on Z faces and along Z
        // first on X faces, which on the benchmark worlds gives no more quads than either
        // peer library.
        let transposed = F >= 2 && G;
        let mut todo = nonempty;
        while todo != 0 {
            let s = todo.trailing_zeros() as usize;
            todo &= todo - 1;
            let rows = self.vis[F][s];
            // The rows holding a face, all ten tested at once (a fixed trip count); only
            // those rows are visited below.
            let mut live = 0u16;
            for (q, &row) in rows.iter().enumerate() {
                live |= ((row != 0) as u16) << q;
            }
            if live == 0 {
                continue;
            }
            let q0 = live.trailing_zeros() as usize;
            let key_at = |q: usize, b: usize| key_of::<F, AO>(nb, s, q, b);
            // Without AO and with one opaque block value, every key is that value: only the
            // transposed mask is needed, no key is read.
            let same_keys = !AO && nb.opaque_value.is_some();
            // Every visible face's key, and which faces hold the same key as the one before
            // them along the merge's bits (`eq_l`) and rows (`eq_u`), in the merge's own
            // coordinates (transposed on Y and Z faces). A neighbour that is not visible in
            // this slice left a stale key behind; its bit is never read, since the merge only
            // compares cells that are both in the rectangle it grows.
            let b0 = rows[q0].trailing_zeros() as usize;
            let first = key_at(q0, b0);
            // One face (one row holding one bit: told by the bits, not counted, as this
            // target has no popcount instruction): its quad straight away, no key read twice.
            if live & (live - 1) == 0 && rows[q0] & (rows[q0] - 1) == 0 {
                let (x, y, z) = local_of(F, s, q0, b0);
                out.push(Quad::from_key(origin, [x, y, z], face, [1, 1], first));
                continue;
            }
            // The union of the rows (the transposed slice's rows holding a face).
            let mut union = 0u16;
            let mut tmask = [0u16; N];
            let (mut eq_l, mut eq_u) = ([0u16; N], [0u16; N]);
            let mut diff = 0u32;
            let mut rest = live;
            while rest != 0 {
                let q = rest.trailing_zeros() as usize;
                rest &= rest - 1;
                let row = rows[q];
                let mut bits = row;
                union |= row;
                if same_keys {
                    while transposed && bits != 0 {
                        tmask[bits.trailing_zeros() as usize] |= 1 << q;
                        bits &= bits - 1;
                    }
                    continue;
                }
                // On Y and Z faces the row runs along x: a row of the chunk's storage, whose
                // keys are read together.
                let row_keys = (F >= 2 && bits != 0).then(|| match F {
                    2 | 3 => nb.row_keys(face, s, q, AO),
                    _ => nb.row_keys(face, q, s, AO),
                });
                while bits != 0 {
                    let b = bits.trailing_zeros() as usize;
                    bits &= bits - 1;
                    let k = match &row_keys {
                        Some(r) => r.key(b),
                        None => key_at(q, b),
                    };
                    diff |= k ^ first;
                    // The keys of the previous bit and row (stale at bit or row 0).
                    let (pb, pq) = (b.saturating_sub(1), q.saturating_sub(1));
                    // The transposed slice's keys are stored transposed straight away: there
                    // the previous row is the merge's previous bit and the other way round.
                    if transposed {
                        let (along, across) = (self.keys[b][pq] == k, self.keys[pb][q] == k);
                        self.keys[b][q] = k;
                        tmask[b] |= 1 << q;
                        eq_l[b] |= (along as u16) << q;
                        eq_u[b] |= (across as u16) << q;
                    } else {
                        let (along, across) = (self.keys[q][pb] == k, self.keys[pq][b] == k);
                        self.keys[q][b] = k;
                        eq_l[q] |= (along as u16) << b;
                        eq_u[q] |= (across as u16) << b;
                    }
                }
            }
            // A rectangle (bit, row, width, height, key) of this slice, in the rows' own
            // coordinates, as a quad.
            let mut emit = |b: usize, q: usize, w: usize, h: usize, k: u32| {
                let (x, y, z) = local_of(F, s, q, b);
                out.push(Quad::from_key(
                    origin,
                    [x, y, z],
                    face,
                    [w as u8, h as u8],
                    k,
                ));
            };
            if !G {
                let mut rest = live;
                while rest != 0 {
                    let q = rest.trailing_zeros() as usize;
                    rest &= rest - 1;
                    let mut bits = rows[q];
                    while bits != 0 {
                        let b = bits.trailing_zeros() as usize;
                        bits &= bits - 1;
                        let k = if same_keys {
                            first
                        } else if transposed {
                            self.keys[b][q]
                        } else {
                            self.keys[q][b]
                        };
                        emit(b, q, 1, 1, k);
                    }
                }
            } else {
                // One key throughout: every face is keyed like its neighbours.
                let one_key = same_keys || diff == 0;
                let keys = &self.keys;
                let key = |q: usize, b: usize| keys[q][b];
                let first = |_: usize, _: usize| first;
                // Rectangles of the transposed slice: swap back bit and row, width and height.
                let mut emit_t = |b, q, w, h, k| emit(q, b, h, w, k);
                match (transposed, one_key) {
                    (true, true) => {
                        merge(&tmask, union, &ALL_EQUAL, &ALL_EQUAL, first, &mut emit_t)
                    }
                    (true, false) => merge(&tmask, union, &eq_l, &eq_u, key, &mut emit_t),
                    (false, true) => merge(&rows, live, &ALL_EQUAL, &ALL_EQUAL, first, &mut emit),
                    (false, false) => merge(&rows, live, &eq_l, &eq_u, key, &mut emit),
                }
            }
        }
    }
}

/// The key masks of a slice whose faces all hold one key.
const ALL_EQUAL: [u16; N] = [u16::MAX; N];

/// Whether any of a slice's rows is not zero.
#[inline(always)]
fn any_row(rows: &[u16; N]) -> bool {
    use zerocopy::IntoBytes;
    let bytes = rows.as_bytes();
    let (Some(lo), Some(hi)) = (bytes.first_chunk::<16>(), bytes.last_chunk::<4>()) else {
        return rows.iter().any(|&r| r != 0);
    };
    u128::from_ne_bytes(*lo) | u32::from_ne_bytes(*hi) as u128 != 0
}

/// The face key of bit `b` of row `q` of slice `s` of face `F`.
#[inline(always)]
fn key_of<const F: usize, const AO: bool>(nb: &Neighborhood, s: usize, q: usize, b: usize) -> u32 {
    let (x, y, z) = local_of(F, s, q, b);
    let face = Face::ALL[F];
    match nb.opaque_value {
        Some(v) => nb.face_key_of(v, face, x, y, z, AO),
        None => nb.face_key(face, x, y, z, AO),
    }
}

/// Greedy rectangles of `rows` (`live`: bit `q` set where row `q` holds a face): the widest
/// run along the first row holding a face, of faces that each hold the key of the one before
/// (`eq_l` bit `b`: the face at bit `b` has the key of bit `b − 1`), then as many rows down
/// as hold that run with each face keyed like the one above it (`eq_u`). Equal keys chain, so
/// every rectangle is one key; rows are taken in order, each from its lowest bit.
#[inline]
fn merge(
    rows: &[u16; N],
    mut live: u16,
    eq_l: &[u16; N],
    eq_u: &[u16; N],
    key: impl Fn(usize, usize) -> u32,
    emit: &mut impl FnMut(usize, usize, usize, usize, u32),
) {
    let mut mask = *rows;
    while live != 0 {
        let q = live.trailing_zeros() as usize;
        let row = mask[q];
        let b = row.trailing_zeros();
        // Bit j of the run: the face at b + j is there and keyed like the one before it.
        let w = (!((row >> b) & ((eq_l[q] >> b) | 1))).trailing_zeros();
        let span: u16 = (((1u32 << w) - 1) << b) as u16;
        let mut h = 1;
        while q + h < N && mask[q + h] & eq_u[q + h] & span == span {
            h += 1;
        }
        for (j, m) in mask[q..q + h].iter_mut().enumerate() {
            *m &= !span;
            live &= !(((*m == 0) as u16) << (q + j));
        }
        emit(b as usize, q, w as usize, h, key(q, b as usize));
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn any_row_sees_every_row() {
        assert!(!any_row(&[0; N]));
        for q in 0..N {
            for bit in [0, 9, 15] {
                let mut rows = [0u16; N];
                rows[q] = 1 << bit;
                assert!(any_row(&rows), "row {q} bit {bit}");
            }
        }
    }
}
