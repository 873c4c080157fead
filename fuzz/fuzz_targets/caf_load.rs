//! Any byte string: the `.caf` loader returns Ok or a typed error, never panics, and what loads
//! repacks to the same bytes. The input is also wrapped into a valid container (type, flags and
//! a metadata/payload split taken from its first bytes) so the typed views see arbitrary
//! metadata and payloads behind correct CRCs.
#![no_main]

use caf::{
    Asset, AssetType, AudioView, CafFlags, LoadedAsset, MeshView, PrefabView, SceneView,
    ShaderView, TextureView,
};
use libfuzzer_sys::fuzz_target;

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
}

fuzz_target!(|data: &[u8]| {
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

    // Wrapped: [type % 9][flags lo][meta len] + rest split into metadata and payload.
    if data.len() >= 3 {
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
        let l = LoadedAsset::from_vec(bytes.clone()).expect("loads");
        views(&l.asset());
    }
});
