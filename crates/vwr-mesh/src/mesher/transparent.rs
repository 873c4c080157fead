//! Transparent cubes and special cells: few, so handled cell by cell from the neighbourhood's
//! list; transparent faces then go through the same row emission as the opaque pass.

use vwr::Block;

use super::greedy::slot_of;
use super::neighbourhood::pidx;
use super::quad::world_pos;
use super::{ChunkMesh, Face, MeshOptions, Mesher, Neighborhood, SpecialCell, N, PAD, PAD2, ROW};
use vwr_blocks::CLASS_SPECIAL;

impl Mesher {
    /// Appends the special cells (unrotated) and the transparent faces of `nb` to `out`.
    pub(super) fn other_cells(
        &mut self,
        nb: &Neighborhood,
        origin: [i32; 3],
        opts: MeshOptions,
        out: &mut ChunkMesh,
    ) {
        let cells = &*nb.cells;
        let occ = &nb.occ;
        let is_opaque = |p: usize| -> bool {
            let (x, y, z) = (p % PAD, (p / PAD) % PAD, p / PAD2);
            (occ[z][y] >> x) & 1 == 1
        };
        let mut any_t = false;
        for &(i, class, shape) in &nb.others {
            let i = i as usize;
            let (x, y, z) = (i % N, (i / N) % N, i / (N * N));
            let p = pidx(x + 1, y + 1, z + 1);
            let raw = cells[p];
            if class == CLASS_SPECIAL {
                if let Some(shape) = shape {
                    out.special.push(SpecialCell {
                        pos: world_pos(origin, [x, y, z]),
                        block: Block(raw),
                        shape,
                        rotated: false,
                    });
                }
                continue;
            }
            if !any_t {
                *self.vis = [[[0; N]; N]; 6];
                any_t = true;
            }
            // A transparent face shows unless the cell across is opaque or the same block.
            for face in Face::ALL {
                let [dx, dy, dz] = face.normal();
                let np = (p as isize
                    + dx as isize
                    + dy as isize * PAD as isize
                    + dz as isize * PAD2 as isize) as usize;
                let nraw = cells[np];
                if nraw == raw || is_opaque(np) {
                    continue;
                }
                let (s, q, b) = slot_of(face, x, y, z);
                self.vis[face.index()][s][q] |= 1 << b;
            }
        }
        if any_t {
            self.emit_rows(nb, origin, opts, [ROW; 6], &mut out.transparent);
        }
    }
}
