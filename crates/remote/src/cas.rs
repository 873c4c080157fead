//! The content-addressable storage: which blobs are missing, uploads and downloads (batch
//! calls for blobs that fit a batch, ByteStream for the others and for files).

use crate::digest::{verify_hashed, Hasher};
use crate::proto::bytestream::byte_stream_client::ByteStreamClient;
use crate::proto::bytestream::{ReadRequest, WriteRequest};
use crate::proto::reapi::content_addressable_storage_client::ContentAddressableStorageClient;
use crate::proto::reapi::{
    batch_update_blobs_request, BatchReadBlobsRequest, BatchUpdateBlobsRequest, Digest,
    FindMissingBlobsRequest,
};
use crate::{check_digest, empty_digest, Remote, RemoteError, MAX_IN_FLIGHT, MAX_MESSAGE};
use futures::future::BoxFuture;
use futures::{FutureExt, StreamExt};
use std::io::{Read, Write};
use std::path::Path;
use std::sync::{Arc, Mutex};
use tonic::transport::Channel;

/// Digests per FindMissingBlobs call.
const FIND_MISSING_BATCH: usize = 4096;
/// What a blob costs in a batch beyond its bytes (its digest and the message framing).
const BLOB_OVERHEAD: u64 = 256;
/// The size of a ByteStream chunk.
const CHUNK: usize = 1 << 20;

type Blobs = Vec<(usize, Vec<u8>)>;

/// Groups the blobs of `sizes` (index, size) into batches of at most `max` bytes with their
/// overhead, in order.
fn group(sizes: impl Iterator<Item = (usize, u64)>, max: u64) -> Vec<Vec<usize>> {
    let mut batches: Vec<Vec<usize>> = Vec::new();
    let mut total = 0;
    for (i, size) in sizes {
        let cost = size + BLOB_OVERHEAD;
        match batches.last_mut() {
            Some(batch) if total + cost <= max => batch.push(i),
            _ => {
                batches.push(vec![i]);
                total = 0;
            }
        }
        total += cost;
    }
    batches
}

/// Maps a NOT_FOUND answer about `digest` to [`RemoteError::NotFound`].
fn not_found(digest: &Digest, e: RemoteError) -> RemoteError {
    match e {
        RemoteError::Status {
            code: tonic::Code::NotFound,
            ..
        } => RemoteError::NotFound {
            digest: digest.clone(),
        },
        e => e,
    }
}

/// The error of a per-blob status of a batch answer, if it is one.
fn blob_status(
    rpc: &'static str,
    digest: &Digest,
    status: Option<&crate::proto::google::rpc::Status>,
) -> Result<(), RemoteError> {
    let Some(status) = status.filter(|s| s.code != 0) else {
        return Ok(());
    };
    let code = tonic::Code::from(status.code);
    if code == tonic::Code::NotFound {
        return Err(RemoteError::NotFound {
            digest: digest.clone(),
        });
    }
    Err(RemoteError::Status {
        rpc,
        code,
        message: status.message.clone(),
    })
}

impl Remote {
    fn cas_client(&self) -> ContentAddressableStorageClient<Channel> {
        ContentAddressableStorageClient::new(self.channel.clone())
            .max_decoding_message_size(MAX_MESSAGE)
            .max_encoding_message_size(MAX_MESSAGE)
    }

    fn bs_client(&self) -> ByteStreamClient<Channel> {
        ByteStreamClient::new(self.channel.clone())
            .max_decoding_message_size(MAX_MESSAGE)
            .max_encoding_message_size(MAX_MESSAGE)
    }

    /// Whether a blob of `size` bytes goes in a batch call rather than through ByteStream.
    fn fits_batch(&self, size: u64) -> bool {
        size + BLOB_OVERHEAD <= self.max_batch
    }

    /// The blobs among `digests` that the server does not have, in their order, each once (the
    /// empty blob is never missing). Asked in calls of 4096 digests, concurrently.
    pub fn find_missing(&self, digests: &[Digest]) -> Result<Vec<Digest>, RemoteError> {
        let empty = empty_digest();
        let mut wanted = Vec::with_capacity(digests.len());
        for d in digests {
            check_digest(d)?;
            if *d != empty {
                wanted.push(d.clone());
            }
        }
        self.block_on(async {
            let calls = wanted.chunks(FIND_MISSING_BATCH).map(|chunk| {
                let request = FindMissingBlobsRequest {
                    instance_name: self.instance.clone(),
                    blob_digests: chunk.to_vec(),
                    ..Default::default()
                };
                self.call("FindMissingBlobs", move || {
                    let mut client = self.cas_client();
                    let request = request.clone();
                    async move { client.find_missing_blobs(request).await }
                })
            });
            let mut answers = futures::stream::iter(calls).buffered(MAX_IN_FLIGHT);
            let mut missing = std::collections::HashSet::new();
            while let Some(answer) = answers.next().await {
                missing.extend(answer?.missing_blob_digests);
            }
            // In the caller's order (the server's may differ), once each.
            Ok(wanted
                .iter()
                .filter(|d| missing.remove(*d))
                .cloned()
                .collect())
        })
    }

    /// Uploads blobs, each with its digest (not checked against its data: the server does;
    /// its size is): those that fit go in BatchUpdateBlobs calls of at most
    /// [`Remote::max_batch_bytes`], the others through ByteStream writes of 1 MiB chunks, all
    /// concurrently. Blobs the server has are uploaded again: ask [`Remote::find_missing`]
    /// first.
    pub fn upload(&self, blobs: &[(Digest, &[u8])]) -> Result<(), RemoteError> {
        let mut small = Vec::new();
        let mut big = Vec::new();
        for (i, (digest, data)) in blobs.iter().enumerate() {
            let size = check_digest(digest)?;
            if size != data.len() as u64 {
                return Err(RemoteError::BadDigest {
                    digest: digest.clone(),
                    reason: "its size is not the data's length",
                });
            }
            if size == 0 {
                continue;
            } else if self.fits_batch(size) {
                small.push((i, size));
            } else {
                big.push(i);
            }
        }
        let mut calls: Vec<BoxFuture<'_, Result<(), RemoteError>>> = Vec::new();
        for batch in group(small.into_iter(), self.max_batch) {
            let requests = batch
                .iter()
                .map(|&i| batch_update_blobs_request::Request {
                    digest: Some(blobs[i].0.clone()),
                    data: blobs[i].1.to_vec(),
                    ..Default::default()
                })
                .collect();
            calls.push(self.batch_update(requests).boxed());
        }
        for i in big {
            let (digest, data) = &blobs[i];
            let data: Arc<[u8]> = Arc::from(*data);
            calls.push(self.write_memory(digest.clone(), data).boxed());
        }
        self.block_on(async {
            let mut answers = futures::stream::iter(calls).buffer_unordered(MAX_IN_FLIGHT);
            while let Some(answer) = answers.next().await {
                answer?;
            }
            Ok(())
        })
    }

    async fn batch_update(
        &self,
        requests: Vec<batch_update_blobs_request::Request>,
    ) -> Result<(), RemoteError> {
        let request = BatchUpdateBlobsRequest {
            instance_name: self.instance.clone(),
            requests,
            ..Default::default()
        };
        let answer = self
            .call("BatchUpdateBlobs", || {
                let mut client = self.cas_client();
                let request = request.clone();
                async move { client.batch_update_blobs(request).await }
            })
            .await?;
        if answer.responses.len() != request.requests.len() {
            return Err(RemoteError::Protocol {
                rpc: "BatchUpdateBlobs",
                message: format!(
                    "{} answers for {} blobs",
                    answer.responses.len(),
                    request.requests.len()
                ),
            });
        }
        for r in &answer.responses {
            let digest = r.digest.clone().unwrap_or_default();
            blob_status("BatchUpdateBlobs", &digest, r.status.as_ref())?;
        }
        Ok(())
    }

    /// A ByteStream write of `digest` whose chunks come from `next` (called afresh for a
    /// retry through `make_chunks`).
    async fn write_stream<S, M>(
        &self,
        digest: &Digest,
        mut make_chunks: M,
    ) -> Result<(), RemoteError>
    where
        M: FnMut() -> S,
        S: futures::Stream<Item = WriteRequest> + Send + 'static,
    {
        let name = self.resource(&format!(
            "uploads/{}/blobs/{}/{}",
            uuid::Uuid::new_v4(),
            digest.hash,
            digest.size_bytes
        ));
        let answer = self
            .call("ByteStream.Write", || {
                let mut client = self.bs_client();
                let name = name.clone();
                let chunks = make_chunks().enumerate().map(move |(i, mut r)| {
                    if i == 0 {
                        r.resource_name = name.clone();
                    }
                    r
                });
                async move { client.write(chunks).await }
            })
            .await?;
        if answer.committed_size != digest.size_bytes {
            return Err(RemoteError::Protocol {
                rpc: "ByteStream.Write",
                message: format!(
                    "committed {} bytes of {}",
                    answer.committed_size, digest.size_bytes
                ),
            });
        }
        Ok(())
    }

    /// A ByteStream write of a blob held in memory.
    async fn write_memory(&self, digest: Digest, data: Arc<[u8]>) -> Result<(), RemoteError> {
        let len = data.len();
        self.write_stream(&digest, || {
            let data = data.clone();
            futures::stream::iter((0..len).step_by(CHUNK).map(move |at| {
                let end = (at + CHUNK).min(len);
                WriteRequest {
                    resource_name: String::new(),
                    write_offset: at as i64,
                    finish_write: end == len,
                    data: data[at..end].to_vec(),
                }
            }))
        })
        .await
    }

    /// Uploads the file at `path` unless the server has it, reading it in 1 MiB pieces (its
    /// whole content is never in memory unless it fits a batch); its digest.
    pub fn upload_file(&self, path: &Path) -> Result<Digest, RemoteError> {
        let digest = hash_file(path)?;
        if digest.size_bytes == 0 || self.find_missing(std::slice::from_ref(&digest))?.is_empty() {
            return Ok(digest);
        }
        let size = check_digest(&digest)?;
        if self.fits_batch(size) {
            let data = std::fs::read(path).map_err(|e| RemoteError::io(path, e))?;
            if crate::digest_of(&data) != digest {
                return Err(changed(path));
            }
            self.upload(&[(digest.clone(), &data)])?;
            return Ok(digest);
        }
        let failure: Arc<Mutex<Option<RemoteError>>> = Arc::default();
        let answer =
            self.block_on(self.write_stream(&digest, || file_chunks(path, size, failure.clone())));
        let failed = failure.lock().ok().and_then(|mut f| f.take());
        match (failed, answer) {
            (Some(e), _) => Err(e),
            (None, Err(e)) => Err(e),
            (None, Ok(())) => Ok(digest),
        }
    }

    /// Downloads blobs, in their order, each checked against its digest: those that fit go in
    /// BatchReadBlobs calls, the others through ByteStream reads, all concurrently (at most
    /// [`MAX_IN_FLIGHT`] calls at a time). A blob the server lacks is
    /// [`RemoteError::NotFound`].
    pub fn download(&self, digests: &[Digest]) -> Result<Vec<Vec<u8>>, RemoteError> {
        let mut small = Vec::new();
        let mut big = Vec::new();
        for (i, digest) in digests.iter().enumerate() {
            let size = check_digest(digest)?;
            if size == 0 {
                crate::verify(digest, &[])?;
            } else if self.fits_batch(size) {
                small.push((i, size));
            } else {
                big.push(i);
            }
        }
        let mut calls: Vec<BoxFuture<'_, Result<Blobs, RemoteError>>> = Vec::new();
        for batch in group(small.into_iter(), self.max_batch) {
            calls.push(self.batch_read(digests, batch).boxed());
        }
        for i in big {
            calls.push(
                async move {
                    let size = usize::try_from(digests[i].size_bytes).unwrap_or(0);
                    let mut data = Vec::with_capacity(size.min(MAX_MESSAGE));
                    self.read_blob(&digests[i], |chunk| {
                        data.extend_from_slice(chunk);
                        Ok(())
                    })
                    .await?;
                    Ok(vec![(i, data)])
                }
                .boxed(),
            );
        }
        let mut blobs = vec![Vec::new(); digests.len()];
        self.block_on(async {
            let mut answers = futures::stream::iter(calls).buffer_unordered(MAX_IN_FLIGHT);
            while let Some(answer) = answers.next().await {
                for (i, data) in answer? {
                    blobs[i] = data;
                }
            }
            Ok::<(), RemoteError>(())
        })?;
        Ok(blobs)
    }

    /// One BatchReadBlobs call for `digests[i]` of each `i` in `batch`, checked.
    async fn batch_read(
        &self,
        digests: &[Digest],
        batch: Vec<usize>,
    ) -> Result<Blobs, RemoteError> {
        let request = BatchReadBlobsRequest {
            instance_name: self.instance.clone(),
            digests: batch.iter().map(|&i| digests[i].clone()).collect(),
            ..Default::default()
        };
        let answer = self
            .call("BatchReadBlobs", || {
                let mut client = self.cas_client();
                let request = request.clone();
                async move { client.batch_read_blobs(request).await }
            })
            .await?;
        let mut by_digest = std::collections::HashMap::new();
        for r in answer.responses {
            if let Some(d) = r.digest {
                by_digest.insert((d.hash, d.size_bytes), (r.status, r.data));
            }
        }
        let mut blobs = Vec::with_capacity(batch.len());
        for i in batch {
            let digest = &digests[i];
            let Some((status, data)) = by_digest.get(&(digest.hash.clone(), digest.size_bytes))
            else {
                return Err(RemoteError::Protocol {
                    rpc: "BatchReadBlobs",
                    message: format!("no answer for {}/{}", digest.hash, digest.size_bytes),
                });
            };
            blob_status("BatchReadBlobs", digest, status.as_ref())?;
            crate::verify(digest, data)?;
            blobs.push((i, data.clone()));
        }
        Ok(blobs)
    }

    /// Reads blob `digest` through ByteStream, giving its chunks to `sink` as they arrive,
    /// and checks it.
    async fn read_blob(
        &self,
        digest: &Digest,
        mut sink: impl FnMut(&[u8]) -> Result<(), RemoteError>,
    ) -> Result<(), RemoteError> {
        let size = check_digest(digest)?;
        let request = ReadRequest {
            resource_name: self.resource(&format!("blobs/{}/{}", digest.hash, digest.size_bytes)),
            read_offset: 0,
            read_limit: 0,
        };
        let mut stream = self
            .call("ByteStream.Read", || {
                let mut client = self.bs_client();
                let request = request.clone();
                async move { client.read(request).await }
            })
            .await
            .map_err(|e| not_found(digest, e))?;
        let mut hashed = Hasher::default();
        loop {
            let message = stream
                .message()
                .await
                .map_err(|s| not_found(digest, RemoteError::status("ByteStream.Read", &s)))?;
            let Some(message) = message else { break };
            hashed.update(&message.data);
            if hashed.len() > size {
                break;
            }
            sink(&message.data)?;
        }
        verify_hashed(digest, hashed)
    }

    /// Downloads blob `digest` into the file at `path` through ByteStream, in pieces, checked
    /// before the file appears: it is written under a temporary name beside `path` and renamed
    /// (replacing `path`) only when complete and intact.
    pub fn download_to(&self, digest: &Digest, path: &Path) -> Result<(), RemoteError> {
        check_digest(digest)?;
        let name = path
            .file_name()
            .map_or_else(String::new, |n| n.to_string_lossy().into_owned());
        let temp = path.with_file_name(format!(".{name}.{}.part", uuid::Uuid::new_v4()));
        let file = std::fs::File::create(&temp).map_err(|e| RemoteError::io(&temp, e))?;
        let mut out = std::io::BufWriter::with_capacity(CHUNK, file);
        let written = if digest.size_bytes == 0 {
            crate::verify(digest, &[])
        } else {
            self.block_on(self.read_blob(digest, |chunk| {
                out.write_all(chunk).map_err(|e| RemoteError::io(&temp, e))
            }))
        };
        let finished = written.and_then(|()| {
            out.into_inner()
                .map_err(|e| RemoteError::io(&temp, e.into_error()))?;
            std::fs::rename(&temp, path).map_err(|e| RemoteError::io(path, e))
        });
        if finished.is_err() {
            let _ = std::fs::remove_file(&temp);
        }
        finished
    }
}

/// The digest of the file at `path`, read in pieces.
fn hash_file(path: &Path) -> Result<Digest, RemoteError> {
    let mut file = std::fs::File::open(path).map_err(|e| RemoteError::io(path, e))?;
    let mut hashed = Hasher::default();
    let mut buf = vec![0; CHUNK];
    loop {
        let n = file.read(&mut buf).map_err(|e| RemoteError::io(path, e))?;
        if n == 0 {
            return Ok(hashed.finish());
        }
        hashed.update(&buf[..n]);
    }
}

fn changed(path: &Path) -> RemoteError {
    RemoteError::io(
        path,
        std::io::Error::other("the file changed while it was uploaded"),
    )
}

/// The write requests of the file at `path` (`size` bytes when hashed), 1 MiB each, read as
/// the stream is polled; a read error or a change of length ends the stream early (so the
/// server refuses the write) and is left in `failure`.
fn file_chunks(
    path: &Path,
    size: u64,
    failure: Arc<Mutex<Option<RemoteError>>>,
) -> impl futures::Stream<Item = WriteRequest> + Send + 'static {
    use tokio::io::AsyncReadExt;
    let path = path.to_path_buf();
    let state = (None::<tokio::fs::File>, 0u64, false);
    futures::stream::unfold(state, move |(file, at, done)| {
        let path = path.clone();
        let failure = failure.clone();
        async move {
            if done {
                return None;
            }
            let fail = |e: RemoteError| {
                if let Ok(mut f) = failure.lock() {
                    *f = Some(e);
                }
                None
            };
            let mut file = match file {
                Some(f) => f,
                None => match tokio::fs::File::open(&path).await {
                    Ok(f) => f,
                    Err(e) => return fail(RemoteError::io(&path, e)),
                },
            };
            let want = usize::try_from((size - at).min(CHUNK as u64)).unwrap_or(CHUNK);
            let mut data = vec![0; want];
            let mut got = 0;
            while got < want {
                match file.read(&mut data[got..]).await {
                    Ok(0) => return fail(changed(&path)),
                    Ok(n) => got += n,
                    Err(e) => return fail(RemoteError::io(&path, e)),
                }
            }
            let end = at + want as u64;
            let request = WriteRequest {
                resource_name: String::new(),
                write_offset: at as i64,
                finish_write: end == size,
                data,
            };
            Some((request, (Some(file), end, end == size)))
        }
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn batches_stay_under_the_limit_in_order() {
        let sizes = [100u64, 500, 300, 700, 50];
        let batches = group(sizes.iter().copied().enumerate(), 1000 + 2 * BLOB_OVERHEAD);
        assert_eq!(batches, vec![vec![0, 1], vec![2, 3], vec![4]]);
        for batch in &batches {
            let total: u64 = batch.iter().map(|&i| sizes[i] + BLOB_OVERHEAD).sum();
            assert!(batch.len() == 1 || total <= 1000 + 2 * BLOB_OVERHEAD);
        }
        assert!(group(std::iter::empty(), 10).is_empty());
    }
}
