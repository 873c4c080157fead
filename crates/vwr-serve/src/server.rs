//! The HTTP server: routes, the token and Origin/Host checks, request-size limits, the
//! autosave task, and a handle to run it from synchronous code.

use std::net::SocketAddr;

use crate::SaveMode;
use std::sync::{Arc, Mutex, MutexGuard};
use std::time::Duration;

use axum::body::Bytes;
use axum::extract::{DefaultBodyLimit, Extension, Path, Query, Request, State};
use axum::http::{header, HeaderValue, StatusCode};
use axum::middleware::{self, Next};
use axum::response::{IntoResponse, Response};
use axum::routing::{get, post};
use axum::{Json, Router};
use serde::Serialize;

use crate::error::{Result, ServeError};
use crate::session::{Session, SessionOptions};
use crate::team::{self, Hub, User, Users};

/// The page, embedded in the binary. Its modules and style sheet are served under
/// `/page/TOKEN/` (see [`PAGE_FILES`]), so that the browser's requests for them, relative
/// module imports included, carry the session token.
const INDEX_HTML: &str = include_str!("../assets/index.html");

/// The `(name, content type, text)` rows of [`PAGE_FILES`], each file embedded from
/// `assets/` under its own name (so that a row's name and embedded file cannot differ).
macro_rules! page_files {
    ($($name:literal => $ty:expr),+ $(,)?) => {
        &[$(($name, $ty, include_str!(concat!("../assets/", $name)))),+]
    };
}

/// The page's files besides `index.html`: name, content type, text. The ES modules import
/// each other by relative URL; `main.js` is the entry point.
const PAGE_FILES: &[(&str, &str, &str)] = page_files![
    "style.css" => CSS,
    "main.js" => JS,
    "state.js" => JS,
    "dom.js" => JS,
    "api.js" => JS,
    "wire.js" => JS,
    "pick.js" => JS,
    "camera.js" => JS,
    "render.js" => JS,
    "ui.js" => JS,
    "tools.js" => JS,
    "actions.js" => JS,
    "playtest.js" => JS,
    "team.js" => JS,
    "help.js" => JS,
    "overlay.js" => JS,
    "watertight.js" => JS,
    "lod.js" => JS,
];
const JS: &str = "text/javascript; charset=utf-8";
const CSS: &str = "text/css; charset=utf-8";

/// The page's Content-Security-Policy: its own scripts and style sheet only (no inline
/// script or style), requests to this server only.
const PAGE_CSP: &str = "default-src 'none'; script-src 'self'; style-src 'self'; connect-src 'self'; img-src 'self' data:; frame-ancestors 'none'";

/// The Content-Security-Policy of every other answer: nothing may frame it either.
const NO_FRAMES_CSP: &str = "frame-ancestors 'none'";

/// How a server is set up.
#[derive(Clone, Debug)]
pub struct ServerOptions {
    /// Where to listen (loopback by default; port 0 picks a free port).
    pub addr: SocketAddr,
    /// The session's limits.
    pub session: SessionOptions,
    /// The largest request body accepted (edit scripts), in bytes.
    pub max_body: usize,
    /// How often the autosave journal is brought up to date.
    pub autosave_every: Duration,
    /// The session token; `None` makes a random one.
    pub token: Option<String>,
    /// Host names (or addresses) a request may name in its `Host` header besides the
    /// listening address, `localhost` and `127.0.0.1`: the names others reach this machine by
    /// when it serves beyond loopback (`--allow-host NAME`).
    pub allow_hosts: Vec<String>,
}

impl Default for ServerOptions {
    fn default() -> Self {
        ServerOptions {
            addr: SocketAddr::from(([127, 0, 0, 1], 0)),
            session: SessionOptions::default(),
            max_body: 256 * 1024,
            autosave_every: Duration::from_secs(1),
            token: None,
            allow_hosts: Vec::new(),
        }
    }
}

pub(crate) struct AppState {
    session: Mutex<Session>,
    /// The owner and the invitations.
    pub(crate) users: Users,
    /// The push to the pages.
    pub(crate) hub: Hub,
    /// The listening address (for invitation URLs).
    pub(crate) addr: SocketAddr,
    /// Host header values a request may carry (`127.0.0.1:PORT`, `localhost:PORT`, ...).
    hosts: Vec<String>,
}

impl AppState {
    fn session(&self) -> MutexGuard<'_, Session> {
        // A panic while holding the lock would be a bug; the session stays usable.
        self.session.lock().unwrap_or_else(|e| e.into_inner())
    }
}

/// A server running on its own threads; dropping the handle does not stop it, call
/// [`RunningServer::shutdown`].
pub struct RunningServer {
    addr: SocketAddr,
    token: String,
    state: Arc<AppState>,
    stop: Option<tokio::sync::oneshot::Sender<()>>,
    thread: Option<std::thread::JoinHandle<std::io::Result<()>>>,
}

impl std::fmt::Debug for RunningServer {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("RunningServer")
            .field("addr", &self.addr)
            .finish_non_exhaustive()
    }
}

/// A random token of 32 hex digits (128 bits from the operating system).
pub(crate) fn random_token() -> Result<String> {
    let mut b = [0u8; 16];
    getrandom::fill(&mut b).map_err(|e| ServeError::Random(e.to_string()))?;
    Ok(b.iter().map(|x| format!("{x:02x}")).collect())
}

/// Opens `file` and starts serving it on a background runtime. Returns once the socket is
/// listening.
pub fn start(file: &std::path::Path, opts: ServerOptions) -> Result<RunningServer> {
    let session = Session::open(file, opts.session)?;
    serve(session, opts)
}

/// Opens the world in a database `loc` names (database mode: every edit committed at once,
/// other editors' commits pulled; see [`Session::open_db`]) and starts serving it.
pub fn start_db(loc: &vwr_postgres::PgLocation, opts: ServerOptions) -> Result<RunningServer> {
    let session = Session::open_db(loc, opts.session)?;
    serve(session, opts)
}

/// Serves `session` on a background runtime; returns once the socket is listening.
fn serve(session: Session, opts: ServerOptions) -> Result<RunningServer> {
    let token = match opts.token.clone() {
        Some(t) => t,
        None => random_token()?,
    };
    let std_listener =
        std::net::TcpListener::bind(opts.addr).map_err(|source| ServeError::Bind {
            addr: opts.addr.to_string(),
            source,
        })?;
    let addr = std_listener
        .local_addr()
        .map_err(|source| ServeError::Bind {
            addr: opts.addr.to_string(),
            source,
        })?;
    std_listener
        .set_nonblocking(true)
        .map_err(|source| ServeError::Bind {
            addr: addr.to_string(),
            source,
        })?;
    let port = addr.port();
    let mut hosts = vec![
        addr.to_string(),
        format!("localhost:{port}"),
        format!("127.0.0.1:{port}"),
        format!("[::1]:{port}"),
    ];
    hosts.extend(opts.allow_hosts.iter().map(|h| format!("{h}:{port}")));
    hosts.dedup();
    let state = Arc::new(AppState {
        session: Mutex::new(session),
        users: Users::new(token.clone()),
        hub: Hub::new(),
        addr,
        hosts,
    });
    let poll_db = state.session().is_db().then(|| Arc::downgrade(&state));
    let app = router(state.clone(), opts.max_body);
    let (stop_tx, stop_rx) = tokio::sync::oneshot::channel::<()>();
    let autosave_state = state.clone();
    let every = opts.autosave_every;
    let rt = tokio::runtime::Builder::new_multi_thread()
        .worker_threads(2)
        .enable_all()
        .build()
        .map_err(|source| ServeError::Bind {
            addr: addr.to_string(),
            source,
        })?;
    let thread = std::thread::Builder::new()
        .name("vwr-serve".into())
        .spawn(move || {
            rt.block_on(async move {
                let listener = tokio::net::TcpListener::from_std(std_listener)?;
                tokio::spawn(async move {
                    let first = tokio::time::Instant::now() + every;
                    let mut tick = tokio::time::interval_at(first, every);
                    loop {
                        tick.tick().await;
                        // An autosave that fails is retried on the next tick; the page shows
                        // the journal state through the summary. Writing the journal (and
                        // waiting for the session's lock) happens on the blocking pool.
                        let st = autosave_state.clone();
                        let _ = tokio::task::spawn_blocking(move || {
                            // The copy under the lock, the encoding without it.
                            let job = st.session().journal_job();
                            job.map(|job| {
                                let bytes = job.encode();
                                st.session().journal_done(job, &bytes)
                            })
                        })
                        .await;
                    }
                });
                if let Some(st) = poll_db {
                    tokio::spawn(poll_database(st));
                }
                axum::serve(listener, app)
                    .with_graceful_shutdown(async move {
                        let _ = stop_rx.await;
                    })
                    .await
            })
        })
        .map_err(|source| ServeError::Bind {
            addr: addr.to_string(),
            source,
        })?;
    Ok(RunningServer {
        addr,
        token,
        state,
        stop: Some(stop_tx),
        thread: Some(thread),
    })
}

impl RunningServer {
    /// The address the server listens on.
    pub fn addr(&self) -> SocketAddr {
        self.addr
    }

    /// The session token.
    pub fn token(&self) -> &str {
        &self.token
    }

    /// The URL of the editor page, with the token.
    pub fn url(&self) -> String {
        format!("http://{}/?token={}", self.addr, self.token)
    }

    /// Runs `f` on the session (for callers that embed the server).
    pub fn with_session<T>(&self, f: impl FnOnce(&mut Session) -> T) -> T {
        f(&mut self.state.session())
    }

    /// Stops accepting requests, finishes those in flight, and brings the autosave journal up
    /// to date (unsaved edits survive in it).
    pub fn shutdown(mut self) -> Result<()> {
        self.stop_now()
    }

    fn stop_now(&mut self) -> Result<()> {
        self.state.hub.close();
        if let Some(s) = self.stop.take() {
            let _ = s.send(());
        }
        if let Some(t) = self.thread.take() {
            match t.join() {
                Ok(Ok(())) => {}
                Ok(Err(source)) => {
                    return Err(ServeError::Bind {
                        addr: self.addr.to_string(),
                        source,
                    })
                }
                Err(_) => {}
            }
        }
        self.state.session().autosave().map(|_| ())
    }
}

/// The routes, behind the security checks and the body limit.
fn router(state: Arc<AppState>, max_body: usize) -> Router {
    Router::new()
        .route("/", get(index))
        .route("/page/{token}/{file}", get(page_file))
        .route("/api/world", get(world))
        .route("/api/blocks", get(blocks))
        .route("/api/chunks", get(chunks))
        .route("/api/lod", get(lod))
        .route("/api/sync", get(sync))
        .route("/api/layer", get(layer))
        .route("/api/chunk-stats", get(chunk_stats))
        .route("/api/ops", post(ops))
        .route("/api/undo", post(undo))
        .route("/api/redo", post(redo))
        .route("/api/save", post(save))
        .route("/api/reload", post(reload))
        .route("/api/recover", post(recover))
        .route("/api/discard-journal", post(discard))
        .route("/api/play/start", post(play_start))
        .route("/api/play/step", post(play_step))
        .route("/api/play/stop", post(play_stop))
        .route("/api/events", get(team::events))
        .route("/api/log", get(team::log))
        .route("/api/timeline", get(team::timeline))
        .route("/api/invite", post(team::invite))
        .route("/api/revoke", post(team::revoke))
        .route("/api/users", get(team::users))
        .route("/api/presence", post(team::presence))
        .fallback(not_found)
        .layer(middleware::from_fn_with_state(state.clone(), guard))
        .layer(DefaultBodyLimit::max(max_body))
        .layer(middleware::from_fn(shape))
        .with_state(state)
}

async fn not_found() -> Response {
    error(StatusCode::NOT_FOUND, "not-found", "no such page or API")
}

/// Every answer: never framed by another page (`frame-ancestors 'none'`, `X-Frame-Options:
/// DENY`), and every refusal in the documented JSON shape, also those axum makes itself (a
/// body over the limit, a malformed query, a wrong method), whose text becomes the message.
async fn shape(req: Request, next: Next) -> Response {
    let mut r = as_json(next.run(req).await).await;
    let h = r.headers_mut();
    h.insert(header::X_FRAME_OPTIONS, HeaderValue::from_static("DENY"));
    if !h.contains_key(header::CONTENT_SECURITY_POLICY) {
        h.insert(
            header::CONTENT_SECURITY_POLICY,
            HeaderValue::from_static(NO_FRAMES_CSP),
        );
    }
    r
}

/// A refusal that is not JSON yet, in the JSON shape; anything else as it is.
async fn as_json(r: Response) -> Response {
    let status = r.status();
    let json = r
        .headers()
        .get(header::CONTENT_TYPE)
        .is_some_and(|c| c.as_bytes().starts_with(b"application/json"));
    if !(status.is_client_error() || status.is_server_error()) || json {
        return r;
    }
    let text = axum::body::to_bytes(r.into_body(), 64 * 1024)
        .await
        .map(|b| String::from_utf8_lossy(&b).trim().to_string())
        .unwrap_or_default();
    let message = if text.is_empty() {
        status
            .canonical_reason()
            .unwrap_or("refused")
            .to_lowercase()
    } else {
        text
    };
    let kind = match status {
        StatusCode::PAYLOAD_TOO_LARGE => "too-large",
        StatusCode::METHOD_NOT_ALLOWED => "method",
        StatusCode::NOT_FOUND => "not-found",
        s if s.is_server_error() => "internal",
        _ => "bad-request",
    };
    error(status, kind, message)
}

/// The JSON body of a refused request: `{"ok": false, "error": {...}}`.
#[derive(Serialize)]
struct Failure {
    ok: bool,
    error: FailureInfo,
}

#[derive(Serialize)]
struct FailureInfo {
    kind: &'static str,
    message: String,
    /// The script's refused lines (script errors only).
    #[serde(skip_serializing_if = "Option::is_none")]
    lines: Option<Vec<LineFailure>>,
}

#[derive(Serialize)]
struct LineFailure {
    line: Option<usize>,
    message: String,
}

fn failure(status: StatusCode, error: FailureInfo) -> Response {
    (status, Json(Failure { ok: false, error })).into_response()
}

pub(crate) fn error(
    status: StatusCode,
    kind: &'static str,
    message: impl Into<String>,
) -> Response {
    let error = FailureInfo {
        kind,
        message: message.into(),
        lines: None,
    };
    failure(status, error)
}

impl IntoResponse for ServeError {
    fn into_response(self) -> Response {
        let status = match &self {
            ServeError::Io { .. } | ServeError::Bind { .. } | ServeError::Random(_) => {
                StatusCode::INTERNAL_SERVER_ERROR
            }
            ServeError::NoJournal
            | ServeError::Conflict { .. }
            | ServeError::Locked { .. }
            | ServeError::Refused { .. } => StatusCode::CONFLICT,
            ServeError::FillLimit { .. } => StatusCode::PAYLOAD_TOO_LARGE,
            _ => StatusCode::BAD_REQUEST,
        };
        let lines = match &self {
            ServeError::Script { errors } => Some(
                errors
                    .iter()
                    .map(|e| LineFailure {
                        line: e.line(),
                        message: e.to_string(),
                    })
                    .collect(),
            ),
            _ => None,
        };
        let error = FailureInfo {
            kind: self.kind(),
            message: self.to_string(),
            lines,
        };
        failure(status, error)
    }
}

/// Whether two strings are equal, in time independent of where they differ.
pub(crate) fn same_token(a: &str, b: &str) -> bool {
    a.len() == b.len()
        && a.bytes()
            .zip(b.bytes())
            .fold(0u8, |acc, (x, y)| acc | (x ^ y))
            == 0
}

/// The token of a request: the `X-Voxcaf-Token` header, the `token` query parameter, or the
/// path of the page's files (`/page/TOKEN/FILE`).
fn request_token(req: &Request) -> Option<String> {
    if let Some(h) = req.headers().get("x-voxcaf-token") {
        return h.to_str().ok().map(str::to_string);
    }
    if let Some(rest) = req.uri().path().strip_prefix("/page/") {
        return rest.split_once('/').map(|(t, _)| t.to_string());
    }
    let q = req.uri().query()?;
    q.split('&').find_map(|kv| {
        let (k, v) = kv.split_once('=')?;
        (k == "token").then(|| v.to_string())
    })
}

/// Host and Origin checks (403: DNS rebinding and cross-origin requests), then the token
/// (401).
async fn guard(State(st): State<Arc<AppState>>, mut req: Request, next: Next) -> Response {
    let host = req
        .headers()
        .get(header::HOST)
        .and_then(|h| h.to_str().ok())
        .unwrap_or("");
    if !st.hosts.iter().any(|h| h == host) {
        return error(
            StatusCode::FORBIDDEN,
            "forbidden",
            format!("foreign Host header {host:?}: open the URL the server printed"),
        );
    }
    if let Some(origin) = req.headers().get(header::ORIGIN) {
        let ok = origin.to_str().ok().is_some_and(|o| {
            o.strip_prefix("http://")
                .is_some_and(|h| st.hosts.iter().any(|x| x == h))
        });
        if !ok {
            return error(
                StatusCode::FORBIDDEN,
                "forbidden",
                "cross-origin requests are refused",
            );
        }
    }
    match request_token(&req).map(|t| st.users.find(&t)) {
        Some(Some(user)) => {
            let post = req.method() == axum::http::Method::POST;
            if let Err(why) = team::allowed(user.role, post, req.uri().path()) {
                return error(StatusCode::FORBIDDEN, "forbidden", why);
            }
            req.extensions_mut().insert(user);
            next.run(req).await
        }
        Some(None) => error(
            StatusCode::UNAUTHORIZED,
            "token",
            "wrong session token (or a revoked invitation)",
        ),
        None => error(
            StatusCode::UNAUTHORIZED,
            "token",
            "missing session token: open the URL the server printed (it carries ?token=...)",
        ),
    }
}

fn no_store(mut r: Response) -> Response {
    r.headers_mut()
        .insert(header::CACHE_CONTROL, HeaderValue::from_static("no-store"));
    r
}

async fn index(Extension(me): Extension<User>) -> Response {
    let html = INDEX_HTML.replace("/*BASE*/", &format!("/page/{}/", me.token));
    let mut r = ([(header::CONTENT_TYPE, "text/html; charset=utf-8")], html).into_response();
    r.headers_mut().insert(
        header::CONTENT_SECURITY_POLICY,
        HeaderValue::from_static(PAGE_CSP),
    );
    no_store(r)
}

/// One of the page's modules or its style sheet (the guard has checked the token in the
/// path).
async fn page_file(Path((_, name)): Path<(String, String)>) -> Response {
    match PAGE_FILES.iter().find(|(n, _, _)| *n == name) {
        Some((_, content_type, text)) => {
            let mut r = ([(header::CONTENT_TYPE, *content_type)], *text).into_response();
            r.headers_mut().insert(
                header::X_CONTENT_TYPE_OPTIONS,
                HeaderValue::from_static("nosniff"),
            );
            no_store(r)
        }
        None => error(
            StatusCode::NOT_FOUND,
            "not-found",
            format!("the page has no file {name:?}"),
        ),
    }
}

/// Runs `f` on the session on the blocking pool: meshing, saving and long scripts never stall
/// the runtime's threads (a panic inside goes on unwinding here, as it would inline).
pub(crate) async fn on_session<T, F>(st: Arc<AppState>, f: F) -> T
where
    F: FnOnce(&mut Session) -> T + Send + 'static,
    T: Send + 'static,
{
    match tokio::task::spawn_blocking(move || f(&mut st.session())).await {
        Ok(v) => v,
        Err(e) => std::panic::resume_unwind(e.into_panic()),
    }
}

async fn world(State(st): State<Arc<AppState>>, Extension(me): Extension<User>) -> Response {
    no_store(
        Json(on_session(st, move |s| s.summary_with_state_for(&me.name)).await).into_response(),
    )
}

async fn blocks(State(st): State<Arc<AppState>>) -> Response {
    no_store(Json(on_session(st, |s| s.blocks()).await).into_response())
}

#[derive(serde::Deserialize)]
struct Since {
    #[serde(default)]
    since: u32,
}

async fn chunks(State(st): State<Arc<AppState>>, Query(q): Query<Since>) -> Response {
    let body = on_session(st, move |s| s.chunks_since(q.since)).await;
    no_store(([(header::CONTENT_TYPE, "application/octet-stream")], body).into_response())
}

#[derive(serde::Deserialize)]
struct LodQuery {
    level: Option<String>,
    #[serde(default)]
    since: u32,
}

/// `GET /api/lod?level=K&since=EPOCH`: the closed meshes of level of detail K that changed
/// after EPOCH, in the binary chunk answer ([`crate::wire`]).
async fn lod(State(st): State<Arc<AppState>>, Query(q): Query<LodQuery>) -> Response {
    let level = match crate::session::parse_level(q.level.as_deref()) {
        Ok(k) => k,
        Err(e) => return e.into_response(),
    };
    match on_session(st, move |s| s.lod_since(level, q.since)).await {
        Ok(body) => {
            no_store(([(header::CONTENT_TYPE, "application/octet-stream")], body).into_response())
        }
        Err(e) => e.into_response(),
    }
}

#[derive(serde::Deserialize)]
struct LayerQuery {
    y: i32,
    x0: Option<i32>,
    z0: Option<i32>,
    x1: Option<i32>,
    z1: Option<i32>,
}

impl LayerQuery {
    /// The region's corners: none without `x0`, `z0`, `x1`, `z1`; refused when only some of
    /// them are given.
    fn region(&self) -> Result<Option<[[i32; 2]; 2]>> {
        match (self.x0, self.z0, self.x1, self.z1) {
            (Some(x0), Some(z0), Some(x1), Some(z1)) => Ok(Some([[x0, z0], [x1, z1]])),
            (None, None, None, None) => Ok(None),
            _ => Err(ServeError::LayerRegion {
                message: "a layer region needs all of x0, z0, x1 and z1 (its corners)".into(),
            }),
        }
    }
}

async fn layer(State(st): State<Arc<AppState>>, Query(q): Query<LayerQuery>) -> Response {
    let region = match q.region() {
        Ok(r) => r,
        Err(e) => return e.into_response(),
    };
    match on_session(st, move |s| s.layer(q.y, region)).await {
        Ok(v) => no_store(Json(v).into_response()),
        Err(e) => e.into_response(),
    }
}

async fn chunk_stats(State(st): State<Arc<AppState>>) -> Response {
    no_store(Json(on_session(st, |s| s.chunk_stats()).await).into_response())
}

/// Runs a change of the session as `me` and pushes what it changed to every page.
async fn change<T, F>(st: Arc<AppState>, me: User, f: F) -> Response
where
    F: FnOnce(&mut Session, &str) -> Result<T> + Send + 'static,
    T: Serialize + Send + 'static,
{
    let st2 = st.clone();
    result(
        on_session(st, move |s| {
            // Meshes not brought up to date here: what changed since `from`, this change or
            // any before it not pushed yet, goes out in the push.
            let from = s.epoch();
            let r = f(s, &me.name);
            team::push(&st2.hub, s, &me.name, from);
            r
        })
        .await,
    )
}

async fn ops(
    State(st): State<Arc<AppState>>,
    Extension(me): Extension<User>,
    body: Bytes,
) -> Response {
    let Ok(text) = String::from_utf8(body.to_vec()) else {
        return error(
            StatusCode::BAD_REQUEST,
            "script",
            "the edit script is not UTF-8 text",
        );
    };
    change(st, me, move |s, u| s.apply_script_as(u, &text)).await
}

/// A session's answer as JSON, or its error with the error's status.
fn result<T: Serialize>(r: Result<T>) -> Response {
    match r {
        Ok(v) => Json(v).into_response(),
        Err(e) => e.into_response(),
    }
}

async fn undo(State(st): State<Arc<AppState>>, Extension(me): Extension<User>) -> Response {
    change(st, me, |s, u| s.undo_as(u)).await
}

async fn redo(State(st): State<Arc<AppState>>, Extension(me): Extension<User>) -> Response {
    change(st, me, |s, u| s.redo_as(u)).await
}

/// `GET /api/sync`: pulls other editors' commits (database mode), pushing what they changed
/// to every page and live link of this server too.
async fn sync(State(st): State<Arc<AppState>>) -> Response {
    let hub = st.clone();
    no_store(result(
        on_session(st, move |s| pull_and_push(&hub, s)).await,
    ))
}

/// Pulls other servers' commits into the session and pushes what they changed (no user: the
/// changes are other servers' people's).
fn pull_and_push(st: &AppState, s: &mut Session) -> Result<crate::answer::SyncAnswer> {
    let from = s.epoch();
    let r = s.sync();
    let note = r.as_ref().ok().and_then(|a| a.state.synced.clone());
    team::push_noted(&st.hub, s, "", from, note);
    r
}

/// How often a database server looks for other servers' commits while someone follows it.
const DB_POLL: std::time::Duration = std::time::Duration::from_secs(1);

/// Database mode: while a page or a live link follows this server's events, pulls other
/// servers' commits every [`DB_POLL`] and pushes them, so that a follower that never asks
/// (a game's live link) sees them too. Pages also pull when they poll `GET /api/sync`. The
/// task holds the state weakly: the session (and its database connection, whose drop may
/// not run on a runtime's thread) goes with the server.
async fn poll_database(weak: std::sync::Weak<AppState>) {
    let mut tick = tokio::time::interval(DB_POLL);
    tick.set_missed_tick_behavior(tokio::time::MissedTickBehavior::Delay);
    loop {
        tick.tick().await;
        if weak.strong_count() == 0 {
            return;
        }
        let weak = weak.clone();
        // The state is held on the blocking thread only. A failed pull (the database away)
        // is tried again at the next tick; the pages say so through their own syncs.
        let _ = tokio::task::spawn_blocking(move || {
            let st = weak.upgrade()?;
            if st.hub.followers() == 0 {
                return None;
            }
            let mut s = st.session();
            let from = s.epoch();
            // Nothing pulled (the usual tick): no answer built, nothing to push.
            let note = s.pull_others().ok().flatten()?;
            team::push_noted(&st.hub, &mut s, "", from, Some(note));
            Some(())
        })
        .await;
    }
}

#[derive(serde::Deserialize)]
struct SaveQuery {
    /// `overwrite`: save over a file that changed on disk.
    #[serde(default)]
    mode: String,
    /// Save as this new file (a name beside the opened one) and keep editing it.
    #[serde(default, rename = "as")]
    save_as: Option<String>,
}

async fn save(
    State(st): State<Arc<AppState>>,
    Extension(me): Extension<User>,
    Query(q): Query<SaveQuery>,
) -> Response {
    let mode = match (q.mode.as_str(), q.save_as) {
        (_, Some(name)) => SaveMode::As(name),
        ("overwrite", None) => SaveMode::Overwrite,
        ("", None) => SaveMode::Normal,
        (other, None) => {
            let m = format!("unknown save mode {other:?} (overwrite, or as=NAME)");
            return error(StatusCode::BAD_REQUEST, "usage", &m);
        }
    };
    change(st, me, move |s, u| s.save_by(u, mode)).await
}

async fn reload(State(st): State<Arc<AppState>>, Extension(me): Extension<User>) -> Response {
    change(st, me, |s, u| s.reload_by(u)).await
}

async fn recover(State(st): State<Arc<AppState>>, Extension(me): Extension<User>) -> Response {
    change(st, me, |s, _| s.recover()).await
}

async fn discard(State(st): State<Arc<AppState>>) -> Response {
    result(on_session(st, |s| s.discard_recovery()).await)
}

async fn play_start(State(st): State<Arc<AppState>>) -> Response {
    result(on_session(st, |s| s.play_start()).await)
}

#[derive(serde::Deserialize)]
struct StepQuery {
    #[serde(default = "no_keys")]
    keys: String,
    #[serde(default = "one_tick")]
    ticks: u32,
}

fn no_keys() -> String {
    "-".into()
}

fn one_tick() -> u32 {
    1
}

async fn play_step(State(st): State<Arc<AppState>>, Query(q): Query<StepQuery>) -> Response {
    result(on_session(st, move |s| s.play_step(&q.keys, q.ticks)).await)
}

async fn play_stop(State(st): State<Arc<AppState>>) -> Response {
    Json(on_session(st, |s| s.play_stop()).await).into_response()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn tokens_compare_whole() {
        assert!(same_token("abc", "abc"));
        assert!(!same_token("abc", "abd"));
        assert!(!same_token("abc", "ab"));
        assert!(!same_token("", "a"));
    }

    #[test]
    fn random_tokens_are_128_bits_and_differ() {
        let a = random_token().unwrap();
        let b = random_token().unwrap();
        assert_eq!(a.len(), 32);
        assert_ne!(a, b);
    }
}
