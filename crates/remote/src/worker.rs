//! `voxcaf asset worker`: a bot of the Remote Workers API (docs/remote-build.md §4). It keeps
//! one bot session with the server, takes the leases the server assigns, runs each conversion
//! action in a fresh temporary folder holding only its input root, uploads `out/` and completes
//! the lease with the `ActionResult`.

use std::collections::HashSet;
use std::sync::atomic::{AtomicBool, Ordering};
use std::time::{Duration, Instant};

use crate::action::{materialize, platform, run_conversion, ARGV0, OUTPUT_DIR};
use crate::exec::holds;
use crate::proto::bots::bots_client::BotsClient;
use crate::proto::bots::{
    device, BotSession, BotStatus, CreateBotSessionRequest, Device, Lease, LeaseState,
    UpdateBotSessionRequest, Worker,
};
use crate::proto::google::rpc::Status;
use crate::proto::reapi::{Action, ActionResult, Command, ExecutedActionMetadata, OutputFile};
use crate::{digest_of, Digest, Remote, RemoteError, MAX_MESSAGE};

/// What a worker reports while it runs.
#[derive(Debug)]
pub enum WorkerEvent<'a> {
    /// The bot session is open.
    Joined {
        /// The session's name, as the server chose it.
        session: &'a str,
    },
    /// A lease was run.
    Ran {
        /// The action's digest hash.
        action: &'a str,
        /// The source it converted (`src/<REL>`), when the command was ours.
        source: &'a str,
        /// `None` when it converted; the reason otherwise (the lease is still completed, with
        /// a failed result or status, so that the client converts locally).
        failure: Option<&'a str>,
        /// How long it took.
        elapsed: Duration,
    },
}

/// A worker's identity and what it can run.
#[derive(Clone, Debug)]
pub struct WorkerOptions {
    /// The bot's id within the farm (unique; say the host name and a number).
    pub bot_id: String,
    /// The GLSL compiler's version line, when it has one (GLSL actions need the same).
    pub glsl_tool: Option<String>,
    /// Threads one conversion may use (0: one per core). A farm runs one worker per core
    /// with 1, so that each worker keeps one core busy.
    pub threads: usize,
}

/// How often a worker running a lease tells the server it is alive (BuildGrid's test
/// configuration forgets a bot after 5 s of silence).
const KEEPALIVE: Duration = Duration::from_secs(1);

/// The `type_url` of an `Any` holding message `name`.
fn type_url(name: &str) -> String {
    format!("type.googleapis.com/{name}")
}

impl Remote {
    fn bots_client(&self) -> BotsClient<tonic::transport::Channel> {
        BotsClient::new(self.channel.clone())
            .max_decoding_message_size(MAX_MESSAGE)
            .max_encoding_message_size(MAX_MESSAGE)
    }

    /// Runs a worker until `stop` is set: leases are taken one at a time, each finished before
    /// the worker stops, the session kept alive while it runs. Returns how many leases it ran.
    /// A session the server forgot (expired) is opened again; a server that goes away ends
    /// the worker with the error.
    pub fn run_worker(
        &self,
        opts: &WorkerOptions,
        stop: &AtomicBool,
        on_event: &(dyn Fn(&WorkerEvent<'_>) + Sync),
    ) -> Result<u64, RemoteError> {
        // One pool for every lease: its threads (and their allocator arenas) stay warm.
        let pool = rayon::ThreadPoolBuilder::new()
            .num_threads(opts.threads)
            .thread_name(|i| format!("voxcaf-worker-{i}"))
            .build()
            .map_err(|e| RemoteError::Threads(e.to_string()))?;
        let mut session = self.create_session(opts)?;
        on_event(&WorkerEvent::Joined {
            session: &session.name,
        });
        let mut ran = 0;
        // Leases this worker completed, while the server still lists them.
        let mut done: HashSet<String> = HashSet::new();
        loop {
            if stop.load(Ordering::SeqCst) {
                // The last lease's completion goes with the goodbye.
                session.status = BotStatus::BotTerminating as i32;
                session
                    .leases
                    .retain(|l| l.state == LeaseState::Completed as i32);
                let _ = self.update_session(&session);
                return Ok(ran);
            }
            // Idle: a stop ends the wait for work at once.
            let answer = match self.poll_session(&session, stop) {
                Ok(Some(answer)) => answer,
                Ok(None) => continue,
                Err(RemoteError::Status {
                    code: tonic::Code::InvalidArgument | tonic::Code::NotFound,
                    ..
                }) => {
                    session = self.create_session(opts)?;
                    continue;
                }
                Err(e) => return Err(e),
            };
            session.leases = answer.leases;
            session.version = answer.version;
            done.retain(|id| session.leases.iter().any(|l| &l.id == id));
            // BuildGrid hands leases out ACTIVE already; the API says PENDING.
            let Some(i) = session.leases.iter().position(|l| {
                (l.state == LeaseState::Pending as i32 || l.state == LeaseState::Active as i32)
                    && !done.contains(&l.id)
            }) else {
                continue;
            };
            session.leases[i].state = LeaseState::Active as i32;
            let t = Instant::now();
            let lease = session.leases[i].clone();
            let run = self.run_keeping_alive(opts, &pool, &lease, &mut session);
            on_event(&WorkerEvent::Ran {
                action: &run.action,
                source: &run.source,
                failure: run.failure.as_deref(),
                elapsed: t.elapsed(),
            });
            // Reported by the next poll.
            if let Some(l) = session.leases.iter_mut().find(|l| l.id == lease.id) {
                l.state = LeaseState::Completed as i32;
                l.status = Some(run.status);
                l.result = run.result.map(|r| prost_types::Any {
                    type_url: type_url("build.bazel.remote.execution.v2.ActionResult"),
                    value: prost::Message::encode_to_vec(&r),
                });
                l.payload = None;
            }
            done.insert(lease.id);
            ran += 1;
        }
    }

    /// Opens a bot session for this worker.
    fn create_session(&self, opts: &WorkerOptions) -> Result<BotSession, RemoteError> {
        let session = BotSession {
            bot_id: opts.bot_id.clone(),
            status: BotStatus::Ok as i32,
            worker: Some(worker_description(opts)),
            version: String::new(),
            ..Default::default()
        };
        let request = CreateBotSessionRequest {
            parent: self.instance.clone(),
            bot_session: Some(session),
        };
        self.block_on(async {
            let mut client = self.bots_client();
            client
                .create_bot_session(request)
                .await
                .map(tonic::Response::into_inner)
                .map_err(|s| RemoteError::status("CreateBotSession", &s))
        })
    }

    /// Runs `lease` on a thread of its own while this one tells the server, every
    /// [`KEEPALIVE`], that the lease is still active (a server forgets a silent bot within
    /// seconds and gives its lease to another).
    fn run_keeping_alive(
        &self,
        opts: &WorkerOptions,
        pool: &rayon::ThreadPool,
        lease: &Lease,
        session: &mut BotSession,
    ) -> LeaseRun {
        std::thread::scope(|scope| {
            // The lease's thread says when it ends (also when it panics: the sender drops),
            // so its completion is reported at once, not at this thread's next look.
            let (ended, end) = std::sync::mpsc::channel::<()>();
            let running = scope.spawn(move || {
                let _ended = ended;
                self.run_lease(opts, pool, lease)
            });
            while let Err(std::sync::mpsc::RecvTimeoutError::Timeout) = end.recv_timeout(KEEPALIVE)
            {
                // A failed keepalive is tried again on the next beat.
                if let Ok(answer) = self.update_session(session) {
                    session.version = answer.version;
                }
            }
            running.join().unwrap_or_else(|_| LeaseRun {
                status: Status {
                    code: tonic::Code::Internal as i32,
                    message: "the worker panicked".into(),
                    details: Vec::new(),
                },
                failure: Some("the worker panicked".into()),
                ..LeaseRun::default()
            })
        })
    }

    /// [`Remote::update_session`] given up (`None`) as soon as `stop` is set.
    fn poll_session(
        &self,
        session: &BotSession,
        stop: &AtomicBool,
    ) -> Result<Option<BotSession>, RemoteError> {
        let request = UpdateBotSessionRequest {
            name: session.name.clone(),
            bot_session: Some(session.clone()),
            update_mask: None,
        };
        self.block_on(async {
            let mut client = self.bots_client();
            let update = Box::pin(client.update_bot_session(request));
            let stopped = Box::pin(async {
                while !stop.load(Ordering::SeqCst) {
                    tokio::time::sleep(Duration::from_millis(100)).await;
                }
            });
            let answer = match futures::future::select(update, stopped).await {
                futures::future::Either::Left((answer, _)) => answer
                    .map(|a| Some(a.into_inner()))
                    .map_err(|s| RemoteError::status("UpdateBotSession", &s)),
                futures::future::Either::Right(_) => Ok(None),
            };
            answer
        })
    }

    fn update_session(&self, session: &BotSession) -> Result<BotSession, RemoteError> {
        let never = AtomicBool::new(false);
        // Not stopped, so always an answer.
        self.poll_session(session, &never)
            .map(Option::unwrap_or_default)
    }

    /// Runs one lease's action; never fails: what goes wrong is the lease's status (the
    /// action was not ours to run) or a failed result (the conversion failed).
    fn run_lease(&self, opts: &WorkerOptions, pool: &rayon::ThreadPool, lease: &Lease) -> LeaseRun {
        let mut run = LeaseRun::default();
        let outcome = self.lease_action(opts, pool, lease, &mut run);
        match outcome {
            Ok(result) => {
                if result.exit_code != 0 {
                    run.failure = Some(String::from_utf8_lossy(&result.stderr_raw).into_owned());
                }
                run.result = Some(result);
            }
            Err((code, message)) => {
                run.status = Status {
                    code: code as i32,
                    message: message.clone(),
                    details: Vec::new(),
                };
                run.failure = Some(message);
            }
        }
        run
    }

    /// The action of a lease run to its result, or the status code and message of a lease
    /// that cannot be run.
    fn lease_action(
        &self,
        opts: &WorkerOptions,
        pool: &rayon::ThreadPool,
        lease: &Lease,
        run: &mut LeaseRun,
    ) -> Result<ActionResult, (tonic::Code, String)> {
        let remote = |e: RemoteError| (tonic::Code::Unavailable, e.to_string());
        let refuse = |m: String| (tonic::Code::InvalidArgument, m);
        let payload = lease
            .payload
            .as_ref()
            .ok_or_else(|| refuse("a lease without a payload".into()))?;
        let action: Action = if holds(payload, "build.bazel.remote.execution.v2.Action") {
            decode(&payload.value).map_err(refuse)?
        } else if holds(payload, "build.bazel.remote.execution.v2.Digest") {
            let digest: Digest = decode(&payload.value).map_err(refuse)?;
            run.action = digest.hash.clone();
            decode(&self.blob(&digest).map_err(remote)?).map_err(refuse)?
        } else {
            return Err(refuse(format!("a payload of type {}", payload.type_url)));
        };
        if run.action.is_empty() {
            run.action = crate::digest_of_message(&action).hash;
        }
        let no = |what: &str| refuse(format!("an action without {what}"));
        let command_digest = action
            .command_digest
            .as_ref()
            .ok_or_else(|| no("a command"))?;
        let root = action
            .input_root_digest
            .as_ref()
            .ok_or_else(|| no("an input root"))?;
        let command: Command =
            decode(&self.blob(command_digest).map_err(remote)?).map_err(refuse)?;
        let args = ours(&command).map_err(refuse)?;
        run.source = args[1].clone();
        accepts(&action, opts.glsl_tool.as_deref())
            .map_err(|m| (tonic::Code::FailedPrecondition, m))?;
        let dir = tempfile::tempdir().map_err(|e| (tonic::Code::Internal, e.to_string()))?;
        materialize(root, &|d| self.blob(d), dir.path()).map_err(remote)?;
        let converted = std::panic::catch_unwind(std::panic::AssertUnwindSafe(|| {
            pool.install(|| run_conversion(dir.path(), args))
        }));
        let mut result = ActionResult {
            execution_metadata: Some(ExecutedActionMetadata {
                worker: opts.bot_id.clone(),
                ..Default::default()
            }),
            ..Default::default()
        };
        match converted {
            Ok(Ok(_)) => {
                let files = output_files(&dir.path().join(OUTPUT_DIR))
                    .map_err(|e| (tonic::Code::Internal, e.to_string()))?;
                let digests: Vec<Digest> = files.iter().map(|(_, b)| digest_of(b)).collect();
                let missing = self.find_missing(&digests).map_err(remote)?;
                let send: Vec<(Digest, &[u8])> = digests
                    .iter()
                    .zip(&files)
                    .filter(|(d, _)| missing.contains(d))
                    .map(|(d, (_, b))| (d.clone(), b.as_slice()))
                    .collect();
                self.upload(&send).map_err(remote)?;
                for ((name, _), digest) in files.iter().zip(digests) {
                    result.output_files.push(OutputFile {
                        path: format!("{OUTPUT_DIR}/{name}"),
                        digest: Some(digest),
                        ..Default::default()
                    });
                }
            }
            Ok(Err(e)) => {
                result.exit_code = 1;
                result.stderr_raw = format!("error: {e}\n").into_bytes();
            }
            Err(_) => {
                result.exit_code = 101;
                result.stderr_raw = b"error: the conversion panicked\n".to_vec();
            }
        }
        Ok(result)
    }

    /// One blob from the CAS.
    fn blob(&self, digest: &Digest) -> Result<Vec<u8>, RemoteError> {
        let mut blobs = self.download(std::slice::from_ref(digest))?;
        blobs.pop().ok_or_else(|| RemoteError::NotFound {
            digest: digest.clone(),
        })
    }
}

/// What running a lease gave.
#[derive(Default)]
struct LeaseRun {
    action: String,
    source: String,
    status: Status,
    result: Option<ActionResult>,
    failure: Option<String>,
}

fn decode<M: prost::Message + Default>(bytes: &[u8]) -> Result<M, String> {
    M::decode(bytes).map_err(|e| format!("a malformed message: {e}"))
}

/// The arguments after `voxcaf asset convert-action` of a command of ours (§2.1), or why it
/// is not one.
fn ours(command: &Command) -> Result<&[String], String> {
    let a = &command.arguments;
    let argv0_ok = a.len() == ARGV0.len() + 2 && a.iter().zip(ARGV0).all(|(x, y)| x == y);
    if !argv0_ok || !command.environment_variables.is_empty() {
        return Err(format!("not a conversion command: {:?}", a));
    }
    Ok(&a[ARGV0.len()..])
}

/// Whether this worker's code is the code the action names (`voxcaf-code`, the converter
/// revision, the version; the GLSL compiler for GLSL actions).
fn accepts(action: &Action, glsl_tool: Option<&str>) -> Result<(), String> {
    let wanted = action.platform.clone().unwrap_or_default().properties;
    let ours = platform(glsl_tool).properties;
    for w in &wanted {
        match ours.iter().find(|o| o.name == w.name) {
            Some(o) if o.value == w.value => {}
            Some(o) => {
                return Err(format!(
                    "the action wants {} {:?}; this worker has {:?}",
                    w.name, w.value, o.value
                ))
            }
            None => {
                return Err(format!(
                    "this worker has no {} (the action wants {:?})",
                    w.name, w.value
                ))
            }
        }
    }
    Ok(())
}

/// The worker as the bot session describes it: one device named by the bot, with the
/// properties an action's platform names (so a scheduler can match them).
fn worker_description(opts: &WorkerOptions) -> Worker {
    let properties = platform(opts.glsl_tool.as_deref())
        .properties
        .into_iter()
        .map(|p| device::Property {
            key: p.name,
            value: p.value,
        })
        .collect();
    Worker {
        devices: vec![Device {
            handle: opts.bot_id.clone(),
            properties,
        }],
        ..Default::default()
    }
}

/// The files under `dir` (relative, `/`-separated) with their bytes, sorted by name.
fn output_files(dir: &std::path::Path) -> std::io::Result<Vec<(String, Vec<u8>)>> {
    let mut files = Vec::new();
    let mut todo = vec![dir.to_path_buf()];
    while let Some(d) = todo.pop() {
        for e in std::fs::read_dir(&d)? {
            let p = e?.path();
            if p.is_dir() {
                todo.push(p);
            } else {
                let rel = p.strip_prefix(dir).unwrap_or(&p);
                let name = rel
                    .components()
                    .map(|c| c.as_os_str().to_string_lossy())
                    .collect::<Vec<_>>()
                    .join("/");
                files.push((name, std::fs::read(&p)?));
            }
        }
    }
    files.sort();
    Ok(files)
}
