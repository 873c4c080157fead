//! A blocking client of the Remote Execution API v2 (REAPI): the content-addressable storage
//! (batch calls for small blobs, ByteStream for big ones and for files), the action cache and
//! the server's capabilities, as a build's remote cache uses them (BuildGrid in the tests).
//!
//! [`Remote`] owns a small tokio runtime and one HTTP/2 channel; every method blocks the
//! calling thread until its answer (it may be called from many threads at once, e.g. rayon's;
//! not from inside another tokio runtime). Calls go out concurrently where a method has several
//! (batches of a download, lookups of [`Remote::get_action_results`]), at most
//! [`MAX_IN_FLIGHT`] at a time per client; a call the server refuses with `RESOURCE_EXHAUSTED`
//! (BuildGrid beyond its thread pool) is retried with backoff. Every blob that arrives is
//! checked against its digest (SHA-256 and length).
#![deny(clippy::unwrap_used)]

mod ac;
pub mod action;
pub mod cache;
mod cas;
mod digest;
mod error;
mod exec;
pub mod worker;

pub use digest::{check_digest, digest_of, digest_of_message, empty_digest, verify};
pub use error::RemoteError;
pub use exec::Executed;
pub use proto::reapi::{ActionResult, Digest};

use proto::reapi::capabilities_client::CapabilitiesClient;
use proto::reapi::{digest_function, GetCapabilitiesRequest, ServerCapabilities};
use std::future::Future;
use std::time::Duration;
use tonic::transport::{Channel, Endpoint};

/// The generated protocol types and clients (from `proto/`, see its README).
#[allow(missing_docs, clippy::all, clippy::pedantic, rustdoc::all)]
pub mod proto {
    include!(concat!(env!("OUT_DIR"), "/protos.rs"));

    /// `build.bazel.remote.execution.v2`: the Remote Execution API.
    pub use self::build::bazel::remote::execution::v2 as reapi;
    /// `google.bytestream`: streamed blob reads and writes.
    pub use self::google::bytestream;
    /// `google.devtools.remoteworkers.v1test2`: the Bots service a worker speaks.
    pub use self::google::devtools::remoteworkers::v1test2 as bots;
}

/// The most calls one [`Remote`] has in flight at once.
pub const MAX_IN_FLIGHT: usize = 16;

/// The largest message the client sends or accepts (a batch is at most the server's
/// `max_batch_total_size_bytes`, a few MiB, plus framing).
const MAX_MESSAGE: usize = 64 << 20;

/// The batch size limit used when the server states none (`max_batch_total_size_bytes` 0).
const DEFAULT_MAX_BATCH: u64 = 4 << 20;

/// Retries of a call refused with `RESOURCE_EXHAUSTED`, the first after 10 ms, each wait
/// doubling (about 20 s in all).
const RETRIES: u32 = 11;

/// How long a call may wait for the server's answer to begin (a streamed answer may then take
/// longer).
const CALL_TIMEOUT: Duration = Duration::from_secs(120);

/// A connection to a Remote Execution API server's instance.
#[derive(Debug)]
pub struct Remote {
    // Some until the drop.
    runtime: Option<tokio::runtime::Runtime>,
    channel: Channel,
    instance: String,
    capabilities: ServerCapabilities,
    max_batch: u64,
    limit: tokio::sync::Semaphore,
    retries: std::sync::atomic::AtomicU64,
}

/// `grpc://HOST:PORT` or `http://HOST:PORT` as the `http://` address tonic connects to.
fn http_url(url: &str) -> Result<String, RemoteError> {
    let bad = |reason: &str| RemoteError::BadUrl {
        url: url.to_string(),
        reason: reason.to_string(),
    };
    let rest = if let Some(rest) = url.strip_prefix("grpc://") {
        rest
    } else if let Some(rest) = url.strip_prefix("http://") {
        rest
    } else if url.starts_with("grpcs://") || url.starts_with("https://") {
        return Err(bad("TLS is not supported yet: use grpc:// or http://"));
    } else {
        return Err(bad("expected grpc://HOST:PORT or http://HOST:PORT"));
    };
    let authority = rest.strip_suffix('/').unwrap_or(rest);
    if authority.is_empty() || authority.contains(['/', '?', '#', '@', ' ']) {
        return Err(bad("expected HOST:PORT after the scheme, with no path"));
    }
    Ok(format!("http://{authority}"))
}

impl Remote {
    /// Connects to the server at `url` (`grpc://HOST:PORT` or `http://HOST:PORT`) for its
    /// instance `instance` (often `""`) and reads its capabilities, which must include the
    /// CAS with SHA-256 and the action cache.
    pub fn connect(url: &str, instance: &str) -> Result<Remote, RemoteError> {
        let http = http_url(url)?;
        let endpoint = Endpoint::from_shared(http).map_err(|e| RemoteError::BadUrl {
            url: url.to_string(),
            reason: e.to_string(),
        })?;
        let endpoint = endpoint
            .connect_timeout(Duration::from_secs(10))
            .tcp_nodelay(true)
            .http2_keep_alive_interval(Duration::from_secs(30))
            .keep_alive_timeout(Duration::from_secs(20))
            .timeout(CALL_TIMEOUT);
        if tokio::runtime::Handle::try_current().is_ok() {
            return Err(RemoteError::InsideRuntime);
        }
        let runtime = tokio::runtime::Builder::new_multi_thread()
            .worker_threads(2)
            .thread_name("voxcaf-remote")
            .enable_all()
            .build()
            .map_err(RemoteError::Runtime)?;
        let channel =
            runtime
                .block_on(endpoint.connect())
                .map_err(|source| RemoteError::Connect {
                    url: url.to_string(),
                    source,
                })?;
        let mut remote = Remote {
            runtime: Some(runtime),
            channel,
            instance: instance.to_string(),
            capabilities: ServerCapabilities::default(),
            max_batch: DEFAULT_MAX_BATCH,
            limit: tokio::sync::Semaphore::new(MAX_IN_FLIGHT),
            retries: std::sync::atomic::AtomicU64::new(0),
        };
        remote.capabilities = remote.fetch_capabilities()?;
        remote.max_batch = remote.check_capabilities()?;
        Ok(remote)
    }

    fn fetch_capabilities(&self) -> Result<ServerCapabilities, RemoteError> {
        let request = GetCapabilitiesRequest {
            instance_name: self.instance.clone(),
        };
        self.block_on(self.call("GetCapabilities", || {
            let mut client = CapabilitiesClient::new(self.channel.clone());
            let request = request.clone();
            async move { client.get_capabilities(request).await }
        }))
    }

    /// The batch size limit, after checking that the server has what the client needs.
    fn check_capabilities(&self) -> Result<u64, RemoteError> {
        let Some(cache) = &self.capabilities.cache_capabilities else {
            return Err(RemoteError::Unsupported(
                "no cache capabilities (no CAS)".into(),
            ));
        };
        let sha256 = digest_function::Value::Sha256 as i32;
        if !cache.digest_functions.is_empty() && !cache.digest_functions.contains(&sha256) {
            return Err(RemoteError::Unsupported(format!(
                "SHA-256 not among the digest functions {:?}",
                cache.digest_functions
            )));
        }
        Ok(u64::try_from(cache.max_batch_total_size_bytes)
            .ok()
            .filter(|&n| n > 0)
            .unwrap_or(DEFAULT_MAX_BATCH))
    }

    /// The server's capabilities, as read on connecting.
    pub fn capabilities(&self) -> &ServerCapabilities {
        &self.capabilities
    }

    /// The most bytes a batch call may carry (the server's `max_batch_total_size_bytes`, or
    /// 4 MiB when it states none); bigger blobs go through ByteStream.
    pub fn max_batch_bytes(&self) -> u64 {
        self.max_batch
    }

    /// How many calls were retried so far after the server refused them with
    /// `RESOURCE_EXHAUSTED` (a sign that it is overloaded).
    pub fn retries(&self) -> u64 {
        self.retries.load(std::sync::atomic::Ordering::Relaxed)
    }

    /// The instance name calls are made for.
    pub fn instance(&self) -> &str {
        &self.instance
    }

    /// Runs `work` to its end on the client's runtime, the calling thread waiting; refused
    /// inside another tokio runtime (where waiting would panic).
    fn block_on<T>(
        &self,
        work: impl Future<Output = Result<T, RemoteError>>,
    ) -> Result<T, RemoteError> {
        if tokio::runtime::Handle::try_current().is_ok() {
            return Err(RemoteError::InsideRuntime);
        }
        match &self.runtime {
            Some(runtime) => runtime.block_on(work),
            None => Err(RemoteError::Runtime(std::io::Error::other("shut down"))),
        }
    }

    /// Runs one call under the in-flight limit, retrying `RESOURCE_EXHAUSTED` with backoff;
    /// `make` issues the call afresh each time.
    async fn call<T, F, Fut>(&self, rpc: &'static str, mut make: F) -> Result<T, RemoteError>
    where
        F: FnMut() -> Fut,
        Fut: Future<Output = Result<tonic::Response<T>, tonic::Status>>,
    {
        // The semaphore is never closed.
        let _permit = self.limit.acquire().await.ok();
        let mut wait = Duration::from_millis(10);
        let mut attempt = 0;
        loop {
            match make().await {
                Ok(answer) => return Ok(answer.into_inner()),
                Err(s) if s.code() == tonic::Code::ResourceExhausted && attempt < RETRIES => {
                    attempt += 1;
                    self.retries
                        .fetch_add(1, std::sync::atomic::Ordering::Relaxed);
                    tokio::time::sleep(wait).await;
                    wait = (wait * 2).min(Duration::from_secs(5));
                }
                Err(s) => return Err(RemoteError::status(rpc, &s)),
            }
        }
    }

    /// `{instance}/rest` (`rest` alone for the unnamed instance): a ByteStream resource name.
    fn resource(&self, rest: &str) -> String {
        if self.instance.is_empty() {
            rest.to_string()
        } else {
            format!("{}/{rest}", self.instance)
        }
    }
}

impl Drop for Remote {
    /// Stops the runtime without waiting for its tasks (so that a drop inside an async
    /// context does not panic).
    fn drop(&mut self) {
        if let Some(runtime) = self.runtime.take() {
            runtime.shutdown_background();
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn urls_map_grpc_to_http_and_refuse_the_rest() {
        assert_eq!(
            http_url("grpc://127.0.0.1:50051").ok().as_deref(),
            Some("http://127.0.0.1:50051")
        );
        assert_eq!(
            http_url("http://cache.example:8980/").ok().as_deref(),
            Some("http://cache.example:8980")
        );
        for bad in [
            "",
            "127.0.0.1:50051",
            "grpcs://h:1",
            "https://h:1",
            "ftp://h:1",
            "grpc://",
            "grpc://h:1/path",
            "grpc://u@h:1",
        ] {
            assert!(
                matches!(http_url(bad), Err(RemoteError::BadUrl { .. })),
                "{bad}"
            );
        }
    }
}
