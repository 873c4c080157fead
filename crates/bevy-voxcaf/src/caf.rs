//! `.caf` assets as Bevy assets: a texture as an [`Image`] (every stored format the GPU
//! takes, all its mip levels, sRGB as stored), a mesh as a [`Mesh`] (positions, normals, UVs,
//! tangents, colours, the second UV set, joints and weights). Compressed payloads are decoded
//! first; encrypted ones are refused (the key stays with the game's own loader).
//!
//! The typed loaders here serve `asset_server.load::<Image>("hero.caf")` and
//! `load::<Mesh>(...)`; a path with a label (`two.caf#part/1`) or without a type goes to
//! [`crate::CafLoader`], which gives every part of any `.caf` as labeled assets.

use bevy::asset::io::Reader;
use bevy::asset::{Asset, AssetLoader, LoadContext, RenderAssetUsages};
use bevy::image::Image;
use bevy::math::Mat4;
use bevy::mesh::skinning::SkinnedMeshInverseBindposes;
use bevy::mesh::{Indices, Mesh, PrimitiveTopology, VertexAttributeValues};
use bevy::reflect::TypePath;
use caf::encoded::{decode_asset, is_encoded, DecodeOptions};
use caf::mesh::MeshView;
use caf::texture::{FormatClass, TextureView};
use caf::{AssetType, LoadedAsset};
use wgpu_types::{AstcBlock, AstcChannel, Extent3d, TextureDimension, TextureFormat};

/// Why a `.caf` asset did not load.
#[derive(Debug, thiserror::Error)]
pub enum CafLoadError {
    /// The asset's bytes could not be read.
    #[error("reading the asset: {0}")]
    Io(#[from] std::io::Error),
    /// The bytes are not a `.caf` file `caf` accepts (the error says what and where).
    #[error("{0}")]
    Caf(#[from] caf::CafError),
    /// A valid asset of another type than the one asked for.
    #[error("{found} asset where a {wanted} was asked for")]
    WrongType {
        /// What the file holds.
        found: AssetType,
        /// What the loader makes.
        wanted: AssetType,
    },
    /// An encrypted asset: this loader has no key.
    #[error("the asset is encrypted; load it with caf's decoder and the key")]
    Encrypted,
    /// A texture format no GPU upload path of Bevy takes.
    #[error(
        "texture format {0} has no GPU equivalent in Bevy (convert it with `voxcaf asset build`)"
    )]
    Format(&'static str),
    /// Audio samples that could not be written as WAV.
    #[error("writing the samples as WAV: {0}")]
    Wav(String),
    /// An animation asset without a clip.
    #[error("the animation has no clip")]
    NoClip,
    /// A block-compressed texture whose size is not a whole number of blocks.
    #[error("{format} texture of {width}x{height}: the GPU wants whole {bw}x{bh} blocks")]
    BlockSize {
        /// The format.
        format: &'static str,
        /// Width in texels.
        width: u32,
        /// Height in texels.
        height: u32,
        /// Block width.
        bw: u32,
        /// Block height.
        bh: u32,
    },
}

/// The plain (decoded) asset in `bytes`, checked to be of type `wanted`.
pub(crate) fn plain(bytes: Vec<u8>, wanted: AssetType) -> Result<LoadedAsset, CafLoadError> {
    let loaded = LoadedAsset::from_vec(bytes)?;
    let found = loaded.header().asset_type;
    if found != wanted {
        return Err(CafLoadError::WrongType { found, wanted });
    }
    decoded(loaded)
}

/// The plain (decoded) asset in `bytes`, of any type.
pub(crate) fn plain_any(bytes: Vec<u8>) -> Result<LoadedAsset, CafLoadError> {
    decoded(LoadedAsset::from_vec(bytes)?)
}

/// `loaded` with its payload decoded when it is compressed; encrypted ones are refused.
fn decoded(loaded: LoadedAsset) -> Result<LoadedAsset, CafLoadError> {
    if !is_encoded(loaded.header().flags) {
        return Ok(loaded);
    }
    if loaded.header().flags.contains(caf::CafFlags::ENCRYPTED) {
        return Err(CafLoadError::Encrypted);
    }
    let decoded = decode_asset(&loaded.asset(), &DecodeOptions::default())?;
    Ok(LoadedAsset::from_vec(decoded)?)
}

pub(crate) async fn read_all(reader: &mut dyn Reader) -> Result<Vec<u8>, std::io::Error> {
    let mut bytes = Vec::new();
    reader.read_to_end(&mut bytes).await?;
    Ok(bytes)
}

/// A typed `.caf` loader: the file must hold an asset of type `ty`, whose plain (decoded)
/// form `make` turns into the Bevy asset `A`. [`image_loader`], [`mesh_loader`] and the
/// animation and audio features' loaders are these.
#[derive(TypePath)]
pub struct CafTypedLoader<A: Asset> {
    ty: AssetType,
    make: fn(&caf::Asset<'_>) -> Result<A, CafLoadError>,
}

impl<A: Asset> CafTypedLoader<A> {
    /// The loader of `ty` assets made into `A`s by `make`.
    pub const fn new(ty: AssetType, make: fn(&caf::Asset<'_>) -> Result<A, CafLoadError>) -> Self {
        CafTypedLoader { ty, make }
    }
}

impl<A: Asset> AssetLoader for CafTypedLoader<A> {
    type Asset = A;
    type Settings = ();
    type Error = CafLoadError;

    async fn load(
        &self,
        reader: &mut dyn Reader,
        _: &(),
        _: &mut LoadContext<'_>,
    ) -> Result<A, CafLoadError> {
        let loaded = plain(read_all(reader).await?, self.ty)?;
        (self.make)(&loaded.asset())
    }

    fn extensions(&self) -> &[&str] {
        &["caf"]
    }
}

/// Loads `.caf` textures as [`Image`]s.
pub fn image_loader() -> CafTypedLoader<Image> {
    CafTypedLoader::new(AssetType::TEXTURE, |a| {
        texture_image(&TextureView::from_asset(a)?)
    })
}

/// Loads `.caf` meshes as [`Mesh`]es (the whole mesh; its parts are [`crate::CafLoader`]'s).
pub fn mesh_loader() -> CafTypedLoader<Mesh> {
    CafTypedLoader::new(AssetType::MESH, |a| {
        let view = MeshView::from_asset(a)?;
        Ok(mesh_of(&view, &view.indices))
    })
}

/// A texture view as an [`Image`] with all its levels.
pub fn texture_image(view: &TextureView<'_>) -> Result<Image, CafLoadError> {
    let (width, height) = (view.meta.width, view.meta.height);
    let (format, data) = if view.format.class == FormatClass::Legacy8 {
        legacy(view)
    } else {
        let code = view.format_code().with_srgb(view.srgb);
        let name = code.name();
        let f = gpu_format(name).ok_or(CafLoadError::Format(name))?;
        (f, view.levels().concat())
    };
    let (bw, bh) = format.block_dimensions();
    if width % bw != 0 || height % bh != 0 {
        return Err(CafLoadError::BlockSize {
            format: view.format.name,
            width,
            height,
            bw,
            bh,
        });
    }
    let size = Extent3d {
        width,
        height,
        depth_or_array_layers: 1,
    };
    let mut image = Image::new_uninit(
        size,
        TextureDimension::D2,
        format,
        RenderAssetUsages::default(),
    );
    image.texture_descriptor.mip_level_count = view.level_count() as u32;
    image.data = Some(data);
    Ok(image)
}

/// The original's 8-bit format (1 to 4 channels; three are widened to four, alpha opaque).
fn legacy(view: &TextureView<'_>) -> (TextureFormat, Vec<u8>) {
    let levels = view.levels();
    match view.channels {
        1 => (TextureFormat::R8Unorm, levels.concat()),
        2 => (TextureFormat::Rg8Unorm, levels.concat()),
        n => {
            let f = if view.srgb {
                TextureFormat::Rgba8UnormSrgb
            } else {
                TextureFormat::Rgba8Unorm
            };
            let data = if n == 3 {
                levels
                    .iter()
                    .flat_map(|l| l.chunks_exact(3).flat_map(|p| [p[0], p[1], p[2], 255]))
                    .collect()
            } else {
                levels.concat()
            };
            (f, data)
        }
    }
}

/// The GPU format of a caf format name (`docs/format/caf-textures.md`: SDL's names), when
/// Bevy can upload it as stored.
fn gpu_format(name: &str) -> Option<TextureFormat> {
    use TextureFormat as T;
    if let Some(rest) = name.strip_prefix("ASTC_") {
        let (block, channel) = rest.split_once('_')?;
        let block = match block {
            "4x4" => AstcBlock::B4x4,
            "5x4" => AstcBlock::B5x4,
            "5x5" => AstcBlock::B5x5,
            "6x5" => AstcBlock::B6x5,
            "6x6" => AstcBlock::B6x6,
            "8x5" => AstcBlock::B8x5,
            "8x6" => AstcBlock::B8x6,
            "8x8" => AstcBlock::B8x8,
            "10x5" => AstcBlock::B10x5,
            "10x6" => AstcBlock::B10x6,
            "10x8" => AstcBlock::B10x8,
            "10x10" => AstcBlock::B10x10,
            "12x10" => AstcBlock::B12x10,
            "12x12" => AstcBlock::B12x12,
            _ => return None,
        };
        let channel = match channel {
            "UNORM" => AstcChannel::Unorm,
            "UNORM_SRGB" => AstcChannel::UnormSrgb,
            "FLOAT" => AstcChannel::Hdr,
            _ => return None,
        };
        return Some(T::Astc { block, channel });
    }
    Some(match name {
        "R8_UNORM" => T::R8Unorm,
        "R8G8_UNORM" => T::Rg8Unorm,
        "R8G8B8A8_UNORM" => T::Rgba8Unorm,
        "R8G8B8A8_UNORM_SRGB" => T::Rgba8UnormSrgb,
        "B8G8R8A8_UNORM" => T::Bgra8Unorm,
        "B8G8R8A8_UNORM_SRGB" => T::Bgra8UnormSrgb,
        "R16_UNORM" => T::R16Unorm,
        "R16G16_UNORM" => T::Rg16Unorm,
        "R16G16B16A16_UNORM" => T::Rgba16Unorm,
        "R10G10B10A2_UNORM" => T::Rgb10a2Unorm,
        "R11G11B10_UFLOAT" => T::Rg11b10Ufloat,
        "R8_SNORM" => T::R8Snorm,
        "R8G8_SNORM" => T::Rg8Snorm,
        "R8G8B8A8_SNORM" => T::Rgba8Snorm,
        "R16_SNORM" => T::R16Snorm,
        "R16G16_SNORM" => T::Rg16Snorm,
        "R16G16B16A16_SNORM" => T::Rgba16Snorm,
        "R16_FLOAT" => T::R16Float,
        "R16G16_FLOAT" => T::Rg16Float,
        "R16G16B16A16_FLOAT" => T::Rgba16Float,
        "R32_FLOAT" => T::R32Float,
        "R32G32_FLOAT" => T::Rg32Float,
        "R32G32B32A32_FLOAT" => T::Rgba32Float,
        "R8_UINT" => T::R8Uint,
        "R8G8_UINT" => T::Rg8Uint,
        "R8G8B8A8_UINT" => T::Rgba8Uint,
        "R16_UINT" => T::R16Uint,
        "R16G16_UINT" => T::Rg16Uint,
        "R16G16B16A16_UINT" => T::Rgba16Uint,
        "R32_UINT" => T::R32Uint,
        "R32G32_UINT" => T::Rg32Uint,
        "R32G32B32A32_UINT" => T::Rgba32Uint,
        "R8_INT" => T::R8Sint,
        "R8G8_INT" => T::Rg8Sint,
        "R8G8B8A8_INT" => T::Rgba8Sint,
        "R16_INT" => T::R16Sint,
        "R16G16_INT" => T::Rg16Sint,
        "R16G16B16A16_INT" => T::Rgba16Sint,
        "R32_INT" => T::R32Sint,
        "R32G32_INT" => T::Rg32Sint,
        "R32G32B32A32_INT" => T::Rgba32Sint,
        "BC1_RGBA_UNORM" => T::Bc1RgbaUnorm,
        "BC1_RGBA_UNORM_SRGB" => T::Bc1RgbaUnormSrgb,
        "BC2_RGBA_UNORM" => T::Bc2RgbaUnorm,
        "BC2_RGBA_UNORM_SRGB" => T::Bc2RgbaUnormSrgb,
        "BC3_RGBA_UNORM" => T::Bc3RgbaUnorm,
        "BC3_RGBA_UNORM_SRGB" => T::Bc3RgbaUnormSrgb,
        "BC4_R_UNORM" => T::Bc4RUnorm,
        "BC5_RG_UNORM" => T::Bc5RgUnorm,
        "BC6H_RGB_FLOAT" => T::Bc6hRgbFloat,
        "BC6H_RGB_UFLOAT" => T::Bc6hRgbUfloat,
        "BC7_RGBA_UNORM" => T::Bc7RgbaUnorm,
        "BC7_RGBA_UNORM_SRGB" => T::Bc7RgbaUnormSrgb,
        // A8, B5G6R5, B5G5R5A1 and B4G4R4A4 have no wgpu format.
        _ => return None,
    })
}

/// A mesh's sub-meshes (when it has more than one) and its skin's inverse bind matrices.
pub fn mesh_extras(view: &MeshView<'_>) -> (Vec<Mesh>, Option<SkinnedMeshInverseBindposes>) {
    let subs = view.sub_meshes();
    let parts = if subs.len() > 1 {
        subs.iter()
            .map(|s| {
                let range = s.first_index as usize..(s.first_index + s.index_count) as usize;
                mesh_of(view, &view.indices[range])
            })
            .collect()
    } else {
        Vec::new()
    };
    let skin = view.skin().map(|skin| {
        let binds: Vec<Mat4> = skin
            .joints
            .iter()
            .map(|j| Mat4::from_cols_array(&j.inverse_bind))
            .collect();
        SkinnedMeshInverseBindposes::from(binds)
    });
    (parts, skin)
}

/// The triangles `indices` of a mesh view, with the vertices they use (renumbered in order of
/// first use when they are a subset).
pub fn mesh_of(view: &MeshView<'_>, indices: &[u32]) -> Mesh {
    let n = view.vertices.len();
    let (used, indices): (Vec<usize>, Vec<u32>) = if indices.len() == view.indices.len() {
        ((0..n).collect(), indices.to_vec())
    } else {
        let mut map = vec![u32::MAX; n];
        let mut used = Vec::new();
        let ix = indices
            .iter()
            .map(|&i| {
                let slot = &mut map[i as usize];
                if *slot == u32::MAX {
                    *slot = used.len() as u32;
                    used.push(i as usize);
                }
                *slot
            })
            .collect();
        (used, ix)
    };
    let v = |f: &dyn Fn(usize) -> [f32; 3]| used.iter().map(|&i| f(i)).collect::<Vec<_>>();
    let mut mesh = Mesh::new(
        PrimitiveTopology::TriangleList,
        RenderAssetUsages::default(),
    )
    .with_inserted_attribute(Mesh::ATTRIBUTE_POSITION, v(&|i| view.vertices[i].position))
    .with_inserted_attribute(Mesh::ATTRIBUTE_NORMAL, v(&|i| view.vertices[i].normal))
    .with_inserted_attribute(
        Mesh::ATTRIBUTE_UV_0,
        used.iter()
            .map(|&i| view.vertices[i].uv)
            .collect::<Vec<_>>(),
    )
    .with_inserted_attribute(
        Mesh::ATTRIBUTE_TANGENT,
        used.iter()
            .map(|&i| view.vertices[i].tangent)
            .collect::<Vec<_>>(),
    );
    if let Some(c) = &view.colors {
        let c: Vec<[f32; 4]> = used.iter().map(|&i| c[i]).collect();
        mesh.insert_attribute(Mesh::ATTRIBUTE_COLOR, c);
    }
    if let Some(u) = &view.uv1 {
        let u: Vec<[f32; 2]> = used.iter().map(|&i| u[i]).collect();
        mesh.insert_attribute(Mesh::ATTRIBUTE_UV_1, u);
    }
    if let (Some(j), Some(w)) = (&view.joints, &view.weights) {
        let j = VertexAttributeValues::Uint16x4(used.iter().map(|&i| j[i]).collect());
        mesh.insert_attribute(Mesh::ATTRIBUTE_JOINT_INDEX, j);
        let w: Vec<[f32; 4]> = used.iter().map(|&i| w[i]).collect();
        mesh.insert_attribute(Mesh::ATTRIBUTE_JOINT_WEIGHT, w);
    }
    mesh.insert_indices(Indices::U32(indices));
    mesh
}
