//! Reading the files of a bundle directory.

/// Reads a file of a bundle directory: `<bundle>/manifests/<file>` or `<bundle>/metadata/<file>`,
/// so the tree a symbolic link must stay in is the file's grandparent. Only regular files are
/// read, within the manifest size limit ([`crate::fsutil::read_input`]).
pub fn read_file(path: &std::path::Path) -> Result<Vec<u8>, crate::fsutil::InputError> {
    let tree = path
        .parent()
        .and_then(std::path::Path::parent)
        .filter(|tree| !tree.as_os_str().is_empty())
        .unwrap_or(std::path::Path::new("."));
    crate::fsutil::read_input(path, tree, crate::fsutil::Limit::Manifest)
}
