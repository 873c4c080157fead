//! Issue 17 (meshes) from the command line: `asset convert` of glTF with `--mesh-nodes`, the
//! sub-mesh table in `asset info`, and the refusals (Draco, an unknown mode).

mod common;
use common::{cli_err, cli_ok, run};

use std::path::PathBuf;

/// `../shared/corpus/mesh/NAME`, or `None` (skip) unless the golden data is required.
fn corpus(name: &str) -> Option<PathBuf> {
    voxcaf_golden::corpus(&format!("mesh/{name}"))
}

#[test]
fn gltf_convert_info_and_refusals() {
    let t = tempfile::tempdir().unwrap();
    let d = t.path();
    std::fs::write(d.join("t.glb"), voxcaf_samples::triangle_glb()).unwrap();

    cli_err(
        d,
        "asset convert t.glb t.caf --mesh-nodes bogus",
        2,
        "expected flatten or keep",
    );
    let o = cli_ok(d, "asset convert t.glb t.caf --mesh-nodes keep");
    assert!(o.contains("1 sub-mesh"), "{o}");

    let Some(feature) = corpus("FeatureIdAttribute.gltf") else {
        return;
    };
    let f = feature.to_str().unwrap();
    let (c, _, e) = run(d, &["asset", "convert", f, "f.caf"]);
    assert_eq!(c, 0, "{e}");
    let o = cli_ok(d, "asset info f.caf");
    assert!(
        o.contains("1 sub-mesh(es): indices 0..24 material 0"),
        "{o}"
    );
    let o = cli_ok(d, "asset info --json f.caf");
    assert!(
        o.contains("\"material\":0") || o.contains("\"material\": 0"),
        "{o}"
    );

    let Some(draco) = corpus("BoxDraco/BoxDraco.gltf") else {
        return;
    };
    let (c, _, e) = run(d, &["asset", "convert", draco.to_str().unwrap(), "b.caf"]);
    assert_ne!(c, 0);
    assert!(
        e.contains("KHR_draco_mesh_compression") && e.contains("Draco"),
        "{e}"
    );
    assert!(!d.join("b.caf").exists());
}
