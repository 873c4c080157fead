//! The action cache: results looked up (one or many at once) and stored.

use crate::proto::reapi::action_cache_client::ActionCacheClient;
use crate::proto::reapi::{
    ActionResult, Digest, GetActionResultRequest, UpdateActionResultRequest,
};
use crate::{Remote, RemoteError, MAX_IN_FLIGHT, MAX_MESSAGE};
use futures::StreamExt;

impl Remote {
    fn ac_client(&self) -> ActionCacheClient<tonic::transport::Channel> {
        ActionCacheClient::new(self.channel.clone())
            .max_decoding_message_size(MAX_MESSAGE)
            .max_encoding_message_size(MAX_MESSAGE)
    }

    async fn lookup(&self, action: &Digest) -> Result<Option<ActionResult>, RemoteError> {
        let request = GetActionResultRequest {
            instance_name: self.instance.clone(),
            action_digest: Some(action.clone()),
            inline_stdout: false,
            inline_stderr: false,
            ..Default::default()
        };
        let answer = self
            .call("GetActionResult", || {
                let mut client = self.ac_client();
                let request = request.clone();
                async move { client.get_action_result(request).await }
            })
            .await;
        match answer {
            Ok(result) => Ok(Some(result)),
            Err(RemoteError::Status {
                code: tonic::Code::NotFound,
                ..
            }) => Ok(None),
            Err(e) => Err(e),
        }
    }

    /// The cached result of the action whose digest is `action`, `None` when the cache has
    /// none.
    pub fn get_action_result(&self, action: &Digest) -> Result<Option<ActionResult>, RemoteError> {
        crate::check_digest(action)?;
        self.block_on(self.lookup(action))
    }

    /// The cached results of many actions, in their order, looked up concurrently (at most
    /// [`MAX_IN_FLIGHT`] at a time); the first error ends the lot.
    pub fn get_action_results(
        &self,
        actions: &[Digest],
    ) -> Result<Vec<Option<ActionResult>>, RemoteError> {
        for action in actions {
            crate::check_digest(action)?;
        }
        self.block_on(async {
            let mut answers = futures::stream::iter(actions.iter().map(|a| self.lookup(a)))
                .buffered(MAX_IN_FLIGHT);
            let mut results = Vec::with_capacity(actions.len());
            while let Some(answer) = answers.next().await {
                results.push(answer?);
            }
            Ok(results)
        })
    }

    /// Stores `result` as the result of the action whose digest is `action` (the blobs it
    /// names should be uploaded first: servers may check).
    pub fn update_action_result(
        &self,
        action: &Digest,
        result: &ActionResult,
    ) -> Result<(), RemoteError> {
        crate::check_digest(action)?;
        let request = UpdateActionResultRequest {
            instance_name: self.instance.clone(),
            action_digest: Some(action.clone()),
            action_result: Some(result.clone()),
            ..Default::default()
        };
        self.block_on(self.call("UpdateActionResult", || {
            let mut client = self.ac_client();
            let request = request.clone();
            async move { client.update_action_result(request).await }
        }))
        .map(|_| ())
    }
}
