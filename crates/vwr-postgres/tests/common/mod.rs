//! Shared helpers of the vwr-postgres tests: a server per test, golden worlds, worlds moved in
//! and out of stores.
#![allow(dead_code)]

use std::path::{Path, PathBuf};

use voxcaf_pg_test::TestServer;
use vwr::{ChunkStore, Codec, FileStore, SessionOptions, StoreHead, StoredChunk, World};
use vwr_postgres::{import, ImportReport, PgLocation, PgStore};

/// A server, or `None` (the test returns: PostgreSQL is not installed).
pub fn server() -> Option<TestServer> {
    TestServer::start()
}

/// The location of world `name` on `srv`.
pub fn loc(srv: &TestServer, name: &str) -> PgLocation {
    PgLocation::parse(&srv.url(name)).unwrap()
}

/// Every golden `.vwr` file, sorted (empty when the golden data is missing).
pub fn golden_worlds() -> Vec<PathBuf> {
    let Some(dir) = voxcaf_golden::with_worlds() else {
        return Vec::new();
    };
    let mut out = Vec::new();
    for sub in ["worlds3d", "random", "edge"] {
        for e in std::fs::read_dir(dir.join("vwr").join(sub)).unwrap() {
            let p = e.unwrap().path();
            if p.extension().is_some_and(|x| x == "vwr") {
                out.push(p);
            }
        }
    }
    out.sort();
    out
}

/// The header of `world` as a store would keep it.
pub fn head_of(world: &World) -> StoreHead {
    StoreHead {
        chunk_dims: world.chunk_dims(),
        fields: world.fields(),
        head: 0,
        fields_version: 0,
        format_version: 3,
    }
}

/// Imports `world` as `loc` in batches of 512.
pub fn import_world(loc: &PgLocation, world: &World) -> ImportReport {
    let rows: Vec<([u32; 3], StoredChunk)> = world
        .non_empty_chunks()
        .filter_map(|(p, c)| Some((p, StoredChunk::encode(c, Codec::Auto, 3)?)))
        .collect();
    let mut batches = rows.chunks(512).map(|b| Ok(b.to_vec()));
    import(loc, &head_of(world), false, "test", "import", &mut batches).unwrap()
}

/// An empty world of `dims` chunks in a new database world `loc`.
pub fn create_empty(loc: &PgLocation, dims: [u32; 3]) -> PgStore {
    let world = World::with_chunk_dims(dims).unwrap();
    PgStore::create(loc, &head_of(&world), false).unwrap()
}

/// The whole world a store holds, read through the trait (list, then read in batches).
pub fn load(store: &mut dyn ChunkStore) -> World {
    vwr::load_store(store).unwrap().0
}

/// A file store on a copy of `world` saved as v3 in `dir`.
pub fn file_store(dir: &Path, name: &str, world: &World) -> FileStore {
    let path = dir.join(format!("{name}.vwr"));
    let opts = vwr::SaveOptions {
        format: vwr::Format::V3,
        ..Default::default()
    };
    world.save_with(&path, &opts).unwrap();
    FileStore::open(&path, SessionOptions::default()).unwrap()
}

/// Parses an edit script (panics on a syntax error).
pub fn script(text: &str) -> Vec<vwr_edit::script::Located> {
    vwr_edit::script::parse_text("test", text).unwrap_or_else(|e| panic!("{e:?}"))
}

/// Runs `script` on `store` with `edit_store`.
pub fn edit(store: &mut dyn ChunkStore, text: &str) -> vwr_edit::script::StoreEdit {
    vwr_edit::script::edit_store(store, &script(text), 1_000_000, "test", false).unwrap()
}

/// Runs `sql` on the server directly.
pub fn sql(loc: &PgLocation, sql: &str) {
    let (config, _) = loc.config().unwrap();
    let mut c = config.connect(postgres::NoTls).unwrap();
    c.batch_execute(sql).unwrap();
}
