//! Typed views over a verified [`Asset`]: each checks the type, the metadata size and the
//! payload size the metadata implies before handing out borrowed data.
//!
//! Views refuse assets whose COMPRESSED or ENCRYPTED flag is set: this crate does not define
//! those encodings yet, and handing out the stored bytes as pixels or samples would misread
//! them.

use std::borrow::Cow;
use std::ops::Range;

use zerocopy::little_endian::{I16, U32};
use zerocopy::{FromBytes, Immutable, IntoBytes, KnownLayout};

use crate::error::CafError;
use crate::format::{FormatClass, FormatInfo, FormatRefusal, TextureFormat};
use crate::header::{AssetType, CafFlags};
use crate::load::Asset;
use crate::meta::{
    strip_alignment_padding, ArchetypeDesc, AudioMetadata, FontFormat, FontMetadata, GlyphRecord,
    KerningRecord, MeshExtHeader, MeshMetadata, SceneMetadata, ShaderMetadata, ShaderStage,
    SkinHeader, SubMeshEntry, TextureMetadata, Vertex,
};
use crate::skin::{weights_fault, Skin};

fn expect_type(a: &Asset<'_>, ty: AssetType) -> Result<(), CafError> {
    if a.header.asset_type != ty {
        return Err(CafError::WrongType {
            expected: ty,
            found: a.header.asset_type,
        });
    }
    let encoded = CafFlags::COMPRESSED | CafFlags::ENCRYPTED;
    if a.header.flags.0 & encoded.0 != 0 {
        return Err(CafError::UnsupportedFlags {
            ty,
            flags: a.header.flags,
        });
    }
    Ok(())
}

fn payload_size(ty: AssetType, expected: Option<u64>, actual: usize) -> Result<(), CafError> {
    let actual = actual as u64;
    match expected {
        Some(e) if e == actual => Ok(()),
        e => Err(CafError::PayloadSize {
            ty,
            expected: e.unwrap_or(u64::MAX),
            actual,
        }),
    }
}

/// Reinterpret little-endian bytes as `T`s (a payload's vertices, indices or samples): borrowed
/// when aligned (and the host is little-endian), otherwise copied once and byte-swapped on a
/// big-endian host. Every field of `T` must be 4 bytes wide (`u32`, `f32`, `[f32; N]`).
/// Trailing bytes past the last whole `T` are ignored.
pub fn cast_or_copy<T>(bytes: &[u8]) -> Cow<'_, [T]>
where
    T: FromBytes + IntoBytes + KnownLayout + Immutable + Copy,
{
    if cfg!(target_endian = "little") {
        if let Ok(s) = <[T]>::ref_from_bytes(bytes) {
            return Cow::Borrowed(s);
        }
    }
    let mut v = vec![T::new_zeroed(); bytes.len() / std::mem::size_of::<T>()];
    let n = v.as_bytes().len(); // == bytes.len() when the precondition holds
    v.as_mut_bytes().copy_from_slice(&bytes[..n]);
    if cfg!(target_endian = "big") {
        // Every field of the types used here is 4 bytes wide.
        for w in v.as_mut_bytes().chunks_exact_mut(4) {
            w.reverse();
        }
    }
    Cow::Owned(v)
}

/// Number of levels in a full chain down to 1x1.
fn full_chain_len(w: u32, h: u32) -> u32 {
    32 - w.max(h).leading_zeros()
}

/// A texture: one slice per mip level, largest first, in any format of
/// `docs/format/caf-textures.md` (the original's code 0, plain, packed, BCn and ASTC).
#[derive(Clone, Debug)]
pub struct TextureView<'a> {
    /// The metadata.
    pub meta: TextureMetadata,
    /// The format code's facts (name, block size, bytes per block).
    pub format: FormatInfo,
    /// For format 0: bytes per pixel (1..=4), inferred from the payload size. For every other
    /// format: 0 (the format says what a texel is).
    pub channels: u32,
    /// Whether the data is sRGB: the SRGB flag is set or the format is an `_SRGB` code.
    pub srgb: bool,
    levels: Vec<&'a [u8]>,
    dims: Vec<(u32, u32)>,
    ranges: Vec<Range<usize>>,
}

impl<'a> TextureView<'a> {
    /// Check and split a texture asset.
    pub fn from_asset(a: &Asset<'a>) -> Result<Self, CafError> {
        let ty = AssetType::TEXTURE;
        expect_type(a, ty)?;
        let meta = TextureMetadata::from_metadata(a.metadata)?;
        let bad = |field, value: u64, reason| CafError::BadMetadata {
            ty,
            field,
            value,
            reason,
        };
        let code = TextureFormat(meta.format);
        let format = code.info().map_err(|r| {
            bad(
                "format",
                meta.format.into(),
                match r {
                    FormatRefusal::Depth => "a depth format (58..=62) is not a texture payload",
                    FormatRefusal::Unknown => {
                        "not a format code (0, or an SDL_GPUTextureFormat up to 104)"
                    }
                },
            )
        })?;
        if meta.width == 0 || meta.height == 0 {
            let (f, v) = if meta.width == 0 {
                ("width", meta.width)
            } else {
                ("height", meta.height)
            };
            return Err(bad(f, v.into(), "a texture needs at least one pixel"));
        }
        if meta.mip_levels == 0 || meta.mip_levels > full_chain_len(meta.width, meta.height) {
            return Err(bad(
                "mip_levels",
                meta.mip_levels.into(),
                "must be between 1 and the length of the full chain down to 1x1",
            ));
        }
        let mut dims = Vec::with_capacity(meta.mip_levels as usize);
        let (mut w, mut h) = (meta.width, meta.height);
        for _ in 0..meta.mip_levels {
            dims.push((w, h));
            w = (w / 2).max(1);
            h = (h / 2).max(1);
        }
        let len = a.payload.len() as u64;
        let too_big = || CafError::PayloadSize {
            ty,
            expected: u64::MAX,
            actual: len,
        };
        // Total bytes for a texel (block) size of `unit`, or None on overflow.
        let total = |unit: u32| -> Option<u64> {
            dims.iter().try_fold(0u64, |acc, &(w, h)| {
                acc.checked_add(code.level_bytes(w, h, unit)?)
            })
        };
        let channels = if format.class == FormatClass::Legacy8 {
            let texels = total(1).ok_or_else(too_big)?;
            let channels = if len % texels == 0 { len / texels } else { 0 };
            if !(1..=4).contains(&channels) {
                return Err(CafError::PayloadSize {
                    ty,
                    expected: texels.saturating_mul(4),
                    actual: len,
                });
            }
            channels as u32
        } else {
            let expected = total(0).ok_or_else(too_big)?;
            payload_size(ty, Some(expected), a.payload.len())?;
            0
        };
        let mut levels = Vec::with_capacity(dims.len());
        let mut ranges = Vec::with_capacity(dims.len());
        let mut off = 0usize;
        for &(w, h) in &dims {
            // The sum of all level sizes equals the payload length (checked above), so every
            // level size fits in usize and no range runs past the payload.
            let n = code.level_bytes(w, h, channels).ok_or_else(too_big)? as usize;
            levels.push(&a.payload[off..off + n]);
            ranges.push(off..off + n);
            off += n;
        }
        Ok(TextureView {
            meta,
            format,
            channels,
            srgb: a.header.flags.contains(CafFlags::SRGB) || format.srgb,
            levels,
            dims,
            ranges,
        })
    }

    /// The format code.
    pub fn format_code(&self) -> TextureFormat {
        TextureFormat(self.meta.format)
    }

    /// All levels, largest first.
    pub fn levels(&self) -> &[&'a [u8]] {
        &self.levels
    }

    /// Level `i`, if stored.
    pub fn level(&self, i: usize) -> Option<&'a [u8]> {
        self.levels.get(i).copied()
    }

    /// The byte range of level `i` in the payload.
    pub fn level_range(&self, i: usize) -> Option<Range<usize>> {
        self.ranges.get(i).cloned()
    }

    /// Width and height of level `i`.
    pub fn level_dims(&self, i: usize) -> Option<(u32, u32)> {
        self.dims.get(i).copied()
    }

    /// Number of stored levels.
    pub fn level_count(&self) -> usize {
        self.levels.len()
    }
}

/// Interleaved PCM audio.
#[derive(Clone, Copy, Debug)]
pub struct AudioView<'a> {
    /// The metadata.
    pub meta: AudioMetadata,
    /// The interleaved little-endian samples.
    pub data: &'a [u8],
}

impl<'a> AudioView<'a> {
    /// Check an audio asset.
    pub fn from_asset(a: &Asset<'a>) -> Result<Self, CafError> {
        let ty = AssetType::AUDIO;
        expect_type(a, ty)?;
        let meta = AudioMetadata::from_metadata(a.metadata)?;
        if !matches!(meta.bits_per_sample, 8 | 16 | 32) {
            return Err(CafError::BadMetadata {
                ty,
                field: "bits_per_sample",
                value: meta.bits_per_sample.into(),
                reason: "must be 8, 16 or 32",
            });
        }
        if meta.channels == 0 {
            return Err(CafError::BadMetadata {
                ty,
                field: "channels",
                value: 0,
                reason: "must be at least 1",
            });
        }
        let expected = u64::from(meta.sample_count)
            * u64::from(meta.channels)
            * u64::from(meta.bits_per_sample / 8);
        payload_size(ty, Some(expected), a.payload.len())?;
        Ok(AudioView {
            meta,
            data: a.payload,
        })
    }

    /// The samples as `i16` without copying, when 16-bit, little-endian host and aligned.
    pub fn samples_i16(&self) -> Option<&'a [i16]> {
        if self.meta.bits_per_sample != 16 || cfg!(target_endian = "big") {
            return None;
        }
        <[i16]>::ref_from_bytes(self.data).ok()
    }

    /// The 16-bit samples, borrowed when possible and copied otherwise; `None` unless 16-bit.
    pub fn samples_i16_cow(&self) -> Option<Cow<'a, [i16]>> {
        if self.meta.bits_per_sample != 16 {
            return None;
        }
        Some(match self.samples_i16() {
            Some(s) => Cow::Borrowed(s),
            None => Cow::Owned(
                <[I16]>::ref_from_prefix_with_elems(self.data, self.data.len() / 2)
                    .map(|(v, _)| v.iter().map(|s| s.get()).collect())
                    .unwrap_or_default(),
            ),
        })
    }

    /// Frames (samples per channel).
    pub fn frames(&self) -> u32 {
        self.meta.sample_count
    }

    /// Duration in seconds (0 when the sample rate is 0).
    pub fn duration_secs(&self) -> f64 {
        if self.meta.sample_rate == 0 {
            return 0.0;
        }
        f64::from(self.meta.sample_count) / f64::from(self.meta.sample_rate)
    }
}

/// The parts of an extended mesh's metadata after the original 16 bytes
/// (docs/format/caf-assets-ext.md section 1).
#[derive(Clone, Debug, PartialEq)]
pub struct MeshExt {
    /// The extension header.
    pub header: MeshExtHeader,
    /// One entry per sub-mesh, as stored.
    pub sub_meshes: Vec<SubMeshEntry>,
    /// The skeleton, when the SKIN stream bit is set (section 2).
    pub skin: Option<Skin>,
}

impl MeshExt {
    /// Decode and check the metadata of a mesh: the original 16 bytes alone, or followed by
    /// the extension header and sub-mesh table. Ranges are checked against `index_count`.
    pub fn decode(b: &[u8]) -> Result<(MeshMetadata, Option<MeshExt>), CafError> {
        let ty = AssetType::MESH;
        // A plain mesh's metadata may be followed by alignment padding (caf-extensions.md §8).
        let plain = strip_alignment_padding(ty, b, MeshMetadata::SIZE);
        if plain.len() == MeshMetadata::SIZE {
            return Ok((MeshMetadata::from_bytes(plain)?, None));
        }
        let base = MeshMetadata::SIZE + MeshExtHeader::SIZE;
        let (meta, header) = match (b.get(..MeshMetadata::SIZE), b.get(MeshMetadata::SIZE..base)) {
            (Some(m), Some(h)) => (MeshMetadata::from_bytes(m)?, MeshExtHeader::from_bytes(h)?),
            _ => {
                return Err(CafError::MetadataSize {
                    ty,
                    expected: MeshMetadata::SIZE as u64,
                    actual: b.len() as u64,
                })
            }
        };
        let bad = |field: &'static str, value: u64, reason: &'static str| CafError::BadMetadata {
            ty,
            field,
            value,
            reason,
        };
        if header.magic != MeshExtHeader::MAGIC {
            return Err(bad(
                "ext.magic",
                u32::from_le_bytes(header.magic).into(),
                "an extended mesh header starts with \"MSHX\"",
            ));
        }
        if header.version != MeshExtHeader::VERSION {
            return Err(bad(
                "ext.version",
                header.version.into(),
                "only version 1 is defined",
            ));
        }
        if header.streams & !MeshExtHeader::KNOWN_STREAMS != 0 {
            return Err(bad(
                "ext.streams",
                header.streams.into(),
                "unknown stream bits",
            ));
        }
        if header.reserved0 != 0 || header.reserved != [0; 4] {
            return Err(bad("ext.reserved", 0, "reserved bytes must be zero"));
        }
        let table_end = base as u64 + u64::from(meta.sub_mesh_count) * SubMeshEntry::SIZE as u64;
        let has_skin = header.streams & MeshExtHeader::SKIN != 0;
        let expected = if has_skin {
            let at = usize::try_from(table_end).ok().and_then(|t| b.get(t..));
            match at {
                Some(rest) => table_end + Skin::size_at(rest)?,
                None => {
                    return Err(CafError::MetadataSize {
                        ty,
                        expected: table_end + SkinHeader::SIZE as u64,
                        actual: b.len() as u64,
                    })
                }
            }
        } else {
            table_end
        };
        // So may an extended mesh's sub-mesh table (and skin).
        let b = match usize::try_from(expected) {
            Ok(n) => strip_alignment_padding(ty, b, n),
            Err(_) => b,
        };
        if b.len() as u64 != expected {
            return Err(CafError::MetadataSize {
                ty,
                expected,
                actual: b.len() as u64,
            });
        }
        // Both sizes are at most the metadata length now.
        let (table, skin_bytes) = b.split_at(table_end as usize);
        let skin = if has_skin {
            Some(Skin::decode(skin_bytes)?)
        } else {
            None
        };
        let mut sub_meshes = Vec::with_capacity(meta.sub_mesh_count as usize);
        for e in table[base..].chunks_exact(SubMeshEntry::SIZE) {
            let e = SubMeshEntry::from_bytes(e)?;
            if u64::from(e.first_index) + u64::from(e.index_count) > u64::from(meta.index_count) {
                return Err(bad(
                    "sub_mesh.index_count",
                    u64::from(e.first_index) + u64::from(e.index_count),
                    "the sub-mesh ends past the index list",
                ));
            }
            if e.index_count % 3 != 0 {
                return Err(bad(
                    "sub_mesh.index_count",
                    e.index_count.into(),
                    "not a multiple of 3",
                ));
            }
            let finite = e
                .bounds_min
                .iter()
                .chain(&e.bounds_max)
                .all(|v| v.is_finite());
            if !finite || (0..3).any(|k| e.bounds_min[k] > e.bounds_max[k]) {
                return Err(bad(
                    "sub_mesh.bounds",
                    sub_meshes.len() as u64,
                    "bounds must be finite with min <= max",
                ));
            }
            sub_meshes.push(e);
        }
        Ok((
            meta,
            Some(MeshExt {
                header,
                sub_meshes,
                skin,
            }),
        ))
    }

    /// Whether the COLOR_0 stream is present.
    pub fn has_colors(&self) -> bool {
        self.header.streams & MeshExtHeader::COLOR0 != 0
    }

    /// Whether the TEXCOORD_1 stream is present.
    pub fn has_uv1(&self) -> bool {
        self.header.streams & MeshExtHeader::UV1 != 0
    }

    /// Whether the mesh is skinned (skeleton, JOINTS_0 and WEIGHTS_0 present).
    pub fn has_skin(&self) -> bool {
        self.header.streams & MeshExtHeader::SKIN != 0
    }
}

/// A mesh: vertices then u32 indices, and for an extended mesh its sub-mesh table and optional
/// vertex colours and second UV set. Borrowed when the payload is aligned (always for owned
/// loads), copied otherwise.
#[derive(Clone, Debug)]
pub struct MeshView<'a> {
    /// The metadata.
    pub meta: MeshMetadata,
    /// `vertex_count` vertices.
    pub vertices: Cow<'a, [Vertex]>,
    /// `index_count` indices, each checked to be `< vertex_count`.
    pub indices: Cow<'a, [u32]>,
    /// The extension (sub-mesh table, stream bits) of an extended mesh; `None` for an
    /// original 16-byte metadata.
    pub ext: Option<MeshExt>,
    /// COLOR_0, one linear RGBA per vertex, when stored.
    pub colors: Option<Cow<'a, [[f32; 4]]>>,
    /// TEXCOORD_1, one per vertex, when stored.
    pub uv1: Option<Cow<'a, [[f32; 2]]>>,
    /// JOINTS_0 of a skinned mesh, one per vertex, each checked to name a joint.
    pub joints: Option<Cow<'a, [[u16; 4]]>>,
    /// WEIGHTS_0 of a skinned mesh, one per vertex, each checked to be in [0, 1] and to sum
    /// to 1 within [`crate::WEIGHT_SUM_TOLERANCE`].
    pub weights: Option<Cow<'a, [[f32; 4]]>>,
}

impl<'a> MeshView<'a> {
    /// Check a mesh asset, including that every index names a vertex.
    pub fn from_asset(a: &Asset<'a>) -> Result<Self, CafError> {
        let ty = AssetType::MESH;
        expect_type(a, ty)?;
        let (meta, ext) = MeshExt::decode(a.metadata)?;
        let vc = u64::from(meta.vertex_count);
        let vbytes = vc * Vertex::SIZE as u64;
        let ibytes = u64::from(meta.index_count) * 4;
        let cbytes = if ext.as_ref().is_some_and(MeshExt::has_colors) {
            vc * 16
        } else {
            0
        };
        let ubytes = if ext.as_ref().is_some_and(MeshExt::has_uv1) {
            vc * 8
        } else {
            0
        };
        let skin = ext.as_ref().and_then(|e| e.skin.as_ref());
        let (jbytes, wbytes) = if skin.is_some() {
            (vc * 8, vc * 16)
        } else {
            (0, 0)
        };
        let expected = vbytes + ibytes + cbytes + ubytes + jbytes + wbytes;
        payload_size(ty, Some(expected), a.payload.len())?;
        let (vb, rest) = a.payload.split_at(vbytes as usize);
        let (ib, rest) = rest.split_at(ibytes as usize);
        let (cb, rest) = rest.split_at(cbytes as usize);
        let (ub, rest) = rest.split_at(ubytes as usize);
        let (jb, wb) = rest.split_at(jbytes as usize);
        let vertices = cast_or_copy::<Vertex>(vb);
        let indices = cast_or_copy::<u32>(ib);
        if let Some(i) = indices.iter().position(|&i| i >= meta.vertex_count) {
            return Err(CafError::Malformed {
                ty,
                offset: vbytes + i as u64 * 4,
                what: format!(
                    "index {i} is {}, but there are {} vertices",
                    indices[i], meta.vertex_count
                ),
            });
        }
        let (joints, weights) = match skin {
            Some(skin) => {
                let joint_off = vbytes + ibytes + cbytes + ubytes;
                let (j, w) = check_skin_streams(skin, jb, wb, joint_off)?;
                (Some(j), Some(w))
            }
            None => (None, None),
        };
        Ok(MeshView {
            meta,
            vertices,
            indices,
            colors: (cbytes > 0).then(|| cast_or_copy::<[f32; 4]>(cb)),
            uv1: (ubytes > 0).then(|| cast_or_copy::<[f32; 2]>(ub)),
            joints,
            weights,
            ext,
        })
    }

    /// The skeleton of a skinned mesh.
    pub fn skin(&self) -> Option<&Skin> {
        self.ext.as_ref().and_then(|e| e.skin.as_ref())
    }

    /// The sub-mesh table: the stored one of an extended mesh, otherwise one entry covering
    /// every index (no material, no node, bounds of the indexed vertices).
    pub fn sub_meshes(&self) -> Vec<SubMeshEntry> {
        match &self.ext {
            Some(e) => e.sub_meshes.clone(),
            None => {
                let (bounds_min, bounds_max) = crate::mesh_encode::bounds(
                    self.indices
                        .iter()
                        .map(|&i| self.vertices[i as usize].position),
                );
                vec![SubMeshEntry {
                    first_index: 0,
                    index_count: self.meta.index_count,
                    material: SubMeshEntry::NONE,
                    node: SubMeshEntry::NONE,
                    bounds_min,
                    bounds_max,
                }]
            }
        }
    }

    /// Triangles as index triples (a trailing partial triangle is ignored).
    pub fn triangles(&self) -> impl Iterator<Item = [u32; 3]> + '_ {
        self.indices.chunks_exact(3).map(|t| [t[0], t[1], t[2]])
    }
}

/// JOINTS_0 (`jb`) and WEIGHTS_0 (`wb`) of a skinned mesh, checked against `skin`; `offset`
/// is where `jb` starts in the payload.
type SkinStreamsOwned<'a> = (Cow<'a, [[u16; 4]]>, Cow<'a, [[f32; 4]]>);
fn check_skin_streams<'a>(
    skin: &Skin,
    jb: &[u8],
    wb: &'a [u8],
    offset: u64,
) -> Result<SkinStreamsOwned<'a>, CafError> {
    let ty = AssetType::MESH;
    let joints: Vec<[u16; 4]> = jb
        .chunks_exact(8)
        .map(|c| [0, 2, 4, 6].map(|k| u16::from_le_bytes([c[k], c[k + 1]])))
        .collect();
    let n = skin.joints.len();
    if let Some(v) = joints
        .iter()
        .position(|j| j.iter().any(|&x| usize::from(x) >= n))
    {
        return Err(CafError::Malformed {
            ty,
            offset: offset + v as u64 * 8,
            what: format!(
                "vertex {v}: JOINTS_0 {:?} names a joint past the skin's {n}",
                joints[v]
            ),
        });
    }
    let weights = cast_or_copy::<[f32; 4]>(wb);
    if let Some((v, reason)) = weights
        .iter()
        .enumerate()
        .find_map(|(v, w)| weights_fault(w).map(|r| (v, r)))
    {
        return Err(CafError::Malformed {
            ty,
            offset: offset + jb.len() as u64 + v as u64 * 16,
            what: format!("vertex {v}: WEIGHTS_0 {:?}: {reason}", weights[v]),
        });
    }
    Ok((Cow::Owned(joints), weights))
}

/// Shader bytecode.
#[derive(Clone, Copy, Debug)]
pub struct ShaderView<'a> {
    /// The metadata.
    pub meta: ShaderMetadata,
    /// The bytecode (SPIR-V for the original).
    pub bytecode: &'a [u8],
}

impl<'a> ShaderView<'a> {
    /// Check a shader asset (stage must be vertex, fragment or compute).
    pub fn from_asset(a: &Asset<'a>) -> Result<Self, CafError> {
        let ty = AssetType::SHADER;
        expect_type(a, ty)?;
        let meta = ShaderMetadata::from_metadata(a.metadata)?;
        if ShaderStage(meta.stage).name().is_none() {
            return Err(CafError::BadMetadata {
                ty,
                field: "stage",
                value: meta.stage.into(),
                reason: "must be 0 (vertex), 1 (fragment) or 2 (compute)",
            });
        }
        Ok(ShaderView {
            meta,
            bytecode: a.payload,
        })
    }

    /// The stage.
    pub fn stage(&self) -> ShaderStage {
        ShaderStage(self.meta.stage)
    }

    /// The bytecode as 32-bit words, when its length is a multiple of 4 and it is aligned.
    pub fn words(&self) -> Option<&'a [u32]> {
        if cfg!(target_endian = "big") {
            return None;
        }
        <[u32]>::ref_from_bytes(self.bytecode).ok()
    }

    /// True when the bytecode starts with the SPIR-V magic number 0x07230203.
    pub fn is_spirv(&self) -> bool {
        self.bytecode.get(..4) == Some(&0x0723_0203u32.to_le_bytes())
    }
}

/// Bounds-checked little-endian reader over a payload.
struct Cursor<'a> {
    data: &'a [u8],
    pos: usize,
    ty: AssetType,
}

impl<'a> Cursor<'a> {
    fn err(&self, what: String) -> CafError {
        CafError::Malformed {
            ty: self.ty,
            offset: self.pos as u64,
            what,
        }
    }
    fn bytes(&mut self, n: u64, what: &str) -> Result<&'a [u8], CafError> {
        let left = (self.data.len() - self.pos) as u64;
        if n > left {
            return Err(self.err(format!("{what} needs {n} bytes, only {left} left")));
        }
        let s = &self.data[self.pos..self.pos + n as usize];
        self.pos += n as usize;
        Ok(s)
    }
    fn u32(&mut self, what: &str) -> Result<u32, CafError> {
        let b = self.bytes(4, what)?;
        // `bytes` returned exactly 4 bytes, so the cast cannot fail; the fallback keeps the
        // path free of panics.
        Ok(U32::read_from_bytes(b).map_or(0, U32::get))
    }
    fn at_end(&self) -> bool {
        self.pos == self.data.len()
    }
}

/// Scene component type ids written by the original's runtime serializer.
pub mod scene_component {
    /// Transform: position, rotation, scale (9 × f32 = 36 bytes).
    pub const TRANSFORM: u32 = 0;
    /// Acceleration2D: 2 × f32 (8 bytes).
    pub const ACCELERATION_2D: u32 = 1;
    /// Parent: u32 parent id (0xFFFFFFFF = none) + u8 dirty (5 bytes).
    pub const PARENT: u32 = 2;
    /// WorldTransform: 4×4 f32 matrix (64 bytes).
    pub const WORLD_TRANSFORM: u32 = 3;

    /// Component byte size of a known type id (entries add a 4-byte entity id).
    pub fn size(type_id: u32) -> Option<usize> {
        match type_id {
            TRANSFORM => Some(36),
            ACCELERATION_2D => Some(8),
            PARENT => Some(5),
            WORLD_TRANSFORM => Some(64),
            _ => None,
        }
    }

    /// Name of a known type id.
    pub fn name(type_id: u32) -> Option<&'static str> {
        match type_id {
            TRANSFORM => Some("Transform"),
            ACCELERATION_2D => Some("Acceleration2D"),
            PARENT => Some("Parent"),
            WORLD_TRANSFORM => Some("WorldTransform"),
            _ => None,
        }
    }
}

/// One scene section: `count` entries of one component type.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct SceneSection<'a> {
    /// Component type id (see [`scene_component`]).
    pub type_id: u32,
    /// Number of entries.
    pub count: u32,
    /// Component bytes per entry (without the entity id).
    pub component_size: usize,
    /// Offset of the section header inside the payload.
    pub offset: usize,
    /// The `count` entries, each a u32 entity id followed by the component bytes.
    pub data: &'a [u8],
}

/// One entry of a [`SceneSection`].
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct SceneEntry<'a> {
    /// Entity id.
    pub entity: u32,
    /// Raw component bytes.
    pub component: &'a [u8],
}

impl<'a> SceneSection<'a> {
    /// The entries in stored order.
    pub fn entries(&self) -> impl Iterator<Item = SceneEntry<'a>> + 'a {
        let data: &'a [u8] = self.data;
        data.chunks_exact(self.component_size.saturating_add(4))
            .filter_map(|e| {
                // Each entry is `component_size + 4` bytes: the split always succeeds.
                let (entity, component) = U32::read_from_prefix(e).ok()?;
                Some(SceneEntry {
                    entity: entity.get(),
                    component,
                })
            })
    }
}

/// A scene: metadata plus the component sections of the payload.
#[derive(Clone, Debug)]
pub struct SceneView<'a> {
    /// The metadata.
    pub meta: SceneMetadata,
    /// Design-style archetype descriptors following the metadata (empty for the original's
    /// runtime writer).
    pub archetypes: Vec<ArchetypeDesc>,
    sections: Vec<SceneSection<'a>>,
}

impl<'a> SceneView<'a> {
    /// Check a scene asset whose sections use the original's component types.
    pub fn from_asset(a: &Asset<'a>) -> Result<Self, CafError> {
        SceneView::from_asset_with(a, scene_component::size)
    }

    /// Check a scene asset, with `component_size` giving the byte size of each type id (entries
    /// carry no length, so an unknown type cannot be skipped and is an error).
    pub fn from_asset_with(
        a: &Asset<'a>,
        component_size: impl Fn(u32) -> Option<usize>,
    ) -> Result<Self, CafError> {
        let ty = AssetType::SCENE;
        expect_type(a, ty)?;
        let head = a
            .metadata
            .get(..SceneMetadata::SIZE)
            .ok_or(CafError::MetadataSize {
                ty,
                expected: SceneMetadata::SIZE as u64,
                actual: a.metadata.len() as u64,
            })?;
        let meta = SceneMetadata::from_bytes(head)?;
        let mut archetypes = Vec::new();
        if a.metadata.len() != SceneMetadata::SIZE {
            let expected = SceneMetadata::SIZE as u64
                + u64::from(meta.archetype_count) * ArchetypeDesc::SIZE as u64;
            if a.metadata.len() as u64 != expected {
                return Err(CafError::MetadataSize {
                    ty,
                    expected,
                    actual: a.metadata.len() as u64,
                });
            }
            for d in a.metadata[SceneMetadata::SIZE..].chunks_exact(ArchetypeDesc::SIZE) {
                archetypes.push(ArchetypeDesc::from_bytes(d)?);
            }
        }
        for (field, off) in [
            ("string_table_offset", meta.string_table_offset),
            ("asset_ref_table_offset", meta.asset_ref_table_offset),
        ] {
            if off as usize > a.metadata.len() {
                return Err(CafError::BadMetadata {
                    ty,
                    field,
                    value: off.into(),
                    reason: "points past the end of the metadata",
                });
            }
        }
        let mut c = Cursor {
            data: a.payload,
            pos: 0,
            ty,
        };
        let mut sections = Vec::new();
        while !c.at_end() {
            let offset = c.pos;
            let type_id = c.u32("section type id")?;
            let count = c.u32("section count")?;
            // An entry is a u32 entity id plus the component; the size must leave room for it.
            let size = component_size(type_id)
                .filter(|s| s.checked_add(4).is_some())
                .ok_or_else(|| CafError::Malformed {
                    ty,
                    offset: offset as u64,
                    what: format!("section of unknown component type {type_id}"),
                })?;
            let n = u64::from(count).saturating_mul((size as u64).saturating_add(4));
            let data = c.bytes(n, &format!("section of {count} type-{type_id} entries"))?;
            sections.push(SceneSection {
                type_id,
                count,
                component_size: size,
                offset,
                data,
            });
        }
        if archetypes.is_empty() && sections.len() as u64 != u64::from(meta.archetype_count) {
            return Err(CafError::Malformed {
                ty,
                offset: a.payload.len() as u64,
                what: format!(
                    "{} sections, but the metadata's archetype_count is {}",
                    sections.len(),
                    meta.archetype_count
                ),
            });
        }
        Ok(SceneView {
            meta,
            archetypes,
            sections,
        })
    }

    /// The sections in stored order.
    pub fn sections(&self) -> impl Iterator<Item = &SceneSection<'a>> + '_ {
        self.sections.iter()
    }

    /// Number of sections.
    pub fn section_count(&self) -> usize {
        self.sections.len()
    }
}

/// Prefab component type ids written by the original's prefab serializer.
pub mod prefab_component {
    /// Position3D: 3 × f32.
    pub const POSITION_3D: u32 = 15;
    /// Rotation3D: quaternion 4 × f32.
    pub const ROTATION_3D: u32 = 16;
    /// Scale3D: 3 × f32.
    pub const SCALE_3D: u32 = 17;
}

/// One component of a prefab entity.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct PrefabComponent<'a> {
    /// Component type id (see [`prefab_component`]).
    pub type_id: u32,
    /// Raw component bytes.
    pub data: &'a [u8],
}

/// One prefab entity.
#[derive(Clone, Debug, PartialEq)]
pub struct PrefabEntity<'a> {
    /// Name bytes (no terminator; UTF-8 in practice, see [`PrefabEntity::name_str`]).
    pub name: &'a [u8],
    /// Components in stored order.
    pub components: Vec<PrefabComponent<'a>>,
    /// Child entity ids.
    pub children: Vec<u32>,
}

impl PrefabEntity<'_> {
    /// The name as text, when it is valid UTF-8.
    pub fn name_str(&self) -> Option<&str> {
        std::str::from_utf8(self.name).ok()
    }
}

/// A prefab: no metadata, a payload of entities.
#[derive(Clone, Debug)]
pub struct PrefabView<'a> {
    entities: Vec<PrefabEntity<'a>>,
}

impl<'a> PrefabView<'a> {
    /// Check and parse a prefab asset (the whole payload must be consumed).
    pub fn from_asset(a: &Asset<'a>) -> Result<Self, CafError> {
        let ty = AssetType::PREFAB;
        expect_type(a, ty)?;
        if !a.metadata.is_empty() {
            return Err(CafError::MetadataSize {
                ty,
                expected: 0,
                actual: a.metadata.len() as u64,
            });
        }
        let mut c = Cursor {
            data: a.payload,
            pos: 0,
            ty,
        };
        let count = c.u32("entity count")?;
        let mut entities = Vec::new();
        for e in 0..count {
            let name_len = c.u32(&format!("entity {e} name length"))?;
            let name = c.bytes(name_len.into(), &format!("entity {e} name"))?;
            let ncomp = c.u32(&format!("entity {e} component count"))?;
            let mut components = Vec::new();
            for k in 0..ncomp {
                let type_id = c.u32(&format!("entity {e} component {k} type"))?;
                let size = c.u32(&format!("entity {e} component {k} size"))?;
                let data = c.bytes(size.into(), &format!("entity {e} component {k} data"))?;
                components.push(PrefabComponent { type_id, data });
            }
            let nchild = c.u32(&format!("entity {e} child count"))?;
            let ids = c.bytes(u64::from(nchild) * 4, &format!("entity {e} child ids"))?;
            let children = <[U32]>::ref_from_bytes(ids)
                .map(|v| v.iter().map(|c| c.get()).collect())
                .unwrap_or_default();
            entities.push(PrefabEntity {
                name,
                components,
                children,
            });
        }
        if !c.at_end() {
            return Err(c.err(format!(
                "{} bytes after the last entity",
                a.payload.len() - c.pos
            )));
        }
        Ok(PrefabView { entities })
    }

    /// The entities in stored order.
    pub fn entities(&self) -> impl Iterator<Item = &PrefabEntity<'a>> + '_ {
        self.entities.iter()
    }

    /// Number of entities.
    pub fn entity_count(&self) -> usize {
        self.entities.len()
    }
}

/// Largest atlas side a font asset may declare (`docs/format/caf-font.md` section 3).
pub const MAX_FONT_ATLAS_SIDE: u32 = 16384;
/// Most glyphs a font asset may hold.
pub const MAX_FONT_GLYPHS: u32 = 65536;
/// Most kerning pairs a font asset may hold.
pub const MAX_FONT_KERNING: u32 = 1 << 20;

/// The checked tables of a font asset: metadata, glyphs sorted by codepoint and kerning pairs
/// sorted by pair (`docs/format/caf-font.md`). Owned, so a runtime can keep them next to the
/// file buffer; lookups are binary searches.
#[derive(Clone, Debug, PartialEq)]
pub struct FontTables {
    /// The metadata.
    pub meta: FontMetadata,
    glyphs: Vec<GlyphRecord>,
    kerning: Vec<KerningRecord>,
    atlas_offset: usize,
}

/// A font: its [`FontTables`] (reached through `Deref`) and the distance-field atlas borrowed
/// from the payload. Every table is checked on construction.
#[derive(Clone, Debug)]
pub struct FontView<'a> {
    tables: Cow<'a, FontTables>,
    atlas: &'a [u8],
}

impl std::ops::Deref for FontView<'_> {
    type Target = FontTables;
    fn deref(&self) -> &FontTables {
        &self.tables
    }
}

impl<'a> FontView<'a> {
    /// Check a font asset: metadata fields, payload length, glyph and kerning order, atlas
    /// rectangles inside the atlas, kerning codepoints present, finite floats.
    pub fn from_asset(a: &Asset<'a>) -> Result<Self, CafError> {
        let tables = FontTables::from_asset(a)?;
        let atlas = &a.payload[tables.atlas_offset..];
        Ok(FontView {
            tables: Cow::Owned(tables),
            atlas,
        })
    }

    /// The view of `payload` with tables already checked against it by
    /// [`FontTables::from_asset`] (nothing is checked again; a payload shorter than the tables
    /// say gives an empty atlas).
    pub fn from_tables(tables: &'a FontTables, payload: &'a [u8]) -> Self {
        FontView {
            tables: Cow::Borrowed(tables),
            atlas: payload.get(tables.atlas_offset..).unwrap_or_default(),
        }
    }

    /// The checked tables.
    pub fn tables(&self) -> &FontTables {
        &self.tables
    }

    /// The atlas pixels, rows top to bottom, [`FontTables::channels`] bytes per pixel.
    pub fn atlas(&self) -> &'a [u8] {
        self.atlas
    }

    /// The atlas pixel at (x, y) (`channels` bytes), or `None` outside the atlas.
    pub fn atlas_pixel(&self, x: u32, y: u32) -> Option<&'a [u8]> {
        if x >= self.meta.atlas_width || y >= self.meta.atlas_height {
            return None;
        }
        let c = self.channels() as usize;
        let i = (y as usize * self.meta.atlas_width as usize + x as usize) * c;
        self.atlas.get(i..i + c)
    }
}

impl FontTables {
    /// Check a font asset (see [`FontView::from_asset`]) and keep its tables.
    pub fn from_asset(a: &Asset<'_>) -> Result<Self, CafError> {
        let ty = AssetType::FONT;
        expect_type(a, ty)?;
        let meta = FontMetadata::from_bytes(a.metadata)?;
        let bad = |field, value: u64, reason| CafError::BadMetadata {
            ty,
            field,
            value,
            reason,
        };
        if meta.version != FontMetadata::VERSION {
            return Err(bad(
                "version",
                meta.version.into(),
                "only font layout version 1 is defined",
            ));
        }
        let channels = FontFormat(meta.format).channels().ok_or_else(|| {
            bad(
                "format",
                meta.format.into(),
                "must be 1 (SDF), 2 (MSDF) or 3 (MTSDF)",
            )
        })?;
        for (field, v) in [
            ("atlas_width", meta.atlas_width),
            ("atlas_height", meta.atlas_height),
        ] {
            if !(1..=MAX_FONT_ATLAS_SIDE).contains(&v) {
                return Err(bad(field, v.into(), "must be between 1 and 16384"));
            }
        }
        if !(1..=MAX_FONT_GLYPHS).contains(&meta.glyph_count) {
            return Err(bad(
                "glyph_count",
                meta.glyph_count.into(),
                "must be between 1 and 65536",
            ));
        }
        if meta.kerning_count > MAX_FONT_KERNING {
            return Err(bad(
                "kerning_count",
                meta.kerning_count.into(),
                "must be at most 1048576",
            ));
        }
        for (field, v) in [
            ("em_size", meta.em_size),
            ("distance_range", meta.distance_range),
        ] {
            if !(v.is_finite() && v > 0.0) {
                return Err(bad(
                    field,
                    v.to_bits().into(),
                    "must be finite and positive",
                ));
            }
        }
        for (field, v) in [
            ("ascent", meta.ascent),
            ("descent", meta.descent),
            ("line_gap", meta.line_gap),
        ] {
            if !v.is_finite() {
                return Err(bad(field, v.to_bits().into(), "must be finite"));
            }
        }
        if meta.reserved != 0 {
            return Err(bad("reserved", meta.reserved.into(), "must be 0"));
        }
        // All factors are bounded above, so this cannot overflow a u64.
        let glyph_bytes = u64::from(meta.glyph_count) * GlyphRecord::SIZE as u64;
        let kern_bytes = u64::from(meta.kerning_count) * KerningRecord::SIZE as u64;
        let atlas_bytes =
            u64::from(meta.atlas_width) * u64::from(meta.atlas_height) * u64::from(channels);
        payload_size(
            ty,
            Some(glyph_bytes + kern_bytes + atlas_bytes),
            a.payload.len(),
        )?;
        let (gb, rest) = a.payload.split_at(glyph_bytes as usize);
        let kb = &rest[..kern_bytes as usize];
        let malformed = |offset: u64, what: String| CafError::Malformed { ty, offset, what };
        let mut glyphs = Vec::with_capacity(meta.glyph_count as usize);
        for (i, b) in gb.chunks_exact(GlyphRecord::SIZE).enumerate() {
            let g = GlyphRecord::from_bytes(b)?;
            let off = (i * GlyphRecord::SIZE) as u64;
            if char::from_u32(g.codepoint).is_none() {
                return Err(malformed(
                    off,
                    format!(
                        "glyph {i}: codepoint {:#x} is not a Unicode scalar value",
                        g.codepoint
                    ),
                ));
            }
            if let Some(prev) = glyphs.last().map(|p: &GlyphRecord| p.codepoint) {
                if g.codepoint <= prev {
                    return Err(malformed(
                        off,
                        format!(
                            "glyph {i}: codepoint U+{:04X} does not follow U+{prev:04X} (the table must be sorted, without repeats)",
                            g.codepoint
                        ),
                    ));
                }
            }
            let (x, y, w, h) = (
                u32::from(g.atlas_x),
                u32::from(g.atlas_y),
                u32::from(g.atlas_width),
                u32::from(g.atlas_height),
            );
            if (w == 0) != (h == 0) || x + w > meta.atlas_width || y + h > meta.atlas_height {
                return Err(malformed(
                    off,
                    format!(
                        "glyph U+{:04X}: atlas rectangle {w}x{h} at ({x}, {y}) does not fit the {}x{} atlas",
                        g.codepoint, meta.atlas_width, meta.atlas_height
                    ),
                ));
            }
            let floats = [
                g.plane_left,
                g.plane_bottom,
                g.plane_right,
                g.plane_top,
                g.advance,
            ];
            if floats.iter().any(|f| !f.is_finite()) {
                return Err(malformed(
                    off,
                    format!("glyph U+{:04X}: a metric is not finite", g.codepoint),
                ));
            }
            glyphs.push(g);
        }
        let mut kerning = Vec::with_capacity(meta.kerning_count as usize);
        for (i, b) in kb.chunks_exact(KerningRecord::SIZE).enumerate() {
            let k = KerningRecord::from_bytes(b)?;
            let off = glyph_bytes + (i * KerningRecord::SIZE) as u64;
            if let Some(p) = kerning.last().map(|p: &KerningRecord| (p.left, p.right)) {
                if (k.left, k.right) <= p {
                    return Err(malformed(
                        off,
                        format!(
                            "kerning pair {i} (U+{:04X}, U+{:04X}) is not after the previous pair (the table must be sorted, without repeats)",
                            k.left, k.right
                        ),
                    ));
                }
            }
            let known = |c: u32| glyphs.binary_search_by_key(&c, |g| g.codepoint).is_ok();
            if !known(k.left) || !known(k.right) {
                return Err(malformed(
                    off,
                    format!(
                        "kerning pair {i} (U+{:04X}, U+{:04X}) names a codepoint without a glyph",
                        k.left, k.right
                    ),
                ));
            }
            if !k.adjust.is_finite() {
                return Err(malformed(
                    off,
                    format!("kerning pair {i}: adjustment is not finite"),
                ));
            }
            kerning.push(k);
        }
        Ok(FontTables {
            meta,
            glyphs,
            kerning,
            atlas_offset: (glyph_bytes + kern_bytes) as usize,
        })
    }

    /// The atlas pixel format.
    pub fn format(&self) -> FontFormat {
        FontFormat(self.meta.format)
    }

    /// Bytes per atlas pixel (1, 3 or 4).
    pub fn channels(&self) -> u32 {
        self.format().channels().unwrap_or(1)
    }

    /// The glyph of `c`, in O(log n).
    pub fn glyph(&self, c: char) -> Option<&GlyphRecord> {
        let cp = u32::from(c);
        self.glyphs
            .binary_search_by_key(&cp, |g| g.codepoint)
            .ok()
            .map(|i| &self.glyphs[i])
    }

    /// All glyphs, sorted by codepoint.
    pub fn glyphs(&self) -> &[GlyphRecord] {
        &self.glyphs
    }

    /// All kerning pairs, sorted by (left, right).
    pub fn kerning_pairs(&self) -> &[KerningRecord] {
        &self.kerning
    }

    /// The advance adjustment (ems) between `left` and a following `right`; 0 when the pair is
    /// not kerned. O(log n).
    pub fn kerning(&self, left: char, right: char) -> f32 {
        let key = (u32::from(left), u32::from(right));
        self.kerning
            .binary_search_by_key(&key, |k| (k.left, k.right))
            .map_or(0.0, |i| self.kerning[i].adjust)
    }

    /// Line height in ems: ascent - descent + line gap.
    pub fn line_height(&self) -> f32 {
        self.meta.ascent - self.meta.descent + self.meta.line_gap
    }
}
