//! Layer view and chunk statistics.

mod common;

use common::b;
use vwr::{Block, MoveObject, World};
use vwr_edit::{all_chunk_stats, chunk_stats, render_chunk_stats, Editor, Layer, RenderOptions};

fn sample() -> World {
    let mut w = World::with_chunks_per_axis(2).unwrap();
    w.fill_box([0, 1, 0], [19, 1, 19], b(35)).unwrap();
    w.fill_box([2, 1, 3], [4, 1, 3], b(261)).unwrap();
    w.set_block([12, 1, 11], Block::from_raw(0x0235)).unwrap(); // type 35 with metadata 5
    w.place_move_object(&MoveObject::new(7, [5.0, 1.0, 5.0]))
        .unwrap();
    w.place_big_decor([6, 1, 5], 66).unwrap();
    w.set_spawn([7, 1, 5]).unwrap();
    w
}

#[test]
fn layer_grid_matches_the_world() {
    let w = sample();
    for y in 0..20 {
        let l = Layer::of(&w, y).unwrap();
        assert_eq!((l.width, l.depth, l.x0, l.z0), (20, 20, 0, 0));
        for z in 0..20 {
            for x in 0..20 {
                assert_eq!(l.get(x, z), w.get_block([x, y, z]), "({x}, {y}, {z})");
            }
        }
    }
    let l = Layer::of(&w, 1).unwrap();
    assert_eq!(l.objects, vec![[5, 5]]);
    assert_eq!(l.decors, vec![[6, 5]]);
    assert_eq!(l.spawn, Some([7, 5]));
    assert_eq!(l.get(-1, 0), Block::AIR);
    let counts = l.block_counts();
    assert_eq!(counts[0], (b(35), 400 - 3 - 1));
    assert!(counts.contains(&(b(261), 3)));
    assert!(Layer::of(&w, 20).is_err());
    assert!(Layer::of(&w, -1).is_err());
}

#[test]
fn layer_region_is_clamped() {
    let w = sample();
    let l = Layer::region(&w, 1, [15, 25], [-4, 8]).unwrap();
    assert_eq!((l.x0, l.z0, l.width, l.depth), (0, 8, 16, 12));
    assert_eq!(l.get(12, 11), Block::from_raw(0x0235));
    assert!(
        l.objects.is_empty(),
        "the object at z = 5 is outside the region"
    );
    assert!(Layer::region(&w, 1, [30, 30], [40, 40]).is_err());
    // A limit counts the clamped rectangle: 16 × 12 cells.
    assert!(Layer::region_at_most(&w, 1, [15, 25], [-4, 8], 192).is_ok());
    let e = Layer::region_at_most(&w, 1, [15, 25], [-4, 8], 191).unwrap_err();
    assert!(e.to_string().contains("16×12"), "{e}");
}

#[test]
fn layer_text_rendering() {
    let w = sample();
    let l = Layer::of(&w, 1).unwrap();
    let text = l.render(&RenderOptions::default());
    let lines: Vec<&str> = text.lines().collect();
    assert_eq!(lines[0], "layer y=1  x 0..19  z 0..19");
    assert_eq!(lines[1], "      0         1");
    assert_eq!(lines[2], "      01234567890123456789");
    // Row z = 3: brick at x 2..4 (second symbol, B).
    assert_eq!(lines[3 + 3], "   3  AABBBAAAAAAAAAAAAAAA");
    assert_eq!(lines[3 + 5], "   5  AAAAA@*+AAAAAAAAAAAA");
    assert_eq!(lines[3 + 11], "  11  AAAAAAAAAAAACAAAAAAA");
    let legend = lines.last().unwrap();
    assert!(
        legend.starts_with("legend: . air  A 35:0 (396)  B 261:0 (3)  C 35:5 (1)"),
        "{legend}"
    );
    assert!(
        legend.contains("@ MoveObject (1)")
            && legend.contains("* BigDecor (1)")
            && legend.contains("+ spawn")
    );

    let name = |blk: Block| (blk.block_type() == 35).then(|| "rockpile".to_string());
    let opts = RenderOptions {
        chunk_grid: true,
        no_markers: true,
        name: Some(&name),
    };
    let text = l.render(&opts);
    let lines: Vec<&str> = text.lines().collect();
    assert_eq!(lines[2], "      0123456789 0123456789");
    assert_eq!(lines[3 + 5], "   5  AAAAAAAAAA|AAAAAAAAAA");
    assert_eq!(lines[3 + 10], "      ----------+----------");
    assert!(text.contains("A 35:0 rockpile (396)"));
    assert!(!text.contains('@'));

    // An empty layer renders as air.
    let l = Layer::of(&w, 7).unwrap();
    assert!(l
        .render(&RenderOptions::default())
        .lines()
        .nth(3)
        .unwrap()
        .ends_with("...................."));
}

#[test]
fn chunk_statistics() {
    let mut ed = Editor::new(sample());
    ed.fill_box([10, 10, 10], [19, 19, 19], b(3)).unwrap();
    let w = ed.world();
    let s = chunk_stats(w, [0, 0, 0]).unwrap();
    assert!(s.allocated && !s.empty && !s.uniform);
    assert_eq!(s.palette_len, 3); // air, 35, 261
    assert_eq!(s.bits, 2);
    assert_eq!(s.non_air, 100);
    assert_eq!(s.records, 2);
    assert_eq!(
        s.payload_bytes as usize,
        vwr::chunk_payload_size(w.chunk([0, 0, 0]).unwrap())
    );
    let u = chunk_stats(w, [1, 1, 1]).unwrap();
    assert!(u.uniform && u.non_air == 1000 && u.palette_len == 1);
    let none = chunk_stats(w, [0, 1, 0]).unwrap();
    assert!(!none.allocated && none.empty && none.payload_bytes == 0);
    assert!(chunk_stats(w, [2, 0, 0]).is_none());
    let all = all_chunk_stats(w);
    assert_eq!(all.len(), w.chunks().count());
    let table = render_chunk_stats(&all);
    assert!(table.lines().next().unwrap().starts_with("chunk"));
    assert!(table.contains("(1,1,1)") && table.contains("uniform"));
    // Overwriting the last cells of a value with air drops its palette entry (an edit leaves
    // none that no cell uses); undo brings it back exactly.
    ed.fill_box([2, 1, 3], [4, 1, 3], Block::AIR).unwrap();
    let s = chunk_stats(ed.world(), [0, 0, 0]).unwrap();
    assert_eq!((s.palette_len, s.live_palette), (2, 2));
    ed.undo();
    let s = chunk_stats(ed.world(), [0, 0, 0]).unwrap();
    assert_eq!((s.palette_len, s.live_palette), (3, 3));
}
