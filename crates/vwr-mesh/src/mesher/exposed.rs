//! The exposed-faces path for opaque cubes: one quad per visible face, straight from whole-row
//! bit operations.

use super::{Face, Neighborhood, Quad, N, ROW};

/// Emits one unit quad per visible opaque face, row by row (z, then y), per row in
/// [`Face::ALL`] order, then by x.
pub(super) fn opaque_quads(nb: &Neighborhood, origin: [i32; 3], ao: bool, out: &mut Vec<Quad>) {
    if ao {
        opaque_quads_with::<true>(nb, origin, out)
    } else {
        opaque_quads_with::<false>(nb, origin, out)
    }
}

/// [`opaque_quads`] with AO on or off as a constant.
fn opaque_quads_with<const AO: bool>(nb: &Neighborhood, origin: [i32; 3], out: &mut Vec<Quad>) {
    for z in 0..N {
        // The layer's rows that hold an opaque cell, found without a branch per row: sparse
        // worlds skip most rows, where a branch per row mispredicted often.
        let mut live = 0u16;
        for y in 0..N {
            live |= ((nb.occ[z + 1][y + 1] & (ROW << 1) != 0) as u16) << y;
        }
        while live != 0 {
            let y = live.trailing_zeros() as usize;
            live &= live - 1;
            let rows = nb.opaque_face_rows(y, z);
            // Each cell's block value read once for all its visible faces (none to read when
            // every opaque cell holds the same value).
            let raws = match nb.opaque_value {
                Some(v) => [v; N],
                None => {
                    let mut raws = [0u16; N];
                    let mut cells = rows.iter().fold(0, |a, &r| a | r);
                    let row = nb.row(y, z);
                    while cells != 0 {
                        let x = cells.trailing_zeros() as usize;
                        cells &= cells - 1;
                        raws[x] = row.raw(x);
                    }
                    raws
                }
            };
            if !AO {
                // Without AO a quad depends on its face and x only: the six faces' rows as one
                // 60-bit mask (face f at bits 10f..10f+10), so a row is one loop, in the same
                // order, instead of six short ones whose exits mispredict on sparse rows.
                let mut all = 0u64;
                for (f, &r) in rows.iter().enumerate() {
                    all |= (r as u64) << (N * f);
                }
                while all != 0 {
                    let i = all.trailing_zeros() as usize;
                    all &= all - 1;
                    // i / 10 for i < 60.
                    let f = (i * 205) >> 11;
                    let x = i - N * f;
                    let face = Face::ALL[f];
                    let key = nb.face_key_of(raws[x], face, x, y, z, false);
                    out.push(Quad::from_key(origin, [x, y, z], face, [1, 1], key));
                }
                continue;
            }
            for face in Face::ALL {
                let mut bits = rows[face.index()];
                if bits == 0 {
                    continue;
                }
                // The row's quads differ in x, block and AO only: one quad built per row and
                // face, then updated and copied per visible face.
                let mut quad = Quad::from_key(origin, [0, y, z], face, [1, 1], 0);
                while bits != 0 {
                    let x = bits.trailing_zeros() as usize;
                    bits &= bits - 1;
                    quad.origin[0] = origin[0] + x as i32;
                    quad.set_key(nb.face_key_of(raws[x], face, x, y, z, AO));
                    out.push(quad);
                }
            }
        }
    }
}
