//! Distant views: a root with a [`VoxDistantView`] draws far regions from levels of detail,
//! follows its viewer, and shows an edit in the coarse region that covers it.

use std::time::Duration;

use bevy::app::App;
use bevy::asset::{Assets, Handle};
use bevy::math::Vec3;
use bevy::mesh::{Mesh, Mesh3d, VertexAttributeValues};
use bevy::prelude::{Entity, GlobalTransform, Transform};
use bevy_voxcaf::{
    headless_app, load_now, spawn_distant_view, DistantRegions, SpawnedChunks, VoxChunkPart,
    VoxDistantView, VoxRegionPart, VoxWorld, VoxWorldRoot, VwrLoaderSettings,
};
use vwr::{Block, World};

/// 320 × 30 × 320 blocks of hills (32 × 3 × 32 chunks), saved as `hills.vwr` in `dir`.
fn hills(dir: &std::path::Path) {
    let mut w = World::with_chunk_dims([32, 3, 32]).unwrap();
    let (stone, grass) = (Block::make(3, 0).unwrap(), Block::make(1, 0).unwrap());
    for z in 0..320i32 {
        for x in 0..320i32 {
            let (fx, fz) = (x as f32, z as f32);
            let h = 10.0 + 5.0 * (fx / 13.0).sin() * (fz / 17.0).cos() + 3.0 * (fx / 7.0).cos();
            let h = h as i32;
            w.fill_box([x, 0, z], [x, h - 1, z], stone).unwrap();
            w.set_block([x, h, z], grass).unwrap();
        }
    }
    w.save_with(
        dir.join("hills.vwr"),
        &vwr::SaveOptions::v3(vwr::Codec::Auto),
    )
    .unwrap();
}

/// An app with the hills loaded, a viewer at `at` and a root drawing them from it (cells up
/// to 20 pixels, so that levels 1 and 2 start within the world: beyond 122 and 244 blocks).
fn setup(dir: &std::path::Path, at: Vec3) -> (App, Handle<VoxWorld>, Entity, Entity) {
    hills(dir);
    viewed(dir, at)
}

/// [`setup`] of the world already in `dir`.
fn viewed(dir: &std::path::Path, at: Vec3) -> (App, Handle<VoxWorld>, Entity, Entity) {
    let mut app = headless_app(dir);
    let h = load_now::<VoxWorld>(&mut app, "hills.vwr", Duration::from_secs(60)).unwrap();
    let (viewer, root) = spawn_distant_view(&mut app, h.clone(), at, |viewer| VoxDistantView {
        max_cell_px: 20.0,
        ..VoxDistantView::new(viewer)
    });
    app.update();
    app.update();
    (app, h, viewer, root)
}

fn positions<'a>(meshes: &'a Assets<Mesh>, h: &Handle<Mesh>) -> &'a [[f32; 3]] {
    match meshes
        .get(h)
        .and_then(|m| m.attribute(Mesh::ATTRIBUTE_POSITION))
    {
        Some(VertexAttributeValues::Float32x3(p)) => p,
        _ => panic!("a mesh without positions"),
    }
}

fn triangles(meshes: &Assets<Mesh>, h: &Handle<Mesh>) -> usize {
    meshes
        .get(h)
        .and_then(|m| m.indices())
        .map_or(0, |i| i.len() / 3)
}

/// The spawned region passes, each with its mesh handle.
fn parts(app: &mut App) -> Vec<(VoxRegionPart, Handle<Mesh>)> {
    let mut q = app.world_mut().query::<(&VoxRegionPart, &Mesh3d)>();
    q.iter(app.world())
        .map(|(p, m)| (*p, m.0.clone()))
        .collect()
}

fn regions(app: &App, root: Entity) -> &DistantRegions {
    app.world().get::<DistantRegions>(root).unwrap()
}

/// The entity of the opaque pass of the region of level 2 or more that covers block column
/// (x, z) (one region in height).
fn part_over(app: &mut App, x: u32, z: u32) -> Entity {
    let mut q = app.world_mut().query::<(Entity, &VoxRegionPart)>();
    let over: Vec<Entity> = q
        .iter(app.world())
        .filter(|(_, p)| !p.transparent && p.level >= 2)
        .filter(|(_, p)| p.chunk[0] == x / (10 << p.level) && p.chunk[2] == z / (10 << p.level))
        .map(|(e, _)| e)
        .collect();
    assert_eq!(over.len(), 1, "{over:?}");
    over[0]
}

/// The highest vertex of the opaque pass of the region that covers block column (x, z).
fn top_over(app: &mut App, x: u32, z: u32) -> (u8, f32) {
    let list = parts(app);
    let meshes = app.world().resource::<Assets<Mesh>>();
    let mut best = (0, f32::MIN);
    for (p, h) in list.iter().filter(|(p, _)| !p.transparent) {
        let side = 10u32 << p.level;
        if p.chunk[0] == x / side && p.chunk[2] == z / side {
            for v in positions(meshes, h) {
                best = (p.level, best.1.max(v[1]));
            }
        }
    }
    best
}

#[test]
fn far_regions_are_drawn_from_levels_of_detail_and_follow_the_viewer() {
    let dir = tempfile::tempdir().unwrap();
    let (mut app, h, viewer, root) = setup(dir.path(), Vec3::new(-20.0, 40.0, 160.0));
    let state = regions(&app, root);
    assert_eq!(state.error(), None);
    let counts = state.level_counts();
    assert!(
        counts.len() == 4 && counts[..3].iter().all(|&n| n > 0),
        "{counts:?}"
    );
    // The regions cover every non-empty chunk exactly once, and the empty top layer of
    // chunks (the hills stay below 20 blocks) lies in no region.
    let world = app.world().resource::<Assets<VoxWorld>>().get(&h).unwrap();
    let dims = world.world().chunk_dims();
    let covering = |p: [u32; 3]| {
        let inside = |c: &&vwr_mesh::lod::ViewChunk| {
            let (lo, hi) = c.block_box(dims);
            (0..3).all(|a| (lo[a]..hi[a]).contains(&(p[a] * 10)))
        };
        state.regions().iter().filter(inside).count()
    };
    let mut non_empty = 0;
    for (p, c) in world.world().chunks() {
        let want = usize::from(!c.is_empty());
        assert_eq!(covering(p), want, "chunk {p:?}");
        non_empty += want;
    }
    assert!(non_empty > 0 && covering([5, 2, 5]) == 0);
    // Only region children: the chunk children give way.
    assert!(app.world().get::<SpawnedChunks>(root).unwrap().is_empty());
    let mut chunk_parts = app.world_mut().query::<&VoxChunkPart>();
    assert_eq!(chunk_parts.iter(app.world()).count(), 0);

    // Each region draws inside its box (a coarse cell on the world's far side may reach
    // 2^level − 1 blocks past it), and the view draws far fewer triangles than the blocks.
    let list = parts(&mut app);
    assert_eq!(list.len(), regions(&app, root).len());
    let meshes = app.world().resource::<Assets<Mesh>>();
    let mut drawn = 0;
    for (p, m) in &list {
        let side = (10u32 << p.level) as f32;
        let lo = Vec3::from_array(p.chunk.map(|c| c as f32 * side));
        let slack = (1u32 << p.level) as f32;
        for v in positions(meshes, m) {
            let d = Vec3::from_array(*v) - lo;
            assert!(
                d.min_element() >= -1e-3 && d.max_element() <= side + slack,
                "{p:?}: {d}"
            );
        }
        drawn += triangles(meshes, m);
    }
    let vw = app.world().resource::<Assets<VoxWorld>>().get(&h).unwrap();
    let all: usize = vw
        .chunks
        .iter()
        .filter_map(|c| c.opaque.as_ref())
        .map(|m| triangles(meshes, m))
        .sum();
    println!("regions per level {counts:?}: {drawn} triangles drawn against {all}");
    assert!(drawn * 2 < all, "{drawn} triangles drawn against {all}");

    // Near the viewer blocks, far from it a coarse level; the other way round once the
    // viewer has crossed the world.
    assert_eq!(top_over(&mut app, 5, 160).0, 0);
    assert!(top_over(&mut app, 315, 160).0 >= 2);
    let far = Vec3::new(340.0, 40.0, 160.0);
    app.world_mut().entity_mut(viewer).insert((
        Transform::from_translation(far),
        GlobalTransform::from_translation(far),
    ));
    app.update();
    assert_eq!(top_over(&mut app, 315, 160).0, 0);
    assert!(top_over(&mut app, 5, 160).0 >= 2);
    assert_eq!(parts(&mut app).len(), regions(&app, root).len());
}

#[test]
fn an_edit_far_away_shows_in_the_coarse_region_over_it() {
    let dir = tempfile::tempdir().unwrap();
    let (mut app, h, _, root) = setup(dir.path(), Vec3::new(-20.0, 40.0, 160.0));
    let (level, before) = top_over(&mut app, 301, 161);
    assert!(level >= 2 && before < 27.0, "level {level}, top {before}");
    let entity = part_over(&mut app, 301, 161);
    // A pillar up to the world's top, 300 blocks from the viewer.
    let stone = Block::make(3, 0).unwrap();
    let mut worlds = app.world_mut().resource_mut::<Assets<VoxWorld>>();
    worlds
        .get_mut(&h)
        .unwrap()
        .edit(|w| w.fill_box([301, 0, 161], [301, 29, 161], stone).unwrap());
    app.update();
    let (level, after) = top_over(&mut app, 301, 161);
    assert!(level >= 2 && after >= 30.0, "level {level}, top {after}");
    // The region's part was given its new mesh in place: the same entity.
    assert_eq!(part_over(&mut app, 301, 161), entity);
    assert_eq!(regions(&app, root).error(), None);
    // The column dug out instead: the pillar is gone from the coarse region.
    let mut worlds = app.world_mut().resource_mut::<Assets<VoxWorld>>();
    worlds.get_mut(&h).unwrap().edit(|w| {
        w.fill_box([301, 0, 161], [301, 29, 161], Block::AIR)
            .unwrap()
    });
    app.update();
    assert!(top_over(&mut app, 301, 161).1 < 27.0);
}

#[test]
fn removing_the_view_brings_the_chunk_children_back() {
    let dir = tempfile::tempdir().unwrap();
    let (mut app, h, _, root) = setup(dir.path(), Vec3::new(-20.0, 40.0, 160.0));
    assert!(!parts(&mut app).is_empty());
    app.world_mut().entity_mut(root).remove::<VoxDistantView>();
    app.update();
    assert!(parts(&mut app).is_empty());
    assert!(regions(&app, root).is_empty());
    let vw = app.world().resource::<Assets<VoxWorld>>().get(&h).unwrap();
    let passes = vw
        .chunks
        .iter()
        .map(|c| c.opaque.is_some() as usize + c.transparent.is_some() as usize)
        .sum::<usize>();
    assert_eq!(
        app.world().get::<SpawnedChunks>(root).unwrap().len(),
        passes
    );
    // And a despawned root takes its regions with it.
    let (mut app, _, _, root) = viewed(dir.path(), Vec3::new(-20.0, 40.0, 160.0));
    app.world_mut().entity_mut(root).despawn();
    app.update();
    assert!(parts(&mut app).is_empty());
}

#[test]
fn a_view_without_its_viewer_draws_nothing_and_says_nothing_is_wrong() {
    let dir = tempfile::tempdir().unwrap();
    hills(dir.path());
    let mut app = headless_app(dir.path());
    let h = load_now::<VoxWorld>(&mut app, "hills.vwr", Duration::from_secs(60)).unwrap();
    let root = app
        .world_mut()
        .spawn((VoxWorldRoot(h), VoxDistantView::new(Entity::PLACEHOLDER)))
        .id();
    app.update();
    app.update();
    let state = regions(&app, root);
    assert!(state.is_empty() && state.regions().is_empty());
    assert_eq!(state.error(), None);
}

/// The region passes drawn, with their triangle counts, in a fixed order.
fn drawn(app: &mut App) -> Vec<(VoxRegionPart, usize)> {
    let list = parts(app);
    let meshes = app.world().resource::<Assets<Mesh>>();
    let mut v: Vec<_> = list
        .iter()
        .map(|(p, h)| (*p, triangles(meshes, h)))
        .collect();
    v.sort_by_key(|(p, _)| (p.level, p.chunk, p.transparent));
    v
}

#[test]
fn a_world_loaded_without_chunk_meshes_is_drawn_alike_meshing_only_what_the_view_shows() {
    let at = Vec3::new(-20.0, 40.0, 160.0);
    let dir = tempfile::tempdir().unwrap();
    let (mut app, _, _, _) = setup(dir.path(), at);
    let meta = VwrLoaderSettings {
        chunk_meshes: false,
        ..VwrLoaderSettings::default()
    }
    .meta_file();
    std::fs::write(dir.path().join("hills.vwr.meta"), meta).unwrap();
    let (mut lazy, h, _, root) = viewed(dir.path(), at);
    let vw = lazy.world().resource::<Assets<VoxWorld>>().get(&h).unwrap();
    assert!(vw.chunks.is_empty() && !vw.settings.chunk_meshes);
    let expected = drawn(&mut app);
    assert_eq!(drawn(&mut lazy), expected);
    // Only the drawn regions were meshed: a mesh asset per pass drawn, where the world
    // loaded with its chunk meshes holds every chunk's besides.
    let count = |app: &App| app.world().resource::<Assets<Mesh>>().len();
    assert_eq!(count(&lazy), regions(&lazy, root).len());
    assert!(
        count(&lazy) * 2 < count(&app),
        "{} {}",
        count(&lazy),
        count(&app)
    );

    // An edit next to the viewer shows in the level-0 region over it; no chunk mesh is made.
    let before = top_over(&mut lazy, 5, 160);
    let mut worlds = lazy.world_mut().resource_mut::<Assets<VoxWorld>>();
    worlds.get_mut(&h).unwrap().edit(|w| {
        w.fill_box([5, 0, 160], [5, 29, 160], Block::make(3, 0).unwrap())
            .unwrap()
    });
    lazy.update();
    let after = top_over(&mut lazy, 5, 160);
    assert_eq!((before.0, after.0), (0, 0));
    assert!(before.1 < 27.0 && after.1 == 30.0, "{before:?} {after:?}");
    let vw = lazy.world().resource::<Assets<VoxWorld>>().get(&h).unwrap();
    assert!(vw.chunks.is_empty());
}
