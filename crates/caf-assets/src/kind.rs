//! Typed requests: marker types naming what a handle expects a file to contain.

use std::fmt;

use caf::{Asset, AssetType, AudioView, CafError, LoadedAsset, MeshView, ShaderView, TextureView};

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
    /// A [`Raw`] request: any header type, untyped access.
    Raw,
}

impl Kind {
    /// Every kind, in declaration order.
    pub const ALL: [Kind; 5] = [
        Kind::Texture,
        Kind::Audio,
        Kind::Mesh,
        Kind::Shader,
        Kind::Raw,
    ];

    /// The header type a file must have to satisfy this kind; `None` for [`Kind::Raw`].
    pub fn asset_type(self) -> Option<AssetType> {
        match self {
            Kind::Texture => Some(AssetType::TEXTURE),
            Kind::Audio => Some(AssetType::AUDIO),
            Kind::Mesh => Some(AssetType::MESH),
            Kind::Shader => Some(AssetType::SHADER),
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
            Kind::Raw => "raw",
        }
    }
}

impl fmt::Display for Kind {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(self.name())
    }
}

/// A marker type for typed requests: `manager.load::<Texture>("hero.caf")`.
///
/// A kind names the header type it accepts and the `caf` typed view it hands out. The manager
/// checks both on the worker thread when the file loads, so a loaded entry always has a valid
/// view and a file of another type is a [`AssetError::WrongType`] failure.
pub trait AssetKind: Send + Sync + 'static {
    /// Which kind this is.
    const KIND: Kind;
    /// The borrowed view handed out by [`AssetGuard::view`](crate::AssetGuard::view).
    type View<'a>;
    /// Builds the typed view over a loaded file (the header type has already been checked).
    fn view(asset: &LoadedAsset) -> Result<Self::View<'_>, CafError>;
}

/// Requests a texture ([`caf::TextureView`]).
#[derive(Debug)]
pub enum Texture {}
/// Requests audio ([`caf::AudioView`]).
#[derive(Debug)]
pub enum Audio {}
/// Requests a mesh ([`caf::MeshView`]).
#[derive(Debug)]
pub enum Mesh {}
/// Requests a shader ([`caf::ShaderView`]).
#[derive(Debug)]
pub enum Shader {}
/// Requests any file as an untyped [`caf::Asset`] (header, metadata and payload slices).
#[derive(Debug)]
pub enum Raw {}

impl AssetKind for Texture {
    const KIND: Kind = Kind::Texture;
    type View<'a> = TextureView<'a>;
    fn view(asset: &LoadedAsset) -> Result<TextureView<'_>, CafError> {
        TextureView::from_asset(&asset.asset())
    }
}

impl AssetKind for Audio {
    const KIND: Kind = Kind::Audio;
    type View<'a> = AudioView<'a>;
    fn view(asset: &LoadedAsset) -> Result<AudioView<'_>, CafError> {
        AudioView::from_asset(&asset.asset())
    }
}

impl AssetKind for Mesh {
    const KIND: Kind = Kind::Mesh;
    type View<'a> = MeshView<'a>;
    fn view(asset: &LoadedAsset) -> Result<MeshView<'_>, CafError> {
        MeshView::from_asset(&asset.asset())
    }
}

impl AssetKind for Shader {
    const KIND: Kind = Kind::Shader;
    type View<'a> = ShaderView<'a>;
    fn view(asset: &LoadedAsset) -> Result<ShaderView<'_>, CafError> {
        ShaderView::from_asset(&asset.asset())
    }
}

impl AssetKind for Raw {
    const KIND: Kind = Kind::Raw;
    type View<'a> = Asset<'a>;
    fn view(asset: &LoadedAsset) -> Result<Asset<'_>, CafError> {
        Ok(asset.asset())
    }
}

/// The check run on the worker thread for a request of kind `T`: header type, then the typed
/// view. Stored in each entry as a function pointer so entries need no type parameter.
pub(crate) fn validate<T: AssetKind>(
    path: &AssetPath,
    asset: &LoadedAsset,
) -> Result<(), AssetError> {
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
    T::view(asset)
        .map(|_| ())
        .map_err(|source| AssetError::BadContent {
            path: path.clone(),
            kind: T::KIND,
            source,
        })
}

pub(crate) type Validator = fn(&AssetPath, &LoadedAsset) -> Result<(), AssetError>;
