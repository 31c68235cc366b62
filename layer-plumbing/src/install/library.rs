//! Which library the manifest names.

use std::path::PathBuf;

use super::error::InstallError;

/// The newest existing file of `candidates`, made absolute; the first names the error.
pub(crate) fn newest(candidates: &[PathBuf]) -> Result<PathBuf, InstallError> {
    let modified = |p: &&PathBuf| std::fs::metadata(p).and_then(|m| m.modified()).ok();
    candidates
        .iter()
        .filter(|p| p.is_file())
        .rev()
        .max_by_key(modified)
        .and_then(|p| std::fs::canonicalize(p).ok())
        .ok_or_else(|| InstallError::NoLibrary(candidates[0].clone()))
}

#[cfg(test)]
mod tests {
    use super::*;
    use std::time::{Duration, SystemTime};

    #[test]
    fn a_missing_library_is_named() {
        let missing = PathBuf::from("/nonexistent/libx.so");
        let e = newest(&[missing.clone(), "/nonexistent/deps/libx.so".into()]).unwrap_err();
        assert!(
            matches!(e, InstallError::NoLibrary(ref p) if *p == missing),
            "{e:?}"
        );
    }

    #[test]
    fn the_newer_of_two_builds_wins() {
        let dir = std::env::temp_dir().join(format!("plumbing-newest-{}", std::process::id()));
        std::fs::create_dir_all(dir.join("deps")).unwrap();
        let (beside, deps) = (dir.join("libx.so"), dir.join("deps/libx.so"));
        let old = SystemTime::now() - Duration::from_secs(60);
        for (path, when) in [(&beside, old), (&deps, SystemTime::now())] {
            let file = std::fs::File::create(path).unwrap();
            file.set_modified(when).unwrap();
        }
        assert_eq!(
            newest(&[beside.clone(), deps.clone()]).unwrap(),
            deps.canonicalize().unwrap()
        );
        std::fs::File::options()
            .write(true)
            .open(&beside)
            .unwrap()
            .set_modified(SystemTime::now() + Duration::from_secs(60))
            .unwrap();
        assert_eq!(
            newest(&[beside.clone(), deps]).unwrap(),
            beside.canonicalize().unwrap()
        );
        std::fs::remove_dir_all(&dir).unwrap();
    }
}
