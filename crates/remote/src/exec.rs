//! Remote execution: an action sent to the server's Execution service and its result awaited
//! (the worker that runs it is in `worker.rs`).

use std::time::{Duration, Instant};

use crate::proto::google::longrunning::{operation, Operation};
use crate::proto::reapi::execution_client::ExecutionClient;
use crate::proto::reapi::{
    ActionResult, Digest, ExecuteRequest, ExecuteResponse, WaitExecutionRequest,
};
use crate::{Remote, RemoteError, MAX_MESSAGE};
use futures::StreamExt;

/// Executions one client waits for at once. Each is a stream the server holds a thread for
/// (BuildGrid refuses streams beyond its thread pool, and its bots' long polls hold threads
/// too), so a client keeps this many workers busy at most.
pub const EXEC_IN_FLIGHT: usize = 8;

/// What an execution gave.
#[derive(Clone, Debug, PartialEq)]
pub struct Executed {
    /// The action's result (a failed command has a non-zero `exit_code`).
    pub result: ActionResult,
    /// Whether the server answered from its action cache instead of running the action.
    pub cached: bool,
}

/// Whether an `Any` holds message `name` (the last part of its `type_url`).
pub(crate) fn holds(any: &prost_types::Any, name: &str) -> bool {
    any.type_url.rsplit('/').next() == Some(name)
}

impl Remote {
    fn exec_client(&self) -> ExecutionClient<tonic::transport::Channel> {
        ExecutionClient::new(self.channel.clone())
            .max_decoding_message_size(MAX_MESSAGE)
            .max_encoding_message_size(MAX_MESSAGE)
    }

    /// Executes the action whose digest is `action` (its `Action`, `Command` and input root
    /// must be in the CAS already) and waits at most `timeout` for a worker's result; with
    /// `skip_cache` the server does not answer from its action cache. A command that ran and
    /// failed is a result (its `exit_code`), not an error; an action still queued or running
    /// when the time is up is [`RemoteError::Status`] `DEADLINE_EXCEEDED`.
    pub fn execute(
        &self,
        action: &Digest,
        skip_cache: bool,
        timeout: Duration,
    ) -> Result<Executed, RemoteError> {
        crate::check_digest(action)?;
        self.block_on(self.execute_until(action, skip_cache, timeout, Instant::now() + timeout))
    }

    /// [`Remote::execute`] for many actions at once (8 waiting at a time,
    /// all within one `timeout`); each answer in the order of `actions`.
    pub fn execute_all(
        &self,
        actions: &[Digest],
        skip_cache: bool,
        timeout: Duration,
    ) -> Result<Vec<Result<Executed, RemoteError>>, RemoteError> {
        for action in actions {
            crate::check_digest(action)?;
        }
        let deadline = Instant::now() + timeout;
        self.block_on(async {
            let answers = futures::stream::iter(
                actions
                    .iter()
                    .map(|a| self.execute_until(a, skip_cache, timeout, deadline)),
            )
            .buffered(EXEC_IN_FLIGHT);
            Ok(answers.collect().await)
        })
    }

    async fn execute_until(
        &self,
        action: &Digest,
        skip_cache: bool,
        timeout: Duration,
        deadline: Instant,
    ) -> Result<Executed, RemoteError> {
        let request = ExecuteRequest {
            instance_name: self.instance.clone(),
            skip_cache_lookup: skip_cache,
            action_digest: Some(action.clone()),
            ..Default::default()
        };
        // A server out of threads for streams refuses with RESOURCE_EXHAUSTED: asked again
        // after a wait, as long as the time allows.
        let mut wait = Duration::from_millis(50);
        let mut stream = loop {
            let left = deadline.saturating_duration_since(Instant::now());
            let mut client = self.exec_client();
            match tokio::time::timeout(left, client.execute(request.clone())).await {
                Err(_) => return Err(late("Execute", timeout)),
                Ok(Err(s)) if s.code() == tonic::Code::ResourceExhausted && left > wait => {
                    self.retries
                        .fetch_add(1, std::sync::atomic::Ordering::Relaxed);
                    tokio::time::sleep(wait).await;
                    wait = (wait * 2).min(Duration::from_secs(2));
                }
                Ok(Err(s)) => return Err(RemoteError::status("Execute", &s)),
                Ok(Ok(s)) => break s.into_inner(),
            }
        };
        let mut name = String::new();
        loop {
            let left = deadline.saturating_duration_since(Instant::now());
            let op = match tokio::time::timeout(left, stream.message()).await {
                Err(_) => return Err(late("Execute", timeout)),
                Ok(Err(s)) => return Err(RemoteError::status("Execute", &s)),
                Ok(Ok(Some(op))) => op,
                // The stream ended before the operation did: wait on it by name.
                Ok(Ok(None)) if !name.is_empty() => {
                    let request = WaitExecutionRequest { name: name.clone() };
                    let mut client = self.exec_client();
                    let wait = client.wait_execution(request);
                    stream = match tokio::time::timeout(left, wait).await {
                        Err(_) => return Err(late("WaitExecution", timeout)),
                        Ok(Err(s)) => return Err(RemoteError::status("WaitExecution", &s)),
                        Ok(Ok(s)) => s.into_inner(),
                    };
                    continue;
                }
                Ok(Ok(None)) => {
                    return Err(RemoteError::Protocol {
                        rpc: "Execute",
                        message: "the stream ended without naming the operation".into(),
                    })
                }
            };
            name.clone_from(&op.name);
            if op.done {
                return finished(op);
            }
        }
    }
}

/// The error of an execution not finished in time.
fn late(rpc: &'static str, timeout: Duration) -> RemoteError {
    RemoteError::ExecutionTimeout { rpc, timeout }
}

/// The result of a finished operation.
fn finished(op: Operation) -> Result<Executed, RemoteError> {
    let bad = |message: String| RemoteError::Protocol {
        rpc: "Execute",
        message,
    };
    let any = match op.result {
        Some(operation::Result::Response(any)) => any,
        Some(operation::Result::Error(status)) => {
            return Err(RemoteError::Status {
                rpc: "Execute",
                code: tonic::Code::from_i32(status.code),
                message: status.message,
            })
        }
        None => return Err(bad("a finished operation without a result".into())),
    };
    if !holds(&any, "build.bazel.remote.execution.v2.ExecuteResponse") {
        return Err(bad(format!("a response of type {}", any.type_url)));
    }
    let response: ExecuteResponse =
        prost::Message::decode(any.value.as_slice()).map_err(|e| bad(e.to_string()))?;
    if let Some(status) = response.status.filter(|s| s.code != 0) {
        return Err(RemoteError::Status {
            rpc: "Execute",
            code: tonic::Code::from_i32(status.code),
            message: status.message,
        });
    }
    let result = response
        .result
        .ok_or_else(|| bad("a response without a result".into()))?;
    Ok(Executed {
        result,
        cached: response.cached_result,
    })
}
