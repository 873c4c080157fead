//! The asset round trip shown by `voxcaf demo`: write a texture with its mip chain and a cube
//! mesh through the pipeline's own builders, reload both with full verification and their
//! typed views, and check that they read back as written.
//!
//! ```
//! let dir = tempfile::tempdir()?;
//! let report = voxcaf_demo::assets::roundtrip(dir.path())?;
//! assert_eq!((report.mip_levels, report.vertices, report.indices), (7, 24, 36));
//! # Ok::<(), Box<dyn std::error::Error>>(())
//! ```

use std::fmt;
use std::path::{Path, PathBuf};
use std::time::{Duration, Instant};

use caf::mesh::{MeshEncodeError, MeshView};
use caf::texture::TextureView;
use caf::{AssetType, CafError, LoadedAsset};

use caf_import::{texture, Converted, ImportError};
use voxcaf_samples as samples;

/// Width and height of the demo texture.
pub const TEXTURE_SIZE: u32 = 64;

/// Why the demo round trip failed.
#[non_exhaustive]
#[derive(Debug, thiserror::Error)]
pub enum DemoError {
    /// The output folder could not be created.
    #[error("I/O error on {}: {source}", path.display())]
    Io {
        /// The folder.
        path: PathBuf,
        /// The underlying error.
        #[source]
        source: std::io::Error,
    },
    /// Building or writing an asset failed.
    #[error(transparent)]
    Import(#[from] ImportError),
    /// Writing, loading or viewing an asset failed.
    #[error(transparent)]
    Caf(#[from] CafError),
    /// The cube could not be encoded as a mesh payload.
    #[error(transparent)]
    Mesh(#[from] MeshEncodeError),
    /// An asset loaded and verified, but its contents differ from what was written.
    #[error("{} did not read back as written: {what}", path.display())]
    Mismatch {
        /// The asset file.
        path: PathBuf,
        /// What differs.
        what: &'static str,
    },
}

/// What the round trip wrote and how reloading went.
#[derive(Clone, Debug, PartialEq)]
pub struct DemoReport {
    /// The texture file.
    pub texture_path: PathBuf,
    /// Texture width and height.
    pub width: u32,
    /// Texture height.
    pub height: u32,
    /// Levels in the stored mip chain, base included.
    pub mip_levels: usize,
    /// Size of the texture file in bytes.
    pub texture_file_size: u64,
    /// The mesh file.
    pub mesh_path: PathBuf,
    /// Vertices in the mesh.
    pub vertices: usize,
    /// Indices in the mesh.
    pub indices: usize,
    /// Size of the mesh file in bytes.
    pub mesh_file_size: u64,
    /// Time to load, verify and split the texture.
    pub texture_load_time: Duration,
    /// Time to load, verify and view the mesh.
    pub mesh_load_time: Duration,
    /// Whether the mesh view borrowed its vertices from the load buffer instead of copying.
    pub mesh_zero_copy: bool,
}

impl fmt::Display for DemoReport {
    /// One paragraph for people.
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(
            f,
            "Assets: wrote {} ({}x{} RGBA8 sRGB texture, {} mip levels, {} bytes) and {} ({} vertices, {} \
             indices, {} bytes) atomically, then reloaded each with full verification (length, magic, \
             version, sizes, payload and footer CRC-32): the texture in {:.1} µs with its mip chain \
             split into levels, the mesh in {:.1} µs with its vertices {}.",
            self.texture_path.display(),
            self.width,
            self.height,
            self.mip_levels,
            self.texture_file_size,
            self.mesh_path.display(),
            self.vertices,
            self.indices,
            self.mesh_file_size,
            self.texture_load_time.as_secs_f64() * 1e6,
            self.mesh_load_time.as_secs_f64() * 1e6,
            if self.mesh_zero_copy {
                "cast in place from the 32-byte-aligned buffer (zero copy)"
            } else {
                "copied"
            },
        )
    }
}

/// Write `demo_texture.caf` (a [`TEXTURE_SIZE`]² RGBA8 sRGB [`samples::checker_rgba`] texture
/// with its full box-filtered mip chain) and `demo_cube.caf` ([`samples::cube_mesh`]) to `dir`
/// (created if missing), reload both through [`LoadedAsset::open`] and their typed views, and
/// check that every level, vertex and index reads back as written.
pub fn roundtrip(dir: &Path) -> Result<DemoReport, DemoError> {
    std::fs::create_dir_all(dir).map_err(|source| DemoError::Io {
        path: dir.to_path_buf(),
        source,
    })?;
    let (w, h) = (TEXTURE_SIZE, TEXTURE_SIZE);
    let base = samples::checker_rgba(w, h);
    let (payload, levels) = texture::box_chain(w, h, 4, &base)?;
    let tex = Converted::from_texture(texture::TextureData {
        width: w,
        height: h,
        levels,
        format: caf::texture::TextureFormat::RGBA8_LEGACY,
        srgb: true,
        payload,
    });
    let tex_path = dir.join("demo_texture.caf");
    tex.write(&tex_path)?;

    let (verts, idx) = samples::cube_mesh();
    let (mmeta, mesh_payload) = caf::mesh::encode_mesh(&verts, &idx, 1)?;
    let mesh_path = dir.join("demo_cube.caf");
    caf::AssetWriter::new(AssetType::MESH)
        .metadata(&mmeta.to_bytes())
        .payload(&mesh_payload)
        .write_file(&mesh_path)?;

    let t0 = Instant::now();
    let tl = LoadedAsset::open(&tex_path)?;
    let tv = TextureView::from_asset(&tl.asset())?;
    let texture_load_time = t0.elapsed();
    let mismatch = |path: &Path, what| DemoError::Mismatch {
        path: path.to_path_buf(),
        what,
    };
    if tv.channels != 4 || tv.level_count() != levels as usize {
        return Err(mismatch(&tex_path, "channel or level count differs"));
    }
    if tv.level(0) != Some(&base[..]) || tl.payload() != &tex.payload[..] {
        return Err(mismatch(&tex_path, "pixels differ"));
    }

    let t1 = Instant::now();
    let ml = LoadedAsset::open(&mesh_path)?;
    let mv = MeshView::from_asset(&ml.asset())?;
    let mesh_load_time = t1.elapsed();
    if mv.vertices.as_ref() != &verts[..] || mv.indices.as_ref() != &idx[..] {
        return Err(mismatch(&mesh_path, "vertices or indices differ"));
    }
    Ok(DemoReport {
        texture_path: tex_path,
        width: w,
        height: h,
        mip_levels: tv.level_count(),
        texture_file_size: tl.file_size(),
        mesh_path,
        vertices: mv.vertices.len(),
        indices: mv.indices.len(),
        mesh_file_size: ml.file_size(),
        texture_load_time,
        mesh_load_time,
        mesh_zero_copy: matches!(mv.vertices, std::borrow::Cow::Borrowed(_)),
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn roundtrip_writes_and_reloads() {
        let dir = tempfile::tempdir().unwrap();
        let report = roundtrip(dir.path()).unwrap().to_string();
        assert!(
            report.contains("demo_texture.caf") && report.contains("7 mip levels"),
            "{report}"
        );
        let l = LoadedAsset::open(&dir.path().join("demo_cube.caf")).unwrap();
        assert_eq!(MeshView::from_asset(&l.asset()).unwrap().vertices.len(), 24);
    }

    #[test]
    fn texture_is_the_box_chain_of_the_checker() {
        // The demo's chain is the pipeline's box filter: level 1 texel (0,0) is the floor of
        // the mean of the four base texels.
        let dir = tempfile::tempdir().unwrap();
        roundtrip(dir.path()).unwrap();
        let l = LoadedAsset::open(&dir.path().join("demo_texture.caf")).unwrap();
        let a = l.asset();
        assert!(a
            .header
            .flags
            .contains(caf::CafFlags::SRGB | caf::CafFlags::MIPCHAIN));
        let tv = TextureView::from_asset(&a).unwrap();
        assert_eq!(tv.level_dims(6), Some((1, 1)));
        let base = samples::checker_rgba(64, 64);
        let px = |x: usize, y: usize, c: usize| u32::from(base[(y * 64 + x) * 4 + c]);
        let want = (0..4)
            .map(|c| ((px(0, 0, c) + px(1, 0, c) + px(0, 1, c) + px(1, 1, c)) / 4) as u8)
            .collect::<Vec<_>>();
        assert_eq!(&tv.level(1).unwrap()[..4], &want[..]);
    }
}
