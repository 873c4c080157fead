//! Generates the Remote Execution API's and the Remote Workers API's gRPC clients from the
//! protos in proto/: protox
//! (a pure-Rust proto compiler, so no `protoc`) builds the descriptor set, tonic-prost-build
//! writes the messages and clients (no servers) into OUT_DIR.

fn main() -> Result<(), Box<dyn std::error::Error>> {
    let protos = [
        "proto/build/bazel/remote/execution/v2/remote_execution.proto",
        "proto/google/bytestream/bytestream.proto",
        "proto/google/devtools/remoteworkers/v1test2/bots.proto",
    ];
    println!("cargo:rerun-if-changed=proto");
    let fds = protox::compile(protos, ["proto"])?;
    tonic_prost_build::configure()
        .build_server(false)
        .build_client(true)
        .include_file("protos.rs")
        .compile_fds(fds)?;
    Ok(())
}
