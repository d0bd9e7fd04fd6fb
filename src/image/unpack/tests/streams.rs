//! The layer stream: limits on entries, bytes and headers, damaged and truncated input,
//! compression detected by magic bytes, encrypted layers, sparse entries.

use super::*;

#[test]
fn entry_count_limit_stops_extraction() {
    let sandbox = Sandbox::new();
    let mut layer = Layer::new();
    for i in 0..10 {
        layer = layer.file(&format!("f{i}"), b"");
    }
    let layer = layer.tar();
    let limits = Limits {
        max_entries: 15,
        ..Limits::default()
    };
    // The count runs over all layers of the image.
    let err = sandbox
        .apply_with(&[(&layer, TAR), (&layer, TAR)], limits)
        .unwrap_err();
    assert!(matches!(err, UnpackError::TooManyEntries { limit: 15 }));
}

#[test]
fn decompression_bomb_is_stopped_by_the_byte_limit() {
    let sandbox = Sandbox::new();
    let zeros = vec![0u8; 8 << 20];
    let mut out = Vec::new();
    // 512 KiB fits; 8 MiB of zeros (a few KiB compressed) does not.
    raw_entry(
        &mut out,
        b"small",
        tar::EntryType::Regular,
        b"",
        &zeros[..1 << 19],
    );
    raw_entry(&mut out, b"bomb", tar::EntryType::Regular, b"", &zeros);
    let layer = gzip(&raw_end(out));
    assert!(layer.len() < 64 << 10);
    let limits = Limits {
        max_total_bytes: 4 << 20,
        ..Limits::default()
    };
    let err = sandbox
        .apply_with(&[(&layer, TAR_GZIP)], limits)
        .unwrap_err();
    assert!(matches!(err, UnpackError::TooLarge { limit } if limit == 4 << 20));
    // The announced size was checked first: the bomb was never created.
    assert!(!sandbox.exists("bomb"));
    assert_eq!(fs::metadata(sandbox.path("small")).unwrap().len(), 1 << 19);
}

#[test]
fn byte_limit_holds_when_data_is_not_announced() {
    // A stream of zero-size directory entries carries no announced sizes;
    // the bytes themselves are counted.
    let sandbox = Sandbox::new();
    let mut out = Vec::new();
    for i in 0..4096 {
        raw_entry(
            &mut out,
            format!("d{i}/").as_bytes(),
            tar::EntryType::Directory,
            b"",
            b"",
        );
    }
    let layer = gzip(&raw_end(out));
    let limits = Limits {
        max_total_bytes: 1 << 20,
        ..Limits::default()
    };
    let err = sandbox
        .apply_with(&[(&layer, TAR_GZIP)], limits)
        .unwrap_err();
    assert!(matches!(err, UnpackError::TooLarge { .. }));
}

#[test]
fn huge_announced_size_is_refused_before_writing() {
    let sandbox = Sandbox::new();
    let mut out = Vec::new();
    raw_entry_sized(
        &mut out,
        b"huge",
        tar::EntryType::Regular,
        b"",
        b"",
        1 << 40,
    );
    let err = sandbox.apply(&[(&raw_end(out), TAR)]).unwrap_err();
    assert!(matches!(err, UnpackError::TooLarge { .. }));
    assert!(!sandbox.exists("huge"));
}

#[test]
fn huge_long_name_is_stopped() {
    let sandbox = Sandbox::new();
    let name = vec![b'a'; 2 << 20];
    let mut out = Vec::new();
    raw_entry(
        &mut out,
        b"././@LongLink",
        tar::EntryType::GNULongName,
        b"",
        &name,
    );
    raw_entry(&mut out, b"x", tar::EntryType::Regular, b"", b"");
    let err = sandbox
        .apply(&[(&gzip(&raw_end(out)), TAR_GZIP)])
        .unwrap_err();
    assert!(matches!(
        err,
        UnpackError::HeaderTooLarge {
            limit: MAX_ENTRY_METADATA
        }
    ));
}

#[test]
fn truncated_entry_is_an_error() {
    let sandbox = Sandbox::new();
    let layer = Layer::new().file("f", &[7; 4000]).tar();
    let err = sandbox.apply(&[(&layer[..2048], TAR)]).unwrap_err();
    assert!(
        matches!(&err, UnpackError::Truncated { entry, expected: 4000, actual } if entry == "f" && *actual == 1536),
        "{err:?}"
    );
}

#[test]
fn garbage_and_damaged_streams_are_errors() {
    let sandbox = Sandbox::new();
    let mut seed: u32 = 7;
    let garbage: Vec<u8> = (0..4096)
        .map(|_| {
            seed = seed.wrapping_mul(1_103_515_245).wrapping_add(12_345);
            (seed >> 16) as u8
        })
        .collect();
    // What is wrong is in the cause, which the message does not repeat.
    let chain = |error: &UnpackError| {
        let source = std::error::Error::source(error).map(ToString::to_string);
        format!("{error}: {}", source.unwrap_or_default())
    };
    let err = sandbox.apply(&[(&garbage, TAR_GZIP)]).unwrap_err();
    assert!(matches!(err, UnpackError::NotAnArchive { .. }), "{err:?}");
    let text = chain(&err);
    assert!(
        text.starts_with(
            "read layer archive: the layer is neither gzip- nor zstd-compressed, \
             and not a tar archive either: numeric field did not have utf-8 text: "
        ),
        "{text}"
    );
    // The header bytes the tar reader quotes come out printable and short.
    assert!(!text.chars().any(char::is_control), "{text}");
    assert!(text.contains("\\u{"), "{text}");
    assert!(text.chars().count() < 400, "{text}");
    let mut fake_gzip = vec![0x1f, 0x8b];
    fake_gzip.extend_from_slice(&garbage);
    let err = sandbox.apply(&[(&fake_gzip, TAR_GZIP)]).unwrap_err();
    assert!(matches!(err, UnpackError::Archive { .. }), "{err:?}");
    assert_eq!(chain(&err), "read layer archive: invalid gzip header");
    let mut fake_zstd = vec![0x28, 0xb5, 0x2f, 0xfd];
    fake_zstd.extend_from_slice(&garbage);
    assert!(sandbox.apply(&[(&fake_zstd, TAR_ZSTD)]).is_err());
    let layer = gzip(&Layer::new().file("f", &garbage).tar());
    let err = sandbox
        .apply(&[(&layer[..layer.len() / 2], TAR_GZIP)])
        .unwrap_err();
    assert!(
        matches!(&err, UnpackError::Entry { entry, .. } if entry == "f"),
        "{err:?}"
    );
}

#[test]
fn empty_layer_is_accepted() {
    let sandbox = Sandbox::new();
    sandbox
        .apply(&[(b"", TAR), (&gzip(b""), TAR_GZIP), (&[0; 1024], TAR)])
        .unwrap();
}

#[test]
fn no_panic_on_damaged_input() {
    let layer = Layer::new()
        .dir("d/")
        .file("d/f", b"content")
        .symlink("l", "d/f")
        .hard_link("h", "d/f")
        .file(".wh.x", b"")
        .tar();
    let compressed = gzip(&layer);
    let mut seed: u32 = 1;
    for round in 0..300 {
        for data in [&layer, &compressed] {
            let mut damaged = data.clone();
            if round % 3 == 0 {
                damaged.truncate(round * 7 % damaged.len());
            } else {
                for _ in 0..4 {
                    seed = seed.wrapping_mul(1_103_515_245).wrapping_add(12_345);
                    let at = seed as usize % damaged.len();
                    damaged[at] = (seed >> 16) as u8;
                }
            }
            let sandbox = Sandbox::new();
            let _ = sandbox.apply(&[(&damaged, "application/octet-stream")]);
            assert!(sandbox.outside().is_empty());
        }
    }
}

#[test]
fn gzip_is_detected_by_magic_whatever_the_media_type() {
    let layer = Layer::new().file("f", b"gz").tar();
    let compressed = gzip(&layer);
    for media_type in [TAR, TAR_ZSTD, DOCKER_GZIP, "application/octet-stream", ""] {
        let sandbox = Sandbox::new();
        sandbox.apply(&[(&compressed, media_type)]).unwrap();
        assert_eq!(sandbox.read("f"), "gz");
    }
    // A plain tar labelled gzip is read as what it is.
    let sandbox = Sandbox::new();
    sandbox
        .apply(&[(&layer, "application/vnd.oci.image.layer.v1.tar.gzip")])
        .unwrap();
    assert_eq!(sandbox.read("f"), "gz");
}

#[test]
fn concatenated_gzip_members_are_one_stream() {
    let layer = Layer::new().file("f", &[b'z'; 3000]).tar();
    let mut compressed = gzip(&layer[..1000]);
    compressed.extend(gzip(&layer[1000..]));
    let sandbox = Sandbox::new();
    sandbox.apply(&[(&compressed, TAR_GZIP)]).unwrap();
    assert_eq!(sandbox.read("f").len(), 3000);
}

#[test]
fn zstd_fixture_from_the_cli_is_decompressed() {
    for media_type in [TAR_ZSTD, "application/octet-stream"] {
        let sandbox = Sandbox::new();
        sandbox.apply(&[(ZSTD_FIXTURE, media_type)]).unwrap();
        assert_eq!(
            sandbox.read("manifests/csv.yaml"),
            "kind: ClusterServiceVersion\nmetadata:\n  name: etcd.v0.9.4\n"
        );
        assert_eq!(
            sandbox.read("metadata/annotations.yaml"),
            "annotations:\n  operators.operatorframework.io.bundle.package.v1: etcd\n"
        );
    }
}

#[test]
fn zstd_frames_and_skippable_frames_are_read_in_order() {
    let layer = Layer::new().file("a", &[b'a'; 5000]).file("b", b"b").tar();
    let level = ruzstd::encoding::CompressionLevel::Fastest;
    // A skippable frame first: magic 0x184d2a53, 3 bytes of payload.
    let mut compressed = vec![0x53, 0x2a, 0x4d, 0x18, 3, 0, 0, 0, 1, 2, 3];
    compressed.extend(ruzstd::encoding::compress_to_vec(&layer[..2000], level));
    compressed.extend([0x50, 0x2a, 0x4d, 0x18, 0, 0, 0, 0]);
    compressed.extend(ruzstd::encoding::compress_to_vec(&layer[2000..], level));
    let sandbox = Sandbox::new();
    sandbox.apply(&[(&compressed, TAR)]).unwrap();
    assert_eq!(sandbox.read("a").len(), 5000);
    assert_eq!(sandbox.read("b"), "b");
}

#[test]
fn encrypted_layers_are_refused() {
    let sandbox = Sandbox::new();
    let err = sandbox
        .apply(&[(b"", "application/vnd.oci.image.layer.v1.tar+gzip+encrypted")])
        .unwrap_err();
    assert!(matches!(err, UnpackError::UnsupportedMediaType { .. }));
}

#[test]
fn error_messages_name_the_entry() {
    let sandbox = Sandbox::new();
    let layer = raw_layer(&[(b"../evil\n", tar::EntryType::Regular, b"")]);
    let err = sandbox.apply(&[(&layer, TAR)]).unwrap_err();
    assert_eq!(
        err.to_string(),
        "refuse layer entry \"../evil\\n\": the path climbs above the image root with `..`"
    );
    let long = vec![b'x'; 1000];
    assert_eq!(display_name(&long).chars().count(), MAX_NAME_IN_MESSAGE + 1);
}

/// A GNU sparse entry of `real_size` bytes whose only data, 512 bytes of
/// `s`, sits at the end; the rest is a hole.
fn sparse_layer(real_size: u64) -> Vec<u8> {
    let octal = |field: &mut [u8; 12], value: u64| {
        field.copy_from_slice(format!("{value:011o}\0").as_bytes());
    };
    let mut header = tar::Header::new_gnu();
    header.set_path("sparse").unwrap();
    header.set_entry_type(tar::EntryType::GNUSparse);
    header.set_mode(0o644);
    header.set_size(512);
    header.set_mtime(0);
    let gnu = header.as_gnu_mut().unwrap();
    octal(&mut gnu.realsize, real_size);
    octal(&mut gnu.sparse[0].offset, real_size - 512);
    octal(&mut gnu.sparse[0].numbytes, 512);
    header.set_cksum();
    let mut out = header.as_bytes().to_vec();
    out.extend_from_slice(&[b's'; 512]);
    raw_end(out)
}

#[test]
fn sparse_holes_count_against_the_byte_limit() {
    let limits = Limits {
        max_total_bytes: 4 << 20,
        ..Limits::default()
    };
    let sandbox = Sandbox::new();
    let layer = sparse_layer(1 << 20);
    let state = sandbox
        .apply_with(&[(&layer, TAR)], limits.clone())
        .unwrap();
    let data = fs::read(sandbox.path("sparse")).unwrap();
    assert_eq!(data.len(), 1 << 20);
    assert!(data[..(1 << 20) - 512].iter().all(|&b| b == 0));
    assert!(data[(1 << 20) - 512..].iter().all(|&b| b == b's'));
    assert!(state.bytes() >= 1 << 20);

    // 8 MiB announced by a layer of 2 KiB: refused before writing.
    let sandbox = Sandbox::new();
    let err = sandbox
        .apply_with(&[(&sparse_layer(8 << 20), TAR)], limits)
        .unwrap_err();
    assert!(matches!(err, UnpackError::TooLarge { .. }));
    assert!(!sandbox.exists("sparse"));
}
