//! Fidelity of the audio and OBJ importers on files other projects wrote
//! (`../shared/corpus`, see its SOURCES.md) and on Ogg Vorbis streams encoded here by
//! libvorbis (through `vorbis_rs`).

use std::io::Cursor;
use std::num::{NonZeroU32, NonZeroU8};
use std::path::Path;

use caf::audio::AudioView;
use caf::mesh::MeshView;
use caf::Asset;
use caf_import::{convert, ImportError, Settings};

use voxcaf_golden::corpus;

fn convert_file(path: &Path) -> Result<caf_import::Converted, ImportError> {
    let bytes = std::fs::read(path).unwrap();
    convert(&bytes, path, &Settings::default())
}

fn audio(c: &caf_import::Converted) -> (caf::audio::AudioMetadata, Vec<i16>) {
    let bytes = c.to_caf_bytes();
    let asset = Asset::parse(&bytes).unwrap();
    let v = AudioView::from_asset(&asset).unwrap();
    assert_eq!(v.meta.bits_per_sample, 16);
    let pcm = v
        .data
        .chunks_exact(2)
        .map(|b| i16::from_le_bytes([b[0], b[1]]))
        .collect();
    (v.meta, pcm)
}

/// ISO Layer III conformance stream with block switching: symphonia 0.5.5 decoded frames
/// 17-27 of it as full-scale noise. The decode must match the reference PCM next to it
/// within 1 LSB, sample for sample at offset 0 (there is no decoder delay between them).
/// The reference stops one frame early: the stream holds 64 complete frames (64 x 1152
/// samples), the reference 63; the importer keeps the 64th.
#[test]
fn mp3_block_switching_matches_the_reference_decode() {
    let (Some(mp3), Some(reference)) = (
        corpus("audio/minimp3-l3-si_block.mp3"),
        corpus("audio/minimp3-l3-si_block.pcm"),
    ) else {
        return;
    };
    let reference: Vec<i16> = std::fs::read(reference)
        .unwrap()
        .chunks_exact(2)
        .map(|b| i16::from_le_bytes([b[0], b[1]]))
        .collect();
    let (meta, pcm) = audio(&convert_file(&mp3).unwrap());
    assert_eq!((meta.sample_rate, meta.channels), (44100, 1));
    assert_eq!(pcm.len(), 64 * 1152);
    assert_eq!(reference.len(), 63 * 1152);
    let (worst_at, worst) = pcm
        .iter()
        .zip(&reference)
        .map(|(&a, &b)| (i32::from(a) - i32::from(b)).abs())
        .enumerate()
        .max_by_key(|&(_, d)| d)
        .unwrap();
    assert!(
        worst <= 1,
        "sample {worst_at} (frame {}) differs by {worst}",
        worst_at / 1152
    );
    // Not a silent stream that would match anything (its peak is 687).
    assert!(reference.iter().any(|&s| s.unsigned_abs() > 600));
}

/// Encode `frames` frames of a chirp with libvorbis.
fn vorbis(frames: usize, channels: u8, rate: u32) -> Vec<u8> {
    let planes: Vec<Vec<f32>> = (0..channels)
        .map(|c| {
            (0..frames)
                .map(|i| {
                    let t = i as f32 / rate as f32;
                    0.5 * (t * (440.0 + 300.0 * t + 50.0 * c as f32) * std::f32::consts::TAU).sin()
                })
                .collect()
        })
        .collect();
    let mut out = Vec::new();
    let mut enc = vorbis_rs::VorbisEncoderBuilder::new_with_serial(
        NonZeroU32::new(rate).unwrap(),
        NonZeroU8::new(channels).unwrap(),
        &mut out,
        7,
    )
    .build()
    .unwrap();
    // In uneven blocks, as a streaming encoder would be fed.
    let mut at = 0;
    for block in [1usize, 700, 4096].iter().cycle() {
        if at >= frames {
            break;
        }
        let end = (at + block).min(frames);
        let slices: Vec<&[f32]> = planes.iter().map(|p| &p[at..end]).collect();
        enc.encode_audio_block(&slices).unwrap();
        at = end;
    }
    enc.finish().unwrap();
    out
}

/// Frames libvorbis (vorbisfile) decodes from an Ogg Vorbis stream.
fn libvorbis_frames(ogg: &[u8]) -> usize {
    let mut dec = vorbis_rs::VorbisDecoder::new(Cursor::new(ogg)).unwrap();
    let mut frames = 0;
    while let Some(block) = dec.decode_audio_block().unwrap() {
        frames += block.samples()[0].len();
    }
    frames
}

/// Ogg Vorbis output has exactly the source's frame count, which is also what libvorbis
/// decodes: the end is trimmed at the last page's granule position. Lengths are chosen not
/// to be multiples of either Vorbis block size (256 / 2048 at 44.1 kHz).
#[test]
fn vorbis_output_has_the_frame_count_libvorbis_decodes() {
    for (frames, channels, rate) in [
        (1usize, 1u8, 44100u32),
        (100, 1, 44100),
        (1000, 1, 44100),
        (2049, 1, 44100),
        (4097, 2, 44100),
        (44100 + 123, 2, 44100),
        (30011, 1, 22050),
        (100_003, 2, 48000),
    ] {
        let ogg = vorbis(frames, channels, rate);
        let reference = libvorbis_frames(&ogg);
        assert_eq!(reference, frames, "libvorbis itself, {frames} frames");
        let c = convert(&ogg, Path::new("chirp.ogg"), &Settings::default())
            .unwrap_or_else(|e| panic!("{frames} frames: {e}"));
        let (meta, pcm) = audio(&c);
        assert_eq!(
            (meta.sample_rate, meta.channels as u8),
            (rate, channels),
            "{frames} frames"
        );
        assert_eq!(meta.sample_count as usize, frames, "{frames} frames");
        assert_eq!(pcm.len(), frames * channels as usize);
        // The start is aligned too: the decoded chirp follows the source (lossy, so loosely).
        if frames >= 4096 {
            let t = |i: usize| i as f32 / rate as f32;
            let err: f32 = (1000..3000)
                .map(|i| {
                    let want = 0.5 * (t(i) * (440.0 + 300.0 * t(i)) * std::f32::consts::TAU).sin();
                    let got = f32::from(pcm[i * channels as usize]) / 32768.0;
                    (want - got).abs()
                })
                .sum::<f32>()
                / 2000.0;
            assert!(err < 0.05, "{frames} frames: mean error {err}");
        }
    }
}

/// The corpus OBJ `rel` converted: its metadata, vertices and indices; `None` (skip) when the
/// corpus is missing and not required.
fn corpus_mesh(rel: &str) -> Option<(caf::mesh::MeshMetadata, Vec<caf::mesh::Vertex>, Vec<u32>)> {
    let bytes = convert_file(&corpus(rel)?).unwrap().to_caf_bytes();
    let asset = Asset::parse(&bytes).unwrap();
    let m = MeshView::from_asset(&asset).unwrap();
    Some((m.meta, m.vertices.to_vec(), m.indices.to_vec()))
}

/// `v x y z w`: w is a weight for rational curves, not a divisor; the cube keeps its 0..2
/// extent (tobj divided by w, giving coordinates up to 20).
#[test]
fn obj_vertex_w_component_is_not_a_divisor() {
    let Some((meta, verts, idx)) = corpus_mesh("mesh/tinyobj-cube-vertex-w-component.obj") else {
        return;
    };
    assert_eq!(meta.index_count, 36);
    assert_eq!(meta.sub_mesh_count, 6);
    let mut corners: Vec<[f32; 3]> = idx.iter().map(|&i| verts[i as usize].position).collect();
    corners.sort_by(|a, b| a.partial_cmp(b).unwrap());
    corners.dedup();
    let mut want = Vec::new();
    for x in [0.0, 2.0] {
        for y in [0.0, 2.0] {
            for z in [0.0, 2.0] {
                want.push([x, y, z]);
            }
        }
    }
    assert_eq!(corners, want);
}

/// A face without `vt` in a file whose other faces have one: its corners get UV (0, 0),
/// not another corner's coordinate (tobj repeated the previous corner's).
#[test]
fn obj_corner_without_vt_gets_zero_uv() {
    let Some((meta, verts, idx)) = corpus_mesh("mesh/tinyobj-issue-161-inconsistent-f.obj") else {
        return;
    };
    assert_eq!(meta.index_count, 36);
    // The last face, `f 5 1 3`: positions 5, 1, 3 of the file.
    let last: Vec<&caf::mesh::Vertex> = idx[33..].iter().map(|&i| &verts[i as usize]).collect();
    assert_eq!(
        last.iter().map(|v| v.position).collect::<Vec<_>>(),
        [[-0.5, 0.5, -0.5], [-0.5, -0.5, 0.5], [-0.5, 0.5, 0.5]]
    );
    for v in &last {
        assert_eq!(v.uv, [0.0, 0.0]);
    }
    // The face before it, `f 7/1 1/2 5/3`, keeps its coordinates.
    let before: Vec<[f32; 2]> = idx[30..33].iter().map(|&i| verts[i as usize].uv).collect();
    assert_eq!(before, [[0.0, 0.0], [1.0, 0.0], [0.0, 1.0]]);
}

/// A file of only `l` polylines has no faces: a typed "empty" error that says so, not
/// triangles filled in between the line points.
#[test]
fn obj_of_only_lines_is_refused_as_having_no_faces() {
    let Some(path) = corpus("mesh/tinyobj-line-prim.obj") else {
        return;
    };
    let err = convert_file(&path).unwrap_err();
    let msg = err.to_string();
    assert!(matches!(err, ImportError::Empty { .. }), "{msg}");
    assert!(
        msg.contains("no faces") && msg.contains("2 line element"),
        "{msg}"
    );
}
