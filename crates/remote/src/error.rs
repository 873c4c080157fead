//! The one error type of the client.

use crate::proto::reapi::Digest;
use std::path::PathBuf;

/// What went wrong talking to a Remote Execution API server.
#[derive(Debug, thiserror::Error)]
pub enum RemoteError {
    /// The server address is not `grpc://HOST:PORT` or `http://HOST:PORT`.
    #[error("bad remote URL `{url}`: {reason}")]
    BadUrl {
        /// The address given.
        url: String,
        /// What is wrong with it.
        reason: String,
    },
    /// No connection could be made to the server.
    #[error("cannot connect to {url}: {source}")]
    Connect {
        /// The address given.
        url: String,
        /// The transport's error.
        #[source]
        source: tonic::transport::Error,
    },
    /// The server answered a call with an error status (also a per-blob status of a batch).
    #[error("{rpc}: {code:?}: {message}")]
    Status {
        /// The call, e.g. `GetActionResult`.
        rpc: &'static str,
        /// The gRPC status code.
        code: tonic::Code,
        /// The server's message.
        message: String,
    },
    /// The server does not have a blob that was asked for.
    #[error("blob {}/{} not found", .digest.hash, .digest.size_bytes)]
    NotFound {
        /// The missing blob.
        digest: Digest,
    },
    /// A blob's content does not hash to its digest.
    #[error("blob {}/{} arrived as {}/{}", .expected.hash, .expected.size_bytes, .got.hash, .got.size_bytes)]
    DigestMismatch {
        /// The digest asked for.
        expected: Digest,
        /// The digest of what arrived.
        got: Digest,
    },
    /// A blob arrived shorter than its digest's size.
    #[error("blob {}/{} arrived truncated: {got} bytes", .digest.hash, .digest.size_bytes)]
    Truncated {
        /// The digest asked for.
        digest: Digest,
        /// The bytes that arrived.
        got: u64,
    },
    /// A digest that cannot be valid (a hash that is not 64 lowercase hex digits, a negative
    /// size) or whose size does not match the data given with it.
    #[error("invalid digest {}/{}: {reason}", .digest.hash, .digest.size_bytes)]
    BadDigest {
        /// The digest.
        digest: Digest,
        /// What is wrong.
        reason: &'static str,
    },
    /// The server does not offer what the client needs (SHA-256, the CAS, the action cache).
    #[error("server unsuitable: {0}")]
    Unsupported(String),
    /// An answer that breaks the protocol (a batch answering for other blobs, a short write).
    #[error("{rpc}: protocol error: {message}")]
    Protocol {
        /// The call.
        rpc: &'static str,
        /// What was wrong.
        message: String,
    },
    /// Reading or writing a local file failed.
    #[error("{}: {source}", .path.display())]
    Io {
        /// The file.
        path: PathBuf,
        /// The error.
        #[source]
        source: std::io::Error,
    },
    /// A remote execution that did not finish in time (no worker took it, or none is running).
    #[error("{rpc}: no result within {} s (is a worker running?)", .timeout.as_secs())]
    ExecutionTimeout {
        /// The call.
        rpc: &'static str,
        /// How long it was given.
        timeout: std::time::Duration,
    },
    /// A command that is not a conversion action's (docs/remote-build.md §2.1).
    #[error("not a conversion action: {0}")]
    NotAnAction(String),
    /// The conversion an action runs failed.
    #[error(transparent)]
    Conversion(#[from] caf_import::ImportError),
    /// A method was called from inside a tokio runtime: the client blocks, so it must be
    /// called from plain threads (or `tokio::task::spawn_blocking`).
    #[error("the blocking remote client was called from inside an async runtime")]
    InsideRuntime,
    /// The worker's conversion threads could not be started.
    #[error("cannot start the worker's threads: {0}")]
    Threads(String),
    /// The client's runtime could not be started.
    #[error("cannot start the client's runtime: {0}")]
    Runtime(#[source] std::io::Error),
}

impl RemoteError {
    /// The error of call `rpc` answered by `status`.
    pub(crate) fn status(rpc: &'static str, status: &tonic::Status) -> RemoteError {
        RemoteError::Status {
            rpc,
            code: status.code(),
            message: status.message().to_string(),
        }
    }

    /// An I/O error on `path`.
    pub(crate) fn io(path: &std::path::Path, source: std::io::Error) -> RemoteError {
        RemoteError::Io {
            path: path.to_path_buf(),
            source,
        }
    }
}
