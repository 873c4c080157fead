//! The target bodies. Each is `fn(&[u8])` and panics only on a finding.

use std::path::Path;

use caf::audio::AudioView;
use caf::mesh::MeshView;
use caf::prefab::PrefabView;
use caf::scene::SceneView;
use caf::shader::ShaderView;
use caf::texture::TextureView;
use caf::{Asset, AssetType, CafFlags, LoadedAsset};
use caf_import::Settings;

/// `.vwr` loader: `Ok` or a typed error; what loads re-saves to bytes that load to the same
/// world, and its dump and derived tables never panic.
pub fn vwr_load(data: &[u8]) {
    if let Ok((world, _oddities)) = vwr::read_world_checked(data) {
        let bytes = world.to_bytes();
        let back = vwr::World::from_bytes(&bytes).expect("a re-saved world must load");
        assert!(back == world, "load -> save -> load changed the world");
        assert_eq!(back.to_bytes(), bytes, "saving is not deterministic");
        let _ = vwr::dump::dump(&back);
        let _ = world.move_objects();
        let _ = world.big_decors();
    }
}

/// `.vwr` v3 reader (docs/format/vwr-v3.md): `Ok` or a typed error, no allocation sized by the
/// file; what loads re-saves as v3 with the codec the first byte picks and reloads equal, and
/// the codec statistics of the commit never panic; the byte accounting sums to the file size.
pub fn vwr_v3_load(data: &[u8]) {
    let _ = vwr::codec_stats(data);
    if let Ok(Some(b)) = vwr::file_bytes(data) {
        let sum: u64 = b.parts().iter().map(|p| p.1).sum();
        assert_eq!(
            sum,
            data.len() as u64,
            "world info parts sum to the file size"
        );
    }
    if let Ok((world, _oddities)) = vwr::read_world_checked(data) {
        let codec = [
            vwr::Codec::Auto,
            vwr::Codec::Packed,
            vwr::Codec::Rle,
            vwr::Codec::Zstd,
        ][data.get(5).copied().unwrap_or(0) as usize % 4];
        let bytes = world
            .to_bytes_with(&vwr::SaveOptions::v3(codec))
            .expect("v3 holds every world");
        let back = vwr::World::from_bytes(&bytes).expect("a re-saved world must load");
        assert!(back == world, "load -> v3 save -> load changed the world");
        let _ = vwr::dump::dump(&back);
    }
}

/// Every typed view over one asset; what a view accepts must be self-consistent.
fn views(a: &Asset<'_>) {
    if let Ok(t) = TextureView::from_asset(a) {
        let total: usize = t.levels().iter().map(|l| l.len()).sum();
        assert_eq!(total, a.payload.len());
    }
    if let Ok(v) = AudioView::from_asset(a) {
        let _ = v.samples_i16_cow();
    }
    if let Ok(m) = MeshView::from_asset(a) {
        assert!(m.indices.iter().all(|&i| (i as usize) < m.vertices.len()));
    }
    let _ = ShaderView::from_asset(a).map(|s| s.words());
    if let Ok(s) = SceneView::from_asset(a) {
        for sec in s.sections() {
            assert_eq!(sec.entries().count(), sec.count as usize);
        }
    }
    let _ = PrefabView::from_asset(a).map(|p| p.entities().count());
    if let Ok(v) = caf::animation::AnimationView::from_asset(a) {
        for c in 0..v.clip_count() {
            for k in 0..v.channels(c).len() {
                for t in [-1.0, 0.0, 0.37, 1e9] {
                    assert!(v.sample(c, k, t).is_some());
                }
            }
        }
    }
}

/// `.caf` loader (`Asset::parse`, `parse_layout`, the header check, `LoadedAsset::from_bytes`)
/// and the typed views over whatever loads; what loads repacks to the same bytes.
pub fn caf_load(data: &[u8]) {
    let _ = caf::validate_header_bytes(data);
    let _ = Asset::parse_layout(data);
    let parsed = Asset::parse(data);
    assert_eq!(parsed.is_ok(), LoadedAsset::from_bytes(data).is_ok());
    if let Ok(a) = parsed {
        views(&a);
        let again = caf::AssetWriter::new(a.header.asset_type)
            .flags(a.header.flags)
            .metadata(a.metadata)
            .payload(a.payload)
            .to_vec();
        // The writer writes versionMinor 0, so only such files repack to identical bytes.
        if a.header.version_minor == 0 {
            assert_eq!(again, data);
        } else {
            assert_eq!(again.len(), data.len());
        }
    }
}

/// The typed views behind valid CRCs: the input is wrapped into a valid container (type, flags
/// and a metadata/payload split taken from its first three bytes), so the views see arbitrary
/// metadata and payloads that the container checks would otherwise reject first.
pub fn caf_views(data: &[u8]) {
    if data.len() < 3 {
        return;
    }
    let ty = AssetType(u16::from(data[0] % 9));
    let flags = CafFlags(u16::from(data[1]) & !0x3); // views refuse COMPRESSED/ENCRYPTED
    let rest = &data[3..];
    let n = (data[2] as usize).min(rest.len());
    let bytes = caf::AssetWriter::new(ty)
        .flags(flags)
        .metadata(&rest[..n])
        .payload(&rest[n..])
        .to_vec();
    let a = Asset::parse(&bytes).expect("the writer's output always loads");
    views(&a);
    let l = LoadedAsset::from_vec(bytes.clone()).expect("the writer's output always loads");
    views(&l.asset());
    // What a view accepts, `asset export` writes (or refuses with a typed error): meshes with
    // their skin, animations, textures, audio, fonts.
    if matches!(ty, AssetType::MESH | AssetType::ANIMATION) {
        let _ = caf_import::export::export(
            bytes,
            std::path::Path::new("out.glb"),
            &Default::default(),
        );
    }
}

/// `caf::Description::from_bytes` (what `asset info` prints) on any bytes, and its text.
pub fn caf_describe(data: &[u8]) {
    let d = caf::Description::from_bytes(data);
    let _ = format!("{d:?}");
}

/// The key of the `caf_encrypted` target and its seeds.
pub const FUZZ_KEY: [u8; 32] = [0x5A; 32];

/// Whole and streamed decoding of one file agree: both fail, or both give the same bytes.
fn decode_both(data: &[u8], key: Option<&caf::encoded::Key>) {
    let opts = caf::encoded::DecodeOptions {
        key,
        // Bombs must be refused or stream in bounded memory; the harness's 2 GiB malloc limit
        // catches a decoder that trusts a size field.
        max_plain_size: 64 << 20,
    };
    let whole = Asset::parse(data).and_then(|a| {
        let _ = caf::encoded::block_index(&a);
        caf::encoded::decode_payload(&a, &opts)
    });
    let mut streamed = Vec::new();
    let s = caf::encoded::StreamReader::new(data, key).and_then(|r| {
        r.for_each_block(|b| {
            if streamed.len() < 64 << 20 {
                streamed.extend_from_slice(b);
            }
            Ok(())
        })
    });
    if let (Ok(w), Ok(())) = (&whole, &s) {
        if w.len() < 64 << 20 {
            assert_eq!(w, &streamed, "whole and streamed decoding differ");
        }
    }
    if let Ok(a) = Asset::parse(data) {
        if let Ok(plain) = caf::encoded::decode_asset(&a, &opts) {
            let p = Asset::parse(&plain).expect("a decoded asset is a valid plain file");
            assert!(!caf::encoded::is_encoded(p.header.flags));
            views(&p);
        }
    }
    let _ = format!("{:?}", caf::Description::from_bytes_with_key(data, key));
}

/// The input's encoded payload with its block CRCs and index CRC recomputed, wrapped in a
/// valid container whose flags match the index: mutants then reach the block decoders and
/// the authentication instead of stopping at a CRC.
fn with_fixed_crcs(data: &[u8]) -> Option<Vec<u8>> {
    let a = Asset::parse_layout(data).ok()?.0;
    let mut p = a.payload.to_vec();
    let hdr = caf::encoded::INDEX_HEADER_SIZE;
    if p.len() < hdr {
        return None;
    }
    let count = u32::from_le_bytes(p[12..16].try_into().ok()?) as usize;
    let entries_end = hdr.checked_add(count.checked_mul(caf::encoded::ENTRY_SIZE)?)?;
    if entries_end > p.len() {
        return None;
    }
    for i in 0..count {
        let at = hdr + i * caf::encoded::ENTRY_SIZE;
        let off = u64::from_le_bytes(p[at..at + 8].try_into().ok()?) as usize;
        let len = u32::from_le_bytes(p[at + 8..at + 12].try_into().ok()?) as usize;
        if let Some(block) = off.checked_add(len).and_then(|end| p.get(off..end)) {
            let crc = caf::crc32(block);
            p[at + 12..at + 16].copy_from_slice(&crc.to_le_bytes());
        }
    }
    let icrc = caf::crc32_continue(caf::crc32(&p[..84]), &p[hdr..entries_end]);
    p[84..88].copy_from_slice(&icrc.to_le_bytes());
    let mut flags = CafFlags(a.header.flags.0 & !0x3);
    if p[6] != 0 {
        flags |= CafFlags::COMPRESSED;
    }
    if p[7] != 0 {
        flags |= CafFlags::ENCRYPTED;
    }
    Some(
        caf::AssetWriter::new(a.header.asset_type)
            .flags(flags)
            .metadata(a.metadata)
            .payload(&p)
            .to_vec(),
    )
}

/// COMPRESSED payloads (zstd, LZ4, stored) without a key: block index, whole decoding,
/// streaming (which must agree), the decoded asset's typed views, and the description; on the
/// input and on the input with its CRCs recomputed.
pub fn caf_encoded(data: &[u8]) {
    decode_both(data, None);
    if let Some(fixed) = with_fixed_crcs(data) {
        decode_both(&fixed, None);
    }
}

/// ENCRYPTED payloads with the harness's fixed key (`FUZZ_KEY`), as `caf_encoded`.
pub fn caf_encrypted(data: &[u8]) {
    let key = caf::encoded::Key::from_bytes(FUZZ_KEY);
    decode_both(data, Some(&key));
    if let Some(fixed) = with_fixed_crcs(data) {
        decode_both(&fixed, Some(&key));
    }
}

/// `.cafpack` archives: `caf::pack::check_pack_bytes` (header, index, every asset); what is
/// accepted re-packs to a pack with the same entries.
pub fn caf_pack(data: &[u8]) {
    if let Ok(entries) = caf::pack::check_pack_bytes(data) {
        for (name, e) in &entries {
            assert!(e.offset + e.size <= data.len() as u64, "{name}");
        }
    }
}

/// Where a glTF's external buffers would be looked up: a folder that does not exist, so the
/// fuzzer cannot make the importer read files of the machine it runs on.
const NOWHERE: &str = "/nonexistent-voxcaf-fuzz";

/// One importer input kind through `caf_import::convert`, with the default settings and, for
/// kinds that have one, the original profile.
fn import(data: &[u8], ext: &str, both_profiles: bool) {
    let path = Path::new(NOWHERE).join(format!("input.{ext}"));
    let _ = caf_import::convert(data, &path, &Settings::default());
    if both_profiles {
        let _ = caf_import::convert(data, &path, &Settings::original());
    }
    if ext == "gltf" || ext == "glb" {
        let anim = Settings {
            kind: Some(caf_import::AssetKind::Animation),
            ..Settings::default()
        };
        let _ = caf_import::convert(data, &path, &anim);
    }
}

macro_rules! import_targets {
    ($($name:ident => $ext:literal, $both:literal;)*) => {$(
        #[doc = concat!("`caf_import::convert` of a `.", $ext, "` input.")]
        pub fn $name(data: &[u8]) {
            import(data, $ext, $both);
        }
    )*};
}

import_targets! {
    import_png => "png", true;
    import_jpeg => "jpg", true;
    import_tga => "tga", true;
    import_bmp => "bmp", true;
    import_gif => "gif", true;
    import_webp => "webp", true;
    import_wav => "wav", true;
    import_ogg => "ogg", true;
    import_flac => "flac", true;
    import_mp3 => "mp3", true;
    import_obj => "obj", true;
    import_gltf => "gltf", true;
    import_glb => "glb", true;
    import_vert => "vert", false;
    import_frag => "frag", false;
    import_wgsl => "wgsl", false;
    import_spv => "spv", false;
}

/// The block registry's TOML (`Registry::apply_toml`); a refused file leaves the registry
/// untouched.
pub fn registry_toml(data: &[u8]) {
    // Built once: the default registry is a few thousand entries.
    static FRESH: std::sync::OnceLock<vwr_blocks::Registry> = std::sync::OnceLock::new();
    let fresh = FRESH.get_or_init(vwr_blocks::Registry::default);
    let text = String::from_utf8_lossy(data);
    let mut r = fresh.clone();
    if r.apply_toml(&text).is_err() {
        for t in 0..vwr_blocks::TYPE_COUNT as u16 {
            if r.info(t) != fresh.info(t) {
                panic!("a refused registry file changed block {t}");
            }
        }
    }
}

/// A build sidecar (`name.ext.toml`, `SettingsOverride::from_toml`) applied to the defaults.
pub fn sidecar_toml(data: &[u8]) {
    let text = String::from_utf8_lossy(data);
    if let Ok(o) = caf_import::SettingsOverride::from_toml(&text, Path::new("input.png.toml")) {
        let s = Settings::default().with_override(&o);
        let _ = s.to_json();
    }
}

/// An edit script (`script::parse_text`) applied with `apply_ops` to a one-chunk world, then
/// undone completely, which must restore the world.
pub fn edit_script(data: &[u8]) {
    let text = String::from_utf8_lossy(data);
    let Ok(ops) = vwr_edit::script::parse_text("fuzz", &text) else {
        return;
    };
    let world = vwr::World::with_chunks_per_axis(1).expect("1 is a valid size");
    let original = world.to_bytes();
    let mut ed = vwr_edit::Editor::new(world);
    let _ = vwr_edit::script::apply_ops(&mut ed, &ops, 100_000);
    while ed.undo().is_some() {}
    assert!(
        ed.world().to_bytes() == original,
        "undoing every command did not restore the world"
    );
}

/// MagicaVoxel `.vox` import (`vwr_vox::import`, worlds capped at 64 chunks per axis): `Ok` or
/// a typed error; what imports and fits a palette exports, and that export imports to the
/// same blocks.
pub fn vox_import(data: &[u8]) {
    let opts = vwr_vox::ImportOptions {
        max_blocks_per_axis: 640,
        ..Default::default()
    };
    let Ok(first) = vwr_vox::import(data, &opts) else {
        return;
    };
    let Ok(out) = vwr_vox::export(&first.world, &vwr_vox::ExportOptions::default()) else {
        return;
    };
    let back = vwr_vox::import(&out.bytes, &opts).expect("an export must import");
    let blocks = |w: &vwr::World| {
        let mut v = Vec::new();
        w.for_each_non_air(|p, b| v.push((p, b)));
        v
    };
    assert_eq!(back.world.chunk_dims(), first.world.chunk_dims());
    assert!(blocks(&back.world) == blocks(&first.world), "round trip changed the blocks");
}
