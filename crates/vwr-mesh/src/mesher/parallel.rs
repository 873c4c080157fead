//! Many chunks meshed at once: the calling thread and the other threads of rayon's pool share
//! the work, each taking the batches of its own contiguous run first, then the others' (see
//! [`Batches`]).
//!
//! The calling thread works too instead of handing everything to the pool and sleeping until
//! it is done: on the 2-core VM the benchmarks run on, a round trip into a sleeping pool and
//! back to a sleeping caller costs about 57 µs (two thread wake-ups), a tenth of meshing the
//! hilly 100³ terrain on two threads. Here the helpers are woken first, while the calling
//! thread lists the chunks; whoever finishes early spins for the few microseconds until the
//! last batch is done (one batch, not a whole share), so no thread sleeps inside a call.
//!
//! Two steps share the threads the same way: classifying every allocated chunk (when the
//! gathers read classes), then meshing, with a barrier between them. Each chunk's mesh goes
//! to its own slot, so the result is in the order given whatever the thread count.

use std::sync::atomic::{AtomicBool, AtomicUsize, Ordering};
use std::sync::{Mutex, OnceLock, PoisonError};

use vwr::World;
use vwr_blocks::Registry;

use super::occupancy::ChunkClass;
use super::{file_key, mesh_reusing, with_scratch, ChunkMesh, MeshOptions, WorldClasses};

/// The classes of a world's chunks, classified by the threads that share the meshing.
type SharedClasses<'w> = WorldClasses<'w, OnceLock<ChunkClass>>;

/// Chunks classified per batch (about 70 ns each).
const CLASS_BATCH: usize = 32;
/// Chunks meshed per batch (about 1 µs each): small, since a thread that runs out of work
/// waits for the others' last batches.
const MESH_BATCH: usize = 4;
/// Fewer chunks than this are meshed on the calling thread alone: waking the pool would cost
/// more than it saves.
pub(crate) const PAR_MIN_CHUNKS: usize = 32;

/// The meshes of every allocated chunk of `world` that draws something, in file order, on
/// the calling thread and rayon's pool, the gathers reading the chunks' classes. A chunk with a
/// mesh in `previous` (file order) is meshed into that mesh's buffers.
pub(crate) fn mesh_world_par(
    world: &World,
    registry: &Registry,
    opts: MeshOptions,
    previous: &mut [ChunkMesh],
) -> Vec<ChunkMesh> {
    mesh_par(world, registry, opts, None, true, previous)
}

/// The meshes of `positions` (empty ones included), in the order given, meshed on the calling
/// thread and rayon's pool. When they are a good part of the world, every chunk is classified
/// once first and the gathers read those classes. A chunk with a mesh in `previous` (file
/// order, like `positions`) is meshed into that mesh's buffers.
pub(crate) fn mesh_chunks_par(
    world: &World,
    registry: &Registry,
    positions: &[[u32; 3]],
    opts: MeshOptions,
    previous: &mut [ChunkMesh],
) -> Vec<ChunkMesh> {
    let classify = positions.len() * 4 >= world.chunks().count();
    mesh_par(world, registry, opts, Some(positions), classify, previous)
}

/// Work cut into batches. Each participant owns a contiguous run of them, taken in order from
/// its own counter, and then helps the others by taking from theirs: a chunk mostly goes to
/// the same thread call after call, so the buffers it is meshed into stay in that core's
/// cache, and no thread runs out of work while another has batches left.
struct Batches {
    count: usize,
    /// Per participant: the next batch of its run, and the run's end.
    runs: Vec<(AtomicUsize, usize)>,
    done: AtomicUsize,
    /// A batch panicked: waiting for all of them would never end.
    broken: AtomicBool,
}

impl Batches {
    fn new(items: usize, per_batch: usize, participants: usize) -> Batches {
        let count = items.div_ceil(per_batch);
        let n = participants.max(1);
        Batches {
            count,
            runs: (0..n)
                .map(|p| (AtomicUsize::new(count * p / n), count * (p + 1) / n))
                .collect(),
            done: AtomicUsize::new(0),
            broken: AtomicBool::new(false),
        }
    }

    /// Takes batches until none is left, its own run first (participant `me`), calling `f`
    /// with each batch's number.
    fn run(&self, me: usize, mut f: impl FnMut(usize)) {
        let _guard = Unwinding(&self.broken);
        let n = self.runs.len();
        for (next, end) in (0..n).map(|k| &self.runs[(me + k) % n]) {
            loop {
                let b = next.fetch_add(1, Ordering::Relaxed);
                if b >= *end {
                    break;
                }
                f(b);
                self.done.fetch_add(1, Ordering::Release);
            }
        }
    }

    /// Waits until every batch is done (or one panicked); true when all are done.
    fn wait(&self) -> bool {
        spin_until(|| {
            self.done.load(Ordering::Acquire) == self.count || self.broken.load(Ordering::Acquire)
        });
        self.done.load(Ordering::Acquire) == self.count
    }
}

/// Sets its flag when dropped by a panic's unwinding.
struct Unwinding<'a>(&'a AtomicBool);

impl Drop for Unwinding<'_> {
    fn drop(&mut self) {
        if std::thread::panicking() {
            self.0.store(true, Ordering::Release);
        }
    }
}

/// Spins until `ready`: briefly with the processor's pause hint (a batch takes microseconds),
/// then yielding the core each round in case the thread it waits for is not running.
fn spin_until(ready: impl Fn() -> bool) {
    let mut rounds = 0u32;
    while !ready() {
        if rounds < 2000 {
            std::hint::spin_loop();
            rounds += 1;
        } else {
            std::thread::yield_now();
        }
    }
}

/// One call's shared state.
struct Job<'a> {
    world: &'a World,
    registry: &'a Registry,
    opts: MeshOptions,
    classes: Option<&'a SharedClasses<'a>>,
    classify: Batches,
    mesh: Batches,
    /// Per mesh batch, its slots of the result and its share of the previous meshes.
    batches: Vec<Mutex<Batch<'a>>>,
}

/// A mesh batch's positions, the slots it fills (one per position, in order), and the previous
/// meshes before the next batch's first chunk, whose buffers it reuses.
struct Batch<'a> {
    positions: &'a [[u32; 3]],
    meshes: &'a mut [ChunkMesh],
    previous: &'a mut [ChunkMesh],
}

impl Job<'_> {
    /// Participant `me`'s part: classify, wait for every class, mesh.
    fn work(&self, me: usize) {
        if let Some(classes) = self.classes {
            self.classify.run(me, |b| {
                let end = ((b + 1) * CLASS_BATCH).min(classes.len());
                for k in b * CLASS_BATCH..end {
                    classes.classify(k, self.registry);
                }
            });
            if !self.classify.wait() {
                return;
            }
        }
        with_scratch(|s| {
            self.mesh.run(me, |b| {
                let mut batch = self.batches[b]
                    .lock()
                    .unwrap_or_else(PoisonError::into_inner);
                let Batch {
                    positions,
                    meshes,
                    previous,
                } = &mut *batch;
                let mut previous = previous.iter_mut().peekable();
                for (slot, &pos) in meshes.iter_mut().zip(positions.iter()) {
                    *slot = mesh_reusing(
                        self.world,
                        self.registry,
                        self.classes,
                        pos,
                        self.opts,
                        &mut previous,
                        s,
                    );
                }
            })
        });
    }
}

/// See [`mesh_world_par`] (`positions` `None`: every allocated chunk, empty meshes left out)
/// and [`mesh_chunks_par`] (the meshes of `positions`, empty ones included).
fn mesh_par(
    world: &World,
    registry: &Registry,
    opts: MeshOptions,
    positions: Option<&[[u32; 3]]>,
    classify: bool,
    previous: &mut [ChunkMesh],
) -> Vec<ChunkMesh> {
    let enough = positions.map_or_else(
        || world.chunks().nth(PAR_MIN_CHUNKS - 1).is_some(),
        |p| p.len() >= PAR_MIN_CHUNKS,
    );
    // Few chunks: this thread alone.
    let helpers = match enough {
        true => rayon::current_num_threads().saturating_sub(1),
        false => 0,
    };
    let mut meshes = Vec::new();
    let classes = &OnceLock::new();
    mesh_shared(helpers, &OnceLock::new(), || {
        Job::new(
            world,
            registry,
            opts,
            positions,
            classify,
            classes,
            previous,
            &mut meshes,
            helpers + 1,
        )
    });
    if positions.is_none() {
        meshes.retain(|m| !m.is_empty());
    }
    meshes
}

/// Runs the job that `new_job` makes on this thread and `helpers` threads of rayon's pool
/// (none: on this thread alone, without entering the pool).
fn mesh_shared<'a>(helpers: usize, job: &OnceLock<Job<'a>>, new_job: impl FnOnce() -> Job<'a>) {
    if helpers == 0 {
        job.get_or_init(new_job).work(0);
        return;
    }
    // Set when this thread unwinds before the job exists, so the helpers stop waiting for it.
    let abandoned = AtomicBool::new(false);
    rayon::in_place_scope(|scope| {
        // Wake the helpers first: they wait for the job while this thread lists it.
        for me in 1..=helpers {
            let (job, abandoned) = (&job, &abandoned);
            scope.spawn(move |_| {
                spin_until(|| job.get().is_some() || abandoned.load(Ordering::Acquire));
                if let Some(job) = job.get() {
                    job.work(me);
                }
            });
        }
        let _guard = Unwinding(&abandoned);
        let job = job.get_or_init(new_job);
        job.work(0);
        // Spin while the others finish their last batches rather than sleep in the scope's
        // wait and be woken.
        job.mesh.wait();
    });
}

impl<'a> Job<'a> {
    /// The job of meshing `positions` (`None`: every allocated chunk) into `meshes` (one per
    /// position, in order), with the chunks' classes listed in `classes` when `classify`, for
    /// `participants` threads.
    #[allow(clippy::too_many_arguments)]
    fn new(
        world: &'a World,
        registry: &'a Registry,
        opts: MeshOptions,
        positions: Option<&'a [[u32; 3]]>,
        classify: bool,
        classes: &'a OnceLock<SharedClasses<'a>>,
        previous: &'a mut [ChunkMesh],
        meshes: &'a mut Vec<ChunkMesh>,
        participants: usize,
    ) -> Job<'a> {
        let listed = (classify || positions.is_none())
            .then(|| classes.get_or_init(|| WorldClasses::list(world)));
        let positions = positions.unwrap_or_else(|| listed.map_or(&[], |c| c.positions()));
        let classes = listed.filter(|_| classify);
        Job {
            world,
            registry,
            opts,
            classes,
            classify: Batches::new(
                classes.map_or(0, WorldClasses::len),
                CLASS_BATCH,
                participants,
            ),
            mesh: Batches::new(positions.len(), MESH_BATCH, participants),
            batches: batches(positions, meshes, previous),
        }
    }
}

/// The mesh batches of `positions`: each one's positions, its slots of `meshes` (made one per
/// position) and the meshes of `previous` (file order) before the next batch's first chunk.
fn batches<'a>(
    positions: &'a [[u32; 3]],
    meshes: &'a mut Vec<ChunkMesh>,
    previous: &'a mut [ChunkMesh],
) -> Vec<Mutex<Batch<'a>>> {
    meshes.clear();
    meshes.resize_with(positions.len(), ChunkMesh::default);
    let mut rest = previous;
    let nexts = positions
        .chunks(MESH_BATCH)
        .skip(1)
        .map(|next| Some(next[0]));
    positions
        .chunks(MESH_BATCH)
        .zip(meshes.chunks_mut(MESH_BATCH))
        .zip(nexts.chain([None]))
        .map(|((positions, meshes), next)| {
            let k = next.map_or(rest.len(), |next| {
                rest.partition_point(|m| file_key(m.chunk) < file_key(next))
            });
            let (previous, tail) = std::mem::take(&mut rest).split_at_mut(k);
            rest = tail;
            Mutex::new(Batch {
                positions,
                meshes,
                previous,
            })
        })
        .collect()
}

#[cfg(test)]
mod tests {
    use super::*;

    /// Every batch is handed out exactly once, whoever asks and in whatever order, including
    /// when some participants never come (their runs are taken by the others).
    #[test]
    fn every_batch_is_taken_exactly_once() {
        for items in [0, 1, 3, 4, 5, 63, 64, 65, 1000] {
            for participants in 1..=5 {
                for present in 1..=participants {
                    let batches = Batches::new(items, MESH_BATCH, participants);
                    let mut seen = vec![0u32; batches.count];
                    for me in (0..present).rev() {
                        batches.run(me, |b| seen[b] += 1);
                    }
                    assert!(
                        seen.iter().all(|&n| n == 1),
                        "{items} items, {participants} runs, {present} present: {seen:?}"
                    );
                    assert!(batches.wait());
                    // Runs are contiguous and in order: participant 0 starts at batch 0.
                    assert_eq!(batches.runs[0].1, batches.count / participants);
                }
            }
        }
    }

    /// A batch that panics ends the wait of the others instead of leaving them spinning.
    #[test]
    fn a_panicking_batch_ends_the_wait() {
        let batches = Batches::new(100, 10, 2);
        let r = std::panic::catch_unwind(std::panic::AssertUnwindSafe(|| {
            batches.run(0, |b| assert!(b != 3, "batch 3 fails"));
        }));
        assert!(r.is_err());
        batches.run(1, |_| {});
        assert!(!batches.wait());
    }
}
