use crate::util::Test;

// A 1x1 PNG.
const PNG: &[u8] = &[
    0x89, 0x50, 0x4e, 0x47, 0x0d, 0x0a, 0x1a, 0x0a, 0x00, 0x00, 0x00, 0x0d, 0x49, 0x48, 0x44, 0x52,
    0x00, 0x00, 0x00, 0x01, 0x00, 0x00, 0x00, 0x01, 0x08, 0x06, 0x00, 0x00, 0x00, 0x1f, 0x15, 0xc4,
    0x89,
];

#[test]
fn init_prints_a_package() {
    let out = Test::new().args(["init", "foo"]).run().success();
    assert_eq!(
        out.stdout,
        "{\n    \"schema\": \"olm.package\",\n    \"name\": \"foo\",\n    \"defaultChannel\": \"\"\n}\n"
    );
}

#[test]
fn init_with_every_flag_as_yaml() {
    let out = Test::new()
        .file("README.md", "# Foo\n\nDoes foo things.\n")
        .file("icon.png", PNG)
        .args([
            "init",
            "foo",
            "-c",
            "alpha",
            "-d",
            "README.md",
            "-i",
            "icon.png",
            "-o",
            "yaml",
        ])
        .run()
        .success();
    assert_eq!(
        out.stdout,
        "---\ndefaultChannel: alpha\ndescription: |\n  # Foo\n\n  Does foo things.\nicon:\n  base64data: iVBORw0KGgoAAAANSUhEUgAAAAEAAAABCAYAAAAfFcSJ\n  mediatype: image/png\nname: foo\nschema: olm.package\n"
    );
}

#[test]
fn init_refuses_an_icon_that_is_not_an_image() {
    Test::new()
        .file("notes.txt", "hello")
        .args(["init", "foo", "-i", "notes.txt"])
        .run()
        .failure(&["detected invalid type \"\": not an image"]);
}

#[test]
fn init_reports_missing_files() {
    Test::new()
        .args(["init", "foo", "-d", "nope.md"])
        .run()
        .failure(&["open description file: open nope.md: no such file or directory"]);
    Test::new()
        .args(["init", "foo", "-i", "nope.png"])
        .run()
        .failure(&["open icon file: open nope.png: no such file or directory"]);
}
