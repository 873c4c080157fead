//! Typed requests: marker types naming what a handle expects a file to contain.

use std::any::Any;
use std::borrow::Cow;
use std::fmt;
use std::ops::Range;
use std::sync::Arc;

use caf::audio::{AudioMetadata, AudioView};
use caf::font::{FontTables, FontView};
use caf::mesh::{MeshMetadata, MeshView, Vertex};
use caf::shader::{ShaderMetadata, ShaderView};
use caf::texture::{TextureMetadata, TextureView};
use caf::{Asset, AssetType, CafError, LoadedAsset};

use crate::error::AssetError;
use crate::path::AssetPath;

/// The kinds of request a handle can make. Entries are keyed by path *and* kind.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub enum Kind {
    /// A [`Texture`] request (header type 1).
    Texture,
    /// An [`Audio`] request (header type 2).
    Audio,
    /// A [`Mesh`] request (header type 3).
    Mesh,
    /// A [`Shader`] request (header type 6).
    Shader,
    /// A [`Font`] request (header type 8).
    Font,
    /// A [`Raw`] request: any header type, untyped access.
    Raw,
}

impl Kind {
    /// Every kind, in declaration order.
    pub const ALL: [Kind; 6] = [
        Kind::Texture,
        Kind::Audio,
        Kind::Mesh,
        Kind::Shader,
        Kind::Font,
        Kind::Raw,
    ];

    /// The header type a file must have to satisfy this kind; `None` for [`Kind::Raw`].
    pub fn asset_type(self) -> Option<AssetType> {
        match self {
            Kind::Texture => Some(AssetType::TEXTURE),
            Kind::Audio => Some(AssetType::AUDIO),
            Kind::Mesh => Some(AssetType::MESH),
            Kind::Shader => Some(AssetType::SHADER),
            Kind::Font => Some(AssetType::FONT),
            Kind::Raw => None,
        }
    }

    /// Lower-case name (`"texture"`, ..., `"raw"`).
    pub fn name(self) -> &'static str {
        match self {
            Kind::Texture => "texture",
            Kind::Audio => "audio",
            Kind::Mesh => "mesh",
            Kind::Shader => "shader",
            Kind::Font => "font",
            Kind::Raw => "raw",
        }
    }
}

impl fmt::Display for Kind {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(self.name())
    }
}

mod sealed {
    /// Keeps [`AssetKind`](super::AssetKind) closed: each [`Kind`](super::Kind) has exactly
    /// one marker type, so the layout an entry stores always has the type its handles expect.
    pub trait Sealed {}
}

/// A marker type for typed requests: `manager.load::<Texture>("hero.caf")`.
///
/// A kind names the header type it accepts, the [`Layout`](AssetKind::Layout) its check keeps
/// and the typed view it hands out. The manager runs the check ([`AssetKind::layout`]) once
/// per load, on the worker thread, so a loaded entry always has a valid layout and a file of
/// another type is a [`AssetError::WrongType`] failure. [`AssetKind::view`] then only
/// re-slices the buffer with that layout: no check runs on access.
///
/// The trait is sealed; the kinds are [`Texture`], [`Audio`], [`Mesh`], [`Shader`], [`Font`]
/// and [`Raw`].
pub trait AssetKind: sealed::Sealed + Send + Sync + 'static {
    /// Which kind this is.
    const KIND: Kind;
    /// What the check keeps of a file: owned, so it can live next to the buffer.
    type Layout: Send + Sync + 'static;
    /// The borrowed view handed out by [`AssetGuard::view`](crate::AssetGuard::view).
    type View<'a>;
    /// Checks a loaded file (the header type has already been checked) and keeps what the
    /// view needs. Runs once per load or reload.
    fn layout(asset: &LoadedAsset) -> Result<Self::Layout, CafError>;
    /// The view over `asset`, built from the layout [`layout`](AssetKind::layout) returned
    /// for these same bytes. Checks nothing.
    fn view<'a>(asset: &'a LoadedAsset, layout: &'a Self::Layout) -> Self::View<'a>;
}

/// Requests a texture ([`TextureRef`]).
#[derive(Debug)]
pub enum Texture {}
/// Requests audio ([`caf::audio::AudioView`]).
#[derive(Debug)]
pub enum Audio {}
/// Requests a mesh ([`caf::mesh::MeshView`]).
#[derive(Debug)]
pub enum Mesh {}
/// Requests a shader ([`caf::shader::ShaderView`]).
#[derive(Debug)]
pub enum Shader {}
/// Requests a font ([`caf::font::FontView`]: glyphs, kerning, atlas).
#[derive(Debug)]
pub enum Font {}
/// Requests any file as an untyped [`caf::Asset`] (header, metadata and payload slices).
#[derive(Debug)]
pub enum Raw {}

impl sealed::Sealed for Texture {}
impl sealed::Sealed for Audio {}
impl sealed::Sealed for Mesh {}
impl sealed::Sealed for Shader {}
impl sealed::Sealed for Font {}
impl sealed::Sealed for Raw {}

impl AssetKind for Texture {
    const KIND: Kind = Kind::Texture;
    type Layout = TextureLayout;
    type View<'a> = TextureRef<'a>;
    fn layout(asset: &LoadedAsset) -> Result<TextureLayout, CafError> {
        TextureLayout::new(asset)
    }
    fn view<'a>(asset: &'a LoadedAsset, layout: &'a TextureLayout) -> TextureRef<'a> {
        TextureRef {
            meta: layout.meta,
            channels: layout.channels,
            srgb: layout.srgb,
            payload: asset.payload(),
            levels: &layout.levels,
        }
    }
}

impl AssetKind for Audio {
    const KIND: Kind = Kind::Audio;
    type Layout = AudioMetadata;
    type View<'a> = AudioView<'a>;
    fn layout(asset: &LoadedAsset) -> Result<AudioMetadata, CafError> {
        AudioView::from_asset(&asset.asset()).map(|v| v.meta)
    }
    fn view<'a>(asset: &'a LoadedAsset, meta: &'a AudioMetadata) -> AudioView<'a> {
        // `from_asset` checked that the payload is exactly the samples the metadata implies.
        AudioView {
            meta: *meta,
            data: asset.payload(),
        }
    }
}

impl AssetKind for Mesh {
    const KIND: Kind = Kind::Mesh;
    type Layout = MeshLayout;
    type View<'a> = MeshView<'a>;
    fn layout(asset: &LoadedAsset) -> Result<MeshLayout, CafError> {
        MeshLayout::new(asset)
    }
    fn view<'a>(asset: &'a LoadedAsset, layout: &'a MeshLayout) -> MeshView<'a> {
        layout.view(asset.payload())
    }
}

impl AssetKind for Shader {
    const KIND: Kind = Kind::Shader;
    type Layout = ShaderMetadata;
    type View<'a> = ShaderView<'a>;
    fn layout(asset: &LoadedAsset) -> Result<ShaderMetadata, CafError> {
        ShaderView::from_asset(&asset.asset()).map(|v| v.meta)
    }
    fn view<'a>(asset: &'a LoadedAsset, meta: &'a ShaderMetadata) -> ShaderView<'a> {
        ShaderView {
            meta: *meta,
            bytecode: asset.payload(),
        }
    }
}

impl AssetKind for Font {
    const KIND: Kind = Kind::Font;
    type Layout = FontTables;
    type View<'a> = FontView<'a>;
    fn layout(asset: &LoadedAsset) -> Result<FontTables, CafError> {
        FontTables::from_asset(&asset.asset())
    }
    fn view<'a>(asset: &'a LoadedAsset, tables: &'a FontTables) -> FontView<'a> {
        FontView::from_tables(tables, asset.payload())
    }
}

impl AssetKind for Raw {
    const KIND: Kind = Kind::Raw;
    type Layout = ();
    type View<'a> = Asset<'a>;
    fn layout(_: &LoadedAsset) -> Result<(), CafError> {
        Ok(())
    }
    fn view<'a>(asset: &'a LoadedAsset, _: &'a ()) -> Asset<'a> {
        asset.asset()
    }
}

/// What a texture's check keeps: the metadata and where each mip level lies in the payload.
#[derive(Clone, Debug)]
pub struct TextureLayout {
    meta: TextureMetadata,
    channels: u32,
    srgb: bool,
    /// Per level, largest first: width and height, and the byte range in the payload.
    levels: Vec<((u32, u32), Range<usize>)>,
}

impl TextureLayout {
    /// Runs `caf`'s texture check, which owns the mip-chain layout, and records the level
    /// ranges it found so that views can re-slice without running it again.
    fn new(asset: &LoadedAsset) -> Result<TextureLayout, CafError> {
        let view = TextureView::from_asset(&asset.asset())?;
        let base = asset.payload().as_ptr() as usize;
        let levels = (0..view.level_count())
            .filter_map(|i| Some((view.level_dims(i)?, view.level(i)?)))
            .map(|(dims, level)| {
                // Each level borrows from the payload, so its start is at or after `base`.
                let start = (level.as_ptr() as usize).saturating_sub(base);
                (dims, start..start + level.len())
            })
            .collect();
        Ok(TextureLayout {
            meta: view.meta,
            channels: view.channels,
            srgb: view.srgb,
            levels,
        })
    }
}

/// A texture: one slice per mip level, largest first. The same data as [`caf::texture::TextureView`],
/// built from the [`TextureLayout`] checked when the asset loaded.
#[derive(Clone, Copy, Debug)]
pub struct TextureRef<'a> {
    /// The metadata.
    pub meta: TextureMetadata,
    /// Bytes per pixel (1..=4), inferred from the payload size.
    pub channels: u32,
    /// Whether the SRGB flag is set.
    pub srgb: bool,
    payload: &'a [u8],
    levels: &'a [((u32, u32), Range<usize>)],
}

impl<'a> TextureRef<'a> {
    /// Level `i`, if stored.
    pub fn level(&self, i: usize) -> Option<&'a [u8]> {
        let (_, range) = self.levels.get(i)?;
        self.payload.get(range.clone())
    }

    /// All levels, largest first.
    pub fn levels(&self) -> impl Iterator<Item = &'a [u8]> + 'a {
        let payload = self.payload;
        self.levels
            .iter()
            .filter_map(move |(_, range)| payload.get(range.clone()))
    }

    /// Width and height of level `i`.
    pub fn level_dims(&self, i: usize) -> Option<(u32, u32)> {
        self.levels.get(i).map(|(dims, _)| *dims)
    }

    /// Number of stored levels.
    pub fn level_count(&self) -> usize {
        self.levels.len()
    }

    /// The whole payload (every level, back to back).
    pub fn payload(&self) -> &'a [u8] {
        self.payload
    }
}

/// What a mesh's check keeps: the metadata (with an extended mesh's sub-mesh table), where
/// each part of the payload starts and, when the payload could not be borrowed (unaligned or
/// big-endian), the decoded copy.
#[derive(Clone, Debug)]
pub struct MeshLayout {
    meta: MeshMetadata,
    ext: Option<caf::mesh::MeshExt>,
    vertex_bytes: usize,
    index_bytes: usize,
    color_bytes: usize,
    copied: Option<CopiedMesh>,
    /// JOINTS_0 and WEIGHTS_0 of a skinned mesh, kept as copies (joints are decoded from
    /// u16s anyway).
    skin_streams: Option<SkinStreamsCopy>,
}

/// JOINTS_0 and WEIGHTS_0 of a skinned mesh.
type SkinStreamsCopy = (Vec<[u16; 4]>, Vec<[f32; 4]>);

type CopiedMesh = (
    Vec<Vertex>,
    Vec<u32>,
    Option<Vec<[f32; 4]>>,
    Option<Vec<[f32; 2]>>,
);

impl MeshLayout {
    /// Runs `caf`'s mesh check (payload size, every index names a vertex) once.
    fn new(asset: &LoadedAsset) -> Result<MeshLayout, CafError> {
        let view = MeshView::from_asset(&asset.asset())?;
        let vertex_bytes = view.vertices.len() * Vertex::SIZE;
        let index_bytes = view.indices.len() * 4;
        let color_bytes = view.colors.as_ref().map_or(0, |c| c.len() * 16);
        let skin_streams = match (view.joints, view.weights) {
            (Some(j), Some(w)) => Some((j.into_owned(), w.into_owned())),
            _ => None,
        };
        let borrowed = matches!(view.vertices, Cow::Borrowed(_))
            && matches!(view.indices, Cow::Borrowed(_))
            && !matches!(view.colors, Some(Cow::Owned(_)))
            && !matches!(view.uv1, Some(Cow::Owned(_)));
        let copied = (!borrowed).then(|| {
            (
                view.vertices.into_owned(),
                view.indices.into_owned(),
                view.colors.map(Cow::into_owned),
                view.uv1.map(Cow::into_owned),
            )
        });
        Ok(MeshLayout {
            meta: view.meta,
            ext: view.ext,
            vertex_bytes,
            index_bytes,
            color_bytes,
            copied,
            skin_streams,
        })
    }

    fn view<'a>(&'a self, payload: &'a [u8]) -> MeshView<'a> {
        let has = |bit| {
            self.ext
                .as_ref()
                .is_some_and(|e| e.header.streams & bit != 0)
        };
        let (vertices, indices, colors, uv1) = match &self.copied {
            Some((v, i, c, u)) => (
                Cow::Borrowed(v.as_slice()),
                Cow::Borrowed(i.as_slice()),
                c.as_deref().map(Cow::Borrowed),
                u.as_deref().map(Cow::Borrowed),
            ),
            None => {
                let (vb, rest) = payload
                    .split_at_checked(self.vertex_bytes)
                    .unwrap_or((payload, &[]));
                let (ib, rest) = rest
                    .split_at_checked(self.index_bytes)
                    .unwrap_or((rest, &[]));
                let (cb, ub) = rest
                    .split_at_checked(self.color_bytes)
                    .unwrap_or((rest, &[]));
                (
                    caf::cast_or_copy(vb),
                    caf::cast_or_copy(ib),
                    has(caf::mesh::MeshExtHeader::COLOR0).then(|| caf::cast_or_copy(cb)),
                    has(caf::mesh::MeshExtHeader::UV1).then(|| caf::cast_or_copy(ub)),
                )
            }
        };
        MeshView {
            meta: self.meta,
            vertices,
            indices,
            ext: self.ext.clone(),
            colors,
            uv1,
            joints: self
                .skin_streams
                .as_ref()
                .map(|(j, _)| Cow::Borrowed(j.as_slice())),
            weights: self
                .skin_streams
                .as_ref()
                .map(|(_, w)| Cow::Borrowed(w.as_slice())),
        }
    }
}

/// A type-erased layout, as stored in an entry that has no type parameter.
pub(crate) type ErasedLayout = Arc<dyn Any + Send + Sync>;

/// The check run on the worker thread for a request of kind `T`: header type, then the typed
/// layout. Stored in each entry as a function pointer so entries need no type parameter.
pub(crate) fn validate<T: AssetKind>(
    path: &AssetPath,
    asset: &LoadedAsset,
) -> Result<ErasedLayout, AssetError> {
    let found = asset.header().asset_type;
    if let Some(expected) = T::KIND.asset_type() {
        if found != expected {
            return Err(AssetError::WrongType {
                path: path.clone(),
                expected: T::KIND,
                found,
            });
        }
    }
    match T::layout(asset) {
        Ok(layout) => Ok(Arc::new(layout)),
        Err(source) => Err(AssetError::BadContent {
            path: path.clone(),
            kind: T::KIND,
            source,
        }),
    }
}

pub(crate) type Validator = fn(&AssetPath, &LoadedAsset) -> Result<ErasedLayout, AssetError>;
