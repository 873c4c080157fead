//! Saves a file atomically twice, through a symbolic link, and shows that the link, the
//! permission bits and the folder (no temporary file left) are as a user expects.
//!
//! `cargo run -p voxcaf-fs --example save`

fn main() -> std::io::Result<()> {
    let dir = std::env::temp_dir().join(format!("voxcaf-fs-example-{}", std::process::id()));
    std::fs::create_dir_all(&dir)?;
    let real = dir.join("level.txt");
    voxcaf_fs::write_atomic(&real, b"first version\n")?;
    #[cfg(unix)]
    {
        use std::os::unix::fs::PermissionsExt;
        std::fs::set_permissions(&real, std::fs::Permissions::from_mode(0o640))?;
        let link = dir.join("current.txt");
        std::os::unix::fs::symlink("level.txt", &link)?;
        voxcaf_fs::write_atomic(&link, b"second version, saved through the link\n")?;
        let mode = std::fs::metadata(&real)?.permissions().mode() & 0o777;
        println!(
            "link kept: {}",
            std::fs::symlink_metadata(&link)?.file_type().is_symlink()
        );
        println!("mode kept: {mode:o}");
    }
    print!("{}", std::fs::read_to_string(&real)?);
    let names: Vec<_> = std::fs::read_dir(&dir)?
        .map(|e| e.map(|e| e.file_name().to_string_lossy().into_owned()))
        .collect::<Result<_, _>>()?;
    println!("folder holds: {names:?}");
    std::fs::remove_dir_all(&dir)
}
