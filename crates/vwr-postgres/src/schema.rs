//! The schema of vwr-postgres.md §2 and its versions (§4): created on first use, upgraded step
//! by step, refused when newer than this code knows.

use postgres::Client;

/// The schema version this code writes and reads.
pub const SCHEMA_VERSION: u32 = 2;

/// The advisory lock guarding schema creation and upgrades (`voxcaf` in ASCII).
pub const SCHEMA_LOCK: i64 = 0x766f78636166;

/// The upgrade steps: step `n` takes the schema from version `n - 1` to `n` (step 1 creates
/// it). A new version adds its step here and to the spec.
pub const STEPS: &[&str] = &[STEP_1, STEP_2];

const STEP_1: &str = "
CREATE SCHEMA IF NOT EXISTS voxcaf;
CREATE TABLE voxcaf.meta (
    key   text PRIMARY KEY,
    value text NOT NULL
);
CREATE TABLE voxcaf.worlds (
    id             bigserial PRIMARY KEY,
    name           text NOT NULL UNIQUE,
    dims_x         integer NOT NULL CHECK (dims_x BETWEEN 1 AND 65535),
    dims_y         integer NOT NULL CHECK (dims_y BETWEEN 1 AND 65535),
    dims_z         integer NOT NULL CHECK (dims_z BETWEEN 1 AND 65535),
    sky_region     bigint  NOT NULL,
    mission_number bigint  NOT NULL,
    spawn_x integer, spawn_y integer, spawn_z integer,
    fields_version bigint  NOT NULL,
    head           bigint  NOT NULL,
    format_version smallint NOT NULL,
    created_ms     bigint  NOT NULL
);
CREATE TABLE voxcaf.chunks (
    world    bigint  NOT NULL REFERENCES voxcaf.worlds(id) ON DELETE CASCADE,
    x integer NOT NULL, y integer NOT NULL, z integer NOT NULL,
    version  bigint  NOT NULL,
    encoding smallint NOT NULL,
    storage  smallint NOT NULL,
    value    bigint  NOT NULL,
    crc      bigint  NOT NULL,
    data     bytea   NOT NULL,
    PRIMARY KEY (world, x, y, z)
);
CREATE TABLE voxcaf.commits (
    world    bigint NOT NULL REFERENCES voxcaf.worlds(id) ON DELETE CASCADE,
    seq      bigint NOT NULL,
    time_ms  bigint NOT NULL,
    tool     text   NOT NULL,
    summary  text   NOT NULL,
    chunks   integer NOT NULL,
    PRIMARY KEY (world, seq)
);
INSERT INTO voxcaf.meta (key, value) VALUES ('schema_version', '0');
";

/// Version 1 -> 2: chunk history (vwr-postgres.md §7); existing worlds start their history at
/// their head, whose commit row gets the world's fields.
const STEP_2: &str = "
CREATE TABLE voxcaf.chunk_history (
    world    bigint  NOT NULL REFERENCES voxcaf.worlds(id) ON DELETE CASCADE,
    x integer NOT NULL, y integer NOT NULL, z integer NOT NULL,
    replaced_by bigint NOT NULL,
    version  bigint  NOT NULL,
    encoding smallint NOT NULL,
    storage  smallint NOT NULL,
    value    bigint  NOT NULL,
    crc      bigint  NOT NULL,
    data     bytea,
    PRIMARY KEY (world, x, y, z, replaced_by)
);
CREATE INDEX chunk_history_replaced ON voxcaf.chunk_history (world, replaced_by);
ALTER TABLE voxcaf.worlds ADD COLUMN history_from bigint NOT NULL DEFAULT 1;
UPDATE voxcaf.worlds SET history_from = greatest(head, 1);
ALTER TABLE voxcaf.commits
    ADD COLUMN kind text NOT NULL DEFAULT 'save' CHECK (kind IN ('save', 'revert', 'migrate')),
    ADD COLUMN reverted_to bigint,
    ADD COLUMN sky_region bigint,
    ADD COLUMN mission_number bigint,
    ADD COLUMN spawn_x integer, ADD COLUMN spawn_y integer, ADD COLUMN spawn_z integer;
UPDATE voxcaf.commits c SET sky_region = w.sky_region, mission_number = w.mission_number,
    spawn_x = w.spawn_x, spawn_y = w.spawn_y, spawn_z = w.spawn_z
    FROM voxcaf.worlds w WHERE c.world = w.id AND c.seq = w.head;
";

/// Why the schema cannot be used.
#[derive(Debug)]
pub enum SchemaError {
    /// A query failed.
    Db(postgres::Error),
    /// The database was written by a newer voxcaf, or holds a version that is not a number.
    Version(String),
}

impl From<postgres::Error> for SchemaError {
    fn from(e: postgres::Error) -> Self {
        SchemaError::Db(e)
    }
}

/// The version the database holds (`None`: no schema yet).
fn current(c: &mut impl postgres::GenericClient) -> Result<Option<u32>, SchemaError> {
    let exists: bool = c
        .query_one(
            // A plain catalog query (not `to_regclass`, whose cached lookup may miss a table
            // another transaction just created).
            "SELECT EXISTS (SELECT 1 FROM pg_catalog.pg_class c JOIN pg_catalog.pg_namespace n \
             ON n.oid = c.relnamespace WHERE n.nspname = 'voxcaf' AND c.relname = 'meta')",
            &[],
        )?
        .get(0);
    if !exists {
        return Ok(None);
    }
    let row = c.query_opt(
        "SELECT value FROM voxcaf.meta WHERE key = 'schema_version'",
        &[],
    )?;
    let Some(row) = row else {
        return Ok(Some(0));
    };
    let v: String = row.get(0);
    v.trim()
        .parse()
        .map(Some)
        .map_err(|_| SchemaError::Version(format!("voxcaf.meta holds schema_version {v:?}")))
}

fn too_new(v: u32) -> SchemaError {
    SchemaError::Version(format!(
        "the database's voxcaf schema is version {v}, written by a newer voxcaf; this one \
         knows version {SCHEMA_VERSION}"
    ))
}

/// Makes sure the schema is there and at [`SCHEMA_VERSION`]: creates or upgrades it in one
/// transaction under [`SCHEMA_LOCK`]; refuses a newer one.
pub fn ensure(client: &mut Client) -> Result<(), SchemaError> {
    // The usual case, without a lock.
    match current(client)? {
        Some(v) if v == SCHEMA_VERSION => return Ok(()),
        Some(v) if v > SCHEMA_VERSION => return Err(too_new(v)),
        _ => {}
    }
    let mut tx = client.transaction()?;
    tx.execute("SELECT pg_advisory_xact_lock($1)", &[&SCHEMA_LOCK])?;
    // Again under the lock: another client may have done it meanwhile.
    let from = match current(&mut tx)? {
        Some(v) if v == SCHEMA_VERSION => return Ok(()),
        Some(v) if v > SCHEMA_VERSION => return Err(too_new(v)),
        Some(v) => v,
        None => 0,
    };
    for step in &STEPS[from as usize..] {
        tx.batch_execute(step)?;
    }
    tx.execute(
        "UPDATE voxcaf.meta SET value = $1 WHERE key = 'schema_version'",
        &[&SCHEMA_VERSION.to_string()],
    )?;
    tx.commit()?;
    Ok(())
}
