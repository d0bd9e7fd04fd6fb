//! Hostile images served by a real registry: `opm render` and
//! `opm bundle unpack` refuse them and write nothing outside their
//! temporary directory.

use crate::util::registry::{ImageSpec, Layout, PushOptions, Registry, LAYER_GZIP};
use crate::util::Test;

const PACKAGE: &str = "operators.operatorframework.io.bundle.package.v1";

/// A tar holding one entry with a raw (unchecked) name.
fn raw_tar(entries: &[(&str, tar::EntryType, &str, &[u8])]) -> Vec<u8> {
    let mut builder = tar::Builder::new(Vec::new());
    for (name, kind, link, data) in entries {
        let mut header = tar::Header::new_old();
        let bytes = name.as_bytes();
        header.as_old_mut().name[..bytes.len()].copy_from_slice(bytes);
        header.set_entry_type(*kind);
        header.set_mode(0o644);
        header.set_size(data.len() as u64);
        if !link.is_empty() {
            let bytes = link.as_bytes();
            header.as_old_mut().linkname[..bytes.len()].copy_from_slice(bytes);
        }
        header.set_cksum();
        builder.append(&header, *data).expect("tar entry");
    }
    builder.into_inner().expect("tar")
}

fn push_hostile(registry: &Registry, repository: &str, tar: Vec<u8>) -> String {
    let mut layout = Layout::new();
    let spec = ImageSpec::new("amd64")
        .label(PACKAGE, "evil")
        .layer(
            LAYER_GZIP,
            &[("metadata/annotations.yaml", "annotations: {}\n")],
        )
        .raw_layer(tar);
    layout.add_image("v1", &spec);
    registry.push(
        layout.path(),
        "v1",
        &format!("{repository}:v1"),
        &PushOptions::default(),
    );
    registry.reference(&format!("{repository}:v1"))
}

#[test]
fn path_traversal_is_refused() {
    let Some(registry) = Registry::plain() else {
        return;
    };
    let marker = format!("opm-escape-{}", std::process::id());
    let name = format!("../../../../../../../../tmp/{marker}");
    let reference = push_hostile(
        &registry,
        "hostile/traversal",
        raw_tar(&[(&name, tar::EntryType::Regular, "", b"pwned")]),
    );
    for args in [
        vec!["render", reference.as_str(), "--use-http"],
        vec![
            "bundle",
            "unpack",
            reference.as_str(),
            "--use-http",
            "-o",
            "out",
        ],
    ] {
        let out = Test::new().args(args.clone()).run();
        assert_eq!(out.code, 1, "{args:?}: {}", out.stderr);
        assert!(
            out.stderr.contains("failed to unpack image"),
            "{args:?}: {}",
            out.stderr
        );
        assert!(
            !std::path::Path::new("/tmp").join(&marker).exists(),
            "{args:?} escaped"
        );
        assert!(!out.exists("out/manifests"), "{args:?} wrote output");
    }
}

#[test]
fn escaping_links_are_refused() {
    let Some(registry) = Registry::plain() else {
        return;
    };
    let reference = push_hostile(
        &registry,
        "hostile/links",
        raw_tar(&[
            (
                "manifests",
                tar::EntryType::Symlink,
                "../../../../../../../../tmp",
                b"",
            ),
            (
                "manifests/evil.yaml",
                tar::EntryType::Regular,
                "",
                b"kind: ConfigMap\n",
            ),
        ]),
    );
    let out = Test::new()
        .args(["render", reference.as_str(), "--use-http"])
        .run();
    assert_eq!(out.code, 1, "{}", out.stderr);
    assert!(
        out.stderr.contains("failed to unpack image"),
        "{}",
        out.stderr
    );
    assert!(!std::path::Path::new("/tmp/evil.yaml").exists());
    let reference = push_hostile(
        &registry,
        "hostile/hardlink",
        raw_tar(&[("manifests/passwd", tar::EntryType::Link, "/etc/passwd", b"")]),
    );
    let out = Test::new()
        .args(["render", reference.as_str(), "--use-http"])
        .run();
    assert_eq!(out.code, 1, "{}", out.stderr);
    assert!(
        out.stderr.contains("failed to unpack image"),
        "{}",
        out.stderr
    );
}
