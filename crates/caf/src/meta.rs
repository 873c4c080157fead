//! Fixed metadata structs (CAF.md section 4): little-endian, natural C layout, no padding.
//!
//! Each struct has `SIZE`, `from_bytes` (exact length check) and `to_bytes`.

use crate::error::CafError;
use crate::header::AssetType;

/// Reads little-endian fields from a slice whose length was already checked.
struct Le<'a>(&'a [u8], usize);

impl Le<'_> {
    fn u16(&mut self) -> u16 {
        let v = u16::from_le_bytes([self.0[self.1], self.0[self.1 + 1]]);
        self.1 += 2;
        v
    }
    fn u32(&mut self) -> u32 {
        let b = &self.0[self.1..self.1 + 4];
        self.1 += 4;
        u32::from_le_bytes([b[0], b[1], b[2], b[3]])
    }
    fn u64(&mut self) -> u64 {
        let mut a = [0u8; 8];
        a.copy_from_slice(&self.0[self.1..self.1 + 8]);
        self.1 += 8;
        u64::from_le_bytes(a)
    }
}

fn check_len(ty: AssetType, bytes: &[u8], size: usize) -> Result<(), CafError> {
    if bytes.len() != size {
        return Err(CafError::MetadataSize {
            ty,
            expected: size as u64,
            actual: bytes.len() as u64,
        });
    }
    Ok(())
}

/// Texture metadata (24 bytes).
#[derive(Clone, Copy, PartialEq, Eq, Hash, Debug, Default)]
pub struct TextureMetadata {
    /// Width of level 0 in pixels.
    pub width: u32,
    /// Height of level 0 in pixels.
    pub height: u32,
    /// Pixel format; 0 (8-bit channels, channel count inferred) is the only defined value.
    pub format: u32,
    /// Number of stored levels (1 = no mip chain).
    pub mip_levels: u32,
    /// Reserved, 0.
    pub reserved: u64,
}

impl TextureMetadata {
    /// Encoded size.
    pub const SIZE: usize = 24;
    /// The only format value the original writes: 8 bits per channel.
    pub const FORMAT_RGBA8: u32 = 0;

    /// Decode; the slice must be exactly [`Self::SIZE`] bytes.
    pub fn from_bytes(b: &[u8]) -> Result<Self, CafError> {
        check_len(AssetType::TEXTURE, b, Self::SIZE)?;
        let mut r = Le(b, 0);
        Ok(TextureMetadata {
            width: r.u32(),
            height: r.u32(),
            format: r.u32(),
            mip_levels: r.u32(),
            reserved: r.u64(),
        })
    }

    /// Encode.
    pub fn to_bytes(&self) -> [u8; Self::SIZE] {
        let mut b = [0u8; Self::SIZE];
        b[0..4].copy_from_slice(&self.width.to_le_bytes());
        b[4..8].copy_from_slice(&self.height.to_le_bytes());
        b[8..12].copy_from_slice(&self.format.to_le_bytes());
        b[12..16].copy_from_slice(&self.mip_levels.to_le_bytes());
        b[16..24].copy_from_slice(&self.reserved.to_le_bytes());
        b
    }
}

/// Audio metadata (16 bytes).
#[derive(Clone, Copy, PartialEq, Eq, Hash, Debug, Default)]
pub struct AudioMetadata {
    /// Frames per second.
    pub sample_rate: u32,
    /// Interleaved channels.
    pub channels: u16,
    /// 8, 16 or 32.
    pub bits_per_sample: u16,
    /// Frames (samples per channel).
    pub sample_count: u32,
    /// Reserved, 0.
    pub reserved: u32,
}

impl AudioMetadata {
    /// Encoded size.
    pub const SIZE: usize = 16;

    /// Decode; the slice must be exactly [`Self::SIZE`] bytes.
    pub fn from_bytes(b: &[u8]) -> Result<Self, CafError> {
        check_len(AssetType::AUDIO, b, Self::SIZE)?;
        let mut r = Le(b, 0);
        Ok(AudioMetadata {
            sample_rate: r.u32(),
            channels: r.u16(),
            bits_per_sample: r.u16(),
            sample_count: r.u32(),
            reserved: r.u32(),
        })
    }

    /// Encode.
    pub fn to_bytes(&self) -> [u8; Self::SIZE] {
        let mut b = [0u8; Self::SIZE];
        b[0..4].copy_from_slice(&self.sample_rate.to_le_bytes());
        b[4..6].copy_from_slice(&self.channels.to_le_bytes());
        b[6..8].copy_from_slice(&self.bits_per_sample.to_le_bytes());
        b[8..12].copy_from_slice(&self.sample_count.to_le_bytes());
        b[12..16].copy_from_slice(&self.reserved.to_le_bytes());
        b
    }
}

/// Mesh metadata (16 bytes, from the original's pipeline code).
#[derive(Clone, Copy, PartialEq, Eq, Hash, Debug, Default)]
pub struct MeshMetadata {
    /// Number of 48-byte [`Vertex`](crate::Vertex) records.
    pub vertex_count: u32,
    /// Number of u32 indices after the vertices.
    pub index_count: u32,
    /// Sub-meshes counted by the converter (no table is stored).
    pub sub_mesh_count: u32,
    /// Reserved, 0.
    pub reserved: u32,
}

impl MeshMetadata {
    /// Encoded size.
    pub const SIZE: usize = 16;

    /// Decode; the slice must be exactly [`Self::SIZE`] bytes.
    pub fn from_bytes(b: &[u8]) -> Result<Self, CafError> {
        check_len(AssetType::MESH, b, Self::SIZE)?;
        let mut r = Le(b, 0);
        Ok(MeshMetadata {
            vertex_count: r.u32(),
            index_count: r.u32(),
            sub_mesh_count: r.u32(),
            reserved: r.u32(),
        })
    }

    /// Encode.
    pub fn to_bytes(&self) -> [u8; Self::SIZE] {
        let mut b = [0u8; Self::SIZE];
        b[0..4].copy_from_slice(&self.vertex_count.to_le_bytes());
        b[4..8].copy_from_slice(&self.index_count.to_le_bytes());
        b[8..12].copy_from_slice(&self.sub_mesh_count.to_le_bytes());
        b[12..16].copy_from_slice(&self.reserved.to_le_bytes());
        b
    }
}

/// Shader stage codes for [`ShaderMetadata::stage`].
#[derive(Clone, Copy, PartialEq, Eq, Hash, Debug, Default)]
pub struct ShaderStage(pub u32);

impl ShaderStage {
    /// Vertex shader (0).
    pub const VERTEX: ShaderStage = ShaderStage(0);
    /// Fragment shader (1).
    pub const FRAGMENT: ShaderStage = ShaderStage(1);
    /// Compute shader (2).
    pub const COMPUTE: ShaderStage = ShaderStage(2);

    /// `"vertex"`, `"fragment"`, `"compute"`, or `None`.
    pub fn name(self) -> Option<&'static str> {
        match self {
            ShaderStage::VERTEX => Some("vertex"),
            ShaderStage::FRAGMENT => Some("fragment"),
            ShaderStage::COMPUTE => Some("compute"),
            _ => None,
        }
    }
}

/// Shader metadata (8 bytes).
#[derive(Clone, Copy, PartialEq, Eq, Hash, Debug, Default)]
pub struct ShaderMetadata {
    /// A [`ShaderStage`] code.
    pub stage: u32,
    /// Reserved, 0.
    pub reserved: u32,
}

impl ShaderMetadata {
    /// Encoded size.
    pub const SIZE: usize = 8;

    /// Decode; the slice must be exactly [`Self::SIZE`] bytes.
    pub fn from_bytes(b: &[u8]) -> Result<Self, CafError> {
        check_len(AssetType::SHADER, b, Self::SIZE)?;
        let mut r = Le(b, 0);
        Ok(ShaderMetadata {
            stage: r.u32(),
            reserved: r.u32(),
        })
    }

    /// Encode.
    pub fn to_bytes(&self) -> [u8; Self::SIZE] {
        let mut b = [0u8; Self::SIZE];
        b[0..4].copy_from_slice(&self.stage.to_le_bytes());
        b[4..8].copy_from_slice(&self.reserved.to_le_bytes());
        b
    }
}

/// Scene metadata (20 bytes; in the design followed by `archetype_count` [`ArchetypeDesc`]s,
/// which the original's runtime writer never emits).
#[derive(Clone, Copy, PartialEq, Eq, Hash, Debug, Default)]
pub struct SceneMetadata {
    /// Entities in the saved world.
    pub entity_count: u32,
    /// The original writes the number of payload sections here.
    pub archetype_count: u32,
    /// Relative to the metadata start; 0 = none.
    pub string_table_offset: u32,
    /// Relative to the metadata start; 0 = none.
    pub asset_ref_table_offset: u32,
    /// Reserved, 0.
    pub reserved: u32,
}

impl SceneMetadata {
    /// Encoded size.
    pub const SIZE: usize = 20;

    /// Decode; the slice must be exactly [`Self::SIZE`] bytes.
    pub fn from_bytes(b: &[u8]) -> Result<Self, CafError> {
        check_len(AssetType::SCENE, b, Self::SIZE)?;
        let mut r = Le(b, 0);
        Ok(SceneMetadata {
            entity_count: r.u32(),
            archetype_count: r.u32(),
            string_table_offset: r.u32(),
            asset_ref_table_offset: r.u32(),
            reserved: r.u32(),
        })
    }

    /// Encode.
    pub fn to_bytes(&self) -> [u8; Self::SIZE] {
        let mut b = [0u8; Self::SIZE];
        b[0..4].copy_from_slice(&self.entity_count.to_le_bytes());
        b[4..8].copy_from_slice(&self.archetype_count.to_le_bytes());
        b[8..12].copy_from_slice(&self.string_table_offset.to_le_bytes());
        b[12..16].copy_from_slice(&self.asset_ref_table_offset.to_le_bytes());
        b[16..20].copy_from_slice(&self.reserved.to_le_bytes());
        b
    }
}

/// One archetype descriptor of the scene design (12 bytes).
#[derive(Clone, Copy, PartialEq, Eq, Hash, Debug, Default)]
pub struct ArchetypeDesc {
    /// Bit set of component types.
    pub component_mask: u32,
    /// Entities in this archetype.
    pub entity_count: u32,
    /// Offset into the payload.
    pub data_offset: u32,
}

impl ArchetypeDesc {
    /// Encoded size.
    pub const SIZE: usize = 12;

    /// Decode; the slice must be exactly [`Self::SIZE`] bytes.
    pub fn from_bytes(b: &[u8]) -> Result<Self, CafError> {
        check_len(AssetType::SCENE, b, Self::SIZE)?;
        let mut r = Le(b, 0);
        Ok(ArchetypeDesc {
            component_mask: r.u32(),
            entity_count: r.u32(),
            data_offset: r.u32(),
        })
    }

    /// Encode.
    pub fn to_bytes(&self) -> [u8; Self::SIZE] {
        let mut b = [0u8; Self::SIZE];
        b[0..4].copy_from_slice(&self.component_mask.to_le_bytes());
        b[4..8].copy_from_slice(&self.entity_count.to_le_bytes());
        b[8..12].copy_from_slice(&self.data_offset.to_le_bytes());
        b
    }
}

/// One mesh vertex as stored in the payload (48 bytes, all little-endian f32).
#[repr(C)]
#[derive(Clone, Copy, Debug, PartialEq, Default, bytemuck::Pod, bytemuck::Zeroable)]
pub struct Vertex {
    /// Position x, y, z.
    pub position: [f32; 3],
    /// Normal x, y, z.
    pub normal: [f32; 3],
    /// Texture coordinate u, v.
    pub uv: [f32; 2],
    /// Tangent x, y, z, w.
    pub tangent: [f32; 4],
}

impl Vertex {
    /// Encoded size.
    pub const SIZE: usize = 48;

    /// Decode from 48 little-endian bytes (any alignment).
    pub fn from_bytes(b: &[u8]) -> Result<Self, CafError> {
        check_len(AssetType::MESH, b, Self::SIZE)?;
        let mut f = [0f32; 12];
        for (i, c) in b.chunks_exact(4).enumerate() {
            f[i] = f32::from_le_bytes([c[0], c[1], c[2], c[3]]);
        }
        Ok(Vertex {
            position: [f[0], f[1], f[2]],
            normal: [f[3], f[4], f[5]],
            uv: [f[6], f[7]],
            tangent: [f[8], f[9], f[10], f[11]],
        })
    }

    /// Encode to 48 little-endian bytes.
    pub fn to_bytes(&self) -> [u8; Self::SIZE] {
        let mut b = [0u8; Self::SIZE];
        let all = self
            .position
            .iter()
            .chain(&self.normal)
            .chain(&self.uv)
            .chain(&self.tangent);
        for (c, v) in b.chunks_exact_mut(4).zip(all) {
            c.copy_from_slice(&v.to_le_bytes());
        }
        b
    }
}

const _: () = assert!(std::mem::size_of::<Vertex>() == Vertex::SIZE);

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn sizes_and_round_trips() {
        let t = TextureMetadata {
            width: 64,
            height: 32,
            format: 0,
            mip_levels: 7,
            reserved: 0,
        };
        assert_eq!(TextureMetadata::from_bytes(&t.to_bytes()).unwrap(), t);
        let a = AudioMetadata {
            sample_rate: 44100,
            channels: 2,
            bits_per_sample: 16,
            sample_count: 9,
            reserved: 0,
        };
        assert_eq!(AudioMetadata::from_bytes(&a.to_bytes()).unwrap(), a);
        let m = MeshMetadata {
            vertex_count: 3,
            index_count: 3,
            sub_mesh_count: 1,
            reserved: 0,
        };
        assert_eq!(MeshMetadata::from_bytes(&m.to_bytes()).unwrap(), m);
        let s = ShaderMetadata {
            stage: 2,
            reserved: 0,
        };
        assert_eq!(ShaderMetadata::from_bytes(&s.to_bytes()).unwrap(), s);
        let sc = SceneMetadata {
            entity_count: 5,
            archetype_count: 4,
            ..Default::default()
        };
        assert_eq!(SceneMetadata::from_bytes(&sc.to_bytes()).unwrap(), sc);
        let d = ArchetypeDesc {
            component_mask: 3,
            entity_count: 2,
            data_offset: 40,
        };
        assert_eq!(ArchetypeDesc::from_bytes(&d.to_bytes()).unwrap(), d);
        let v = Vertex {
            position: [1.0, 2.0, 3.0],
            tangent: [1.0, 0.0, 0.0, 1.0],
            ..Default::default()
        };
        assert_eq!(Vertex::from_bytes(&v.to_bytes()).unwrap(), v);
        assert_eq!(&v.to_bytes()[..], bytemuck::bytes_of(&v));
        assert!(matches!(
            TextureMetadata::from_bytes(&[0; 8]),
            Err(CafError::MetadataSize {
                expected: 24,
                actual: 8,
                ..
            })
        ));
        assert!(AudioMetadata::from_bytes(&[0; 17]).is_err());
    }
}
