//! The page's own modules under Node's built-in test runner (`tests/page/*.test.mjs`, no npm
//! packages), against fixtures this test writes with the Rust libraries:
//!
//! - `world.bin`: the binary chunk answer (`GET /api/chunks?since=0`) of a small known world,
//!   and `wire.json`, the values the page must decode from it, computed from the world and a
//!   fresh mesh cache (not from the answer's bytes);
//! - `lod.bin`: the answer of `GET /api/lod?level=1` of that world, and `lod.json`, its closed
//!   level-1 meshes in world units, computed from the world;
//! - `rays.json`: rays through that world with `vwr-play`'s answers (`raycast`: the first
//!   solid cell, its face, distance and point; `ray_cells`: the first non-air cell, what the
//!   editor picks), so that the page and the gameplay layer keep one raycast definition.
//!
//! The fixture folder is passed in `VOXCAF_PAGE_FIXTURES`. Skipped with a message when `node`
//! is missing, unless `VOXCAF_REQUIRE_NODE=1` (CI).

use std::path::{Path, PathBuf};
use std::process::Command;

use serde_json::{json, Value};
use vwr::{Block, World, CHUNK_VOLUME};
use vwr_edit::script::{apply_ops, parse_text};
use vwr_edit::Editor;
use vwr_mesh::{MeshBuffers, MeshCache, MeshOptions, MeshPart};
use vwr_play::{ray_cells, raycast, Collider};
use vwr_serve::{Session, SessionOptions};

fn node_available() -> bool {
    if Command::new("node").arg("--version").output().is_ok() {
        return true;
    }
    if std::env::var("VOXCAF_REQUIRE_NODE").as_deref() == Ok("1") {
        panic!("the page's tests need node (VOXCAF_REQUIRE_NODE=1)");
    }
    eprintln!("skipped: the page's tests need node");
    false
}

/// A world of 2×2×2 chunks: a floor, walls, water (not solid), glass, lava, blocks with
/// metadata, cells on chunk borders and in the corners.
fn known_world() -> World {
    let world = World::with_chunk_dims([2, 2, 2]).unwrap();
    let mut ed = Editor::new(world);
    let script = "box 0 0 0 19 0 19 stone\nwalls 2 1 2 8 4 8 brickwall\n\
        box 12 1 12 16 2 16 water\nplace 9 5 9 glass\nplace 10 10 10 35:3\n\
        brush sphere 14 12 5 3 lava\nplace 0 19 0 stone\nplace 19 19 19 grass\n\
        box 4 6 14 6 6 16 rockpile\nplace 9 9 10 grass\nplate 9 5 9 on";
    apply_ops(&mut ed, &parse_text("fixture", script).unwrap(), 100_000).unwrap();
    ed.world().clone()
}

fn part_json(p: &MeshPart) -> Value {
    if p.positions.is_empty() || p.indices.is_empty() {
        return Value::Null;
    }
    let positions: Vec<f64> = p
        .positions
        .iter()
        .flatten()
        .map(|&v| f64::from(v))
        .collect();
    let normals: Vec<i8> = p
        .normals
        .iter()
        .flat_map(|n| [n[0] as i8, n[1] as i8, n[2] as i8, 0])
        .collect();
    let colors: Vec<u8> = p
        .colors
        .iter()
        .zip(&p.ao)
        .flat_map(|(c, ao)| vwr_serve::wire::vertex_color(*c, *ao))
        .collect();
    json!({"positions": positions, "normals": normals, "colors": colors, "indices": p.indices})
}

/// What the page must decode from the chunk answer of `world` opened fresh: every chunk a
/// fresh mesh cache builds, in (z, y, x) order, with its blocks and passes.
fn expected_decode(world: &World, epoch: u32) -> Value {
    let reg = vwr_blocks::default_registry();
    let mut cache = MeshCache::new(MeshOptions::GREEDY_AO_WATERTIGHT);
    let built = cache.update(world, reg);
    assert!(built.len() >= 6, "the fixture spans most chunks: {built:?}");
    let chunks: Vec<Value> = built
        .iter()
        .map(|&p| {
            let blocks = world.chunk(p).map(|c| {
                let mut b = [Block::AIR; CHUNK_VOLUME];
                c.blocks_into(&mut b);
                b.iter().map(|x| x.raw()).collect::<Vec<u16>>()
            });
            let parts = match cache.get(p) {
                Some(m) => {
                    let b = MeshBuffers::from_chunk(m, reg);
                    vec![part_json(&b.opaque), part_json(&b.transparent)]
                }
                None => vec![Value::Null, Value::Null],
            };
            json!({"pos": p, "blocks": blocks, "parts": parts})
        })
        .collect();
    json!({"epoch": epoch, "chunks": chunks})
}

/// A small deterministic generator (xorshift64*).
struct Rng(u64);

impl Rng {
    fn next(&mut self) -> u64 {
        self.0 ^= self.0 >> 12;
        self.0 ^= self.0 << 25;
        self.0 ^= self.0 >> 27;
        self.0.wrapping_mul(0x2545_f491_4f6c_dd1d)
    }
    /// Uniform in [0, 1).
    fn unit(&mut self) -> f64 {
        (self.next() >> 11) as f64 / (1u64 << 53) as f64
    }
    fn int(&mut self, lo: i64, hi: i64) -> i64 {
        lo + (self.next() % (hi - lo + 1) as u64) as i64
    }
    /// A coordinate in [lo, hi]: often a whole or half number (rays along cell boundaries).
    fn coord(&mut self, lo: f64, hi: f64) -> f64 {
        let x = lo + (hi - lo) * self.unit();
        match self.next() % 4 {
            0 => x.floor(),
            1 => x.floor() + 0.5,
            _ => x,
        }
    }
}

/// Rays: hand-picked cases (edges, corners, far faces, starting inside, limits, through
/// water, odd scales, a zero direction), then random rays, many on cell boundaries, and rays
/// like the page's camera sends (from far outside towards the world).
fn rays() -> Vec<([f64; 3], [f64; 3], f64)> {
    let inf = f64::INFINITY;
    let mut r = vec![
        ([3.5, 15.0, 3.5], [0.0, -1.0, 0.0], inf),
        ([5.5, 30.0, 5.5], [0.0, -1.0, 0.0], inf),
        ([3.5, 15.0, 3.5], [0.0, -1.0, 0.0], 5.0),
        ([3.5, 5.0, 3.5], [0.0, -1.0, 0.0], 4.0),
        ([3.5, 5.0, 3.5], [0.0, -1.0, 0.0], 3.999),
        ([14.5, 10.0, 14.5], [0.0, -1.0, 0.0], inf),
        ([3.5, 0.5, 3.5], [1.0, 0.0, 0.0], inf),
        ([-1.0, -1.0, -1.0], [1.0, 1.0, 1.0], inf),
        ([-3.0, 25.0, -3.0], [1.0, -1.0, 1.0], inf),
        ([20.0, 5.0, 5.0], [-1.0, 0.0, 0.0], inf),
        ([5.0, 20.0, 5.0], [0.0, -1.0, 0.0], inf),
        ([0.0, 3.0, 1.0], [1.0, 1.0, 0.0], inf),
        ([2.0, 1.0, 0.0], [0.0, 0.0, 1.0], inf),
        ([-1.0, 5.0, 5.0], [0.0, 0.0, 1.0], inf),
        ([10.0, 12.0, 10.0], [-1.0, -1.0, -1.0], inf),
        ([9.5, 20.0, 9.5], [-0.0, -3.0, 0.0], inf),
        ([1.5, 9.0, 1.5], [1e-300, -1e-300, 0.0], inf),
        ([1.5, 9.0, 1.5], [1e300, -2e300, 3e299], inf),
        ([30.0, 30.0, 30.0], [-1.0, -1.0, -1.0], 10.0),
        ([5.0, 5.0, 5.0], [0.0, 0.0, 0.0], inf),
    ];
    let mut g = Rng(0x9e37_79b9_7f4a_7c15);
    for _ in 0..1500 {
        let o = [0; 3].map(|_| g.coord(-4.0, 24.0));
        let d = loop {
            let d = if g.next().is_multiple_of(2) {
                [0; 3].map(|_| g.int(-2, 2) as f64)
            } else {
                [0; 3].map(|_| g.unit() * 2.0 - 1.0)
            };
            if d != [0.0; 3] {
                break d;
            }
        };
        let max = if g.next().is_multiple_of(4) {
            g.unit() * 30.0
        } else {
            inf
        };
        r.push((o, d, max));
    }
    for _ in 0..500 {
        // From a camera 30 to 150 away, towards a point of the world.
        let (yaw, pitch, dist) = (
            g.unit() * 6.3,
            g.unit() * 3.0 - 1.5,
            30.0 + g.unit() * 120.0,
        );
        let target = [0; 3].map(|_| g.unit() * 20.0);
        let dir = [
            -yaw.cos() * pitch.cos(),
            -pitch.sin(),
            -yaw.sin() * pitch.cos(),
        ];
        let o = [0, 1, 2].map(|i| target[i] - dir[i] * dist);
        r.push((o, dir, inf));
    }
    r
}

/// vwr-play's answers for every ray, and the tallies that show the fixture covers its cases.
fn ray_fixture(world: &World) -> Value {
    let reg = vwr_blocks::default_registry();
    let collider = Collider::new(world, reg);
    // Which block types are solid (collision goes by type alone).
    let mut solid = std::collections::BTreeMap::new();
    let d = world.block_dims().map(|v| v as i32);
    for z in 0..d[2] {
        for y in 0..d[1] {
            for x in 0..d[0] {
                let b = world.get_block([x, y, z]);
                if b != Block::AIR {
                    let s = collider.solid([x, y, z].map(i64::from));
                    assert_eq!(*solid.entry(b.block_type()).or_insert(s), s);
                }
            }
        }
    }
    assert!(solid.values().any(|s| *s) && solid.values().any(|s| !*s));
    let solid_types: Vec<u16> = solid.iter().filter(|(_, s)| **s).map(|(t, _)| *t).collect();
    let (mut hits, mut misses, mut differ, mut ties) = (0, 0, 0, 0);
    let list: Vec<Value> = rays()
        .into_iter()
        .map(|(o, d, max)| {
            let max_json = if max.is_finite() {
                json!(max)
            } else {
                Value::Null
            };
            let Ok(hit) = raycast(&collider, o, d, max) else {
                return json!({"origin": o, "dir": d, "max": max_json, "error": true});
            };
            let solid = hit.map(|h| {
                json!({"cell": h.cell, "face": h.face.map(|f| f.as_str()),
                    "distance": h.distance, "point": h.point})
            });
            let mut first = None;
            ray_cells(&collider, o, d, max, |c| {
                if world.get_block(c.cell) != Block::AIR {
                    first = Some(c);
                }
                first.is_none()
            })
            .unwrap();
            let non_air = first.map(|c| {
                json!({"cell": c.cell, "face": c.face.map(|f| f.as_str()), "distance": c.distance})
            });
            if hit.is_some() {
                hits += 1;
            } else {
                misses += 1;
            }
            if hit.map(|h| h.cell) != first.map(|c| c.cell) {
                differ += 1;
            }
            if o.iter().all(|v| v.fract() == 0.0) && d.iter().all(|v| v.fract() == 0.0) {
                ties += 1;
            }
            json!({"origin": o, "dir": d, "max": max_json, "solid": solid, "non_air": non_air})
        })
        .collect();
    assert!(hits > 200 && misses > 200, "hits {hits}, misses {misses}");
    assert!(
        differ > 10,
        "rays where water or lava stands before a solid: {differ}"
    );
    assert!(ties > 5, "rays through cell edges and corners: {ties}");
    json!({"dims": world.block_dims(), "solid_types": solid_types, "rays": list})
}

/// What the page must decode from the answer of `GET /api/lod?level=1` of `world`: each
/// non-empty chunk of level 1 meshed closed, watertight, in world units.
fn expected_lod(world: &World, epoch: u32) -> Value {
    let reg = vwr_blocks::default_registry();
    let level = vwr::lod::build_level(world, 1).unwrap();
    let opts = MeshOptions::GREEDY_AO_WATERTIGHT;
    let chunks: Vec<Value> = level
        .chunks()
        .map(|(p, _)| {
            vwr_mesh::lod::mesh_chunk_closed(&level, reg, p, 1, vwr_mesh::lod::CLOSED, opts)
        })
        .filter(|m| !m.is_empty())
        .map(|m| {
            let b = MeshBuffers::from_chunk(&m, reg);
            json!({"pos": m.chunk, "parts": [part_json(&b.opaque), part_json(&b.transparent)]})
        })
        .collect();
    json!({"epoch": epoch, "chunks": chunks})
}

/// Writes the fixtures into `dir`.
fn write_fixtures(dir: &Path) {
    let world = known_world();
    let file = dir.join("known.vwr");
    world.save(&file).unwrap();
    let mut session = Session::open(&file, SessionOptions::default()).unwrap();
    let answer = session.chunks_since(0);
    // The answer carries a plate rotation, which the page's decoder reads past.
    let chunks = vwr_serve::wire::decode_blocks(&answer).unwrap();
    assert!(chunks.iter().any(|c| c.plates == [(959, true)]));
    std::fs::write(dir.join("world.bin"), &answer).unwrap();
    let expected = expected_decode(session.world(), session.epoch());
    std::fs::write(dir.join("wire.json"), expected.to_string()).unwrap();
    let lod = session.lod_since(1, 0).unwrap();
    std::fs::write(dir.join("lod.bin"), &lod).unwrap();
    let expected = expected_lod(session.world(), session.epoch());
    std::fs::write(dir.join("lod.json"), expected.to_string()).unwrap();
    std::fs::write(
        dir.join("rays.json"),
        ray_fixture(session.world()).to_string(),
    )
    .unwrap();
}

fn page_tests() -> Vec<PathBuf> {
    let dir = Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/page");
    let mut files: Vec<PathBuf> = std::fs::read_dir(&dir)
        .unwrap()
        .map(|e| e.unwrap().path())
        .filter(|p| p.to_string_lossy().ends_with(".test.mjs"))
        .collect();
    files.sort();
    files
}

#[test]
fn the_page_modules_pass_their_node_tests_against_the_rust_fixtures() {
    if !node_available() {
        return;
    }
    let dir = tempfile::tempdir().unwrap();
    write_fixtures(dir.path());
    let tests = page_tests();
    assert!(tests.len() >= 2, "{tests:?}");
    let out = Command::new("node")
        .arg("--test")
        .arg("--test-reporter=tap")
        .args(&tests)
        .env("VOXCAF_PAGE_FIXTURES", dir.path())
        .output()
        .expect("node runs");
    let stdout = String::from_utf8_lossy(&out.stdout);
    let stderr = String::from_utf8_lossy(&out.stderr);
    assert!(
        out.status.success(),
        "node --test failed:\n{stdout}\n{stderr}"
    );
    // Every test ran and passed (none skipped or left out).
    let count = |what: &str| -> usize {
        let line = stdout
            .lines()
            .find_map(|l| l.strip_prefix(&format!("# {what} ")));
        line.and_then(|n| n.trim().parse().ok())
            .unwrap_or_else(|| panic!("no `# {what}` count in node's report:\n{stdout}"))
    };
    assert_eq!(
        (count("fail"), count("skipped"), count("todo")),
        (0, 0, 0),
        "{stdout}"
    );
    assert!(count("pass") >= 5, "{stdout}");
}
