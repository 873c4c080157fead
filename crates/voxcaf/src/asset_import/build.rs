//! `voxcaf asset build`: a folder of sources into a folder of assets (and the demo's build).

use super::*;

/// `voxcaf asset build`.
#[derive(Args)]
#[command(mut_arg("output", |a| a.value_name("OUT_DIR").help(
    "Output folder (created if missing, with its parents), or give it with -o; it must not be \
     SRC_DIR or lie inside it, and an existing folder with files in it must be an earlier \
     build output (holding its manifest.json) unless --force"
)))]
#[command(mut_arg("out", |a| a.value_name("OUT_DIR")))]
pub struct BuildArgs {
    /// Folder of source files (sidecars `<file>.toml` override settings per asset).
    pub(super) src_dir: PathBuf,
    #[command(flatten)]
    pub(super) out_dir: OutPath,
    /// Worker threads (default: one per core).
    #[arg(long, short = 'j', value_name = "N")]
    pub(super) jobs: Option<usize>,
    /// Convert everything, even what is up to date; also build into an existing folder that is
    /// not a build output.
    #[arg(long)]
    pub(super) force: bool,
    #[command(flatten)]
    pub(super) settings: SettingsArgs,
    #[command(flatten)]
    pub(super) encrypt: EncryptArgs,
    /// After a build without failures, also pack OUT_DIR into this .cafpack archive (as
    /// `asset pack-dir OUT_DIR PACK` does; not inside OUT_DIR).
    #[arg(long, value_name = "PACK")]
    pub(super) pack: Option<PathBuf>,
    /// Print a JSON summary instead of text.
    #[arg(long)]
    pub(super) json: bool,
    #[command(flatten)]
    pub(super) remote: RemoteArgs,
    /// After the build, watch SRC_DIR and build again (only what changed) whenever its files
    /// change, until Ctrl-C (exit 130, the manifest of the last build written).
    #[arg(long)]
    pub(super) watch: bool,
}

/// The remote cache options of `asset build` (docs/remote-build.md).
#[derive(Args)]
pub struct RemoteArgs {
    /// Share conversions through a Remote Execution API server's cache (BuildGrid, Buildbarn,
    /// NativeLink...): each source is looked up first and fetched on a hit; a miss converts
    /// locally and uploads the result. Any fault (server down, blob missing or corrupt)
    /// converts locally with one warning. Not used with --encrypt.
    #[arg(long, value_name = "grpc://HOST:PORT")]
    pub(super) remote_cache: Option<String>,
    /// The server's instance name.
    #[arg(
        long,
        value_name = "NAME",
        default_value = "",
        requires = "remote_cache"
    )]
    pub(super) remote_instance: String,
    /// Fetch from the remote cache but never upload to it.
    #[arg(long, requires = "remote_cache")]
    pub(super) remote_cache_read_only: bool,
    /// Have the server's workers (`voxcaf asset worker`) convert what the cache does not
    /// have, all of a group of sources at once, instead of converting it here; what fails
    /// remotely or is not back within --remote-exec-timeout converts locally.
    #[arg(long, requires = "remote_cache")]
    pub(super) remote_exec: bool,
    /// Seconds a group of remote executions may take (it waits for workers); after a
    /// timeout the rest of the build converts locally.
    #[arg(
        long,
        value_name = "SECONDS",
        default_value_t = 300,
        requires = "remote_exec",
        value_parser = clap::value_parser!(u64).range(1..=86_400)
    )]
    pub(super) remote_exec_timeout: u64,
}

impl RemoteArgs {
    /// The cache, when asked for (a malformed URL is an error; a server that cannot be
    /// reached is warned about and the build converts locally).
    fn cache(
        &self,
        json: bool,
        encrypted: bool,
    ) -> Result<Option<std::sync::Arc<voxcaf_remote::cache::RemoteCache>>> {
        let Some(url) = &self.remote_cache else {
            return Ok(None);
        };
        if encrypted {
            crate::global::warn("an encrypted build shares nothing: --remote-cache is not used");
            return Ok(None);
        }
        let warn: voxcaf_remote::cache::Warn = Box::new(move |m: &str| {
            if !json {
                crate::global::warn(m);
            }
        });
        let c = voxcaf_remote::cache::RemoteCache::connect(
            url,
            &self.remote_instance,
            self.remote_cache_read_only,
            voxcaf_remote::action::glsl_tool_version(),
            warn,
        )?;
        let c = match self.remote_exec {
            true => c.with_execution(std::time::Duration::from_secs(self.remote_exec_timeout)),
            false => c,
        };
        Ok(Some(std::sync::Arc::new(c)))
    }
}

/// The remote cache's counts in `--json`.
fn remote_json(s: &voxcaf_remote::cache::RemoteStats) -> serde_json::Value {
    json!({
        "hits": s.hits, "executed": s.executed, "misses": s.misses, "uploaded": s.uploaded,
        "fallbacks": s.fallbacks, "bytes_down": s.bytes_down, "bytes_up": s.bytes_up,
    })
}

/// The remote cache's summary line.
fn remote_line(s: &voxcaf_remote::cache::RemoteStats) -> String {
    format!(
        "remote cache: {} hits, {} executed, {} misses, {} uploaded, {} fell back to local; {} down, \
         {} up",
        s.hits,
        s.executed,
        s.misses,
        s.uploaded,
        s.fallbacks,
        human_bytes(s.bytes_down),
        human_bytes(s.bytes_up)
    )
}

fn human_bytes(n: u64) -> String {
    match n {
        n if n >= 10 << 20 => format!("{:.1} MiB", n as f64 / (1 << 20) as f64),
        n if n >= 10 << 10 => format!("{:.1} KiB", n as f64 / 1024.0),
        n => format!("{n} bytes"),
    }
}

pub(super) fn build(a: BuildArgs) -> Result<u8> {
    // Ctrl-C, SIGTERM or a closed stdout pipe stop the build between assets; it still writes
    // the manifest. With --watch they also end the wait for the next change.
    let stop = voxcaf_fs::signals::StopOnSignal::new().with_broken_pipe()?;
    let watch = match a.watch {
        true => Some(super::watch::SourceWatch::new(&a.src_dir)?),
        false => None,
    };
    loop {
        let code = build_once(&a, &stop)?;
        let Some(watch) = watch.as_ref() else {
            return Ok(code);
        };
        if stop.stopped() {
            // A signal that came once the build had finished ends the watch as one during the
            // wait does: with the signal's status, unless the build itself failed.
            return Ok(match code {
                0 if stop.broken_pipe() => 141,
                0 => voxcaf_fs::signals::exit_code().unwrap_or(130),
                code => code,
            });
        }
        if !a.json {
            crate::global::note(format!(
                "watching {} for changes (Ctrl-C stops)",
                a.src_dir.display()
            ));
        }
        if !watch.wait_for_change(&stop.flag()) {
            return Ok(voxcaf_fs::signals::exit_code().unwrap_or(130));
        }
    }
}

/// The source, output and pack paths of `a`, checked before anything is written.
fn check_paths(a: &BuildArgs) -> Result<()> {
    crate::output::no_dash(&a.src_dir, "a source folder")?;
    crate::output::check_folder(&a.out_dir, &a.src_dir, a.force)?;
    if let Some(p) = &a.pack {
        crate::asset::check_pack_output(&a.out_dir, p, a.force)?;
        crate::output::check_file(
            p,
            &[a.src_dir.as_path()],
            &crate::asset::PACK,
            a.force,
            false,
        )?;
    }
    Ok(())
}

/// One build of `a` (all of `build` without `--watch`); its exit code.
fn build_once(a: &BuildArgs, stop: &voxcaf_fs::signals::StopOnSignal) -> Result<u8> {
    check_paths(a)?;
    let settings = a.settings.settings(None)?;
    let key = a.encrypt.key(&settings)?;
    let remote = a.remote.cache(a.json, key.is_some())?;
    let opts = BuildOptions {
        settings,
        jobs: a.jobs.unwrap_or(0),
        force: a.force,
        key,
        shared: remote
            .clone()
            .map(|r| r as std::sync::Arc<dyn caf_import::shared::SharedCache>),
    };
    // `-q` prints no progress, per-asset lines or summary (failures still print).
    let quiet = a.json || crate::global::quiet();
    let tty = !quiet && std::io::stderr().is_terminal();
    let bar = indicatif::ProgressBar::hidden();
    if tty {
        bar.set_draw_target(indicatif::ProgressDrawTarget::stderr());
        bar.set_style(
            indicatif::ProgressStyle::with_template(
                "{spinner} [{bar:30}] {pos}/{len} {elapsed_precise} {wide_msg}",
            )
            .unwrap_or_else(|_| indicatif::ProgressStyle::default_bar())
            .progress_chars("=> "),
        );
    }
    // Prints must not panic on a broken pipe, hence `say`.
    let say = |line: std::fmt::Arguments<'_>| {
        let _ = writeln!(std::io::stdout(), "{line}");
    };
    let on_event = |ev: &BuildEvent<'_>| match ev {
        BuildEvent::Started { total } => bar.set_length(*total as u64),
        BuildEvent::Converted { entries } => {
            bar.inc(1);
            for entry in entries.iter() {
                if tty {
                    bar.set_message(entry.source.clone());
                } else if !quiet {
                    say(format_args!(
                        "{} {} -> {}: {}",
                        entry.origin.verb(),
                        entry.source,
                        entry.output,
                        entry.summary
                    ));
                }
            }
        }
        BuildEvent::Skipped { entries } => {
            bar.inc(1);
            if let (false, false, Some(entry)) = (tty, quiet, entries.first()) {
                say(format_args!("up to date {}", entry.source));
            }
        }
        BuildEvent::Failed { failure } => {
            bar.inc(1);
            if tty {
                bar.println(format!("FAILED {}: {}", failure.source, failure.error));
            } else if !quiet {
                say(format_args!("FAILED {}: {}", failure.source, failure.error));
            }
        }
    };
    let report = batch::build_until(&a.src_dir, &a.out_dir, &opts, &stop.flag(), &on_event);
    bar.finish_and_clear();
    let report = match report {
        Ok(r) => r,
        Err(e) => {
            if a.json {
                println!("{}", crate::output::error_json(&e.into()));
            } else {
                eprintln!("{} {e}", crate::global::label("error"));
            }
            return Ok(1);
        }
    };
    // The pack is written only from a complete build without failures.
    let packed = match &a.pack {
        Some(p) if report.ok() && !report.interrupted => {
            Some(crate::asset::write_dir_pack(&a.out_dir, p).map(|(n, size)| (p, n, size))?)
        }
        _ => None,
    };
    if a.json {
        say(format_args!(
            "{}",
            json!({
                "pack": packed.map(|(p, n, size)| json!({
                    "path": p.display().to_string(), "assets": n, "bytes": size,
                })),
                "ok": report.ok() && !report.interrupted,
                "interrupted": report.interrupted,
                "assets": report.manifest.assets.len(),
                "converted": report.converted,
                "skipped": report.skipped,
                "removed": report.removed,
                "failed": report.manifest.failures,
                "ignored": report.manifest.ignored,
                "bytes_written": report.bytes_written,
                "elapsed_ms": report.elapsed.as_secs_f64() * 1000.0,
                "manifest": a.out_dir.join(batch::MANIFEST_NAME).display().to_string(),
                "remote": remote.as_ref().map(|r| remote_json(&r.stats())),
            })
        ));
    } else {
        if !quiet {
            for i in &report.manifest.ignored {
                say(format_args!("ignored {}: {}", i.path, i.message));
            }
            say(format_args!("{}", summary(&report, &a.out_dir)));
            if let Some(r) = &remote {
                say(format_args!("{}", remote_line(&r.stats())));
            }
        }
        for f in &report.manifest.failures {
            eprintln!("failed: {}: {}", f.source, f.error);
        }
        if let Some((p, n, size)) = packed.filter(|_| !quiet) {
            say(format_args!(
                "wrote {} ({}, {size} bytes)",
                p.display(),
                crate::global::count(n as u64, "asset")
            ));
        } else if let Some(p) = a.pack.as_ref().filter(|_| packed.is_none()) {
            eprintln!(
                "not packed: {} (the build had failures or was stopped)",
                p.display()
            );
        }
    }
    if report.interrupted {
        if !stop.broken_pipe() {
            eprintln!(
                "interrupted: the manifest lists the {} assets finished; run the build again to complete it",
                report.manifest.assets.len()
            );
        }
        // The conventional 128 + signal: 130 for Ctrl-C, 143 for SIGTERM, 141 for SIGPIPE.
        return Ok(match voxcaf_fs::signals::exit_code() {
            _ if stop.broken_pipe() => 141,
            Some(code) => code,
            None => 130,
        });
    }
    Ok(if report.ok() { 0 } else { 1 })
}

fn summary(r: &BuildReport, out: &Path) -> String {
    let failed = r.manifest.failures.len();
    format!(
        "{} asset{} in {}: {} converted, {} up to date, {} failed, {} ignored{}; {} written in {:.2} s",
        r.manifest.assets.len(),
        if r.manifest.assets.len() == 1 {
            ""
        } else {
            "s"
        },
        out.display(),
        r.converted,
        r.skipped,
        failed,
        r.manifest.ignored.len(),
        if r.removed > 0 {
            format!(", {} stale removed", r.removed)
        } else {
            String::new()
        },
        human_bytes(r.bytes_written),
        r.elapsed.as_secs_f64()
    )
}

/// Demo hook: write a small source tree into `src_dir` (a PNG texture with a sidecar asking
/// for mips, a WAV sound, an OBJ mesh, a GLSL vertex and fragment shader), build it into
/// `out_dir`, build again to show the content-hash skip, and return a short report.
pub fn demo_build(src_dir: &Path, out_dir: &Path) -> Result<String> {
    let written = voxcaf_samples::write_source_tree(src_dir)
        .with_context(|| format!("writing the sample sources to {}", src_dir.display()))?;
    // Shaders need the Khronos programs (Debian packages glslang-tools and spirv-tools); a
    // machine without them still gets the rest of the demo, and is told why.
    let mut note = None;
    if !caf_import::shader::tools_available() {
        for rel in written.iter().filter(|r| r.starts_with("shaders/")) {
            let p = src_dir.join(rel);
            std::fs::remove_file(&p).with_context(|| format!("removing {}", p.display()))?;
        }
        note = Some(format!(
            "note: shaders left out: importing them runs {} and spirv-val/spirv-dis (Debian \
             packages glslang-tools and spirv-tools), which are not installed",
            caf_import::shader::GLSLANG
        ));
    }

    let opts = BuildOptions::default();
    let first = batch::build(src_dir, out_dir, &opts, &|_| {})?;
    if !first.ok() {
        let f = &first.manifest.failures[0];
        anyhow::bail!("demo asset build failed: {}: {}", f.source, f.error);
    }
    let second = batch::build(src_dir, out_dir, &opts, &|_| {})?;
    let total: u64 = first.manifest.assets.iter().map(|e| e.file_size).sum();
    let mut lines = vec![format!(
        "asset build: {} -> {} ({} bytes) in {:.1} ms; rebuild skipped {}/{} (content hash unchanged)",
        crate::global::count(first.manifest.assets.len() as u64, "asset"),
        out_dir.display(),
        total,
        first.elapsed.as_secs_f64() * 1000.0,
        second.skipped,
        second.manifest.assets.len()
    )];
    for e in &first.manifest.assets {
        lines.push(format!("  {} -> {}: {}", e.source, e.output, e.summary));
    }
    lines.extend(note);
    Ok(lines.join("\n"))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn build_exits_1_naming_the_broken_file_and_demo_skips_on_rebuild() {
        let tmp = tempfile::tempdir().unwrap();
        let src = tmp.path().join("src");
        let out = tmp.path().join("out");
        let report = demo_build(&src, &out).unwrap();
        assert!(report.contains("rebuild skipped 5/5"), "{report}");
        std::fs::write(src.join("textures/broken.png"), b"not a png").unwrap();
        let args = BuildArgs {
            src_dir: src.clone(),
            out_dir: out.clone().into(),
            jobs: Some(2),
            force: false,
            settings: SettingsArgs {
                mips: false,
                mip_filter: MipFilter::Linear,
                srgb: false,
                linear: false,
                gpu_format: None,
                profile: Profile::Default,
                bits: AudioBits::B16,
                stage: None,
                compress: Compress::None,
                level: None,
                cipher: None,
                mesh_nodes: MeshNodes::Flatten,
                charset: None,
                charset_file: None,
                size: None,
                sdf_range: None,
                font_format: FontFormat::Sdf,
                font_face: None,
                anim_rate: None,
            },
            encrypt: EncryptArgs {
                encrypt: false,
                key_file: None,
            },
            pack: None,
            json: true,
            remote: RemoteArgs {
                remote_cache: None,
                remote_instance: String::new(),
                remote_cache_read_only: false,
                remote_exec: false,
                remote_exec_timeout: 300,
            },
            watch: false,
        };
        assert_eq!(build(args).unwrap(), 1);
        let m = batch::Manifest::read(&out.join(batch::MANIFEST_NAME)).unwrap();
        assert_eq!(m.failures.len(), 1);
        assert_eq!(m.failures[0].source, "textures/broken.png");
        assert_eq!(m.assets.len(), 5);
    }
}
