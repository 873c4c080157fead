//! Any `.caf` file as one asset: [`CafAsset`] says what it holds, and its parts are labeled
//! assets: a texture's `image`; a mesh's `mesh`, its sub-meshes `part/N` (when it has
//! several) and its skin's inverse bind matrices `skin`; an animation's clips `clip/N`.
//! Other asset types (audio, shaders, fonts, scenes) load with their type and no parts.
//!
//! Bevy sends every load of a labeled path (`two.caf#part/1`) and every untyped load to the
//! `caf` extension's last loader, [`CafLoader`]; typed loads of a whole file
//! (`load::<Image>("hero.caf")`) go to the typed loaders of [`crate::caf`].

use bevy::asset::io::Reader;
use bevy::asset::{Asset, AssetLoader, Handle, LoadContext};
use bevy::image::Image;
use bevy::mesh::skinning::SkinnedMeshInverseBindposes;
use bevy::mesh::Mesh;
use bevy::reflect::TypePath;
use caf::mesh::MeshView;
use caf::texture::TextureView;
use caf::{AssetType, LoadedAsset};

use crate::caf::{mesh_extras, mesh_of, plain_any, read_all, texture_image, CafLoadError};

/// A `.caf` file: its type and the handles of its parts (each also a labeled asset).
#[derive(Asset, TypePath, Debug)]
pub struct CafAsset {
    /// The asset type of the file.
    pub asset_type: AssetType,
    /// A texture's image (`#image`).
    pub image: Option<Handle<Image>>,
    /// A mesh's whole mesh (`#mesh`).
    pub mesh: Option<Handle<Mesh>>,
    /// A mesh's sub-meshes (`#part/N`), when it has more than one.
    pub parts: Vec<Handle<Mesh>>,
    /// A skinned mesh's inverse bind matrices (`#skin`).
    pub skin: Option<Handle<SkinnedMeshInverseBindposes>>,
    /// An animation's clips (`#clip/N`).
    #[cfg(feature = "animation")]
    pub clips: Vec<Handle<bevy::animation::AnimationClip>>,
}

/// The loader of [`CafAsset`]s (and of every labeled `.caf` path).
#[derive(TypePath, Default)]
pub struct CafLoader;

impl AssetLoader for CafLoader {
    type Asset = CafAsset;
    type Settings = ();
    type Error = CafLoadError;

    async fn load(
        &self,
        reader: &mut dyn Reader,
        _: &(),
        ctx: &mut LoadContext<'_>,
    ) -> Result<CafAsset, CafLoadError> {
        let loaded: LoadedAsset = plain_any(read_all(reader).await?)?;
        let asset_type = loaded.header().asset_type;
        let mut out = CafAsset {
            asset_type,
            image: None,
            mesh: None,
            parts: Vec::new(),
            skin: None,
            #[cfg(feature = "animation")]
            clips: Vec::new(),
        };
        if asset_type == AssetType::TEXTURE {
            let view = TextureView::from_asset(&loaded.asset())?;
            out.image = Some(ctx.add_labeled_asset("image", texture_image(&view)?));
        } else if asset_type == AssetType::MESH {
            let view = MeshView::from_asset(&loaded.asset())?;
            let (parts, skin) = mesh_extras(&view);
            out.mesh = Some(ctx.add_labeled_asset("mesh", mesh_of(&view, &view.indices)));
            for (i, p) in parts.into_iter().enumerate() {
                out.parts
                    .push(ctx.add_labeled_asset(format!("part/{i}"), p));
            }
            out.skin = skin.map(|s| ctx.add_labeled_asset("skin", s));
        } else if asset_type == AssetType::ANIMATION {
            #[cfg(feature = "animation")]
            {
                let view = caf::animation::AnimationView::from_asset(&loaded.asset())?;
                for i in 0..view.clip_count() {
                    let clip = crate::animation::clip_of(&view, i);
                    out.clips
                        .push(ctx.add_labeled_asset(format!("clip/{i}"), clip));
                }
            }
        }
        Ok(out)
    }

    fn extensions(&self) -> &[&str] {
        &["caf"]
    }
}
