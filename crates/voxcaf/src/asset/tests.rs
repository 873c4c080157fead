use super::*;
use caf::texture::TextureMetadata;
use clap::Parser;

#[derive(Parser)]
struct Cli {
    #[command(subcommand)]
    cmd: AssetCmd,
}

fn parse(args: &[&str]) -> AssetCmd {
    Cli::try_parse_from(std::iter::once("asset").chain(args.iter().copied()))
        .unwrap_or_else(|e| panic!("{args:?}: {e}"))
        .cmd
}

#[test]
fn pack_repack_extract_info_check() {
    let dir = tempfile::tempdir().unwrap();
    let p = |n: &str| dir.path().join(n).display().to_string();
    let meta = TextureMetadata {
        width: 2,
        height: 1,
        format: 0,
        mip_levels: 2,
        reserved: 0,
    };
    std::fs::write(p("meta.bin"), meta.to_bytes()).unwrap();
    std::fs::write(p("pixels.bin"), [1u8, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11, 12]).unwrap();
    let cmd = parse(&[
        "pack",
        "--type",
        "texture",
        "--flags",
        "srgb|mipchain",
        "--metadata",
        &p("meta.bin"),
        "--payload",
        &p("pixels.bin"),
        &p("t.caf"),
    ]);
    assert_eq!(run(cmd).unwrap(), 0);
    let want = caf::AssetWriter::new(AssetType::TEXTURE)
        .flags(CafFlags(0x0C))
        .metadata(&meta.to_bytes())
        .payload(&[1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11, 12])
        .to_vec();
    assert_eq!(std::fs::read(p("t.caf")).unwrap(), want);

    // Numbers work as well as names.
    assert_eq!(
        run(parse(&[
            "pack",
            "--type",
            "1",
            "--flags",
            "0x0c",
            "--metadata",
            &p("meta.bin"),
            "--payload",
            &p("pixels.bin"),
            &p("n.caf")
        ]))
        .unwrap(),
        0
    );
    assert_eq!(std::fs::read(p("n.caf")).unwrap(), want);
    assert!(Cli::try_parse_from(["asset", "pack", "--type", "sprite", "x.caf"]).is_err());
    assert!(
        Cli::try_parse_from(["asset", "pack", "--type", "mesh", "--flags", "shiny", "x.caf"])
            .is_err()
    );

    assert_eq!(
        run(parse(&["repack", &p("t.caf"), &p("r.caf")])).unwrap(),
        0
    );
    assert_eq!(std::fs::read(p("r.caf")).unwrap(), want);

    assert_eq!(
        run(parse(&[
            "extract",
            &p("t.caf"),
            "--metadata",
            &p("m.out"),
            "--payload",
            &p("p.out")
        ]))
        .unwrap(),
        0
    );
    assert_eq!(std::fs::read(p("m.out")).unwrap(), meta.to_bytes());
    assert_eq!(std::fs::read(p("p.out")).unwrap().len(), 12);
    assert!(run(parse(&["extract", &p("t.caf")])).is_err());

    assert_eq!(run(parse(&["info", &p("t.caf")])).unwrap(), 0);
    assert_eq!(run(parse(&["info", "--json", &p("t.caf")])).unwrap(), 0);
    assert_eq!(
        run(parse(&["check", &p("t.caf"), &p("r.caf"), "--typed"])).unwrap(),
        0
    );

    let mut bad = want.clone();
    bad[60] ^= 1;
    std::fs::write(p("bad.caf"), &bad).unwrap();
    assert_eq!(
        run(parse(&["info", &p("bad.caf")])).unwrap(),
        1,
        "info describes but fails"
    );
    assert_eq!(
        run(parse(&["check", &p("t.caf"), &p("bad.caf")])).unwrap(),
        1
    );
    assert_eq!(run(parse(&["check", "--json", &p("bad.caf")])).unwrap(), 1);
    assert!(run(parse(&["repack", &p("bad.caf"), &p("x.caf")])).is_err());
    std::fs::write(p("short.caf"), [0xFE, 0xCA]).unwrap();
    assert_eq!(run(parse(&["info", &p("short.caf")])).unwrap(), 1);
    assert!(run(parse(&["check", &p("missing.caf")])).unwrap() == 1);
}

#[test]
fn info_json_has_the_documented_fields() {
    let bytes = caf::AssetWriter::new(AssetType::MESH)
        .metadata(&caf::mesh::MeshMetadata::default().to_bytes())
        .to_vec();
    let j = Description::from_bytes(&bytes).to_json("m.caf");
    for k in [
        "type",
        "flags",
        "version_major",
        "version_minor",
        "metadata_size",
        "data_size",
        "payload_crc",
        "type_name",
        "flag_names",
    ] {
        assert!(j.get(k).is_some(), "{k}");
    }
    assert_eq!(j["type_name"], "mesh");
    assert_eq!(j["metadata"]["vertex_count"], 0);
    assert!(j.get("decoded").is_some() && j.get("decode_error").is_none());
}

#[test]
fn check_agrees_with_the_golden_verdicts() {
    let Some(dir) = voxcaf_golden::caf() else {
        return;
    };
    let manifest = std::fs::read_to_string(dir.join("manifest.tsv")).unwrap();
    let (mut good, mut bad) = (Vec::new(), Vec::new());
    for line in manifest.lines().skip(1) {
        let path = line.split('\t').next().unwrap();
        let valid = !path.starts_with("invalid/") || path.ends_with("_VALID.caf");
        if valid { &mut good } else { &mut bad }.push(dir.join(path));
    }
    // Files whose flags claim COMPRESSED/ENCRYPTED on a plain payload (written before the
    // extension existed) are valid containers; with a key the payload check fails, by name.
    let claims: Vec<&PathBuf> = good
        .iter()
        .filter(|f| caf::validate_header(f).is_ok_and(|h| caf::encoded::is_encoded(h.flags)))
        .collect();
    assert_eq!(claims.len(), 5, "{claims:?}");
    let key = caf::encoded::Key::from_bytes([1; 32]);
    for f in claims {
        match Verdict::check_file_with_key(f, false, Some(&key)) {
            Verdict::Invalid(e) => assert_eq!(e.check_name(), "block index", "{}", f.display()),
            v => panic!("{v:?}"),
        }
    }
    assert_eq!(check(&good, false, true, None).unwrap(), 0);
    for f in &bad {
        assert_eq!(
            check(std::slice::from_ref(f), false, true, None).unwrap(),
            1,
            "{}",
            f.display()
        );
        assert_eq!(info(f, true, true, None).unwrap(), 1, "{}", f.display());
    }
}
