//! Edge checks of triangle meshes: whether an opaque pass is a closed surface (every directed
//! edge a → b matched by an edge b → a, welded by position), manifold, and facing its normals.

use std::collections::HashMap;

use vwr_mesh::MeshPart;

/// A welded vertex: a position in 1/1024 blocks (cube corners are whole numbers, special
/// geometry multiples of 1/1024 or close to it).
pub type Key = [i64; 3];

pub fn key(p: [f32; 3]) -> Key {
    p.map(|v| (v as f64 * 1024.0).round() as i64)
}

/// Counts of directed triangle edges, welded by position.
pub fn directed_edges(part: &MeshPart) -> HashMap<(Key, Key), u32> {
    let mut edges = HashMap::new();
    for t in part.indices.chunks_exact(3) {
        let p = [t[0], t[1], t[2]].map(|i| key(part.positions[i as usize]));
        for k in 0..3 {
            *edges.entry((p[k], p[(k + 1) % 3])).or_insert(0) += 1;
        }
    }
    edges
}

/// Edges a → b whose count differs from b → a's: cracks (T-junctions or holes).
pub fn unmatched_edges(part: &MeshPart) -> usize {
    let e = directed_edges(part);
    e.iter()
        .filter(|(&(a, b), &n)| e.get(&(b, a)).copied().unwrap_or(0) != n)
        .count()
}

/// Twice the area of triangle `t` of `part` along its vertices' normal (positive when it
/// faces the way the normal says).
pub fn twice_area(part: &MeshPart, t: &[u32]) -> f64 {
    let p = [0, 1, 2].map(|k| part.positions[t[k] as usize].map(f64::from));
    let (a, b) = (
        [0, 1, 2].map(|i| p[1][i] - p[0][i]),
        [0, 1, 2].map(|i| p[2][i] - p[0][i]),
    );
    let c = [
        a[1] * b[2] - a[2] * b[1],
        a[2] * b[0] - a[0] * b[2],
        a[0] * b[1] - a[1] * b[0],
    ];
    let n = part.normals[t[0] as usize].map(f64::from);
    c[0] * n[0] + c[1] * n[1] + c[2] * n[2]
}

/// Each undirected edge belongs to exactly two triangles.
pub fn assert_manifold(name: &str, part: &MeshPart) {
    let mut undirected: HashMap<(Key, Key), u32> = HashMap::new();
    for ((a, b), n) in directed_edges(part) {
        *undirected.entry((a.min(b), a.max(b))).or_insert(0) += n;
    }
    let bad: Vec<_> = undirected.iter().filter(|(_, &n)| n != 2).collect();
    assert!(
        bad.is_empty(),
        "{name}: {} edges not shared by two triangles",
        bad.len()
    );
}
