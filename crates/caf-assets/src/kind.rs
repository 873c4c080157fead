//! Typed requests: marker types naming what a handle expects a file to contain.

use std::borrow::Cow;
use std::fmt;
use std::ops::Range;

use caf::audio::{AudioMetadata, AudioView};
use caf::font::{FontTables, FontView};
use caf::mesh::{MeshMetadata, MeshView, Vertex};
use caf::shader::{ShaderMetadata, ShaderView};
use caf::texture::{TextureMetadata, TextureView};
use caf::{Asset, AssetType, CafError, LoadedAsset};

/// Defines the kinds, one entry each: the [`Kind`] variant and its name and header type, the
/// marker type, and its [`AssetKind`] implementation (layout type, view type, the check and
/// the view). Adding a kind is adding an entry.
macro_rules! kinds {
    ($(
        $(#[$marker_doc:meta])*
        $marker:ident: $name:literal, $asset_type:expr, #[doc = $kind_doc:literal] {
            type Layout = $layout:ty;
            type View<$a:lifetime> = $view:ty;
            fn layout($check_asset:ident) $check:block
            fn view($view_asset:ident, $view_layout:pat_param) $build:block
        }
    )*) => {
        /// The kinds of request a handle can make. Entries are keyed by path *and* kind.
        #[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, PartialOrd, Ord)]
        pub enum Kind {
            $(#[doc = $kind_doc] $marker,)*
        }

        impl Kind {
            /// Every kind, in declaration order.
            pub const ALL: [Kind; [$(Kind::$marker),*].len()] = [$(Kind::$marker),*];

            /// The header type a file must have to satisfy this kind; `None` for [`Kind::Raw`].
            pub fn asset_type(self) -> Option<AssetType> {
                match self {
                    $(Kind::$marker => $asset_type,)*
                }
            }

            /// Lower-case name (`"texture"`, ..., `"raw"`).
            pub fn name(self) -> &'static str {
                match self {
                    $(Kind::$marker => $name,)*
                }
            }
        }

        $(
            $(#[$marker_doc])*
            #[derive(Debug)]
            pub enum $marker {}

            impl sealed::Sealed for $marker {}

            impl AssetKind for $marker {
                const KIND: Kind = Kind::$marker;
                type Layout = $layout;
                type View<$a> = $view;
                fn layout($check_asset: &LoadedAsset) -> Result<$layout, CafError> $check
                fn view<$a>($view_asset: &$a LoadedAsset, $view_layout: &$a $layout) -> $view $build
            }
        )*
    };
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
/// another type is a [`AssetError::WrongType`](crate::AssetError::WrongType) failure.
/// [`AssetKind::view`] then only re-slices the buffer with that layout: no check runs on
/// access.
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

kinds! {
    /// Requests a texture ([`TextureRef`]).
    Texture: "texture", Some(AssetType::TEXTURE),
    #[doc = "A [`Texture`] request (header type 1)."] {
        type Layout = TextureLayout;
        type View<'a> = TextureRef<'a>;
        fn layout(asset) {
            TextureLayout::new(asset)
        }
        fn view(asset, layout) {
            TextureRef {
                meta: layout.meta,
                channels: layout.channels,
                srgb: layout.srgb,
                payload: asset.payload(),
                levels: &layout.levels,
            }
        }
    }

    /// Requests audio ([`caf::audio::AudioView`]).
    Audio: "audio", Some(AssetType::AUDIO),
    #[doc = "An [`Audio`] request (header type 2)."] {
        type Layout = AudioMetadata;
        type View<'a> = AudioView<'a>;
        fn layout(asset) {
            AudioView::from_asset(&asset.asset()).map(|v| v.meta)
        }
        fn view(asset, meta) {
            // `from_asset` checked that the payload is exactly the samples the metadata implies.
            AudioView {
                meta: *meta,
                data: asset.payload(),
            }
        }
    }

    /// Requests a mesh ([`caf::mesh::MeshView`]).
    Mesh: "mesh", Some(AssetType::MESH),
    #[doc = "A [`Mesh`] request (header type 3)."] {
        type Layout = MeshLayout;
        type View<'a> = MeshView<'a>;
        fn layout(asset) {
            MeshLayout::new(asset)
        }
        fn view(asset, layout) {
            layout.view(asset.payload())
        }
    }

    /// Requests a shader ([`caf::shader::ShaderView`]).
    Shader: "shader", Some(AssetType::SHADER),
    #[doc = "A [`Shader`] request (header type 6)."] {
        type Layout = ShaderMetadata;
        type View<'a> = ShaderView<'a>;
        fn layout(asset) {
            ShaderView::from_asset(&asset.asset()).map(|v| v.meta)
        }
        fn view(asset, meta) {
            ShaderView {
                meta: *meta,
                bytecode: asset.payload(),
            }
        }
    }

    /// Requests a font ([`caf::font::FontView`]: glyphs, kerning, atlas).
    Font: "font", Some(AssetType::FONT),
    #[doc = "A [`Font`] request (header type 8)."] {
        type Layout = FontTables;
        type View<'a> = FontView<'a>;
        fn layout(asset) {
            FontTables::from_asset(&asset.asset())
        }
        fn view(asset, tables) {
            FontView::from_tables(tables, asset.payload())
        }
    }

    /// Requests any file as an untyped [`caf::Asset`] (header, metadata and payload slices).
    Raw: "raw", None,
    #[doc = "A [`Raw`] request: any header type, untyped access."] {
        type Layout = ();
        type View<'a> = Asset<'a>;
        fn layout(_asset) {
            Ok(())
        }
        fn view(asset, _) {
            asset.asset()
        }
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
