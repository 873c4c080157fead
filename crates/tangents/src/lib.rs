//! MikkTSpace tangents for a triangle soup, through the `mikktspace` crate.
//!
//! `mikktspace` 0.3 works through raw pointers and, on some degenerate meshes (every triangle
//! with two equal corners), overflows an index and then reads out of bounds. With overflow
//! checks on, the overflow is a panic first, which [`generate`] catches and reports as "no
//! tangents". Both inputs known to trip it (no usable triangle; a position at infinity, or a
//! bounding box too large for an `f32`) are answered before it is called, without a panic. mikktspace's generic functions are compiled in the crate that names the geometry
//! type: this one ([`generate`] is not generic, so nothing of mikktspace's is compiled in a
//! caller). The workspace's release profile turns overflow checks on for this crate and for
//! `mikktspace` only (see the workspace `Cargo.toml`); the asset pipeline's own code keeps its
//! unchecked speed.
#![forbid(unsafe_code)]
#![warn(missing_docs)]
#![deny(clippy::unwrap_used)]

/// The corners of a triangle soup: three per triangle, in order.
struct Soup<'a> {
    positions: &'a [[f32; 3]],
    normals: &'a [[f32; 3]],
    uvs: &'a [[f32; 2]],
    tangents: Vec<[f32; 4]>,
}

impl mikktspace::Geometry for Soup<'_> {
    fn num_faces(&self) -> usize {
        self.positions.len() / 3
    }
    fn num_vertices_of_face(&self, _face: usize) -> usize {
        3
    }
    fn position(&self, face: usize, vert: usize) -> [f32; 3] {
        self.positions[face * 3 + vert]
    }
    fn normal(&self, face: usize, vert: usize) -> [f32; 3] {
        self.normals[face * 3 + vert]
    }
    fn tex_coord(&self, face: usize, vert: usize) -> [f32; 2] {
        self.uvs[face * 3 + vert]
    }
    fn set_tangent_encoded(&mut self, tangent: [f32; 4], face: usize, vert: usize) {
        self.tangents[face * 3 + vert] = tangent;
    }
}

/// The MikkTSpace tangent (xyz, and the bitangent sign in w) of every corner of a triangle
/// soup, or `None` when mikktspace cannot generate them (including the degenerate meshes it
/// fails on). The three slices hold one entry per corner, three corners per triangle; corners
/// mikktspace leaves untouched keep `fallback`'s tangent. Slices of other lengths give `None`.
///
/// Not generic (the fallback is a `dyn Fn`): a generic function would be compiled in the
/// caller's crate, with the caller's overflow checks, and mikktspace's code with it.
pub fn generate(
    positions: &[[f32; 3]],
    normals: &[[f32; 3]],
    uvs: &[[f32; 2]],
    fallback: &dyn Fn(usize) -> [f32; 4],
) -> Option<Vec<[f32; 4]>> {
    let n = positions.len();
    if !n.is_multiple_of(3) || normals.len() != n || uvs.len() != n {
        return None;
    }
    // mikktspace sets aside every triangle with two equal corners, and with none left it
    // overflows (the known case): answer it here, without a panic (whose message the default
    // hook would print even though it is caught).
    let usable = |t: &[[f32; 3]]| t[0] != t[1] && t[0] != t[2] && t[1] != t[2];
    if !positions.chunks_exact(3).any(usable) {
        return None;
    }
    // mikktspace hashes positions into cells along the bounding box's longest side; a position
    // that is not finite, or a side whose length overflows to infinity, leaves the last cell
    // empty and it indexes one past its table there (a panic): answered here too.
    if !finite_extent(positions) {
        return None;
    }
    let mut soup = Soup {
        positions,
        normals,
        uvs,
        tangents: (0..n).map(fallback).collect(),
    };
    let generated =
        voxcaf_guard::catch(|| mikktspace::generate_tangents(&mut soup)).unwrap_or(false);
    generated.then_some(soup.tangents)
}

/// Whether every position is finite and so is the length of each side of their bounding box.
fn finite_extent(positions: &[[f32; 3]]) -> bool {
    (0..3).all(|axis| {
        let mut lo = f32::INFINITY;
        let mut hi = f32::NEG_INFINITY;
        for p in positions {
            // NaN fails `is_finite` too.
            if !p[axis].is_finite() {
                return false;
            }
            lo = lo.min(p[axis]);
            hi = hi.max(p[axis]);
        }
        (hi - lo).is_finite()
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_unit_quad_gets_its_u_axis() {
        let positions = [[0.0, 0.0, 0.0], [1.0, 0.0, 0.0], [1.0, 1.0, 0.0]]
            .into_iter()
            .chain([[0.0, 0.0, 0.0], [1.0, 1.0, 0.0], [0.0, 1.0, 0.0]])
            .collect::<Vec<_>>();
        let uvs: Vec<[f32; 2]> = positions.iter().map(|p| [p[0], p[1]]).collect();
        let normals = vec![[0.0, 0.0, 1.0]; 6];
        let t = generate(&positions, &normals, &uvs, &|_| [0.0; 4]).unwrap();
        for t in t {
            assert!((t[0] - 1.0).abs() < 1e-5 && t[1].abs() < 1e-5 && t[2].abs() < 1e-5);
            assert_eq!(t[3], 1.0);
        }
    }

    /// Every triangle degenerate: mikktspace overflows an index (found by the `import_obj`
    /// fuzz target); in a release build without overflow checks it then read out of bounds
    /// and the process died with SIGSEGV. Now "no tangents", in every profile, and without a
    /// panic.
    #[test]
    fn all_degenerate_triangles_give_no_tangents() {
        let p = [[1.0, 1.0, 0.0], [0.0, 1.0, 0.0], [1.0, 1.0, 0.0]];
        let positions = [p, [p[0], p[2], [0.0, 1.0, 0.0]]].concat();
        let normals = vec![[0.0, 0.0, 1.0]; 6];
        let uvs = vec![
            [0.0, 0.0],
            [1.0, 0.0],
            [1.0, 1.0],
            [0.0, 0.0],
            [1.0, 1.0],
            [0.0, 1.0],
        ];
        assert_eq!(generate(&positions, &normals, &uvs, &|_| [0.0; 4]), None);
    }

    thread_local! {
        /// Panics on this thread, counted by [`count_panics`]'s hook.
        static PANICS: std::cell::Cell<u32> = const { std::cell::Cell::new(0) };
    }

    /// How many panics `f` raised on this thread, caught or not (a hook that counts, then
    /// hands on to the previous one).
    fn count_panics(f: impl FnOnce()) -> u32 {
        static HOOK: std::sync::Once = std::sync::Once::new();
        HOOK.call_once(|| {
            let previous = std::panic::take_hook();
            std::panic::set_hook(Box::new(move |info| {
                PANICS.with(|p| p.set(p.get() + 1));
                previous(info);
            }));
        });
        let before = PANICS.with(|p| p.get());
        f();
        PANICS.with(|p| p.get()) - before
    }

    /// Found by the `import_glb` fuzz target: a vertex at infinity (or a bounding box whose
    /// extent overflows to infinity) leaves mikktspace's last grid cell empty, and it indexes
    /// one past its table there (a panic, caught, that libFuzzer counts as a crash). Now no
    /// tangents, without a panic.
    #[test]
    fn positions_at_infinity_give_no_tangents_without_a_panic() {
        let quad = |far: [f32; 3]| {
            let positions = vec![
                [0.0, 0.0, 0.0],
                [1.0, 0.0, 0.0],
                [1.0, 1.0, 0.0],
                [0.0, 0.0, 0.0],
                [1.0, 1.0, 0.0],
                far,
            ];
            let uvs: Vec<[f32; 2]> = positions.iter().map(|p| [p[0], p[1]]).collect();
            let normals = vec![[0.0, 0.0, 1.0]; 6];
            (positions, normals, uvs)
        };
        for far in [
            [f32::INFINITY, 1.0, 0.0],
            [0.0, f32::NEG_INFINITY, 0.0],
            [f32::NAN, 1.0, 0.0],
            [-3.0e38, 1.0, 0.0],
        ] {
            let (mut p, n, uv) = quad(far);
            if far[0] == -3.0e38 {
                p[1] = [3.0e38, 0.0, 0.0];
            }
            let mut out = Some(Vec::new());
            let panics = count_panics(|| out = generate(&p, &n, &uv, &|_| [0.0; 4]));
            assert_eq!((panics, out), (0, None), "{far:?}");
        }
    }

    #[test]
    fn mismatched_lengths_give_no_tangents() {
        let positions = vec![[0.0; 3]; 3];
        assert_eq!(generate(&positions, &[], &[], &|_| [0.0; 4]), None);
    }
}
