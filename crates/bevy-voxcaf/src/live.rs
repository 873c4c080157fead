//! The live link: a running game follows a level editor (`voxcaf world serve`) and shows its
//! users' edits as they are made.
//!
//! [`LiveLink::connect`] takes the URL the editor printed (`http://127.0.0.1:PORT/?token=…`;
//! an invitation's URL works the same) and the [`VoxWorld`] to keep in step. A thread follows
//! the editor's event stream (`GET /api/events`): on connecting it asks for every chunk the
//! editor has (`GET /api/chunks?since=0`), so a game started from the saved file also gets the
//! unsaved edits; then every `change` event carries the changed chunks' blocks and plate
//! rotations, and the world's summary. [`apply_live`] writes the blocks and plate rotations
//! into the world (only chunks that differ), and [`crate::remesh_changed`] re-meshes those
//! chunks in the same update. The summary's moving objects, big decorations, spawn point, sky
//! region and mission (`vwr_serve::answer::SharedFields`) replace the world's, in its records
//! and in [`VoxWorld::objects`], [`VoxWorld::decors`], [`VoxWorld::spawn`],
//! [`VoxWorld::sky_region`] and [`VoxWorld::mission`]. When the
//! connection drops the thread tries again every second, and catches up on reconnecting.

use std::collections::HashMap;
use std::io::{BufRead, BufReader};
use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::mpsc::{channel, Receiver, Sender};
use std::sync::{Arc, Mutex};
use std::time::Duration;

use bevy::asset::{Assets, Handle};
use bevy::ecs::system::ResMut;
use bevy::prelude::Resource;
use serde::Deserialize as _;
use vwr::layout::{META_BIG_DECOR, META_MOVE_OBJECT, META_PLATE_ROTATION};
use vwr::{Block, CHUNK_VOLUME};
use vwr_serve::answer::SharedFields;
use vwr_serve::wire::{answer_epoch, decode_blocks, plates_of, DecodedChunk};

use crate::world::VoxWorld;

/// How long the link waits before connecting again.
const RETRY: Duration = Duration::from_secs(1);

/// Why [`LiveLink::connect`] refused a URL.
#[derive(Debug, thiserror::Error)]
pub enum LiveLinkError {
    /// Not an `http://HOST:PORT/?token=…` URL.
    #[error("live link URL {url:?}: {why} (give the URL `voxcaf world serve` printed, http://HOST:PORT/?token=...)")]
    Url {
        /// The URL given.
        url: String,
        /// What is wrong with it.
        why: &'static str,
    },
}

/// Where the link stands.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum LinkState {
    /// Connecting (or connecting again after a failure).
    Connecting,
    /// Following the editor's changes.
    Connected,
    /// The last attempt failed (it is tried again every second); why.
    Lost(String),
    /// The editor refused the link for good (a revoked invitation, a wrong token).
    Refused(String),
}

/// What the link's thread hands the game.
enum Fed {
    State(LinkState),
    Chunks(Vec<DecodedChunk>),
    Fields(Box<SharedFields>),
}

/// A link to a running editor, keeping one [`VoxWorld`] in step with it: insert it as a
/// resource. Dropping it ends the link.
#[derive(Resource)]
pub struct LiveLink {
    /// The world the editor's changes go into.
    pub world: Handle<VoxWorld>,
    rx: Mutex<Receiver<Fed>>,
    /// Changes that arrived before the world had loaded: each chunk's latest values only
    /// (a chunk's values are all of it, so the last ones win), so that the link holds at most
    /// one copy of each chunk the editor changed however long the world takes to load, or
    /// when it never does.
    waiting: HashMap<[u32; 3], DecodedChunk>,
    /// The editor's shared fields (objects, decorations, spawn, sky, mission) as last
    /// received, not yet written (the latest only), and as last written: written again only
    /// when they differ, so that the many changes of blocks alone cost no look at the
    /// world's records.
    fields: Option<Box<SharedFields>>,
    written: Option<Box<SharedFields>>,
    state: LinkState,
    stop: Arc<AtomicBool>,
    applied: u64,
}

impl LiveLink {
    /// Starts following the editor at `url` (what `voxcaf world serve` printed) for `world`.
    pub fn connect(url: &str, world: Handle<VoxWorld>) -> Result<LiveLink, LiveLinkError> {
        let (base, token) = parse_url(url)?;
        let (tx, rx) = channel();
        let stop = Arc::new(AtomicBool::new(false));
        let flag = stop.clone();
        std::thread::Builder::new()
            .name("voxcaf live link".into())
            .spawn(move || follow(&base, &token, &tx, &flag))
            .map_err(|_| LiveLinkError::Url {
                url: url.into(),
                why: "could not start the link's thread",
            })?;
        Ok(LiveLink {
            world,
            rx: Mutex::new(rx),
            waiting: HashMap::new(),
            fields: None,
            written: None,
            state: LinkState::Connecting,
            stop,
            applied: 0,
        })
    }

    /// Where the link stands.
    pub fn state(&self) -> &LinkState {
        &self.state
    }

    /// How many chunks the link has changed in the world so far.
    pub fn chunks_applied(&self) -> u64 {
        self.applied
    }

    /// Takes what the link's thread sent: its state, and chunks into `waiting`.
    fn receive(&mut self) {
        let fed: Vec<Fed> = match self.rx.lock() {
            Ok(rx) => rx.try_iter().collect(),
            Err(_) => return,
        };
        for f in fed {
            match f {
                Fed::State(s) => self.state = s,
                Fed::Chunks(c) => self.waiting.extend(c.into_iter().map(|c| (c.pos, c))),
                Fed::Fields(f) => self.fields = Some(f),
            }
        }
    }
}

impl Drop for LiveLink {
    fn drop(&mut self) {
        self.stop.store(true, Ordering::Relaxed);
    }
}

/// `http://HOST:PORT/...?token=T` as (`http://HOST:PORT`, T).
fn parse_url(url: &str) -> Result<(String, String), LiveLinkError> {
    let bad = |why| LiveLinkError::Url {
        url: url.into(),
        why,
    };
    let rest = url
        .strip_prefix("http://")
        .ok_or_else(|| bad("it does not start with http://"))?;
    let host_end = rest.find(['/', '?']).unwrap_or(rest.len());
    let host = &rest[..host_end];
    if host.is_empty() || !host.contains(':') {
        return Err(bad("it names no HOST:PORT"));
    }
    let query = rest[host_end..].split_once('?').map_or("", |(_, q)| q);
    let token = query
        .split('&')
        .find_map(|kv| kv.strip_prefix("token="))
        .filter(|t| !t.is_empty())
        .ok_or_else(|| bad("it carries no ?token="))?;
    Ok((format!("http://{host}"), token.to_string()))
}

/// The link's thread: follows the editor until the link is dropped, connecting again after
/// a failure.
fn follow(base: &str, token: &str, tx: &Sender<Fed>, stop: &AtomicBool) {
    let agent: ureq::Agent = ureq::Agent::config_builder()
        .timeout_connect(Some(Duration::from_secs(5)))
        .http_status_as_error(false)
        .build()
        .into();
    while !stop.load(Ordering::Relaxed) {
        let end = follow_once(&agent, base, token, tx, stop);
        let state = match end {
            Ok(()) => LinkState::Lost("the editor ended the event stream".into()),
            Err(Refusal::Final(why)) => {
                let _ = tx.send(Fed::State(LinkState::Refused(why)));
                return;
            }
            Err(Refusal::Retry(why)) => LinkState::Lost(why),
        };
        if tx.send(Fed::State(state)).is_err() {
            return;
        }
        std::thread::sleep(RETRY);
    }
}

enum Refusal {
    Retry(String),
    Final(String),
}

impl From<ureq::Error> for Refusal {
    fn from(e: ureq::Error) -> Self {
        Refusal::Retry(e.to_string())
    }
}

impl From<std::io::Error> for Refusal {
    fn from(e: std::io::Error) -> Self {
        Refusal::Retry(e.to_string())
    }
}

/// GET `path` with the token; the body, or why not.
fn get(agent: &ureq::Agent, base: &str, token: &str, path: &str) -> Result<ureq::Body, Refusal> {
    let r = agent
        .get(format!("{base}{path}"))
        .header("X-Voxcaf-Token", token)
        .call()?;
    let status = r.status().as_u16();
    let mut body = r.into_body();
    match status {
        200 => Ok(body),
        401 | 403 => {
            let text = body.read_to_string().unwrap_or_default();
            Err(Refusal::Final(format!(
                "the editor refused the link ({status}): {text}"
            )))
        }
        _ => Err(Refusal::Retry(format!("{path}: HTTP {status}"))),
    }
}

/// Every chunk changed after `since`, from `GET /api/chunks`.
fn fetch(
    agent: &ureq::Agent,
    base: &str,
    token: &str,
    since: u32,
) -> Result<(u32, Vec<DecodedChunk>), Refusal> {
    let bytes = get(agent, base, token, &format!("/api/chunks?since={since}"))?
        .with_config()
        .read_to_vec()?;
    decode(&bytes)
}

/// An answer's epoch and chunks.
fn decode(bytes: &[u8]) -> Result<(u32, Vec<DecodedChunk>), Refusal> {
    let bad = |e: String| Refusal::Retry(format!("a chunk answer: {e}"));
    Ok((
        answer_epoch(bytes).map_err(bad)?,
        decode_blocks(bytes).map_err(bad)?,
    ))
}

/// One connection: the event stream, read until it ends or fails.
fn follow_once(
    agent: &ureq::Agent,
    base: &str,
    token: &str,
    tx: &Sender<Fed>,
    stop: &AtomicBool,
) -> Result<(), Refusal> {
    let events = get(agent, base, token, "/api/events")?;
    let lines = BufReader::new(events.into_reader()).lines();
    let (mut name, mut data) = (String::new(), String::new());
    let mut epoch = 0u32;
    let send = |f: Fed| {
        tx.send(f)
            .map_err(|_| Refusal::Final("the game dropped the link".into()))
    };
    for line in lines {
        if stop.load(Ordering::Relaxed) {
            return Ok(());
        }
        let line = line?;
        if let Some(v) = line.strip_prefix("event:") {
            name = v.trim_start().to_string();
            continue;
        }
        if let Some(v) = line.strip_prefix("data:") {
            data.push_str(v.strip_prefix(' ').unwrap_or(v));
            continue;
        }
        if !line.is_empty() {
            continue; // a comment (the keep-alive) or a field the link does not use
        }
        match name.as_str() {
            "hello" => {
                let (e, chunks) = fetch(agent, base, token, 0)?;
                epoch = e;
                send(Fed::Chunks(chunks))?;
                send(Fed::Fields(fetch_fields(agent, base, token)?))?;
                send(Fed::State(LinkState::Connected))?;
            }
            "change" => {
                let pushed = pushed_change(&data)?;
                // A change after one this link has not seen: fetch what it missed.
                let chunks = if pushed.from > epoch {
                    fetch(agent, base, token, epoch)?.1
                } else {
                    pushed.chunks
                };
                epoch = epoch.max(pushed.epoch);
                send(Fed::Chunks(chunks))?;
                send(Fed::Fields(pushed.fields))?;
            }
            "lagged" => {
                let (e, chunks) = fetch(agent, base, token, epoch)?;
                epoch = epoch.max(e);
                send(Fed::Chunks(chunks))?;
                send(Fed::Fields(fetch_fields(agent, base, token)?))?;
            }
            "revoked" => return Err(Refusal::Final("the editor revoked this invitation".into())),
            _ => {}
        }
        name.clear();
        data.clear();
    }
    Ok(())
}

/// A `change` event's epochs, chunks and the world's shared fields.
struct Pushed {
    from: u32,
    epoch: u32,
    chunks: Vec<DecodedChunk>,
    fields: Box<SharedFields>,
}

fn pushed_change(data: &str) -> Result<Pushed, Refusal> {
    use base64::Engine as _;
    let bad = |why: String| Refusal::Retry(format!("a change event: {why}"));
    let v: serde_json::Value = serde_json::from_str(data).map_err(|e| bad(e.to_string()))?;
    let num = |k: &str| {
        v[k].as_u64()
            .and_then(|n| u32::try_from(n).ok())
            .ok_or_else(|| bad(format!("no {k}")))
    };
    let b64 = v["chunks"]
        .as_str()
        .ok_or_else(|| bad("no chunks".into()))?;
    let bytes = base64::engine::general_purpose::STANDARD
        .decode(b64)
        .map_err(|e| bad(e.to_string()))?;
    Ok(Pushed {
        from: num("from")?,
        epoch: num("epoch")?,
        chunks: decode(&bytes)?.1,
        fields: fields_of(&v["world"]).map_err(|e| bad(format!("its world: {e}")))?,
    })
}

/// The shared fields of a world summary's JSON.
fn fields_of(summary: &serde_json::Value) -> Result<Box<SharedFields>, serde_json::Error> {
    SharedFields::deserialize(summary).map(Box::new)
}

/// The world's shared fields, from `GET /api/world`.
fn fetch_fields(
    agent: &ureq::Agent,
    base: &str,
    token: &str,
) -> Result<Box<SharedFields>, Refusal> {
    let text = get(agent, base, token, "/api/world")?.read_to_string()?;
    serde_json::from_str::<SharedFields>(&text)
        .map(Box::new)
        .map_err(|e| Refusal::Retry(format!("the world summary: {e}")))
}

/// Writes what the link received into its world (once the world has loaded): the blocks of
/// every chunk that differs, and the editor's objects, spawn and sky when they differ.
/// [`crate::remesh_changed`] meshes the chunks in the same update.
pub fn apply_live(link: Option<ResMut<LiveLink>>, mut worlds: ResMut<Assets<VoxWorld>>) {
    let Some(mut link) = link else {
        return;
    };
    let link = &mut *link;
    link.receive();
    if link.waiting.is_empty() && link.fields.is_none() {
        return;
    }
    let Some(mut world) = worlds.get_mut(&link.world) else {
        return;
    };
    if let Some(fields) = link.fields.take() {
        if link.written.as_ref() != Some(&fields) {
            write_fields(&mut world, &fields);
            link.written = Some(fields);
        }
    }
    let batch: Vec<DecodedChunk> = link.waiting.drain().map(|(_, c)| c).collect();
    // The link knows what it changed: noted directly, without `VoxWorld::edit`'s look at
    // every chunk of the world.
    let changed = write_chunks(&mut world.world, &batch);
    link.applied += changed.len() as u64;
    world.dirty.extend(changed);
}

/// Makes the world's MoveObject and BigDecor records, spawn, sky and mission those of `f`
/// (the records only where they differ: neither changes a mesh).
fn write_fields(world: &mut VoxWorld, f: &SharedFields) {
    let objects: Vec<([i32; 3], vwr::MoveObject)> =
        f.objects.iter().map(|o| (o.pos, o.move_object())).collect();
    let w = &mut world.world;
    if w.move_objects().ok().as_ref() != Some(&objects) {
        clear_records(w, META_MOVE_OBJECT);
        for (p, m) in &objects {
            if let Err(e) = w.set_extra_metadata(*p, META_MOVE_OBJECT, &m.encode()) {
                tracing::warn!("live link: the editor's object at {p:?}: {e}");
            }
        }
    }
    let decors: Vec<([i32; 3], u16)> = f.decors.iter().map(|d| (d.pos, d.icon)).collect();
    if w.big_decors().ok().as_ref() != Some(&decors) {
        clear_records(w, META_BIG_DECOR);
        for (p, icon) in &decors {
            if let Err(e) = w.place_big_decor(*p, *icon) {
                tracing::warn!("live link: the editor's decoration at {p:?}: {e}");
            }
        }
    }
    match f.spawn {
        Some(p) => {
            if let Err(e) = w.set_spawn(p) {
                tracing::warn!("live link: the editor's spawn {p:?}: {e}");
            }
        }
        None => w.clear_spawn(),
    }
    w.set_sky_region(f.sky_region);
    w.set_mission_number(f.mission);
    world.read_fields();
}

/// Removes every record of type `kind` from `w`.
fn clear_records(w: &mut vwr::World, kind: u16) {
    let cells: Vec<[i32; 3]> = w
        .collect_extra_metadata(kind)
        .into_iter()
        .map(|(p, _)| p)
        .collect();
    for p in cells {
        w.remove_extra_metadata(p, kind);
    }
}

/// Writes the chunks' blocks into `w` (cells that differ only, so a chunk's records stay);
/// the chunks that changed. Chunks outside the world, or with a wrong number of values, are
/// left alone.
fn write_chunks(w: &mut vwr::World, chunks: &[DecodedChunk]) -> Vec<[u32; 3]> {
    let mut changed = Vec::new();
    let mut now = [Block::AIR; CHUNK_VOLUME];
    // An emptied chunk comes without values: all air.
    let air = [0u16; CHUNK_VOLUME];
    for DecodedChunk {
        pos,
        blocks,
        plates,
    } in chunks
    {
        if !w.contains_chunk(*pos) {
            continue;
        }
        match w.chunk(*pos) {
            Some(c) => c.blocks_into(&mut now),
            None => now.fill(Block::AIR),
        }
        let values = blocks.as_deref().unwrap_or(&air);
        if values.len() != CHUNK_VOLUME {
            continue;
        }
        let mut any = false;
        for (i, (old, new)) in now.iter().zip(values).enumerate() {
            if old.raw() != *new {
                if let Some(c) = w.chunk_mut(*pos) {
                    any |= c.set(i, Block(*new)).is_ok();
                }
            }
        }
        let had = w.chunk(*pos).map(plates_of).unwrap_or_default();
        if had != *plates {
            if let Some(c) = w.chunk_mut(*pos) {
                set_plates(c, &had, plates);
                any = true;
            }
        }
        if any {
            changed.push(*pos);
        }
    }
    changed
}

/// Replaces a chunk's plate-rotation records (`had`) by `plates`.
fn set_plates(c: &mut vwr::Chunk, had: &[(u16, bool)], plates: &[(u16, bool)]) {
    for &(i, _) in had {
        c.remove_metadata(usize::from(i), META_PLATE_ROTATION);
    }
    for &(i, rotated) in plates {
        if let Err(e) = c.set_metadata(usize::from(i), META_PLATE_ROTATION, &[u8::from(rotated)]) {
            tracing::warn!("live link: a plate rotation at cell {i}: {e}");
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// Changes to one chunk, sent again and again while the world is not there (loading, or
    /// failed to load), are held once: the latest values.
    #[test]
    fn changes_waiting_for_the_world_keep_one_copy_per_chunk() {
        let (tx, rx) = channel();
        let mut link = LiveLink {
            world: Handle::default(),
            rx: Mutex::new(rx),
            waiting: HashMap::new(),
            fields: None,
            written: None,
            state: LinkState::Connecting,
            stop: Arc::new(AtomicBool::new(false)),
            applied: 0,
        };
        for round in 0..1000u16 {
            let chunk = |pos: [u32; 3]| DecodedChunk {
                pos,
                blocks: Some(vec![round; CHUNK_VOLUME]),
                plates: Vec::new(),
            };
            let batch = vec![chunk([0, 0, 0]), chunk([1, 0, 0])];
            tx.send(Fed::Chunks(batch)).unwrap();
            if round % 100 == 0 {
                link.receive();
            }
        }
        let emptied = DecodedChunk {
            pos: [1, 0, 0],
            blocks: None,
            plates: Vec::new(),
        };
        tx.send(Fed::Chunks(vec![emptied])).unwrap();
        tx.send(Fed::State(LinkState::Connected)).unwrap();
        link.receive();
        assert_eq!(link.waiting.len(), 2);
        assert_eq!(
            link.waiting[&[0, 0, 0]].blocks,
            Some(vec![999; CHUNK_VOLUME])
        );
        assert_eq!(link.waiting[&[1, 0, 0]].blocks, None);
        assert_eq!(link.state(), &LinkState::Connected);
    }
}
