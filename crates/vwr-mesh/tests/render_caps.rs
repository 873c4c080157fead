//! The chunk view stays within the size it is given, however many chunk layers a world has.

use vwr::{Block, World};
use vwr_mesh::render::{render_chunks, render_chunks_within, MAX_IMAGE_SIDE};

/// A tall world (chunks of 10³ blocks): `n` chunks per axis, one allocated chunk in every chunk layer (the shape that
/// once asked for a 13072 × 52590 image at n = 100, and 45 GB at n = 255).
fn tall_world(n: u32) -> World {
    let mut w = World::with_chunks_per_axis(n).unwrap();
    for cy in 0..n as i32 {
        w.set_block([(cy % 7) * 10, cy * 10, 0], Block::make(3, 0).unwrap())
            .unwrap();
    }
    w
}

#[test]
fn a_tall_world_fits_the_requested_size() {
    let w = tall_world(100);
    for (mw, mh) in [(1024, 768), (640, 480), (4000, 300), (100, 100), (1, 1)] {
        let r = render_chunks_within(&w, mw, mh);
        assert!(
            r.image.width() <= mw && r.image.height() <= mh,
            "{mw}x{mh} asked, {}x{} drawn",
            r.image.width(),
            r.image.height()
        );
    }
    // At 1024x768 the tiles shrink to a pixel and still not every layer fits: some are drawn.
    let r = render_chunks_within(&w, 1024, 768);
    assert!(r.covered > 0);
}

#[test]
fn a_large_size_shows_every_layer_with_bigger_tiles() {
    let w = tall_world(100);
    let small = render_chunks_within(&w, 1024, 768);
    let large = render_chunks_within(&w, 8000, 8000);
    assert!(large.image.width() <= 8000 && large.image.height() <= 8000);
    // One allocated chunk per layer, all 100 drawn: covered = 100 tiles of tile² pixels.
    assert!(large.covered > small.covered);
    assert_eq!(large.covered % 100, 0);
}

#[test]
fn a_small_world_keeps_its_natural_layout_and_oversized_requests_are_clamped() {
    let mut w = World::with_chunks_per_axis(4).unwrap();
    w.set_block([1, 1, 1], Block::make(3, 0).unwrap()).unwrap();
    let natural = render_chunks(&w);
    // 26-pixel tiles: one chunk covers 26 × 26 pixels.
    assert_eq!(natural.covered, 26 * 26);
    assert_eq!(natural.image.width(), 420);
    let huge = render_chunks_within(&w, u32::MAX, u32::MAX);
    assert_eq!(huge.image.dimensions(), natural.image.dimensions());
    assert!(MAX_IMAGE_SIDE >= huge.image.width());
}

#[test]
fn the_largest_world_renders_within_the_default_bounds() {
    let w = tall_world(255);
    let r = render_chunks(&w);
    assert!(r.image.width() <= 4096 && r.image.height() <= 4096);
}

#[test]
fn a_layer_of_a_large_world_fits_the_requested_size() {
    let w = tall_world(100); // 1000 blocks per axis
    let r = vwr_blocks::Registry::default();
    for max in [1200, 400, 64] {
        let l = vwr_mesh::render::render_layer(&w, &r, 0, max).unwrap();
        assert!(
            l.image.width() <= max && l.image.height() <= max,
            "{max}: {:?}",
            l.image.dimensions()
        );
        // The one block in layer 0 sits at (0, 0, 0): sampled at every step.
        assert!(l.covered > 0, "{max}");
    }
    // Room for every block: one pixel per block, as before.
    let full = vwr_mesh::render::render_layer(&w, &r, 0, 1020).unwrap();
    assert_eq!(full.image.dimensions(), (1000, 1020));
}

#[test]
fn a_panel_wider_than_the_image_shows_its_corner_at_a_pixel_per_chunk() {
    // 65535 × 65535 chunk columns: the view costs the image, not the 4.3 billion columns.
    let mut w = World::with_chunk_dims([65535, 1, 65535]).unwrap();
    let stone = Block::make(3, 0).unwrap();
    for p in [[0, 0, 0], [35, 0, 25], [655_340, 0, 655_340]] {
        w.set_block(p, stone).unwrap();
    }
    let r = render_chunks_within(&w, 1024, 768);
    assert!(r.image.width() <= 1024 && r.image.height() <= 768);
    // 1-pixel tiles; the two chunks in the corner drawn, the far one outside the picture.
    assert_eq!(r.covered, 2);

    // A panel that fits at a smaller tile is drawn whole at that tile, not cut at 26 pixels.
    let mut w = World::with_chunk_dims([64, 1, 64]).unwrap();
    w.set_block([635, 5, 635], stone).unwrap();
    let r = render_chunks_within(&w, 1024, 1024);
    let tile = (r.covered as f64).sqrt() as u32;
    assert_eq!(tile * tile, r.covered as u32, "one square tile");
    assert!(64 * tile + 20 <= r.image.width(), "tile {tile}");
}
