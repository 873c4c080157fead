//! `voxcaf asset worker`: a Remote Execution API worker for shared builds (the bot itself is
//! `voxcaf_remote::worker`; this parses, prints and sets the exit code).

use anyhow::Result;
use clap::Args;

use crate::global::say;

/// `voxcaf asset worker`.
#[derive(Args)]
pub struct WorkerArgs {
    /// The server (its Execution and Bots services): grpc://HOST:PORT.
    #[arg(value_name = "grpc://HOST:PORT")]
    url: String,
    /// The server's instance name.
    #[arg(long, value_name = "NAME", default_value = "")]
    instance: String,
    /// The bot's id, unique within the farm (default: the host name and process id).
    #[arg(long, value_name = "ID")]
    id: Option<String>,
    /// Threads one conversion may use; 0 means one per core. Run one worker per core with
    /// the default 1.
    #[arg(long, short = 'j', value_name = "N", default_value_t = 1)]
    jobs: usize,
}

/// The bot id when none is given: `HOST-PID`.
fn default_id() -> String {
    let host = std::fs::read_to_string("/proc/sys/kernel/hostname")
        .ok()
        .map(|h| h.trim().to_string())
        .filter(|h| !h.is_empty())
        .or_else(|| std::env::var("HOSTNAME").ok())
        .unwrap_or_else(|| "voxcaf".to_string());
    format!("{host}-{}", std::process::id())
}

/// Runs the worker until Ctrl-C or SIGTERM (exit 130 or 143, the lease in progress finished
/// first); a server that goes away is an error (exit 1).
pub fn worker(a: WorkerArgs) -> Result<u8> {
    use voxcaf_remote::worker::{WorkerEvent, WorkerOptions};
    let stop = voxcaf_fs::signals::StopOnSignal::new();
    let remote = voxcaf_remote::Remote::connect(&a.url, &a.instance)?;
    let opts = WorkerOptions {
        bot_id: a.id.unwrap_or_else(default_id),
        glsl_tool: voxcaf_remote::action::glsl_tool_version(),
        threads: a.jobs,
    };
    let on_event = |e: &WorkerEvent<'_>| match e {
        WorkerEvent::Joined { session } => say!(
            "voxcaf asset worker {}: taking work from {} (session {session}); Ctrl-C stops",
            opts.bot_id,
            a.url
        ),
        WorkerEvent::Ran {
            source,
            failure: None,
            elapsed,
            ..
        } => say!("converted {source} in {:.2} s", elapsed.as_secs_f64()),
        WorkerEvent::Ran {
            action,
            source,
            failure: Some(why),
            ..
        } => crate::global::warn(format!("action {action} ({source}): {}", why.trim_end())),
    };
    let ran = remote.run_worker(&opts, &stop.flag(), &on_event)?;
    say!("stopped after {ran} actions");
    Ok(voxcaf_fs::signals::exit_code().unwrap_or(130))
}
