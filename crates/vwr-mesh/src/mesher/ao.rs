//! Ambient occlusion: per-corner light of a face from the opaque cells in front of it.

use super::{N, PAD};

const fn ao_bit(n: usize, du: i32, dv: i32) -> u8 {
    ((n >> ((du + 1) + 3 * (dv + 1))) & 1) as u8
}

/// AO of the four corners from a 3×3 occupancy pattern of the cells in front of a face
/// (bit `(du+1) + 3(dv+1)`), packed 2 bits per corner in corner order.
const AO_TABLE: [u8; 512] = {
    let mut t = [0u8; 512];
    let mut n = 0;
    while n < 512 {
        let corners = [(-1, -1), (1, -1), (1, 1), (-1, 1)];
        let mut packed = 0u8;
        let mut k = 0;
        while k < 4 {
            let (du, dv) = corners[k];
            let s1 = ao_bit(n, du, 0);
            let s2 = ao_bit(n, 0, dv);
            let c = ao_bit(n, du, dv);
            let ao = if s1 == 1 && s2 == 1 {
                0
            } else {
                3 - s1 - s2 - c
            };
            packed |= ao << (2 * k);
            k += 1;
        }
        t[n] = packed;
        n += 1;
    }
    t
};

/// Packed AO with every corner open.
pub(super) const AO_OPEN: u8 = 0xFF;

/// The four corners of every packed AO byte: one load per quad instead of four field
/// extractions.
const UNPACKED: [[u8; 4]; 256] = {
    let mut t = [[0u8; 4]; 256];
    let mut p = 0;
    while p < 256 {
        let b = p as u8;
        t[p] = [b & 3, (b >> 2) & 3, (b >> 4) & 3, (b >> 6) & 3];
        p += 1;
    }
    t
};

/// The four corner values (0..=3) of a packed AO byte, corner 0 in the low bits.
#[inline(always)]
pub(super) fn unpack_ao(p: u8) -> [u8; 4] {
    UNPACKED[p as usize]
}

/// The three occupancy rows of the plane in front of a ±Y or ±Z face (`face` 2..=5) of the
/// cells of local row (y, z) (0..10 each), side by side 16 bits apart in the order
/// dv = −1, 0, 1: every face of that row reads its AO window from this one word
/// ([`front_ao`]).
#[inline(always)]
pub(super) fn front_rows(occ: &[[u16; PAD]; PAD], face: usize, y: usize, z: usize) -> u64 {
    let (y, z) = (y.min(N - 1), z.min(N - 1));
    let [a, b, c] = match face {
        2 | 3 => {
            let yp = if face == 2 { y + 2 } else { y };
            [occ[z][yp], occ[z + 1][yp], occ[z + 2][yp]]
        }
        _ => {
            let zp = if face == 4 { z + 2 } else { z };
            [occ[zp][y], occ[zp][y + 1], occ[zp][y + 2]]
        }
    };
    a as u64 | (b as u64) << 16 | (c as u64) << 32
}

/// Packed AO of the face of cell `x` (0..10) of a row, from the row's [`front_rows`]: the
/// three 3-bit windows at x, moved next to each other by one multiply (the partial products
/// land on distinct bits, so nothing carries into bits 32..41).
#[inline(always)]
pub(super) fn front_ao(front: u64, x: usize) -> u8 {
    let t = (front >> x) & 0x0007_0007_0007;
    let n9 = (t.wrapping_mul((1 << 32) | (1 << 19) | (1 << 6)) >> 32) & 511;
    AO_TABLE[n9 as usize]
}

/// Packed AO of face `face` of local cell (x, y, z) (0..10 each).
#[inline(always)]
pub(super) fn face_ao(occ: &[[u16; PAD]; PAD], face: usize, x: usize, y: usize, z: usize) -> u8 {
    // Padded coordinates of the cell are (x+1, y+1, z+1); the plane in front of the face is
    // one step along the normal. Window rows dv = −1, 0, 1, 3 bits (du = −1, 0, 1) each.
    // The cell is interior (each coordinate < 10); saying so lets every row index below go
    // unchecked.
    let (x, y, z) = (x.min(N - 1), y.min(N - 1), z.min(N - 1));
    let n9 = match face {
        0 | 1 => {
            // U = Y, V = Z: bit xp of rows occ[z'][y'] for the 3×3 (y', z'). Per z', the
            // three rows side by side in one u64 (lanes 16 bits apart), their bit xp kept,
            // and one multiply moves the three bits next to each other (no carries: the
            // partial products land on distinct bits).
            let xp = if face == 0 { x + 2 } else { x };
            let three = |r: &[u16; PAD]| -> u16 {
                let t = (r[y] as u64) | (r[y + 1] as u64) << 16 | (r[y + 2] as u64) << 32;
                let t = (t >> xp) & 0x0001_0001_0001;
                ((t.wrapping_mul((1 << 30) | (1 << 15) | 1) >> 30) & 7) as u16
            };
            three(&occ[z]) | three(&occ[z + 1]) << 3 | three(&occ[z + 2]) << 6
        }
        _ => return front_ao(front_rows(occ, face, y, z), x),
    };
    AO_TABLE[n9 as usize]
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn ao_table_rule() {
        // Nothing around: all open.
        assert_eq!(unpack_ao(AO_TABLE[0]), [3, 3, 3, 3]);
        // Only the (-1,-1) corner cell: corner 0 gets 2.
        assert_eq!(unpack_ao(AO_TABLE[1]), [2, 3, 3, 3]);
        // Both sides of corner 0 (du=-1,dv=0 is bit 3; du=0,dv=-1 is bit 1): 0 regardless.
        assert_eq!(unpack_ao(AO_TABLE[(1 << 3) | (1 << 1)])[0], 0);
        // One side (bit 3 = left) darkens corners 0 and 3 by one.
        assert_eq!(unpack_ao(AO_TABLE[1 << 3]), [2, 3, 3, 2]);
    }

    /// Every face of every interior cell of random occupancies gets the corners of the rule
    /// read straight from the cells in front of it (corner k at (du, dv) = (−1, −1), (1, −1),
    /// (1, 1), (−1, 1) along the face's (U, V) axes).
    #[test]
    fn face_ao_follows_the_rule_on_random_occupancy() {
        use super::super::Face;
        let mut seed = 0x9e37_79b9_7f4a_7c15u64;
        for density in [2u64, 4, 8] {
            let mut occ = [[0u16; PAD]; PAD];
            for row in occ.iter_mut().flatten() {
                for x in 0..PAD {
                    seed ^= seed << 13;
                    seed ^= seed >> 7;
                    seed ^= seed << 17;
                    *row |= ((seed % density < density / 2) as u16) << x;
                }
            }
            let at = |p: [i32; 3]| ((occ[p[2] as usize][p[1] as usize] >> p[0]) & 1) as u8;
            for face in Face::ALL {
                let (u, v) = face.tangent_axes();
                let n = face.normal();
                for (x, y, z) in
                    (0..N).flat_map(|z| (0..N).flat_map(move |y| (0..N).map(move |x| (x, y, z))))
                {
                    let front = [x, y, z].map(|c| c as i32 + 1);
                    let front = [0, 1, 2].map(|a| front[a] + n[a]);
                    let step = |p: [i32; 3], a: usize, d: i32| {
                        let mut p = p;
                        p[a] += d;
                        p
                    };
                    let corners = [(-1, -1), (1, -1), (1, 1), (-1, 1)].map(|(du, dv)| {
                        let s1 = at(step(front, u, du));
                        let s2 = at(step(front, v, dv));
                        let c = at(step(step(front, u, du), v, dv));
                        if s1 == 1 && s2 == 1 {
                            0
                        } else {
                            3 - s1 - s2 - c
                        }
                    });
                    let got = unpack_ao(face_ao(&occ, face.index(), x, y, z));
                    assert_eq!(got, corners, "{face:?} ({x}, {y}, {z})");
                }
            }
        }
    }
}
