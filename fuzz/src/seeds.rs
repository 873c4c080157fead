//! Seed corpora, built at run time: the golden files (`$VOXCAF_GOLDEN`), the importer's
//! generated samples, `vwr::samples::showcase()`, `POOL_SCRIPT`, images encoded here in every
//! format the importer reads, and the small hand-written seeds in `fuzz/seeds/`.

use std::path::{Path, PathBuf};

use voxcaf_samples as samples;

/// Every file below `dir` whose name ends in one of `exts` (case-insensitive), sorted.
fn files(dir: &Path, exts: &[&str]) -> Vec<Vec<u8>> {
    let mut paths = Vec::new();
    let mut stack = vec![dir.to_path_buf()];
    while let Some(d) = stack.pop() {
        let Ok(rd) = std::fs::read_dir(&d) else {
            continue;
        };
        for e in rd.flatten() {
            let p = e.path();
            if p.is_dir() {
                stack.push(p);
            } else if p
                .extension()
                .and_then(|e| e.to_str())
                .is_some_and(|e| exts.iter().any(|x| x.eq_ignore_ascii_case(e)))
            {
                paths.push(p);
            }
        }
    }
    paths.sort();
    paths.iter().filter_map(|p| std::fs::read(p).ok()).collect()
}

fn golden(sub: &str) -> PathBuf {
    voxcaf_golden::root().join(sub)
}

/// The hand-written seeds committed in `fuzz/seeds/TARGET/`.
fn committed(target: &str) -> Vec<Vec<u8>> {
    files(
        &Path::new(env!("CARGO_MANIFEST_DIR"))
            .join("seeds")
            .join(target),
        &["txt", "toml", "vws", "bin"],
    )
}

fn encode(format: image::ImageFormat) -> Vec<u8> {
    let (w, h) = (13, 7);
    let img = image::RgbaImage::from_raw(w, h, samples::gradient_rgba(w, h)).expect("sized");
    let img = if matches!(format, image::ImageFormat::Jpeg) {
        // JPEG has no alpha.
        image::DynamicImage::ImageRgb8(image::DynamicImage::ImageRgba8(img).to_rgb8())
    } else {
        image::DynamicImage::ImageRgba8(img)
    };
    let mut out = std::io::Cursor::new(Vec::new());
    img.write_to(&mut out, format).expect("encodes");
    out.into_inner()
}

/// A `.caf` file from a conversion result.
fn caf_bytes(c: &caf_import::Converted) -> Vec<u8> {
    caf::AssetWriter::new(c.kind.asset_type())
        .flags(c.flags)
        .metadata(&c.metadata)
        .payload(&c.payload)
        .to_vec()
}

fn converted(bytes: &[u8], name: &str) -> Option<caf_import::Converted> {
    caf_import::convert(bytes, Path::new(name), &caf_import::Settings::default()).ok()
}

/// The generated importer samples as `.caf` files.
fn sample_cafs() -> Vec<Vec<u8>> {
    [
        converted(&samples::gradient_png(17, 9), "a.png"),
        converted(&samples::wav_i16(22050, 2, 300), "a.wav"),
        converted(samples::CUBE_OBJ.as_bytes(), "a.obj"),
        converted(&samples::triangle_glb(), "a.glb"),
        converted(samples::VERTEX_GLSL.as_bytes(), "a.vert"),
        converted(samples::FRAGMENT_GLSL.as_bytes(), "a.frag"),
        converted(samples::COMPUTE_WGSL.as_bytes(), "a.wgsl"),
    ]
    .iter()
    .flatten()
    .map(caf_bytes)
    .collect()
}

/// A minimal FLAC stream: the marker and a last STREAMINFO block (44.1 kHz, mono, 16 bit).
fn flac_seed() -> Vec<u8> {
    let mut v = b"fLaC".to_vec();
    v.extend([0x80, 0, 0, 34]); // last block, STREAMINFO, 34 bytes
    v.extend([0x10, 0x00, 0x10, 0x00]); // block sizes 4096
    v.extend([0, 0, 0, 0, 0, 0]); // frame sizes unknown
                                  // 44100 Hz (20 bits), 1 channel (3 bits: 0), 16 bits (5 bits: 15), 0 samples (36 bits).
    v.extend([0x0A, 0xC4, 0x40, 0xF0, 0, 0, 0, 0]);
    v.extend([0; 16]); // MD5
    v
}

/// An MPEG-1 layer III frame header (128 kbit/s, 44.1 kHz) followed by a silent frame body.
fn mp3_seed() -> Vec<u8> {
    let mut v = vec![0xFF, 0xFB, 0x90, 0x64];
    v.resize(417 * 2, 0);
    v[417..421].copy_from_slice(&[0xFF, 0xFB, 0x90, 0x64]);
    v
}

/// An Ogg page carrying the start of a Vorbis identification header.
fn ogg_seed() -> Vec<u8> {
    let mut packet = vec![1];
    packet.extend(b"vorbis");
    packet.extend(0u32.to_le_bytes()); // version
    packet.push(1); // channels
    packet.extend(44100u32.to_le_bytes());
    packet.extend([0; 12]); // bitrates
    packet.push(0xB8); // block sizes 256 / 2048
    packet.push(1); // framing
    let mut v = b"OggS".to_vec();
    v.push(0); // version
    v.push(2); // beginning of stream
    v.extend(0u64.to_le_bytes()); // granule
    v.extend(1u32.to_le_bytes()); // serial
    v.extend(0u32.to_le_bytes()); // sequence
    v.extend(0u32.to_le_bytes()); // CRC (left wrong: the fuzzer mutates it anyway)
    v.push(1);
    v.push(packet.len() as u8);
    v.extend(packet);
    v
}

/// The seed corpus of `target` (see [`crate::all`]).
pub fn seeds(target: &str) -> Vec<Vec<u8>> {
    use image::ImageFormat as F;
    let inputs = golden("caf/inputs");
    let mut s: Vec<Vec<u8>> = match target {
        "vwr_load" => {
            let mut v = files(&golden("vwr"), &["vwr"]);
            if let Ok(w) = vwr::samples::showcase() {
                v.push(w.to_bytes());
            }
            v.push(vwr::World::new().to_bytes());
            v
        }
        "vwr_v3_load" => {
            // Golden worlds in every codec and both page forms, a non-cubic world, and a file with
            // two commits.
            let mut v = Vec::new();
            let codecs = [
                vwr::Codec::Auto,
                vwr::Codec::Packed,
                vwr::Codec::Rle,
                vwr::Codec::Zstd,
            ];
            for b in files(&golden("vwr/worlds3d"), &["vwr"]).iter().take(6) {
                if let Ok(w) = vwr::World::from_bytes(b) {
                    for c in codecs {
                        v.extend(w.to_bytes_with(&vwr::SaveOptions::v3(c)).ok());
                    }
                    // The plain entry pages too (new files have compact ones).
                    let plain = vwr::SaveOptions {
                        pages: vwr::PageForm::Plain,
                        ..vwr::SaveOptions::v3(vwr::Codec::Auto)
                    };
                    v.extend(w.to_bytes_with(&plain).ok());
                }
            }
            if let Ok(mut w) = vwr::World::with_chunk_dims([3, 1, 2]) {
                let _ = w.fill_box([0, 0, 0], [29, 3, 19], vwr::Block(35 << 4));
                let _ = w.set_block([5, 9, 5], vwr::Block(7));
                let _ = w.place_move_object(&vwr::MoveObject::new(7, [2.0, 4.0, 2.0]));
                v.push(w.to_bytes());
                if let Ok(dir) = tempfile::tempdir() {
                    let p = dir.path().join("two-commits.vwr");
                    if w.save(&p).is_ok() {
                        let opts = vwr::SessionOptions::tool("fuzz seeds");
                        if let Ok((mut f, mut w2)) = vwr::WorldSession::open(&p, opts) {
                            let _ = f.load_box(&mut w2, [1, 1, 1], [1, 1, 1]);
                            let _ = w2.set_block([1, 1, 1], vwr::Block(9));
                            if f.save(&w2).is_ok() {
                                v.extend(std::fs::read(&p).ok());
                            }
                        }
                    }
                }
            }
            v
        }
        "caf_load" | "caf_describe" => {
            let mut v = files(&golden("caf"), &["caf"]);
            v.extend(sample_cafs());
            v
        }
        "caf_encoded" | "caf_encrypted" => {
            // Every sample conversion encoded with each codec (and the fuzz key), in small
            // blocks so that seeds have several.
            let key =
                (target == "caf_encrypted").then(|| caf::encoded::Key::from_bytes(crate::targets::FUZZ_KEY));
            let mut v = Vec::new();
            for bytes in sample_cafs() {
                let Ok(a) = caf::Asset::parse(&bytes) else {
                    continue;
                };
                for codec in [caf::encoded::Codec::Zstd, caf::encoded::Codec::Lz4, caf::encoded::Codec::None] {
                    let enc = caf::encoded::Encoding {
                        codec,
                        key: key.clone(),
                        block_size: caf::encoded::MIN_BLOCK_SIZE,
                        ..caf::encoded::Encoding::default()
                    };
                    if enc.is_plain() {
                        continue;
                    }
                    if let Ok(f) = caf::encoded::encode_asset(
                        a.header.asset_type,
                        a.header.flags,
                        a.metadata,
                        a.payload,
                        &enc,
                    ) {
                        v.push(f);
                    }
                }
            }
            v
        }
        "caf_pack" => {
            // Packs of the sample conversions, written through a temporary file.
            let mut v = Vec::new();
            if let Ok(dir) = std::env::temp_dir().canonicalize() {
                let path = dir.join(format!("voxcaf-fuzz-seed-{}.cafpack", std::process::id()));
                let items: Vec<(String, Vec<u8>)> = sample_cafs()
                    .into_iter()
                    .enumerate()
                    .map(|(i, b)| (format!("dir{}/asset{i}.caf", i % 2), b))
                    .collect();
                for n in [0, 1, items.len()] {
                    if caf::pack::write_pack_file(&path, items[..n].to_vec()).is_ok() {
                        if let Ok(b) = std::fs::read(&path) {
                            v.push(b);
                        }
                    }
                }
                let _ = std::fs::remove_file(&path);
            }
            v
        }
        "caf_views" => {
            // Re-shape each container into the wrapper's [type][flags][metadata length] form.
            let mut v = Vec::new();
            for bytes in files(&golden("caf"), &["caf"])
                .into_iter()
                .chain(sample_cafs())
            {
                if let Ok(a) = caf::Asset::parse(&bytes) {
                    if a.metadata.len() <= 255 {
                        let mut w = vec![
                            a.header.asset_type.0 as u8,
                            a.header.flags.0 as u8,
                            a.metadata.len() as u8,
                        ];
                        w.extend(a.metadata);
                        w.extend(a.payload);
                        v.push(w);
                    }
                }
            }
            v
        }
        "import_png" => {
            let mut v = files(&inputs, &["png"]);
            v.push(samples::gradient_png(17, 9));
            v
        }
        "import_jpeg" => vec![encode(F::Jpeg)],
        "import_tga" => vec![encode(F::Tga)],
        "import_bmp" => vec![encode(F::Bmp)],
        "import_gif" => vec![encode(F::Gif)],
        "import_webp" => vec![encode(F::WebP)],
        "import_wav" => {
            let mut v = files(&inputs, &["wav"]);
            v.push(samples::wav_i16(22050, 2, 100));
            v
        }
        "import_ogg" => vec![ogg_seed()],
        "import_flac" => vec![flac_seed()],
        "import_mp3" => vec![mp3_seed()],
        "import_obj" => {
            let mut v = files(&inputs, &["obj"]);
            v.push(samples::CUBE_OBJ.into());
            v.push(samples::QUAD_OBJ.into());
            v
        }
        "import_gltf" => files(&inputs, &["gltf"]),
        "import_glb" => {
            let mut v = files(&inputs, &["glb"]);
            v.push(samples::triangle_glb());
            v
        }
        "import_vert" => vec![samples::VERTEX_GLSL.into()],
        "import_frag" => vec![samples::FRAGMENT_GLSL.into()],
        "import_wgsl" => vec![samples::COMPUTE_WGSL.into()],
        "import_spv" => [
            (samples::VERTEX_GLSL, "a.vert"),
            (samples::FRAGMENT_GLSL, "a.frag"),
            (samples::COMPUTE_WGSL, "a.wgsl"),
        ]
        .iter()
        .filter_map(|(src, name)| converted(src.as_bytes(), name))
        .map(|c| c.payload)
        .collect(),
        "edit_script" => vec![vwr_edit::script::POOL_SCRIPT.into()],
        "vox_import" => {
            let mut v = files(&golden("../corpus/vox"), &["vox"]);
            for w in files(&golden("vwr/edge"), &["vwr"]) {
                if let Ok(world) = vwr::World::from_bytes(&w) {
                    if let Ok(out) = vwr_vox::export(&world, &Default::default()) {
                        v.push(out.bytes);
                    }
                }
            }
            v
        }
        _ => Vec::new(),
    };
    s.extend(committed(target));
    if s.is_empty() {
        s.push(Vec::new());
    }
    s
}
