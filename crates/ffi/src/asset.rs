//! `.caf` assets: loading with every check, typed views, writing.

use std::ffi::c_char;
use std::sync::OnceLock;

use caf::audio::AudioView;
use caf::mesh::{MeshView, Vertex};
use caf::shader::ShaderView;
use caf::texture::TextureView;
use caf::{AssetType, AssetWriter, CafFlags, CafHeader, LoadedAsset};

use crate::error::*;
use crate::ptr;
use crate::VoxcafBuffer;

/// A loaded, verified `.caf` asset (header, metadata, payload; both CRCs checked). Opaque;
/// created by `voxcaf_asset_open` / `_from_bytes`, freed by `voxcaf_asset_free`. Views into
/// it stay valid until it is freed.
pub struct VoxcafAsset {
    asset: LoadedAsset,
    /// Mesh arrays when the payload could not be borrowed in place (misaligned).
    mesh_copy: OnceLock<(Vec<Vertex>, Vec<u32>)>,
}

/// The 32-byte header's fields.
#[repr(C)]
#[derive(Clone, Copy, Debug, Default)]
pub struct VoxcafAssetInfo {
    /// Asset type (0 unknown, 1 texture, 2 audio, 3 mesh, 4 prefab, 5 scene, 6 shader, ...).
    pub asset_type: u16,
    /// Flags (bit 0 compressed-LZ4, 1 compressed-Zstd, 2 sRGB, 3 mip chain, 4 streaming ...).
    pub flags: u16,
    /// Format major version.
    pub version_major: u16,
    /// Format minor version.
    pub version_minor: u16,
    /// CRC-32 of the payload.
    pub crc32: u32,
    /// Metadata bytes.
    pub metadata_size: u64,
    /// Payload bytes.
    pub data_size: u64,
    /// Whole file size (header + metadata + payload + footer).
    pub file_size: u64,
    /// Alignment the payload is loaded at (16, or 32 for meshes and shaders).
    pub payload_alignment: u32,
}

impl From<&CafHeader> for VoxcafAssetInfo {
    fn from(h: &CafHeader) -> Self {
        VoxcafAssetInfo {
            asset_type: h.asset_type.0,
            flags: h.flags.0,
            version_major: h.version_major,
            version_minor: h.version_minor,
            crc32: h.crc32,
            metadata_size: h.metadata_size,
            data_size: h.data_size,
            file_size: h.total_file_size().unwrap_or(u64::MAX),
            payload_alignment: h.asset_type.payload_alignment() as u32,
        }
    }
}

/// A texture (RGBA8, optionally with its mip chain).
#[repr(C)]
#[derive(Clone, Copy, Debug, Default)]
pub struct VoxcafTextureInfo {
    /// Level-0 width.
    pub width: u32,
    /// Level-0 height.
    pub height: u32,
    /// Pixel format (0 = 8-bit channels).
    pub format: u32,
    /// Mip levels in the metadata.
    pub mip_levels: u32,
    /// Channels per pixel.
    pub channels: u32,
    /// Colours are sRGB.
    pub srgb: bool,
    /// Levels stored in the payload.
    pub level_count: u32,
}

/// One texture level.
#[repr(C)]
#[derive(Clone, Copy, Debug)]
pub struct VoxcafTextureLevel {
    /// Width.
    pub width: u32,
    /// Height.
    pub height: u32,
    /// Pixels, `len` bytes (borrowed from the asset).
    pub data: *const u8,
    /// Bytes.
    pub len: usize,
}

/// Interleaved signed PCM audio.
#[repr(C)]
#[derive(Clone, Copy, Debug)]
pub struct VoxcafAudioInfo {
    /// Samples per second.
    pub sample_rate: u32,
    /// Channels.
    pub channels: u16,
    /// 8, 16 or 32.
    pub bits_per_sample: u16,
    /// Frames (samples per channel).
    pub frames: u32,
    /// The samples, `len` bytes (borrowed from the asset).
    pub data: *const u8,
    /// Bytes.
    pub len: usize,
}

/// A mesh vertex, 48 bytes, exactly the file's layout.
#[repr(C)]
#[derive(Clone, Copy, Debug, Default)]
pub struct VoxcafVertex {
    /// Position x, y, z.
    pub position: [f32; 3],
    /// Normal x, y, z.
    pub normal: [f32; 3],
    /// Texture coordinate u, v.
    pub uv: [f32; 2],
    /// Tangent x, y, z, w.
    pub tangent: [f32; 4],
}

const _: () = assert!(size_of::<VoxcafVertex>() == 48 && size_of::<Vertex>() == 48);

/// A mesh: vertices and triangle indices.
#[repr(C)]
#[derive(Clone, Copy, Debug)]
pub struct VoxcafMeshInfo {
    /// Sub-meshes in the metadata.
    pub sub_mesh_count: u32,
    /// `vertex_count` vertices (borrowed from the asset).
    pub vertices: *const VoxcafVertex,
    /// Vertices.
    pub vertex_count: usize,
    /// `index_count` indices, three per triangle (borrowed from the asset).
    pub indices: *const u32,
    /// Indices.
    pub index_count: usize,
}

/// A shader.
#[repr(C)]
#[derive(Clone, Copy, Debug)]
pub struct VoxcafShaderInfo {
    /// 0 vertex, 1 fragment, 2 compute.
    pub stage: u32,
    /// The bytecode is SPIR-V (magic checked).
    pub is_spirv: bool,
    /// The bytecode, `len` bytes (borrowed from the asset).
    pub bytecode: *const u8,
    /// Bytes.
    pub len: usize,
}

fn asset<'a>(a: *const VoxcafAsset) -> Result<&'a VoxcafAsset, Fail> {
    ptr::handle(a, "asset")
}

fn give(asset: LoadedAsset) -> *mut VoxcafAsset {
    ptr::give(VoxcafAsset {
        asset,
        mesh_copy: OnceLock::new(),
    })
}

/// Loads and verifies a `.caf` file (size, magic, version, sizes, both CRCs; large files are
/// memory-mapped).
///
/// Ownership: borrows `path`; on success `*out` receives a new asset owned by the caller
/// (free it with `voxcaf_asset_free`).
#[no_mangle]
pub unsafe extern "C" fn voxcaf_asset_open(path: *const c_char, out: *mut *mut VoxcafAsset) -> i32 {
    guard(|| {
        ptr::check_out(out, "out")?;
        let path = ptr::path(path, "path")?;
        let a = LoadedAsset::open(&path).map_err(|e| Fail::at(&path, e))?;
        ptr::out(out, give(a), "out")
    })
}

/// Verifies and copies a `.caf` file held in memory.
///
/// Ownership: borrows `data` for the call; on success `*out` receives a new asset owned by
/// the caller.
#[no_mangle]
pub unsafe extern "C" fn voxcaf_asset_from_bytes(
    data: *const u8,
    len: usize,
    out: *mut *mut VoxcafAsset,
) -> i32 {
    guard(|| {
        ptr::check_out(out, "out")?;
        let a = LoadedAsset::from_bytes(ptr::bytes(data, len, "data")?)?;
        ptr::out(out, give(a), "out")
    })
}

/// Checks a header alone (the first 32 bytes of a file: magic, version, sizes) and decodes it.
///
/// Ownership: borrows `data` for the call; writes `*out`.
#[no_mangle]
pub unsafe extern "C" fn voxcaf_validate_header(
    data: *const u8,
    len: usize,
    out: *mut VoxcafAssetInfo,
) -> i32 {
    guard(|| {
        ptr::check_out(out, "out")?;
        let h = caf::validate_header_bytes(ptr::bytes(data, len, "data")?)?;
        ptr::out(out, VoxcafAssetInfo::from(&h), "out")
    })
}

/// Frees an asset. Accepts NULL.
/// Leaves `voxcaf_last_error()` as it was.
///
/// Ownership: takes back `asset`; views into it must not be used afterwards.
#[no_mangle]
pub unsafe extern "C" fn voxcaf_asset_free(asset: *mut VoxcafAsset) {
    ptr::free(asset);
}

/// The header's fields.
///
/// Ownership: borrows `asset`; writes `*out`.
#[no_mangle]
pub unsafe extern "C" fn voxcaf_asset_info(
    asset: *const VoxcafAsset,
    out: *mut VoxcafAssetInfo,
) -> i32 {
    guard(|| {
        let a = self::asset(asset)?;
        ptr::out(out, VoxcafAssetInfo::from(a.asset.header()), "out")
    })
}

/// The raw metadata bytes.
///
/// Ownership: `*data` is borrowed from `asset` (valid until it is freed).
#[no_mangle]
pub unsafe extern "C" fn voxcaf_asset_metadata(
    asset: *const VoxcafAsset,
    data: *mut *const u8,
    len: *mut usize,
) -> i32 {
    guard(|| ptr::out_bytes(data, len, self::asset(asset)?.asset.metadata()))
}

/// The raw payload bytes (aligned as `payload_alignment` says).
///
/// Ownership: `*data` is borrowed from `asset` (valid until it is freed).
#[no_mangle]
pub unsafe extern "C" fn voxcaf_asset_payload(
    asset: *const VoxcafAsset,
    data: *mut *const u8,
    len: *mut usize,
) -> i32 {
    guard(|| ptr::out_bytes(data, len, self::asset(asset)?.asset.payload()))
}

/// The texture view (`VOXCAF_ERR_WRONG_TYPE` for another type; metadata and payload size
/// checked).
///
/// Ownership: borrows `asset`; writes `*out`.
#[no_mangle]
pub unsafe extern "C" fn voxcaf_asset_texture(
    asset: *const VoxcafAsset,
    out: *mut VoxcafTextureInfo,
) -> i32 {
    guard(|| {
        let a = self::asset(asset)?;
        let parsed = a.asset.asset();
        let t = TextureView::from_asset(&parsed)?;
        ptr::out(
            out,
            VoxcafTextureInfo {
                width: t.meta.width,
                height: t.meta.height,
                format: t.meta.format,
                mip_levels: t.meta.mip_levels,
                channels: t.channels,
                srgb: t.srgb,
                level_count: t.level_count() as u32,
            },
            "out",
        )
    })
}

/// One level of a texture (`VOXCAF_ERR_OUT_OF_BOUNDS` past the last).
///
/// Ownership: `out->data` is borrowed from `asset` (valid until it is freed).
#[no_mangle]
pub unsafe extern "C" fn voxcaf_asset_texture_level(
    asset: *const VoxcafAsset,
    level: u32,
    out: *mut VoxcafTextureLevel,
) -> i32 {
    guard(|| {
        let a = self::asset(asset)?;
        let parsed = a.asset.asset();
        let t = TextureView::from_asset(&parsed)?;
        let i = level as usize;
        let (Some(bytes), Some((w, h))) = (t.level(i), t.level_dims(i)) else {
            return Err(Fail::new(
                VOXCAF_ERR_OUT_OF_BOUNDS,
                format!("level {level} does not exist ({} levels)", t.level_count()),
            ));
        };
        ptr::out(
            out,
            VoxcafTextureLevel {
                width: w,
                height: h,
                data: bytes.as_ptr(),
                len: bytes.len(),
            },
            "out",
        )
    })
}

/// The audio view.
///
/// Ownership: `out->data` is borrowed from `asset` (valid until it is freed).
#[no_mangle]
pub unsafe extern "C" fn voxcaf_asset_audio(
    asset: *const VoxcafAsset,
    out: *mut VoxcafAudioInfo,
) -> i32 {
    guard(|| {
        let a = self::asset(asset)?;
        let parsed = a.asset.asset();
        let v = AudioView::from_asset(&parsed)?;
        ptr::out(
            out,
            VoxcafAudioInfo {
                sample_rate: v.meta.sample_rate,
                channels: v.meta.channels,
                bits_per_sample: v.meta.bits_per_sample,
                frames: v.frames(),
                data: v.data.as_ptr(),
                len: v.data.len(),
            },
            "out",
        )
    })
}

/// The mesh view (vertices and indices checked against the metadata).
///
/// Ownership: `out->vertices` and `out->indices` are borrowed from `asset` (valid until it is
/// freed).
#[no_mangle]
pub unsafe extern "C" fn voxcaf_asset_mesh(
    asset: *const VoxcafAsset,
    out: *mut VoxcafMeshInfo,
) -> i32 {
    guard(|| {
        let a = self::asset(asset)?;
        ptr::check_out(out, "out")?;
        let parsed = a.asset.asset();
        let m = MeshView::from_asset(&parsed)?;
        let sub_mesh_count = m.meta.sub_mesh_count;
        let (v, i): (*const Vertex, *const u32) = match (&m.vertices, &m.indices) {
            (std::borrow::Cow::Borrowed(v), std::borrow::Cow::Borrowed(i)) => {
                (v.as_ptr(), i.as_ptr())
            }
            _ => {
                let (v, i) = a
                    .mesh_copy
                    .get_or_init(|| (m.vertices.to_vec(), m.indices.to_vec()));
                (v.as_ptr(), i.as_ptr())
            }
        };
        ptr::out(
            out,
            VoxcafMeshInfo {
                sub_mesh_count,
                // `VoxcafVertex` and `caf::mesh::Vertex` are both `repr(C)` with the same fields.
                vertices: v.cast(),
                vertex_count: m.vertices.len(),
                indices: i,
                index_count: m.indices.len(),
            },
            "out",
        )
    })
}

/// The shader view.
///
/// Ownership: `out->bytecode` is borrowed from `asset` (valid until it is freed).
#[no_mangle]
pub unsafe extern "C" fn voxcaf_asset_shader(
    asset: *const VoxcafAsset,
    out: *mut VoxcafShaderInfo,
) -> i32 {
    guard(|| {
        let a = self::asset(asset)?;
        let parsed = a.asset.asset();
        let s = ShaderView::from_asset(&parsed)?;
        ptr::out(
            out,
            VoxcafShaderInfo {
                stage: s.stage().0,
                is_spirv: s.is_spirv(),
                bytecode: s.bytecode.as_ptr(),
                len: s.bytecode.len(),
            },
            "out",
        )
    })
}

fn writer<'a>(
    asset_type: u16,
    flags: u16,
    metadata: &'a [u8],
    payload: &'a [u8],
) -> AssetWriter<'a> {
    AssetWriter::new(AssetType(asset_type))
        .flags(CafFlags(flags))
        .metadata(metadata)
        .payload(payload)
}

/// Writes a `.caf` file atomically (temporary file, fsync, rename): header with the payload
/// CRC, metadata, payload, footer CRC — byte for byte what the original writer produces.
///
/// Ownership: borrows `path`, `metadata` and `payload` for the call.
#[no_mangle]
pub unsafe extern "C" fn voxcaf_asset_write_file(
    path: *const c_char,
    asset_type: u16,
    flags: u16,
    metadata: *const u8,
    metadata_len: usize,
    payload: *const u8,
    payload_len: usize,
) -> i32 {
    guard(|| {
        let path = ptr::path(path, "path")?;
        let m = ptr::bytes(metadata, metadata_len, "metadata")?;
        let p = ptr::bytes(payload, payload_len, "payload")?;
        writer(asset_type, flags, m, p)
            .write_file(&path)
            .map_err(|e| Fail::at(&path, e))
    })
}

/// Encodes a `.caf` file into memory (see `voxcaf_asset_write_file`).
///
/// Ownership: borrows the inputs for the call; on success `*out` receives bytes owned by the
/// caller (free them with `voxcaf_buffer_free`).
#[no_mangle]
pub unsafe extern "C" fn voxcaf_asset_write_buffer(
    asset_type: u16,
    flags: u16,
    metadata: *const u8,
    metadata_len: usize,
    payload: *const u8,
    payload_len: usize,
    out: *mut VoxcafBuffer,
) -> i32 {
    guard(|| {
        ptr::check_out(out, "out")?;
        let m = ptr::bytes(metadata, metadata_len, "metadata")?;
        let p = ptr::bytes(payload, payload_len, "payload")?;
        let bytes = writer(asset_type, flags, m, p).to_vec();
        ptr::out(out, VoxcafBuffer::from_vec(bytes), "out")
    })
}

/// CRC-32 (IEEE 802.3, the one `.caf` uses) of `len` bytes, continuing from `crc` (start
/// with 0).
///
/// Ownership: borrows `data` for the call.
#[no_mangle]
pub unsafe extern "C" fn voxcaf_crc32(crc: u32, data: *const u8, len: usize, out: *mut u32) -> i32 {
    guard(|| {
        let d = ptr::bytes(data, len, "data")?;
        ptr::out(out, caf::crc32_continue(crc, d), "out")
    })
}

/// `.caf` magic (`FE CA FE CA` on disk).
pub const VOXCAF_CAF_MAGIC: u32 = 0xCAFE_CAFE;
/// Header bytes.
pub const VOXCAF_CAF_HEADER_SIZE: usize = 32;
/// Footer bytes.
pub const VOXCAF_CAF_FOOTER_SIZE: usize = 4;
/// Format major version written and read.
pub const VOXCAF_CAF_VERSION_MAJOR: u16 = 1;
/// Format minor version written.
pub const VOXCAF_CAF_VERSION_MINOR: u16 = 0;
/// Asset type: unknown.
pub const VOXCAF_ASSET_UNKNOWN: u16 = 0;
/// Asset type: texture.
pub const VOXCAF_ASSET_TEXTURE: u16 = 1;
/// Asset type: audio.
pub const VOXCAF_ASSET_AUDIO: u16 = 2;
/// Asset type: mesh.
pub const VOXCAF_ASSET_MESH: u16 = 3;
/// Asset type: prefab.
pub const VOXCAF_ASSET_PREFAB: u16 = 4;
/// Asset type: scene.
pub const VOXCAF_ASSET_SCENE: u16 = 5;
/// Asset type: shader.
pub const VOXCAF_ASSET_SHADER: u16 = 6;
/// Asset type: animation.
pub const VOXCAF_ASSET_ANIMATION: u16 = 7;
/// Asset type: font.
pub const VOXCAF_ASSET_FONT: u16 = 8;
/// Flag: payload compressed (stored only).
pub const VOXCAF_FLAG_COMPRESSED: u16 = 0x1;
/// Flag: payload encrypted (stored only).
pub const VOXCAF_FLAG_ENCRYPTED: u16 = 0x2;
/// Flag: texture colours are sRGB.
pub const VOXCAF_FLAG_SRGB: u16 = 0x4;
/// Flag: texture payload holds the mip chain.
pub const VOXCAF_FLAG_MIPCHAIN: u16 = 0x8;
/// Flag: meant to be streamed.
pub const VOXCAF_FLAG_STREAMED: u16 = 0x10;
/// Texture metadata bytes (`{width, height, format, mip_levels: u32; reserved: u64}`).
pub const VOXCAF_TEXTURE_METADATA_SIZE: usize = 24;
/// Audio metadata bytes (`{sample_rate: u32, channels, bits: u16, sample_count, reserved: u32}`).
pub const VOXCAF_AUDIO_METADATA_SIZE: usize = 16;
/// Mesh metadata bytes (`{vertex_count, index_count, sub_mesh_count, reserved: u32}`).
pub const VOXCAF_MESH_METADATA_SIZE: usize = 16;
/// Shader metadata bytes (`{stage, reserved: u32}`).
pub const VOXCAF_SHADER_METADATA_SIZE: usize = 8;
/// Scene metadata bytes.
pub const VOXCAF_SCENE_METADATA_SIZE: usize = 20;
/// Scene archetype descriptor bytes.
pub const VOXCAF_ARCHETYPE_DESC_SIZE: usize = 12;

// The header's constants are literals for cbindgen; they must be the format crate's.
const _: () = assert!(
    VOXCAF_CAF_MAGIC == caf::MAGIC
        && VOXCAF_CAF_HEADER_SIZE == caf::HEADER_SIZE
        && VOXCAF_CAF_FOOTER_SIZE == caf::FOOTER_SIZE
        && VOXCAF_CAF_VERSION_MAJOR == caf::VERSION_MAJOR
        && VOXCAF_CAF_VERSION_MINOR == caf::VERSION_MINOR
        && VOXCAF_TEXTURE_METADATA_SIZE == caf::texture::TextureMetadata::SIZE
        && VOXCAF_AUDIO_METADATA_SIZE == caf::audio::AudioMetadata::SIZE
        && VOXCAF_MESH_METADATA_SIZE == caf::mesh::MeshMetadata::SIZE
        && VOXCAF_SHADER_METADATA_SIZE == caf::shader::ShaderMetadata::SIZE
        && VOXCAF_SCENE_METADATA_SIZE == caf::scene::SceneMetadata::SIZE
        && VOXCAF_ARCHETYPE_DESC_SIZE == caf::scene::ArchetypeDesc::SIZE
        && VOXCAF_FLAG_SRGB == caf::CafFlags::SRGB.0
        && VOXCAF_FLAG_MIPCHAIN == caf::CafFlags::MIPCHAIN.0
        && VOXCAF_ASSET_SHADER == caf::AssetType::SHADER.0
        && VOXCAF_ASSET_MESH == caf::AssetType::MESH.0
);

/// The alignment a payload of `asset_type` is loaded at (16; 32 for meshes and shaders).
#[no_mangle]
pub extern "C" fn voxcaf_payload_alignment(asset_type: u16) -> u32 {
    AssetType(asset_type).payload_alignment() as u32
}

/// The size of a file with these metadata and payload sizes (`VOXCAF_ERR_LIMIT` when the sum
/// overflows 64 bits).
///
/// Ownership: writes `*out`.
#[no_mangle]
pub unsafe extern "C" fn voxcaf_total_file_size(
    metadata_size: u64,
    data_size: u64,
    out: *mut u64,
) -> i32 {
    guard(|| {
        let h = CafHeader::new(AssetType::UNKNOWN, CafFlags(0), 0, metadata_size, data_size);
        let total = h.total_file_size().ok_or_else(|| {
            Fail::new(
                VOXCAF_ERR_LIMIT,
                format!("{metadata_size} + {data_size} bytes overflow a file size"),
            )
        })?;
        ptr::out(out, total, "out")
    })
}
