//! The stable-toolchain fuzzer: replays each target's seed corpus, then mutates it for a time
//! budget (see `fuzz/README.md`).
//!
//! ```text
//! smoke [TARGET...]                 fuzz every target (or the named ones)
//! smoke --list                      print the target names
//! smoke --replay TARGET FILE...     run TARGET once on each FILE (to reproduce an artifact)
//! ```
//!
//! Environment: `VOXCAF_FUZZ_SECONDS` per target (default 30), `VOXCAF_FUZZ_SEED` (default 1),
//! `VOXCAF_FUZZ_JOBS` targets at once (default: the number of CPUs), `VOXCAF_FUZZ_HANG_MS`
//! (default 2000), `VOXCAF_FUZZ_MALLOC_LIMIT_MB` (default 2048). A panic, an input running longer
//! than the hang limit, or a single allocation over the malloc limit writes the input to
//! `fuzz/artifacts/TARGET/` and fails the run (exit 1).

use std::alloc::{GlobalAlloc, Layout, System};
use std::cell::{Cell, RefCell};
use std::io::Write;
use std::panic::{self, AssertUnwindSafe};
use std::path::PathBuf;
use std::process::ExitCode;
use std::sync::atomic::{AtomicBool, AtomicU64, AtomicUsize, Ordering};
use std::sync::{Arc, Mutex, OnceLock};
use std::time::{Duration, Instant};

use voxcaf_fuzz::mutate::{mutate, Rng};
use voxcaf_fuzz::{all, seeds, Target};

/// What one worker is running, for the watchdog and the allocation guard.
struct Slot {
    /// Milliseconds since [`epoch`] when the current input started; 0 when idle.
    started_ms: AtomicU64,
    target: Mutex<&'static str>,
    input: Mutex<Vec<u8>>,
}

static SLOTS: OnceLock<Vec<Arc<Slot>>> = OnceLock::new();
static EPOCH: OnceLock<Instant> = OnceLock::new();
static MALLOC_LIMIT: AtomicUsize = AtomicUsize::new(usize::MAX);
/// Set while a finding that ends the process is being written, so only one is.
static DYING: AtomicBool = AtomicBool::new(false);

thread_local! {
    static MY_SLOT: Cell<usize> = const { Cell::new(usize::MAX) };
    static IN_GUARD: Cell<bool> = const { Cell::new(false) };
    static PANIC_MSG: RefCell<String> = const { RefCell::new(String::new()) };
}

fn now_ms() -> u64 {
    EPOCH.get_or_init(Instant::now).elapsed().as_millis() as u64 + 1
}

/// The system allocator, refusing single allocations over the malloc limit: like libFuzzer's
/// `-malloc_limit_mb`, an input that makes a parser ask for gigabytes is a finding (an
/// allocation sized by an untrusted field), reported with its input instead of an abort.
struct Guard;

unsafe impl GlobalAlloc for Guard {
    unsafe fn alloc(&self, layout: Layout) -> *mut u8 {
        if layout.size() > MALLOC_LIMIT.load(Ordering::Relaxed) {
            too_big(layout.size());
        }
        System.alloc(layout)
    }
    unsafe fn dealloc(&self, ptr: *mut u8, layout: Layout) {
        System.dealloc(ptr, layout)
    }
    unsafe fn alloc_zeroed(&self, layout: Layout) -> *mut u8 {
        if layout.size() > MALLOC_LIMIT.load(Ordering::Relaxed) {
            too_big(layout.size());
        }
        System.alloc_zeroed(layout)
    }
    unsafe fn realloc(&self, ptr: *mut u8, layout: Layout, new_size: usize) -> *mut u8 {
        if new_size > MALLOC_LIMIT.load(Ordering::Relaxed) {
            too_big(new_size);
        }
        System.realloc(ptr, layout, new_size)
    }
}

#[global_allocator]
static GLOBAL: Guard = Guard;

fn too_big(size: usize) {
    if IN_GUARD.with(|g| g.replace(true)) {
        return;
    }
    let slot = MY_SLOT.with(|s| s.get());
    if let Some(s) = SLOTS.get().and_then(|v| v.get(slot)) {
        // Where it came from is the useful part of this finding.
        let bt = std::backtrace::Backtrace::force_capture();
        die(s, "oom", &format!("one allocation of {size} bytes\n{bt}"));
    }
    IN_GUARD.with(|g| g.set(false));
}

/// Writes the slot's current input as an artifact and ends the process (used where the worker
/// cannot be unwound: a hang or an oversized allocation).
fn die(slot: &Slot, kind: &str, what: &str) -> ! {
    if DYING.swap(true, Ordering::SeqCst) {
        // Another finding is being reported; wait for it to exit.
        loop {
            std::thread::sleep(Duration::from_secs(1));
        }
    }
    let target = *slot.target.lock().unwrap_or_else(|e| e.into_inner());
    let input = slot.input.lock().unwrap_or_else(|e| e.into_inner()).clone();
    let path = save_artifact(target, kind, &input);
    eprintln!("FAIL {target}: {kind}: {what}; input written to {path}");
    let _ = std::io::stderr().flush();
    std::process::exit(1);
}

fn artifacts_dir(target: &str) -> PathBuf {
    PathBuf::from(env!("CARGO_MANIFEST_DIR"))
        .join("artifacts")
        .join(target)
}

/// Writes `input` to `fuzz/artifacts/TARGET/KIND-HASH` and returns that path for messages.
fn save_artifact(target: &str, kind: &str, input: &[u8]) -> String {
    let dir = artifacts_dir(target);
    // FNV-1a: a stable name, so the same input found twice is one file.
    let hash = input.iter().fold(0xcbf2_9ce4_8422_2325u64, |h, &b| {
        (h ^ u64::from(b)).wrapping_mul(0x100_0000_01b3)
    });
    let path = dir.join(format!("{kind}-{hash:016x}"));
    let res = std::fs::create_dir_all(&dir).and_then(|_| std::fs::write(&path, input));
    match res {
        Ok(()) => path.display().to_string(),
        Err(e) => format!("(could not write {}: {e})", path.display()),
    }
}

/// One target's result.
struct Outcome {
    name: &'static str,
    execs: u64,
    seeds: usize,
    secs: f64,
    crash: Option<String>,
}

/// Runs one input, returning the panic message if it panicked.
fn run_one(slot: &Slot, t: &Target, input: &[u8]) -> Option<String> {
    {
        let mut buf = slot.input.lock().unwrap_or_else(|e| e.into_inner());
        buf.clear();
        buf.extend_from_slice(input);
    }
    slot.started_ms.store(now_ms(), Ordering::SeqCst);
    let r = panic::catch_unwind(AssertUnwindSafe(|| (t.run)(input)));
    slot.started_ms.store(0, Ordering::SeqCst);
    r.err()
        .map(|_| PANIC_MSG.with(|m| std::mem::take(&mut *m.borrow_mut())))
}

fn fuzz_target(slot: &Slot, t: &Target, budget: Duration, seed: u64) -> Outcome {
    *slot.target.lock().unwrap_or_else(|e| e.into_inner()) = t.name;
    let start = Instant::now();
    let corpus = seeds(t.name);
    let mut execs = 0u64;
    let mut crash = None;
    let report = |input: &[u8], msg: String| {
        let path = save_artifact(t.name, "crash", input);
        format!("panic: {msg}; input written to {path}")
    };
    // Every seed once, whatever the budget: a seed that fails is a finding too.
    for s in &corpus {
        execs += 1;
        if let Some(msg) = run_one(slot, t, s) {
            crash = Some(report(s, msg));
            break;
        }
    }
    // The name keeps targets apart under one run seed.
    let name_hash = t
        .name
        .bytes()
        .fold(seed, |h, b| h.rotate_left(5) ^ u64::from(b));
    let mut rng = Rng::new(name_hash);
    let mut last: Option<Vec<u8>> = None;
    while crash.is_none() && start.elapsed() < budget {
        // Half the time keep mutating the previous mutant, so damage stacks up.
        let base = match &last {
            Some(l) if rng.below(2) == 0 => l.clone(),
            _ => corpus[rng.below(corpus.len())].clone(),
        };
        let input = mutate(&base, &corpus, &mut rng);
        execs += 1;
        if let Some(msg) = run_one(slot, t, &input) {
            crash = Some(report(&input, msg));
        }
        last = Some(input);
    }
    Outcome {
        name: t.name,
        execs,
        seeds: corpus.len(),
        secs: start.elapsed().as_secs_f64(),
        crash,
    }
}

fn env_num(name: &str, default: u64) -> Result<u64, String> {
    match std::env::var(name) {
        Ok(v) => v
            .trim()
            .parse()
            .map_err(|_| format!("{name}={v:?} is not a whole number")),
        Err(_) => Ok(default),
    }
}

fn usage(msg: &str) -> ExitCode {
    eprintln!("error: {msg}");
    eprintln!("usage: smoke [TARGET...] | smoke --list | smoke --replay TARGET FILE...");
    ExitCode::from(2)
}

fn main() -> ExitCode {
    let args: Vec<String> = std::env::args().skip(1).collect();
    let targets = all();
    let find = |n: &str| targets.iter().find(|t| t.name == n).copied();

    // Keep panics quiet: the harness prints them once, with the artifact's path.
    panic::set_hook(Box::new(|info| {
        let msg = match (
            info.payload().downcast_ref::<&str>(),
            info.payload().downcast_ref::<String>(),
        ) {
            (Some(s), _) => (*s).to_string(),
            (_, Some(s)) => s.clone(),
            _ => "(non-string panic)".to_string(),
        };
        let at = info
            .location()
            .map(|l| format!(" at {}:{}", l.file(), l.line()))
            .unwrap_or_default();
        PANIC_MSG.with(|m| *m.borrow_mut() = format!("{msg}{at}"));
    }));

    if args.first().map(String::as_str) == Some("--list") {
        for t in &targets {
            println!("{}", t.name);
        }
        return ExitCode::SUCCESS;
    }
    if args.first().map(String::as_str) == Some("--replay") {
        let Some(t) = args.get(1).and_then(|n| find(n)) else {
            return usage("--replay needs a target name (see --list)");
        };
        if args.len() < 3 {
            return usage("--replay needs at least one input file");
        }
        let limit_mb = match env_num("VOXCAF_FUZZ_MALLOC_LIMIT_MB", 2048) {
            Ok(n) => n.max(1),
            Err(e) => return usage(&e),
        };
        MALLOC_LIMIT.store(
            (limit_mb as usize).saturating_mul(1 << 20),
            Ordering::Relaxed,
        );
        let slot = Arc::new(Slot {
            started_ms: AtomicU64::new(0),
            target: Mutex::new(t.name),
            input: Mutex::new(Vec::new()),
        });
        let _ = SLOTS.set(vec![slot.clone()]);
        MY_SLOT.with(|s| s.set(0));
        let mut failed = false;
        for f in &args[2..] {
            let input = match std::fs::read(f) {
                Ok(b) => b,
                Err(e) => {
                    eprintln!("error: cannot read {f}: {e}");
                    return ExitCode::from(1);
                }
            };
            let t0 = Instant::now();
            match run_one(&slot, &t, &input) {
                Some(msg) => {
                    failed = true;
                    println!("{f}: panic: {msg}");
                }
                None => println!("{f}: ok in {:.3} s", t0.elapsed().as_secs_f64()),
            }
        }
        return if failed {
            ExitCode::from(1)
        } else {
            ExitCode::SUCCESS
        };
    }

    let mut chosen = Vec::new();
    for a in &args {
        match find(a) {
            Some(t) => chosen.push(t),
            None => return usage(&format!("unknown target {a:?} (see --list)")),
        }
    }
    if chosen.is_empty() {
        chosen = targets.clone();
    }
    let (secs, seed, jobs, hang_ms, limit_mb) = match (
        env_num("VOXCAF_FUZZ_SECONDS", 30),
        env_num("VOXCAF_FUZZ_SEED", 1),
        env_num(
            "VOXCAF_FUZZ_JOBS",
            std::thread::available_parallelism().map_or(1, |n| n.get() as u64),
        ),
        env_num("VOXCAF_FUZZ_HANG_MS", 2000),
        env_num("VOXCAF_FUZZ_MALLOC_LIMIT_MB", 2048),
    ) {
        (Ok(a), Ok(b), Ok(c), Ok(d), Ok(e)) => (a, b, c.max(1), d.max(1), e.max(1)),
        (a, b, c, d, e) => {
            let errs = [a.err(), b.err(), c.err(), d.err(), e.err()];
            let msg = errs.into_iter().flatten().next().unwrap_or_default();
            return usage(&msg);
        }
    };
    let jobs = (jobs as usize).min(chosen.len());
    MALLOC_LIMIT.store(
        (limit_mb as usize).saturating_mul(1 << 20),
        Ordering::Relaxed,
    );
    let slots: Vec<Arc<Slot>> = (0..jobs)
        .map(|_| {
            Arc::new(Slot {
                started_ms: AtomicU64::new(0),
                target: Mutex::new(""),
                input: Mutex::new(Vec::new()),
            })
        })
        .collect();
    let _ = SLOTS.set(slots.clone());
    now_ms();
    println!(
        "fuzzing {} targets, {secs} s each, seed {seed}, {jobs} at once, hang limit {hang_ms} ms, \
         malloc limit {limit_mb} MB",
        chosen.len()
    );

    // The watchdog: an input running past the hang limit cannot be interrupted, so report it
    // and end the process.
    {
        let slots = slots.clone();
        std::thread::spawn(move || loop {
            std::thread::sleep(Duration::from_millis(100));
            for s in &slots {
                let st = s.started_ms.load(Ordering::SeqCst);
                if st != 0 && now_ms().saturating_sub(st) > hang_ms {
                    die(s, "hang", &format!("an input ran over {hang_ms} ms"));
                }
            }
        });
    }

    let next = Arc::new(AtomicUsize::new(0));
    let chosen = Arc::new(chosen);
    let results = Arc::new(Mutex::new(Vec::new()));
    let budget = Duration::from_secs(secs);
    let workers: Vec<_> = (0..jobs)
        .map(|i| {
            let (next, chosen, results, slot) = (
                next.clone(),
                chosen.clone(),
                results.clone(),
                slots[i].clone(),
            );
            std::thread::Builder::new()
                .name(format!("fuzz-{i}"))
                // The main thread's usual stack, so a recursion that overflows there does here.
                .stack_size(8 << 20)
                .spawn(move || {
                    MY_SLOT.with(|s| s.set(i));
                    loop {
                        let k = next.fetch_add(1, Ordering::SeqCst);
                        let Some(t) = chosen.get(k) else { break };
                        let o = fuzz_target(&slot, t, budget, seed);
                        println!(
                            "{:<14} {:>9} execs {:>9.0} execs/s {:>6.1} s  {} seeds  {}",
                            o.name,
                            o.execs,
                            o.execs as f64 / o.secs.max(1e-9),
                            o.secs,
                            o.seeds,
                            if o.crash.is_some() { "CRASH" } else { "ok" }
                        );
                        results
                            .lock()
                            .unwrap_or_else(|e| e.into_inner())
                            .push((k, o));
                    }
                })
                .expect("spawn a worker thread")
        })
        .collect();
    for w in workers {
        let _ = w.join();
    }
    let mut results = std::mem::take(&mut *results.lock().unwrap_or_else(|e| e.into_inner()));
    results.sort_by_key(|(k, _)| *k);
    let total: u64 = results.iter().map(|(_, o)| o.execs).sum();
    let crashes: Vec<_> = results
        .iter()
        .filter_map(|(_, o)| o.crash.as_ref().map(|c| (o.name, c)))
        .collect();
    println!(
        "{} targets, {total} executions, {} crashes",
        results.len(),
        crashes.len()
    );
    for (name, c) in &crashes {
        eprintln!("FAIL {name}: {c}");
    }
    if crashes.is_empty() {
        ExitCode::SUCCESS
    } else {
        ExitCode::from(1)
    }
}
