//! Test helpers: a minimal HTTP/1.1 client over `std::net` (so the tests see exactly what a
//! browser or script sends, Host header included) and a hilly terrain world.
#![allow(dead_code)]

use std::io::{Read, Write};
use std::net::{SocketAddr, TcpStream};

use vwr::{Block, World};

/// One HTTP answer.
pub struct Resp {
    pub status: u16,
    pub headers: Vec<(String, String)>,
    pub body: Vec<u8>,
}

impl Resp {
    pub fn json(&self) -> serde_json::Value {
        serde_json::from_slice(&self.body).unwrap_or_else(|e| {
            panic!(
                "status {}: body is not JSON ({e}): {}",
                self.status,
                String::from_utf8_lossy(&self.body)
            )
        })
    }
    pub fn header(&self, name: &str) -> Option<&str> {
        self.headers
            .iter()
            .find(|(k, _)| k.eq_ignore_ascii_case(name))
            .map(|(_, v)| v.as_str())
    }
}

/// Sends one request. `headers` may override `Host`.
pub fn request(
    addr: SocketAddr,
    method: &str,
    path: &str,
    headers: &[(&str, &str)],
    body: &[u8],
) -> Resp {
    let mut s = TcpStream::connect(addr).expect("connect");
    let mut req = format!("{method} {path} HTTP/1.1\r\n");
    if !headers.iter().any(|(k, _)| k.eq_ignore_ascii_case("host")) {
        req.push_str(&format!("Host: {addr}\r\n"));
    }
    for (k, v) in headers {
        req.push_str(&format!("{k}: {v}\r\n"));
    }
    req.push_str(&format!(
        "Content-Length: {}\r\nConnection: close\r\n\r\n",
        body.len()
    ));
    s.write_all(req.as_bytes()).expect("write");
    // A server may answer (413) before reading a large body; a failed write is then fine.
    let _ = s.write_all(body);
    let mut raw = Vec::new();
    let _ = s.read_to_end(&mut raw);
    parse(&raw)
}

fn parse(raw: &[u8]) -> Resp {
    let end = raw
        .windows(4)
        .position(|w| w == b"\r\n\r\n")
        .expect("no header end in answer");
    let head = String::from_utf8_lossy(&raw[..end]).to_string();
    let mut lines = head.split("\r\n");
    let status: u16 = lines
        .next()
        .unwrap()
        .split(' ')
        .nth(1)
        .unwrap()
        .parse()
        .unwrap();
    let headers: Vec<(String, String)> = lines
        .filter_map(|l| l.split_once(':'))
        .map(|(k, v)| (k.trim().to_string(), v.trim().to_string()))
        .collect();
    let mut body = raw[end + 4..].to_vec();
    let chunked = headers.iter().any(|(k, v)| {
        k.eq_ignore_ascii_case("transfer-encoding") && v.eq_ignore_ascii_case("chunked")
    });
    if chunked {
        let mut out = Vec::new();
        let mut rest = &body[..];
        loop {
            let nl = rest.windows(2).position(|w| w == b"\r\n").unwrap();
            let n = usize::from_str_radix(String::from_utf8_lossy(&rest[..nl]).trim(), 16).unwrap();
            if n == 0 {
                break;
            }
            out.extend_from_slice(&rest[nl + 2..nl + 2 + n]);
            rest = &rest[nl + 2 + n + 2..];
        }
        body = out;
    }
    Resp {
        status,
        headers,
        body,
    }
}

/// A server on `file` with the default options, and a client with its token.
pub fn serve(file: &std::path::Path) -> (vwr_serve::RunningServer, Client) {
    options_serve(file, vwr_serve::ServerOptions::default())
}

/// A server on `file` with `opts`, and a client with its token.
pub fn options_serve(
    file: &std::path::Path,
    opts: vwr_serve::ServerOptions,
) -> (vwr_serve::RunningServer, Client) {
    let s = vwr_serve::start(file, opts).unwrap();
    let c = Client {
        addr: s.addr(),
        token: s.token().to_string(),
    };
    (s, c)
}

/// A v3 world of 6×3×6 chunks with a floor three blocks thick, saved as `level.vwr` in `dir`.
pub fn v3_level(dir: &std::path::Path) -> std::path::PathBuf {
    let mut w = World::with_chunk_dims([6, 3, 6]).unwrap();
    w.fill_box([0, 0, 0], [59, 2, 59], Block(35 << 4)).unwrap();
    let p = dir.join("level.vwr");
    w.save_with(&p, &vwr::SaveOptions::v3(vwr::Codec::Auto))
        .unwrap();
    p
}

/// A world that `make` writes into a fresh folder, a server on it with the default options
/// and a client: the folder (keep it alive for the test), the file, the server, the client.
pub fn serve_new(
    make: impl FnOnce(&std::path::Path) -> std::path::PathBuf,
) -> (
    tempfile::TempDir,
    std::path::PathBuf,
    vwr_serve::RunningServer,
    Client,
) {
    let dir = tempfile::tempdir().unwrap();
    let file = make(dir.path());
    let (s, c) = serve(&file);
    (dir, file, s, c)
}

/// A client bound to one server and token.
pub struct Client {
    pub addr: SocketAddr,
    pub token: String,
}

impl Client {
    pub fn get(&self, path: &str) -> Resp {
        request(
            self.addr,
            "GET",
            path,
            &[("X-Voxcaf-Token", &self.token)],
            b"",
        )
    }
    pub fn post(&self, path: &str, body: &str) -> Resp {
        request(
            self.addr,
            "POST",
            path,
            &[("X-Voxcaf-Token", &self.token)],
            body.as_bytes(),
        )
    }
    /// POST that must succeed; its JSON.
    pub fn ok(&self, path: &str, body: &str) -> serde_json::Value {
        let r = self.post(path, body);
        assert_eq!(
            r.status,
            200,
            "{path} {body:?}: {}",
            String::from_utf8_lossy(&r.body)
        );
        r.json()
    }
}

/// A hilly terrain filling the default 100³ world: stone, dirt and a grass top on rolling
/// hills between heights 8 and 40, with a lake; about a million blocks' worth of space.
pub fn hilly_terrain() -> World {
    terrain_in(World::new())
}

/// The same hilly terrain in a world of `chunk_dims` chunks (e.g. `[100, 10, 100]`: the
/// 1000×100×1000 terrain of the big-world figures), lakes wherever the hills dip.
pub fn hilly_terrain_sized(chunk_dims: [u32; 3]) -> World {
    terrain_in(World::with_chunk_dims(chunk_dims).unwrap())
}

fn terrain_in(mut w: World) -> World {
    let reg = vwr_blocks::default_registry();
    let id = |n: &str| Block::make(reg.id_by_name(n).unwrap_or(35), 0).unwrap();
    let (stone, dirt, grass, water) = (id("stone"), id("rockpile"), id("grass"), id("water"));
    let d = w.block_dims();
    for z in 0..d[2] as i32 {
        for x in 0..d[0] as i32 {
            let (fx, fz) = (x as f32, z as f32);
            let h = 22.0
                + 9.0 * (fx / 13.0).sin() * (fz / 17.0).cos()
                + 5.0 * ((fx + fz) / 9.0).sin()
                + 3.0 * (fx / 5.0).cos() * (fz / 7.0).sin();
            let h = h.clamp(8.0, 40.0) as i32;
            w.fill_box([x, 0, z], [x, h - 4, z], stone).unwrap();
            w.fill_box([x, h - 3, z], [x, h - 1, z], dirt).unwrap();
            w.set_block([x, h, z], grass).unwrap();
            if h < 16 {
                w.fill_box([x, h + 1, z], [x, 16, z], water).unwrap();
            }
        }
    }
    w
}

/// A new world of 4×2×4 chunks named `name` with a stone floor (commit 1), and its location.
pub fn db_world(pg: &voxcaf_pg_test::TestServer, name: &str) -> vwr_postgres::PgLocation {
    let loc = vwr_postgres::PgLocation::parse(&pg.url(name)).unwrap();
    let head = vwr::StoreHead {
        chunk_dims: [4, 2, 4],
        fields: vwr::WorldFields::default(),
        head: 0,
        fields_version: 0,
        format_version: 3,
    };
    let mut store = vwr_postgres::PgStore::create(&loc, &head, false).unwrap();
    let ops = vwr_edit::script::parse_text("setup", "box 0 0 0 39 0 39 stone").unwrap();
    vwr_edit::script::edit_store(&mut store, &ops, 1_000_000, "test", false).unwrap();
    loc
}

/// Opens the Server-Sent Events stream of `/api/events` as `c`.
pub fn events(c: &Client) -> std::io::BufReader<TcpStream> {
    let mut s = TcpStream::connect(c.addr).unwrap();
    s.set_read_timeout(Some(std::time::Duration::from_secs(20)))
        .unwrap();
    write!(
        s,
        "GET /api/events?token={} HTTP/1.1\r\nHost: {}\r\nConnection: close\r\n\r\n",
        c.token, c.addr
    )
    .unwrap();
    std::io::BufReader::new(s)
}

/// The next event named `name`; a test failure after 20 s without one (the stream's
/// keep-alive comments would defeat the socket's own read timeout).
pub fn next_event(r: &mut std::io::BufReader<TcpStream>, name: &str) -> serde_json::Value {
    let mut event = String::new();
    let deadline = std::time::Instant::now() + std::time::Duration::from_secs(20);
    loop {
        assert!(
            std::time::Instant::now() < deadline,
            "no {name} event within 20 s"
        );
        let mut line = String::new();
        assert!(
            std::io::BufRead::read_line(r, &mut line).unwrap() > 0,
            "stream ended"
        );
        let line = line.trim_end();
        if let Some(e) = line.strip_prefix("event: ") {
            event = e.to_string();
        } else if let Some(d) = line.strip_prefix("data: ") {
            if event == name {
                return serde_json::from_str(d).unwrap();
            }
        }
    }
}
