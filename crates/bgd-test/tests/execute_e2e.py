"""One real remote execution on the test BuildGrid (crates/bgd-test/tests/execution.rs runs this
with the BuildGrid virtual environment's python): a client and a bot over gRPC.

Usage: python execute_e2e.py HOST:PORT

1. The client uploads a Command, an empty input root Directory and an Action to the CAS.
2. A bot thread opens a bot session (CreateBotSession) and polls UpdateBotSession until it holds
   a lease (BuildGrid 0.4.4 hands leases out ACTIVE already, the payload an Action; a PENDING one
   would be marked ACTIVE first), sends one keepalive with the lease unchanged, uploads the
   output file's blob (before completing: a result whose blobs are missing is served by Execute
   but kept out of the action cache) and completes the lease with status OK and result =
   Any(ActionResult with that output file), then leaves (status BOT_TERMINATING: no more leases
   for it).
3. Meanwhile the client calls Execute (a stream) and reads it to done=true: the ExecuteResponse
   must carry the bot's ActionResult.
4. A second Execute of the same action, with no bot, must be an action cache hit.
5. A bot that takes a lease and then never calls again: after the bot session keepalive
   timeout the job is requeued and a second bot runs it.

Prints timings and the lease and bot session fields seen (the Rust worker follows them); exits
non-zero on the first unexpected thing.
"""

import hashlib
import os
import sys
import threading
import time
import uuid

import grpc
from google.protobuf import any_pb2

from buildgrid._protos.build.bazel.remote.execution.v2 import remote_execution_pb2 as re
from buildgrid._protos.build.bazel.remote.execution.v2 import remote_execution_pb2_grpc as re_grpc
from buildgrid._protos.google.devtools.remoteworkers.v1test2 import bots_pb2
from buildgrid._protos.google.devtools.remoteworkers.v1test2 import bots_pb2_grpc
from buildgrid._protos.google.devtools.remoteworkers.v1test2 import worker_pb2
from buildgrid._protos.google.longrunning import operations_pb2  # noqa: F401 (Operation type)

INSTANCE = ""
T0 = time.monotonic()
LEASE_STATE = {v: k for k, v in bots_pb2.LeaseState.items()}


def log(what):
    print(f"[{time.monotonic() - T0:7.3f} s] {what}", flush=True)


def fail(why):
    """Ends the program at once (from any thread)."""
    log(f"FAIL: {why}")
    os._exit(1)


def digest(blob):
    return re.Digest(hash=hashlib.sha256(blob).hexdigest(), size_bytes=len(blob))


def upload(cas, blobs):
    request = re.BatchUpdateBlobsRequest(instance_name=INSTANCE)
    for blob in blobs:
        request.requests.add(digest=digest(blob), data=blob)
    response = cas.BatchUpdateBlobs(request, timeout=10)
    for r in response.responses:
        if r.status.code != 0:
            fail(f"upload of {r.digest.hash}: {r.status}")


def make_action(cas, marker):
    """Uploads a Command writing `out.txt`, an empty input root and the Action; its digest."""
    # A fresh action each run: no cache hit from an earlier run on the same server.
    marker = f"{marker} {uuid.uuid4()}"
    command = re.Command(arguments=["sh", "-c", f"echo {marker} > out.txt"], output_paths=["out.txt"])
    root = re.Directory()
    command_blob = command.SerializeToString()
    root_blob = root.SerializeToString()
    action = re.Action(command_digest=digest(command_blob), input_root_digest=digest(root_blob))
    action_blob = action.SerializeToString()
    upload(cas, [command_blob, root_blob, action_blob])
    return digest(action_blob)


def describe_session(session):
    leases = ", ".join(
        f"{l.id} {LEASE_STATE.get(l.state, l.state)} payload={l.payload.type_url}"
        for l in session.leases
    )
    return f"name={session.name} version={session.version!r} leases=[{leases}]"


def new_session(bot_id):
    device = worker_pb2.Device(handle=f"{bot_id}-device")
    return bots_pb2.BotSession(
        bot_id=bot_id, status=bots_pb2.BotStatus.Value("OK"), worker=worker_pb2.Worker(devices=[device])
    )


class Bot:
    """A bot taking one lease. `silent`: it never answers after getting the lease."""

    def __init__(self, channel, bot_id, output, silent=False):
        self.bots = bots_pb2_grpc.BotsStub(channel)
        self.cas = re_grpc.ContentAddressableStorageStub(channel)
        self.bot_id = bot_id
        self.output = output
        self.silent = silent
        self.ready = threading.Event()
        self.leased_at = None
        self.error = None
        self.thread = threading.Thread(target=self.run_guarded, daemon=True)

    def start(self):
        self.thread.start()

    def run_guarded(self):
        try:
            self.run()
        except Exception as e:
            self.error = repr(e)
            log(f"FAIL: bot {self.bot_id}: {e!r}")
            os._exit(1)

    def update(self, session, what):
        begun = time.monotonic()
        self.ready.set()
        session = self.bots.UpdateBotSession(
            bots_pb2.UpdateBotSessionRequest(name=session.name, bot_session=session), timeout=10
        )
        log(f"bot {self.bot_id}: UpdateBotSession ({what}) took {time.monotonic() - begun:.3f} s: "
            f"{describe_session(session)}")
        return session

    def run(self):
        begun = time.monotonic()
        session = self.bots.CreateBotSession(
            bots_pb2.CreateBotSessionRequest(parent=INSTANCE, bot_session=new_session(self.bot_id)), timeout=10
        )
        log(f"bot {self.bot_id}: CreateBotSession took {time.monotonic() - begun:.3f} s: {describe_session(session)} "
            f"expire_time={session.expire_time.ToDatetime()}")
        polls = 0
        while not session.leases:
            polls += 1
            session = self.update(session, f"poll {polls}")
        self.leased_at = time.monotonic()
        lease = session.leases[0]
        log(f"bot {self.bot_id}: lease {lease.id} in state {LEASE_STATE.get(lease.state)} after {polls} polls")
        action = re.Action()
        if lease.payload.Is(re.Action.DESCRIPTOR):
            lease.payload.Unpack(action)
            log(f"bot {self.bot_id}: payload is the Action (command {action.command_digest.hash[:12]}...)")
        elif lease.payload.Is(re.Digest.DESCRIPTOR):
            log(f"bot {self.bot_id}: payload is the Action's Digest")
        else:
            fail(f"unexpected payload {lease.payload.type_url}")
        if self.silent:
            log(f"bot {self.bot_id}: going silent with the lease")
            return
        if lease.state == bots_pb2.LeaseState.Value("PENDING"):
            lease.state = bots_pb2.LeaseState.Value("ACTIVE")
            session = self.update(session, "lease ACTIVE")
            lease = session.leases[0]
        # A keepalive while working: the lease stays as the server sent it.
        session = self.update(session, "keepalive while ACTIVE")
        if len(session.leases) != 1 or session.leases[0].state != bots_pb2.LeaseState.Value("ACTIVE"):
            fail(f"lease not ACTIVE after a keepalive: {describe_session(session)}")
        lease = session.leases[0]
        upload(self.cas, [self.output])
        result = re.ActionResult(exit_code=0)
        result.output_files.add(path="out.txt", digest=digest(self.output))
        lease.state = bots_pb2.LeaseState.Value("COMPLETED")
        lease.status.code = 0
        lease.result.Pack(result)
        session = self.update(session, "lease COMPLETED")
        if session.leases:
            fail(f"a completed lease is still in the session: {describe_session(session)}")
        # Leaving: a session that just stops calling keeps getting jobs until it expires.
        session.status = bots_pb2.BotStatus.Value("BOT_TERMINATING")
        self.update(session, "leaving, status BOT_TERMINATING")


def execute(channel, action_digest, label):
    """Runs Execute to the end: the ExecuteResponse, the stages seen and the seconds taken."""
    execution = re_grpc.ExecutionStub(channel)
    begun = time.monotonic()
    stages = []
    last = None
    for operation in execution.Execute(
        re.ExecuteRequest(instance_name=INSTANCE, action_digest=action_digest), timeout=60
    ):
        metadata = re.ExecuteOperationMetadata()
        operation.metadata.Unpack(metadata)
        stage = re.ExecutionStage.Value.Name(metadata.stage)
        stages.append(stage)
        log(f"{label}: operation {operation.name} stage {stage} done={operation.done} "
            f"after {time.monotonic() - begun:.3f} s")
        last = operation
    if last is None or not last.done:
        fail(f"{label}: the Execute stream ended without done=true")
    if last.HasField("error"):
        fail(f"{label}: operation error {last.error}")
    response = re.ExecuteResponse()
    if not last.response.Unpack(response):
        fail(f"{label}: the operation's response is {last.response.type_url}")
    return response, stages, time.monotonic() - begun


def check_result(response, output, label):
    if response.status.code != 0:
        fail(f"{label}: status {response.status}")
    files = list(response.result.output_files)
    if len(files) != 1 or files[0].path != "out.txt" or files[0].digest != digest(output):
        fail(f"{label}: output files {files}")


def one_execution(channel, cas):
    """Steps 1 to 4."""
    output = b"hello from the test bot\n"
    action_digest = make_action(cas, "one")
    bot = Bot(channel, "voxcaf-test-bot", output)
    bot.start()
    bot.ready.wait(15)
    submitted = time.monotonic()
    response, stages, took = execute(channel, action_digest, "execute 1")
    bot.thread.join(15)
    if bot.error or bot.leased_at is None:
        fail(f"bot: {bot.error}")
    check_result(response, output, "execute 1")
    if response.cached_result:
        fail("execute 1: a cache hit on the first execution")
    log(f"execute 1: submit to lease {bot.leased_at - submitted:.3f} s, submit to done {took:.3f} s, "
        f"stages {stages}")
    meta = response.result.execution_metadata
    log(f"execute 1: ActionResult worker={meta.worker!r} queued={meta.queued_timestamp.ToDatetime()} "
        f"worker_start={meta.worker_start_timestamp.ToDatetime()} "
        f"worker_completed={meta.worker_completed_timestamp.ToDatetime()}")

    response, stages, took = execute(channel, action_digest, "execute 2")
    check_result(response, output, "execute 2")
    if not response.cached_result:
        fail("execute 2: not a cache hit")
    log(f"execute 2: cache hit in {took:.3f} s, stages {stages}")


def silent_bot(channel, cas):
    """Step 5."""
    output = b"run by the second bot\n"
    action_digest = make_action(cas, "two")
    silent = Bot(channel, "voxcaf-silent-bot", output, silent=True)
    silent.start()
    silent.ready.wait(15)
    result = {}

    def run():
        result["execute"] = execute(channel, action_digest, "execute 3")

    client = threading.Thread(target=run, daemon=True)
    client.start()
    silent.thread.join(15)
    if silent.error or silent.leased_at is None:
        fail(f"silent bot: {silent.error}")
    second = Bot(channel, "voxcaf-second-bot", output)
    second.start()
    second.thread.join(40)
    client.join(20)
    if second.error or second.leased_at is None:
        fail(f"second bot: {second.error}")
    if "execute" not in result:
        fail("execute 3 did not end")
    response, stages, took = result["execute"]
    check_result(response, output, "execute 3")
    log(f"execute 3: the silent bot's lease went to the second bot {second.leased_at - silent.leased_at:.3f} s "
        f"after the silent bot got it; submit to done {took:.3f} s, stages {stages}")


def main():
    if len(sys.argv) != 2:
        fail("usage: execute_e2e.py HOST:PORT")
    channel = grpc.insecure_channel(sys.argv[1])
    grpc.channel_ready_future(channel).result(timeout=30)
    cas = re_grpc.ContentAddressableStorageStub(channel)
    one_execution(channel, cas)
    silent_bot(channel, cas)
    log("OK")


if __name__ == "__main__":
    main()
