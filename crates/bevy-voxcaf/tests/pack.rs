//! `.cafpack` members as ordinary asset paths (`cafpack://game.cafpack/textures/hero.caf`):
//! a member loads reading its own bytes and not the rest of the pack. The bytes are counted
//! twice: by the source itself, and by the kernel (`rchar` of `/proc/self/io`: every byte the
//! process read through a system call, the pack's header and index included).

use std::path::Path;
use std::time::Duration;

use bevy::asset::{Assets, Handle};
use bevy::image::Image;
use bevy::mesh::Mesh;
use bevy_voxcaf::{headless_app, load_now, CafPackStats, LoadFailure};
use caf::pack::Pack;
use caf_import::{GpuFormat, Settings};

const WAIT: Duration = Duration::from_secs(60);

/// Bytes this process has read through system calls so far.
fn rchar() -> Option<u64> {
    let io = std::fs::read_to_string("/proc/self/io").ok()?;
    io.lines()
        .find_map(|l| l.strip_prefix("rchar: "))
        .and_then(|v| v.trim().parse().ok())
}

fn texture(size: u32) -> Vec<u8> {
    let png = voxcaf_samples::png_rgba(size, size, &voxcaf_samples::noisy_rgba(size, size));
    let settings = Settings {
        gpu_format: Some(GpuFormat::Rgba8),
        mips: true,
        ..Settings::default()
    };
    caf_import::convert(&png, Path::new("t.png"), &settings)
        .unwrap()
        .to_caf_bytes()
}

#[test]
fn a_member_loads_reading_only_its_own_bytes() {
    let dir = tempfile::tempdir().unwrap();
    let mut items: Vec<(String, Vec<u8>)> = (0..4)
        .map(|i| (format!("textures/big{i}.caf"), texture(512)))
        .collect();
    items.push(("textures/hero.caf".into(), texture(16)));
    let two = caf_import::convert(
        &voxcaf_samples::two_cubes_glb(),
        Path::new("two.glb"),
        &Settings::default(),
    )
    .unwrap();
    items.push(("meshes/two.caf".into(), two.to_caf_bytes()));
    let pack_path = dir.path().join("game.cafpack");
    caf::pack::write_pack_file(&pack_path, items.clone()).unwrap();
    let pack_len = std::fs::metadata(&pack_path).unwrap().len();
    assert!(pack_len > 5_000_000, "{pack_len}");
    let pack = Pack::open(&pack_path).unwrap();
    let size = |p: &str| pack.find(p).unwrap().size;

    let mut app = headless_app(dir.path());
    let stats = app.world().resource::<CafPackStats>().clone();
    let before = rchar();
    let h: Handle<Image> =
        load_now(&mut app, "cafpack://game.cafpack/textures/hero.caf", WAIT).unwrap();
    let after = rchar();
    let hero = size("textures/hero.caf");
    assert_eq!(stats.bytes_read(), hero, "the source read the member alone");
    if let (Some(a), Some(b)) = (before, after) {
        // Header and index (a few hundred bytes), the member, and the small reads of a
        // running process (this file): nowhere near the 5 MB of the other members.
        let read = b - a;
        eprintln!("member {hero} bytes; the process read {read} of the pack's {pack_len}");
        assert!(read >= hero && read < hero + 64 * 1024, "{read} bytes read");
    }
    let img = app.world().resource::<Assets<Image>>().get(&h).unwrap();
    assert_eq!((img.width(), img.height()), (16, 16));
    let want = items
        .iter()
        .find(|(p, _)| p == "textures/hero.caf")
        .unwrap();
    let lib = caf::LoadedAsset::from_vec(want.1.clone()).unwrap();
    let view = caf::texture::TextureView::from_asset(&lib.asset()).unwrap();
    assert_eq!(img.data.as_deref(), Some(&view.levels().concat()[..]));

    // A second member: its own bytes again (the pack stays open).
    let part: Handle<Mesh> = load_now(
        &mut app,
        "cafpack://game.cafpack/meshes/two.caf#part/1",
        WAIT,
    )
    .unwrap();
    assert!(app.world().resource::<Assets<Mesh>>().get(&part).is_some());
    assert_eq!(stats.bytes_read(), hero + size("meshes/two.caf"));

    // What is not there says so.
    for (path, says) in [
        ("cafpack://game.cafpack/textures/villain.caf", "not found"),
        ("cafpack://other.cafpack/textures/hero.caf", "not found"),
        ("cafpack://textures/hero.caf", "not found"),
    ] {
        let Err(LoadFailure::Failed { message, .. }) = load_now::<Image>(&mut app, path, WAIT)
        else {
            panic!("{path} loaded");
        };
        assert!(message.to_lowercase().contains(says), "{path}: {message}");
    }
}

#[test]
fn a_damaged_pack_or_member_is_refused_with_the_library_message() {
    let dir = tempfile::tempdir().unwrap();
    std::fs::write(dir.path().join("junk.cafpack"), b"not a pack at all").unwrap();
    let items = vec![("t.caf".to_string(), texture(8))];
    let good = dir.path().join("good.cafpack");
    caf::pack::write_pack_file(&good, items).unwrap();
    let mut bytes = std::fs::read(&good).unwrap();
    let e = *Pack::open(&good).unwrap().find("t.caf").unwrap();
    // Flip a payload byte of the member: its CRC no longer matches.
    bytes[(e.offset + e.size - 8) as usize] ^= 0xFF;
    std::fs::write(dir.path().join("bad.cafpack"), &bytes).unwrap();
    let mut app = headless_app(dir.path());
    let junk = load_now::<Image>(&mut app, "cafpack://junk.cafpack/t.caf", WAIT);
    let Err(LoadFailure::Failed { message, .. }) = junk else {
        panic!("a member of a junk pack loaded");
    };
    let lib = Pack::open(&dir.path().join("junk.cafpack")).unwrap_err();
    assert!(message.contains(&lib.to_string()), "{message}");
    let bad = load_now::<Image>(&mut app, "cafpack://bad.cafpack/t.caf", WAIT);
    let Err(LoadFailure::Failed { message, .. }) = bad else {
        panic!("a damaged member loaded");
    };
    assert!(message.to_lowercase().contains("crc"), "{message}");
}
