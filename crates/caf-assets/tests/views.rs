//! Typed views: checked once per load, re-sliced on access, the same data as `caf`'s views.

mod common;

use caf::audio::AudioView;
use caf::mesh::{MeshMetadata, MeshView, Vertex};
use caf::shader::{ShaderMetadata, ShaderView};
use caf::texture::TextureView;
use caf::{AssetType, CafFlags};
use caf_assets::{AssetError, Audio, Font, Mesh, Raw, Shader, Texture};
use common::*;

/// An 8x4 texture with its full chain of 4 levels, 3 channels, every byte distinct per level.
fn mip_texture_bytes() -> Vec<u8> {
    let pixels: usize = [(8, 4), (4, 2), (2, 1), (1, 1)]
        .iter()
        .map(|(w, h)| w * h)
        .sum();
    let payload: Vec<u8> = (0..pixels * 3).map(|i| i as u8).collect();
    texture_file(8, 4, 4, CafFlags::SRGB, &payload)
}

/// Three vertices and one triangle.
fn mesh_bytes(indices: [u32; 3]) -> Vec<u8> {
    let meta = MeshMetadata {
        vertex_count: 3,
        index_count: 3,
        sub_mesh_count: 1,
        reserved: 0,
    };
    let mut payload = Vec::new();
    for i in 0..3 {
        let v = Vertex {
            position: [i as f32, 1.0, 2.0],
            ..Vertex::default()
        };
        for f in v
            .position
            .iter()
            .chain(&v.normal)
            .chain(&v.uv)
            .chain(&v.tangent)
        {
            payload.extend_from_slice(&f.to_le_bytes());
        }
    }
    for i in indices {
        payload.extend_from_slice(&i.to_le_bytes());
    }
    asset_bytes(AssetType::MESH, &meta.to_bytes(), &payload)
}

fn shader_bytes() -> Vec<u8> {
    let meta = ShaderMetadata {
        stage: 1,
        reserved: 0,
    };
    let code = [0x0723_0203u32, 1, 2, 3];
    let payload: Vec<u8> = code.iter().flat_map(|w| w.to_le_bytes()).collect();
    asset_bytes(AssetType::SHADER, &meta.to_bytes(), &payload)
}

#[test]
fn views_match_caf_views_and_are_checked_once_per_load() {
    let dir = tempfile::tempdir().unwrap();
    write_atomic(&dir.path().join("t.caf"), &mip_texture_bytes());
    write_atomic(&dir.path().join("a.caf"), &audio_bytes(100, 7));
    write_atomic(&dir.path().join("m.caf"), &mesh_bytes([0, 1, 2]));
    write_atomic(&dir.path().join("s.caf"), &shader_bytes());
    let m = manager(dir.path(), 2);
    let t = m.load_sync::<Texture>("t.caf").unwrap();
    let a = m.load_sync::<Audio>("a.caf").unwrap();
    let me = m.load_sync::<Mesh>("m.caf").unwrap();
    let s = m.load_sync::<Shader>("s.caf").unwrap();
    let r = m.load_sync::<Raw>("t.caf").unwrap();
    assert_eq!(m.stats().validations, 5);

    for _ in 0..1000 {
        let g = m.get(&t).unwrap();
        let ours = g.view();
        let theirs = TextureView::from_asset(&g.asset()).unwrap();
        assert_eq!(ours.meta, theirs.meta);
        assert_eq!((ours.channels, ours.srgb), (theirs.channels, theirs.srgb));
        assert_eq!(ours.level_count(), theirs.level_count());
        for i in 0..theirs.level_count() {
            assert_eq!(ours.level(i), theirs.level(i), "level {i}");
            assert_eq!(ours.level_dims(i), theirs.level_dims(i), "level {i}");
        }
        assert!(ours.levels().eq(theirs.levels().iter().copied()));
        assert_eq!(ours.level(4), None);

        let g = m.get(&a).unwrap();
        let theirs = AudioView::from_asset(&g.asset()).unwrap();
        assert_eq!(g.view().meta, theirs.meta);
        assert_eq!(g.view().data, theirs.data);

        let g = m.get(&me).unwrap();
        let theirs = MeshView::from_asset(&g.asset()).unwrap();
        let ours = g.view();
        assert_eq!(ours.meta, theirs.meta);
        assert_eq!(ours.vertices, theirs.vertices);
        assert_eq!(ours.indices, theirs.indices);
        assert_eq!(ours.vertices[2].position, [2.0, 1.0, 2.0]);

        let g = m.get(&s).unwrap();
        let theirs = ShaderView::from_asset(&g.asset()).unwrap();
        assert_eq!(g.view().meta, theirs.meta);
        assert!(g.view().is_spirv());

        let g = m.get(&r).unwrap();
        assert_eq!(g.view().header.asset_type, AssetType::TEXTURE);
    }
    // A thousand rounds of `get` and `view` ran no check.
    assert_eq!(m.stats().validations, 5);

    // A reload checks the new version once.
    m.reload(&me);
    assert!(m.wait_until(&me, Some(WAIT), |i| i.version == 2).is_some());
    assert_eq!(m.stats().validations, 6);
    assert_eq!(m.get(&me).unwrap().view().indices.as_ref(), &[0, 1, 2]);
}

#[test]
fn invalid_content_is_still_a_failed_load_checked_once() {
    let dir = tempfile::tempdir().unwrap();
    // Index 3 names no vertex: `caf`'s mesh check rejects it.
    write_atomic(&dir.path().join("bad.caf"), &mesh_bytes([0, 1, 3]));
    write_atomic(&dir.path().join("s.caf"), &shader_bytes());
    let m = manager(dir.path(), 1);
    let bad = m.load::<Mesh>("bad.caf");
    assert_bad_content(&m, &bad, caf_assets::Kind::Mesh);
    let wrong = m.load::<Texture>("s.caf");
    let e = failure(&m, &wrong);
    assert!(
        matches!(
            *e,
            AssetError::WrongType {
                found: AssetType::SHADER,
                ..
            }
        ),
        "{e}"
    );
    assert!(m.get(&bad).is_none() && m.get(&wrong).is_none());
    assert_eq!(m.stats().validations, 2);
}

/// A two-glyph SDF font ('A' with a 2x2 rectangle, space without one), one kerning pair,
/// a 4x2 atlas whose bytes are their own index.
fn font_bytes(kern_right: u32) -> Vec<u8> {
    let meta = caf::font::FontMetadata {
        version: 1,
        format: 1,
        atlas_width: 4,
        atlas_height: 2,
        glyph_count: 2,
        kerning_count: 1,
        em_size: 16.0,
        distance_range: 2.0,
        ascent: 0.8,
        descent: -0.2,
        line_gap: 0.1,
        units_per_em: 2048,
        reserved: 0,
    };
    let glyphs = [
        caf::font::GlyphRecord {
            codepoint: 32,
            advance: 0.3,
            ..Default::default()
        },
        caf::font::GlyphRecord {
            codepoint: 65,
            atlas_x: 1,
            atlas_y: 0,
            atlas_width: 2,
            atlas_height: 2,
            plane_left: -0.0625,
            plane_bottom: -0.0625,
            plane_right: 0.0625,
            plane_top: 0.0625,
            advance: 0.6,
        },
    ];
    let kern = caf::font::KerningRecord {
        left: 65,
        right: kern_right,
        adjust: -0.05,
    };
    let mut payload = Vec::new();
    for g in &glyphs {
        payload.extend_from_slice(&g.to_bytes());
    }
    payload.extend_from_slice(&kern.to_bytes());
    payload.extend(0u8..8);
    asset_bytes(AssetType::FONT, &meta.to_bytes(), &payload)
}

#[test]
fn font_kind_loads_a_checked_font_view() {
    let dir = tempfile::tempdir().unwrap();
    write_atomic(&dir.path().join("f.caf"), &font_bytes(32));
    // The kerning pair names 'B', which has no glyph: the font check refuses the file.
    write_atomic(&dir.path().join("bad.caf"), &font_bytes(66));
    let m = manager(dir.path(), 1);
    let f = m.load_sync::<Font>("f.caf").unwrap();
    let g = m.get(&f).unwrap();
    let ours = g.view();
    let theirs = caf::font::FontView::from_asset(&g.asset()).unwrap();
    assert_eq!(ours.tables(), theirs.tables());
    assert_eq!(ours.atlas(), theirs.atlas());
    assert_eq!(ours.atlas(), &[0, 1, 2, 3, 4, 5, 6, 7]);
    assert_eq!(ours.glyph('A').unwrap().atlas_x, 1);
    assert_eq!(ours.atlas_pixel(2, 1), Some(&[6u8][..]));
    assert_eq!(ours.kerning('A', ' '), -0.05);
    assert_eq!(ours.kerning(' ', 'A'), 0.0);
    assert!(ours.glyph('B').is_none());
    let bad = m.load::<Font>("bad.caf");
    assert_bad_content(&m, &bad, caf_assets::Kind::Font);
}
