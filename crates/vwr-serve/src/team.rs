//! Several people on one server: the owner's token and the invitations (each its own token,
//! role `edit` or `view`, revocable), the push of committed operations to every page
//! (`GET /api/events`, Server-Sent Events), the log (`GET /api/log`) and presence (each
//! user's cursor cell and selection, shown to the others in the user's colour).

use std::collections::HashMap;
use std::convert::Infallible;
use std::sync::{Arc, Mutex};

use axum::extract::{Extension, Query, State};
use axum::http::StatusCode;
use axum::response::sse::{Event, KeepAlive, Sse};
use axum::response::{IntoResponse, Response};
use axum::Json;
use base64::Engine as _;
use serde::{Deserialize, Serialize};
use tokio::sync::broadcast;

use crate::server::{error, random_token, same_token, AppState};
use crate::session::{Session, OWNER};

/// What a token may do.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "lowercase")]
pub enum Role {
    /// The person who started the server: everything, and invites others.
    Owner,
    /// May edit, undo their own operations, save.
    Edit,
    /// May look and follow; every change is refused (403).
    View,
}

/// Who a request comes from.
#[derive(Clone, Debug, Serialize)]
pub struct User {
    /// The name the log and the other pages show.
    pub name: String,
    /// What they may do.
    pub role: Role,
    /// Their colour on the others' pages (`#rrggbb`).
    pub colour: &'static str,
    #[serde(skip)]
    pub(crate) token: String,
}

/// Colours given to users in turn.
const COLOURS: [&str; 8] = [
    "#e6194b", "#3cb44b", "#4363d8", "#f58231", "#911eb4", "#42d4f4", "#f032e6", "#bfef45",
];

/// The owner and the invitations.
#[derive(Debug)]
pub(crate) struct Users {
    owner: User,
    invited: Mutex<Vec<User>>,
    given: Mutex<usize>,
}

impl Users {
    pub(crate) fn new(token: String) -> Users {
        Users {
            owner: User {
                name: OWNER.into(),
                role: Role::Owner,
                colour: COLOURS[0],
                token,
            },
            invited: Mutex::new(Vec::new()),
            given: Mutex::new(1),
        }
    }

    /// The user whose token is `t`.
    pub(crate) fn find(&self, t: &str) -> Option<User> {
        if same_token(t, &self.owner.token) {
            return Some(self.owner.clone());
        }
        let invited = self.invited.lock().unwrap_or_else(|e| e.into_inner());
        invited.iter().find(|u| same_token(t, &u.token)).cloned()
    }

    fn invite(&self, name: &str, role: Role) -> crate::Result<User> {
        let mut invited = self.invited.lock().unwrap_or_else(|e| e.into_inner());
        let mut given = self.given.lock().unwrap_or_else(|e| e.into_inner());
        let base = name.trim();
        let mut name = base.to_string();
        let mut n = 2;
        while name == OWNER || invited.iter().any(|u| u.name == name) {
            name = format!("{base} ({n})");
            n += 1;
        }
        let u = User {
            name,
            role,
            colour: COLOURS[*given % COLOURS.len()],
            token: random_token()?,
        };
        *given += 1;
        invited.push(u.clone());
        Ok(u)
    }

    fn revoke(&self, token: &str) -> Option<User> {
        let mut invited = self.invited.lock().unwrap_or_else(|e| e.into_inner());
        let i = invited.iter().position(|u| same_token(token, &u.token))?;
        Some(invited.remove(i))
    }
}

/// Whether `role` may make a request to `path` with `post`: `Err` names why not.
pub(crate) fn allowed(role: Role, post: bool, path: &str) -> std::result::Result<(), &'static str> {
    let owner_only = matches!(path, "/api/invite" | "/api/revoke" | "/api/users");
    match role {
        Role::Owner => Ok(()),
        _ if owner_only => Err("only the owner (who started the server) manages invitations"),
        Role::View if post && path != "/api/presence" => {
            Err("a view invitation may look and follow, not change the world")
        }
        _ => Ok(()),
    }
}

/// The message that ends the event streams.
const CLOSE: &str = "close";

/// The message that ends the event stream of one revoked invitation (its name as data).
const REVOKED: &str = "revoked";

/// The push channel and the presences it last carried.
#[derive(Debug)]
pub(crate) struct Hub {
    tx: broadcast::Sender<Arc<(String, String)>>,
    presence: Mutex<HashMap<String, serde_json::Value>>,
}

impl Hub {
    pub(crate) fn new() -> Hub {
        Hub {
            tx: broadcast::channel(1024).0,
            presence: Mutex::new(HashMap::new()),
        }
    }

    /// Ends every event stream (the server is stopping: a graceful shutdown waits for open
    /// streams).
    pub(crate) fn close(&self) {
        self.send(CLOSE, String::new());
    }

    /// How many event streams follow the pushes now.
    pub(crate) fn followers(&self) -> usize {
        self.tx.receiver_count()
    }

    fn send(&self, kind: &str, data: String) {
        // No page listening is not an error.
        let _ = self.tx.send(Arc::new((kind.to_string(), data)));
    }
}

/// The event of a change the session made: the chunks that changed since the last push
/// (the binary chunk answer of [`crate::wire`], base64), numbered `from` → `epoch`.
#[derive(Serialize)]
struct Pushed<'a> {
    seq: Option<u64>,
    user: &'a str,
    label: Option<String>,
    from: u32,
    epoch: u32,
    chunks: String,
    world: crate::answer::WorldSummary,
    /// Database mode, other servers' commits pulled: what the page says of them.
    #[serde(skip_serializing_if = "Option::is_none")]
    note: Option<String>,
}

/// Pushes what the session changed after epoch `from` to every page; called with the
/// session locked, so that pushes go out in the order of the changes.
pub(crate) fn push(hub: &Hub, s: &mut Session, user: &str, from: u32) {
    push_noted(hub, s, user, from, None);
}

/// [`push`] with a `note` for the pages to show (other servers' commits pulled).
pub(crate) fn push_noted(hub: &Hub, s: &mut Session, user: &str, from: u32, note: Option<String>) {
    let Some((epoch, bytes, world)) = s.take_push(from) else {
        return;
    };
    let op = s.last_op().filter(|o| o.user == user);
    let p = Pushed {
        seq: op.as_ref().map(|o| o.seq),
        user,
        label: op.map(|o| o.label.clone()),
        from,
        epoch,
        chunks: base64::engine::general_purpose::STANDARD.encode(bytes),
        world,
        note,
    };
    if let Ok(data) = serde_json::to_string(&p) {
        hub.send("change", data);
    }
}

/// A page following the events: announced to the others when it connects, and gone from
/// their People lists when its stream is dropped (the page closed).
struct Following {
    st: Arc<AppState>,
    me: User,
    /// The stream ends at the next poll (its last event was sent).
    ended: bool,
}

impl Following {
    fn new(st: Arc<AppState>, me: User) -> Following {
        let v = presence_of(&me, None, None);
        st.hub.set_presence(&me.name, Some(v));
        Following {
            st,
            me,
            ended: false,
        }
    }

    fn ending(mut self) -> Following {
        self.ended = true;
        self
    }
}

impl Drop for Following {
    fn drop(&mut self) {
        self.st.hub.set_presence(&self.me.name, None);
    }
}

fn presence_of(
    me: &User,
    cell: Option<[i32; 3]>,
    selection: Option<[[i32; 3]; 2]>,
) -> serde_json::Value {
    serde_json::json!({
        "user": me.name, "colour": me.colour, "role": me.role,
        "cell": cell, "selection": selection,
    })
}

impl Hub {
    /// Records and pushes a user's presence (`None`: the user left).
    fn set_presence(&self, user: &str, v: Option<serde_json::Value>) {
        let mut p = self.presence.lock().unwrap_or_else(|e| e.into_inner());
        let data = match v {
            Some(v) => {
                p.insert(user.to_string(), v.clone());
                v
            }
            None => {
                p.remove(user);
                serde_json::json!({ "user": user, "gone": true })
            }
        };
        drop(p);
        self.send("presence", data.to_string());
    }
}

/// `GET /api/events`: the change and presence events, as Server-Sent Events. The first
/// event (`hello`) names the caller and the presences known.
pub(crate) async fn events(
    State(st): State<Arc<AppState>>,
    Extension(me): Extension<User>,
) -> Response {
    let rx = st.hub.tx.subscribe();
    let hello = {
        let p = st.hub.presence.lock().unwrap_or_else(|e| e.into_inner());
        serde_json::json!({ "me": me, "presence": p.values().collect::<Vec<_>>() }).to_string()
    };
    let first = futures_util::stream::once(async move {
        Ok::<Event, Infallible>(Event::default().event("hello").data(hello))
    });
    let following = Following::new(st.clone(), me);
    let rest = futures_util::stream::unfold((rx, following), |(mut rx, f)| async move {
        if f.ended {
            return None;
        }
        let e = loop {
            match rx.recv().await {
                Ok(m) if m.0 == CLOSE => return None,
                // A revoked invitation's stream ends after telling its page.
                Ok(m) if m.0 == REVOKED && m.1 != f.me.name => continue,
                Ok(m) if m.0 == REVOKED => {
                    let e = Event::default().event(REVOKED).data("{}");
                    return Some((Ok(e), (rx, f.ending())));
                }
                Ok(m) => break Event::default().event(m.0.as_str()).data(m.1.as_str()),
                // A page too slow to follow is told to fetch what it missed.
                Err(broadcast::error::RecvError::Lagged(_)) => {
                    break Event::default().event("lagged").data("{}")
                }
                Err(broadcast::error::RecvError::Closed) => return None,
            }
        };
        Some((Ok::<Event, Infallible>(e), (rx, f)))
    });
    use futures_util::StreamExt as _;
    Sse::new(first.chain(rest))
        .keep_alive(KeepAlive::default())
        .into_response()
}

/// A JSON request body (whatever its `Content-Type`), or the answer refusing it.
fn body<T: serde::de::DeserializeOwned>(
    b: &axum::body::Bytes,
) -> std::result::Result<T, Box<Response>> {
    serde_json::from_slice(b).map_err(|e| {
        Box::new(error(
            StatusCode::BAD_REQUEST,
            "usage",
            format!("the request body is not the JSON expected: {e}"),
        ))
    })
}

#[derive(Deserialize)]
pub(crate) struct InviteBody {
    role: Role,
    #[serde(default)]
    name: String,
}

/// `POST /api/invite` (owner only): `{"role": "edit"|"view", "name": "…"}` → the token and
/// the URL to give.
pub(crate) async fn invite(State(st): State<Arc<AppState>>, b: axum::body::Bytes) -> Response {
    let b: InviteBody = match body(&b) {
        Ok(b) => b,
        Err(r) => return *r,
    };
    if b.role == Role::Owner {
        return error(
            StatusCode::BAD_REQUEST,
            "usage",
            "invite as `edit` or `view`",
        );
    }
    let name = if b.name.trim().is_empty() {
        format!("{:?}", b.role).to_lowercase()
    } else {
        b.name
            .chars()
            .filter(|c| !c.is_control())
            .take(40)
            .collect()
    };
    match st.users.invite(&name, b.role) {
        Ok(u) => Json(serde_json::json!({
            "ok": true,
            "token": u.token,
            "url": format!("http://{}/?token={}", st.addr, u.token),
            "name": u.name,
            "role": u.role,
            "colour": u.colour,
        }))
        .into_response(),
        Err(e) => e.into_response(),
    }
}

#[derive(Deserialize)]
pub(crate) struct RevokeBody {
    token: String,
}

/// `POST /api/revoke` (owner only): `{"token": "…"}`; the token is refused from then on.
pub(crate) async fn revoke(State(st): State<Arc<AppState>>, b: axum::body::Bytes) -> Response {
    let b: RevokeBody = match body(&b) {
        Ok(b) => b,
        Err(r) => return *r,
    };
    match st.users.revoke(&b.token) {
        Some(u) => {
            st.hub.send(REVOKED, u.name.clone());
            st.hub.set_presence(&u.name, None);
            Json(serde_json::json!({ "ok": true, "revoked": u.name })).into_response()
        }
        None => error(
            StatusCode::NOT_FOUND,
            "not-found",
            "no invitation has that token",
        ),
    }
}

/// `GET /api/users` (owner only): the invitations.
pub(crate) async fn users(State(st): State<Arc<AppState>>) -> Response {
    let invited = st.users.invited.lock().unwrap_or_else(|e| e.into_inner());
    let list: Vec<_> = invited
        .iter()
        .map(|u| serde_json::json!({ "name": u.name, "role": u.role, "colour": u.colour, "token": u.token }))
        .collect();
    Json(serde_json::json!({ "ok": true, "users": list })).into_response()
}

#[derive(Deserialize)]
pub(crate) struct LogQuery {
    #[serde(default)]
    since: u64,
}

/// `GET /api/log?since=SEQ`: the operations, and how far back the timeline reaches.
pub(crate) async fn log(State(st): State<Arc<AppState>>, Query(q): Query<LogQuery>) -> Response {
    Json(crate::server::on_session(st, move |s| s.log_since(q.since)).await).into_response()
}

#[derive(Deserialize)]
pub(crate) struct TimelineQuery {
    seq: u64,
    shown: u64,
}

/// `GET /api/timeline?seq=N&shown=M`: the chunks a page showing the world after operation
/// `M` changes to show it after operation `N` (binary, see [`crate::wire`]).
pub(crate) async fn timeline(
    State(st): State<Arc<AppState>>,
    Query(q): Query<TimelineQuery>,
) -> Response {
    match crate::server::on_session(st, move |s| s.timeline(q.seq, q.shown)).await {
        Ok(body) => (
            [(axum::http::header::CONTENT_TYPE, "application/octet-stream")],
            body,
        )
            .into_response(),
        Err(e) => e.into_response(),
    }
}

#[derive(Deserialize)]
pub(crate) struct PresenceBody {
    #[serde(default)]
    cell: Option<[i32; 3]>,
    #[serde(default)]
    selection: Option<[[i32; 3]; 2]>,
}

/// `POST /api/presence`: the caller's cursor cell and selection, pushed to the others.
pub(crate) async fn presence(
    State(st): State<Arc<AppState>>,
    Extension(me): Extension<User>,
    b: axum::body::Bytes,
) -> Response {
    let b: PresenceBody = match body(&b) {
        Ok(b) => b,
        Err(r) => return *r,
    };
    st.hub
        .set_presence(&me.name, Some(presence_of(&me, b.cell, b.selection)));
    Json(serde_json::json!({ "ok": true })).into_response()
}
