//! Icon media-type sniffing for `opm init -i`.
//!
//! Upstream `alpha/action.Init` calls `filetype.Match` (h2non/filetype
//! v1.1.3) on the icon bytes; `alpha/model` registers an extra SVG matcher
//! (h2non/go-is-svg, 2016) with `filetype.AddMatcher`, which puts it in
//! front of all built-in matchers. The built-ins are consulted category by
//! category: application, image, video, audio, font, document, archive
//! (registration prepends, so the reverse of `register`'s argument order).
//! Within a category upstream's order is Go map order, i.e. random per
//! run; the only overlaps that makes visible (MP4/MOV, EPUB/ZIP, short
//! DOC/XLS/PPT headers) are settled here by declaration order.

/// The MIME type h2non/filetype (plus upstream opm's extra SVG matcher) detects for these bytes, or "" when unknown.
///
/// Upstream refuses an empty buffer outright (`filetype.Match` returns
/// "Empty buffer"); here empty input is simply unknown, so a caller that
/// wants upstream's message must check for it first.
pub fn detect_mime(bytes: &[u8]) -> &'static str {
    if bytes.is_empty() {
        return "";
    }
    MATCHERS
        .iter()
        .find(|(_, matches)| matches(bytes))
        .map(|(mime, _)| *mime)
        .unwrap_or("")
}

type Matcher = fn(&[u8]) -> bool;

/// Every matcher in upstream's consultation order.
const MATCHERS: &[(&str, Matcher)] = &[
    ("image/svg+xml", is_svg),
    // Application.
    ("application/wasm", wasm),
    ("application/vnd.android.dex", dex),
    ("application/vnd.android.dey", dey),
    // Image.
    ("image/jpeg", |b| starts(b, &[0xFF, 0xD8, 0xFF])),
    ("image/jp2", |b| {
        starts(
            b,
            &[
                0x00, 0x00, 0x00, 0x0C, 0x6A, 0x50, 0x20, 0x20, 0x0D, 0x0A, 0x87, 0x0A, 0x00,
            ],
        )
    }),
    ("image/png", |b| starts(b, &[0x89, 0x50, 0x4E, 0x47])),
    ("image/gif", |b| starts(b, b"GIF")),
    ("image/webp", |b| at(b, 8, b"WEBP")),
    ("image/x-canon-cr2", cr2),
    ("image/tiff", |b| b.len() > 10 && tiff_header(b) && !cr2(b)),
    ("image/bmp", |b| starts(b, b"BM")),
    ("image/vnd.ms-photo", |b| starts(b, &[0x49, 0x49, 0xBC])),
    ("image/vnd.adobe.photoshop", |b| starts(b, b"8BPS")),
    ("image/vnd.microsoft.icon", |b| {
        starts(b, &[0x00, 0x00, 0x01, 0x00])
    }),
    ("image/heif", heif),
    ("image/vnd.dwg", |b| starts(b, b"AC10")),
    // Video.
    ("video/mp4", mp4),
    ("video/x-m4v", |b| at(b, 4, b"ftypM4V")),
    ("video/x-matroska", |b| {
        starts(b, EBML) && matroska(b, b"matroska")
    }),
    ("video/webm", |b| starts(b, EBML) && matroska(b, b"webm")),
    ("video/quicktime", mov),
    ("video/x-msvideo", |b| {
        starts(b, b"RIFF") && at(b, 8, b"AVI")
    }),
    ("video/x-ms-wmv", |b| {
        starts(
            b,
            &[0x30, 0x26, 0xB2, 0x75, 0x8E, 0x66, 0xCF, 0x11, 0xA6, 0xD9],
        )
    }),
    ("video/mpeg", |b| {
        starts(b, &[0x00, 0x00, 0x01]) && b.len() > 3 && (0xB0..=0xBF).contains(&b[3])
    }),
    ("video/x-flv", |b| starts(b, &[0x46, 0x4C, 0x56, 0x01])),
    ("video/3gpp", |b| at(b, 4, b"ftyp3gp")),
    // Audio.
    ("audio/midi", |b| starts(b, b"MThd")),
    ("audio/mpeg", |b| {
        b.len() > 2 && (starts(b, b"ID3") || starts(b, &[0xFF, 0xFB]))
    }),
    ("audio/m4a", |b| {
        b.len() > 10 && (at(b, 4, b"ftypM4A") || starts(b, b"M4A "))
    }),
    ("audio/ogg", |b| starts(b, b"OggS")),
    ("audio/x-flac", |b| starts(b, b"fLaC")),
    ("audio/x-wav", |b| starts(b, b"RIFF") && at(b, 8, b"WAVE")),
    ("audio/amr", |b| b.len() > 11 && starts(b, b"#!AMR\n")),
    ("audio/aac", |b| {
        starts(b, &[0xFF, 0xF1]) || starts(b, &[0xFF, 0xF9])
    }),
    ("audio/x-aiff", |b| starts(b, b"FORM") && at(b, 8, b"AIFF")),
    // Font.
    ("application/font-woff", |b| {
        starts(b, &[0x77, 0x4F, 0x46, 0x46, 0x00, 0x01, 0x00, 0x00])
    }),
    ("application/font-woff", |b| {
        starts(b, &[0x77, 0x4F, 0x46, 0x32, 0x00, 0x01, 0x00, 0x00])
    }),
    ("application/font-sfnt", |b| {
        starts(b, &[0x00, 0x01, 0x00, 0x00, 0x00])
    }),
    ("application/font-sfnt", |b| {
        starts(b, &[0x4F, 0x54, 0x54, 0x4F, 0x00])
    }),
    // Document.
    ("application/msword", |b| ole(b, [0xEC, 0xA5])),
    (
        "application/vnd.openxmlformats-officedocument.wordprocessingml.document",
        |b| msooxml(b) == Some(Ooxml::Docx),
    ),
    ("application/vnd.ms-excel", |b| ole(b, [0x09, 0x08])),
    (
        "application/vnd.openxmlformats-officedocument.spreadsheetml.sheet",
        |b| msooxml(b) == Some(Ooxml::Xlsx),
    ),
    ("application/vnd.ms-powerpoint", |b| ole(b, [0xA0, 0x46])),
    (
        "application/vnd.openxmlformats-officedocument.presentationml.presentation",
        |b| msooxml(b) == Some(Ooxml::Pptx),
    ),
    // Archive.
    ("application/epub+zip", |b| {
        starts(b, b"PK\x03\x04mimetypeapplication/epub+zip")
    }),
    ("application/zip", zip),
    ("application/x-tar", |b| at(b, 257, b"ustar")),
    ("application/vnd.rar", |b| {
        starts(b, &[0x52, 0x61, 0x72, 0x21, 0x1A, 0x07]) && b.len() > 6 && b[6] <= 1
    }),
    ("application/gzip", |b| starts(b, &[0x1F, 0x8B, 0x08])),
    ("application/x-bzip2", |b| starts(b, b"BZh")),
    ("application/x-7z-compressed", |b| {
        starts(b, &[0x37, 0x7A, 0xBC, 0xAF, 0x27, 0x1C])
    }),
    ("application/x-xz", |b| {
        starts(b, &[0xFD, 0x37, 0x7A, 0x58, 0x5A, 0x00])
    }),
    ("application/zstd", zstd),
    ("application/pdf", |b| starts(b, b"%PDF")),
    ("application/vnd.microsoft.portable-executable", |b| {
        starts(b, b"MZ")
    }),
    ("application/x-shockwave-flash", |b| {
        b.len() > 2 && (b[0] == b'C' || b[0] == b'F') && &b[1..3] == b"WS"
    }),
    ("application/rtf", |b| starts(b, b"{\\rtf")),
    ("application/octet-stream", eot),
    ("application/postscript", |b| starts(b, b"%!")),
    ("application/vnd.sqlite3", |b| starts(b, b"SQLi")),
    ("application/x-nintendo-nes-rom", |b| {
        starts(b, &[0x4E, 0x45, 0x53, 0x1A])
    }),
    ("application/x-google-chrome-extension", |b| {
        starts(b, b"Cr24")
    }),
    ("application/vnd.ms-cab-compressed", |b| {
        starts(b, b"MSCF") || starts(b, b"ISc(")
    }),
    ("application/vnd.debian.binary-package", |b| {
        starts(b, b"!<arch>\ndebian-binary")
    }),
    ("application/x-unix-archive", |b| starts(b, b"!<arch>")),
    ("application/x-compress", |b| {
        starts(b, &[0x1F, 0xA0]) || starts(b, &[0x1F, 0x9D])
    }),
    ("application/x-lzip", |b| starts(b, b"LZIP")),
    ("application/x-rpm", |b| {
        b.len() > 96 && starts(b, &[0xED, 0xAB, 0xEE, 0xDB])
    }),
    ("application/x-executable", |b| {
        b.len() > 52 && starts(b, &[0x7F, 0x45, 0x4C, 0x46])
    }),
    ("application/dicom", |b| at(b, 128, b"DICM")),
    ("application/x-iso9660-image", |b| at(b, 32769, b"CD001")),
    ("application/x-mach-binary", macho),
];

/// `compareBytes(buf, magic, 0)`.
fn starts(b: &[u8], magic: &[u8]) -> bool {
    b.starts_with(magic)
}

/// `compareBytes(buf, magic, offset)`: the magic lies wholly inside `b`.
fn at(b: &[u8], offset: usize, magic: &[u8]) -> bool {
    b.get(offset..).is_some_and(|rest| rest.starts_with(magic))
}

fn wasm(b: &[u8]) -> bool {
    starts(b, &[0x00, 0x61, 0x73, 0x6D, 0x01, 0x00, 0x00, 0x00])
}

fn dex(b: &[u8]) -> bool {
    b.len() > 36 && starts(b, b"dex\n") && b[36] == 0x70
}

/// An optimised DEX: its own magic and a DEX header at offset 40, judged on
/// bytes 40..100 only.
fn dey(b: &[u8]) -> bool {
    b.len() > 100 && starts(b, b"dey\n") && dex(&b[40..100])
}

fn tiff_header(b: &[u8]) -> bool {
    starts(b, &[0x49, 0x49, 0x2A, 0x00]) || starts(b, &[0x4D, 0x4D, 0x00, 0x2A])
}

fn cr2(b: &[u8]) -> bool {
    b.len() > 10 && tiff_header(b) && at(b, 8, &[0x43, 0x52, 0x02])
}

/// The ISO-BMFF `ftyp` box: whole box present, at least 16 bytes.
fn ftyp(b: &[u8]) -> Option<(&[u8], Vec<&[u8]>)> {
    if b.len() < 16 || &b[4..8] != b"ftyp" {
        return None;
    }
    let len = u32::from_be_bytes([b[0], b[1], b[2], b[3]]) as usize;
    if b.len() < len {
        return None;
    }
    // isobmff.GetFtyp: brands only when at least 17 bytes are present.
    if b.len() < 17 {
        return Some((b"", Vec::new()));
    }
    let compatible = (16..len)
        .step_by(4)
        .filter_map(|i| b.get(i..i + 4))
        .collect();
    Some((&b[8..12], compatible))
}

fn heif(b: &[u8]) -> bool {
    match ftyp(b) {
        Some((major, _)) if major == b"heic" => true,
        Some((major, brands)) if major == b"mif1" || major == b"msf1" => {
            brands.iter().any(|brand| *brand == b"heic")
        }
        _ => false,
    }
}

fn mp4(b: &[u8]) -> bool {
    const BRANDS: &[&[u8; 4]] = &[
        b"avc1", b"dash", b"iso2", b"iso3", b"iso4", b"iso5", b"iso6", b"isom", b"mmp4", b"mp41",
        b"mp42", b"mp4v", b"mp71", b"MSNV", b"NDAS", b"NDSC", b"NSDC", b"NDSH", b"NDSM", b"NDSP",
        b"NDSS", b"NDXC", b"NDXH", b"NDXM", b"NDXP", b"NDXS", b"F4V ", b"F4P ",
    ];
    b.len() > 11 && &b[4..8] == b"ftyp" && BRANDS.iter().any(|brand| &b[8..12] == *brand)
}

fn mov(b: &[u8]) -> bool {
    b.len() > 15
        && (starts(b, &[0x00, 0x00, 0x00, 0x14, b'f', b't', b'y', b'p'])
            || &b[4..8] == b"moov"
            || &b[4..8] == b"mdat"
            || &b[12..16] == b"mdat")
}

const EBML: &[u8] = &[0x1A, 0x45, 0xDF, 0xA3];

/// The DocType string within the first 4 KiB, preceded by the DocType
/// element id (0x42 0x82) and a size byte.
fn matroska(b: &[u8], doc_type: &[u8]) -> bool {
    let head = &b[..b.len().min(4096)];
    match head.windows(doc_type.len()).position(|w| w == doc_type) {
        Some(i) if i >= 3 => head[i - 3] == 0x42 && head[i - 2] == 0x82,
        _ => false,
    }
}

/// Compound-file (OLE) Office formats: the sub-format bytes at 512 decide
/// when present; a shorter header matches all three.
fn ole(b: &[u8], sub: [u8; 2]) -> bool {
    if b.len() > 513 {
        starts(b, &[0xD0, 0xCF, 0x11, 0xE0]) && b[512] == sub[0] && b[513] == sub[1]
    } else {
        starts(b, &[0xD0, 0xCF, 0x11, 0xE0])
    }
}

#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Ooxml {
    Docx,
    Xlsx,
    Pptx,
    Other,
}

fn ooxml_dir(b: &[u8], offset: usize) -> Option<Ooxml> {
    if at(b, offset, b"word/") {
        Some(Ooxml::Docx)
    } else if at(b, offset, b"ppt/") {
        Some(Ooxml::Pptx)
    } else if at(b, offset, b"xl/") {
        Some(Ooxml::Xlsx)
    } else {
        None
    }
}

/// The next ZIP local-file header within 6000 bytes of `start`.
fn next_header(b: &[u8], start: usize) -> Option<usize> {
    let end = start.saturating_add(6000).min(b.len());
    if start >= end {
        return None;
    }
    b[start..end].windows(4).position(|w| w == b"PK\x03\x04")
}

/// filetype's `msooxml`: which OOXML flavour a ZIP is, judged by the
/// directory of its first, third or fourth entry.
fn msooxml(b: &[u8]) -> Option<Ooxml> {
    if !starts(b, b"PK\x03\x04") {
        return None;
    }
    if let Some(t) = ooxml_dir(b, 0x1E) {
        return Some(t);
    }
    if !at(b, 0x1E, b"[Content_Types].xml")
        && !at(b, 0x1E, b"_rels/.rels")
        && !at(b, 0x1E, b"docProps")
    {
        return None;
    }
    // Present: the name checked above ends past byte 22.
    let size = u32::from_le_bytes([b[18], b[19], b[20], b[21]]);
    let mut start = size.wrapping_add(49) as usize;
    let idx = next_header(b, start)?;
    start += idx + 4 + 26;
    let idx = next_header(b, start)?;
    start += idx + 4 + 26;
    if let Some(t) = ooxml_dir(b, start) {
        return Some(t);
    }
    start += 26;
    let Some(idx) = next_header(b, start) else {
        return Some(Ooxml::Other);
    };
    start += idx + 4 + 26;
    Some(ooxml_dir(b, start).unwrap_or(Ooxml::Other))
}

fn zip(b: &[u8]) -> bool {
    b.len() > 3 && starts(b, b"PK") && matches!(b[2], 3 | 5 | 7) && matches!(b[3], 4 | 6 | 8)
}

/// Zstandard frame magic, or skippable frames leading to one.
fn zstd(b: &[u8]) -> bool {
    let mut b = b;
    loop {
        if starts(b, &[0x28, 0xB5, 0x2F, 0xFD]) {
            return true;
        }
        if b.len() < 8 {
            return false;
        }
        let magic = u32::from_le_bytes([b[0], b[1], b[2], b[3]]);
        if magic & 0xFFFF_FFF0 != 0x184D_2A50 {
            return false;
        }
        let skip = u32::from_le_bytes([b[4], b[5], b[6], b[7]]) as usize;
        match 8usize.checked_add(skip).and_then(|start| b.get(start..)) {
            Some(next) => b = next,
            None => return false,
        }
    }
}

fn eot(b: &[u8]) -> bool {
    b.len() > 35
        && &b[34..36] == b"LP"
        && matches!(
            &b[8..11],
            [0x02, 0x00, 0x01] | [0x01, 0x00, 0x00] | [0x02, 0x00, 0x02]
        )
}

fn macho(b: &[u8]) -> bool {
    b.len() > 3
        && matches!(
            &b[..4],
            [0xFE, 0xED, 0xFA, 0xCF]
                | [0xFE, 0xED, 0xFA, 0xCE]
                | [0xBE, 0xBA, 0xFE, 0xCA]
                | [0xCF, 0xFA, 0xED, 0xFE]
                | [0xCE, 0xFA, 0xED, 0xFE]
                | [0xCA, 0xFE, 0xBA, 0xBE]
        )
}

/// go-is-svg `Is`: drop every `<!-- ... -->` comment, then require
/// (case-insensitively) optional white space, an optional `<?xml ...>`, an
/// optional `<!doctype svg ...>`, an `<svg ...>` start tag, content without
/// any `*`, and a final `</svg>` followed only by white space. A lone
/// self-closing `<svg/>` therefore does not count.
fn is_svg(b: &[u8]) -> bool {
    let text = strip_comments(b);
    let t = text.as_slice();
    let mut i = skip_space(t, 0);
    if let Some(end) = ci_prefix(t, i, b"<?xml").and_then(|j| close_angle(t, j)) {
        i = skip_space(t, end);
    }
    if let Some(end) = ci_prefix(t, i, b"<!doctype svg").and_then(|j| close_angle(t, j)) {
        i = skip_space(t, end);
    }
    let Some(body) = ci_prefix(t, i, b"<svg").and_then(|j| close_angle(t, j)) else {
        return false;
    };
    // The closing tag is whatever precedes the trailing white space.
    let mut end = t.len();
    while end > 0 && is_space(t[end - 1]) {
        end -= 1;
    }
    let close = [b"</svg>".len(), "</\u{17f}vg>".len()]
        .into_iter()
        .filter_map(|n| end.checked_sub(n))
        .find(|&start| start >= body && ci_prefix(t, start, b"</svg>") == Some(end));
    match close {
        Some(start) => !t[body..start].contains(&b'*'),
        None => false,
    }
}

/// Removes `<!--` … first following `-->` spans, as the non-greedy
/// `(?i)<!--([\s\S]*?)-->` replaced with nothing.
fn strip_comments(b: &[u8]) -> Vec<u8> {
    let mut out = Vec::with_capacity(b.len());
    let mut rest = b;
    while let Some(open) = find(rest, b"<!--") {
        match find(&rest[open + 4..], b"-->") {
            Some(close) => {
                out.extend_from_slice(&rest[..open]);
                rest = &rest[open + 4 + close + 3..];
            }
            None => break,
        }
    }
    out.extend_from_slice(rest);
    out
}

fn find(hay: &[u8], needle: &[u8]) -> Option<usize> {
    hay.windows(needle.len()).position(|w| w == needle)
}

/// RE2 `\s`: tab, newline, form feed, carriage return, space.
fn is_space(c: u8) -> bool {
    matches!(c, b'\t' | b'\n' | 0x0c | b'\r' | b' ')
}

fn skip_space(t: &[u8], mut i: usize) -> usize {
    while i < t.len() && is_space(t[i]) {
        i += 1;
    }
    i
}

/// The end of `[^>]*>` starting at `i`.
fn close_angle(t: &[u8], i: usize) -> Option<usize> {
    t.get(i..)?
        .iter()
        .position(|&c| c == b'>')
        .map(|p| i + p + 1)
}

/// Matches the ASCII `lit` at `i` under RE2's `(?i)` folding (where `s`
/// also matches U+017F LATIN SMALL LETTER LONG S); returns the end.
fn ci_prefix(t: &[u8], i: usize, lit: &[u8]) -> Option<usize> {
    let mut j = i;
    for &c in lit {
        let got = *t.get(j)?;
        if got.eq_ignore_ascii_case(&c) {
            j += 1;
        } else if c == b's' && got == 0xC5 && t.get(j + 1) == Some(&0xBF) {
            j += 2;
        } else {
            return None;
        }
    }
    Some(j)
}

#[cfg(test)]
mod tests {
    use super::*;

    /// Every `opm init -i` conformance case: the icon file and the media
    /// type that upstream accepted, or "" / the non-image type it refused.
    #[test]
    fn conformance_icons() {
        let Some(cases_dir) = crate::testkit::shared("conformance/cases/init") else {
            return;
        };
        // (case, icon file, expected MIME)
        let cases: &[(&str, &str, &str)] = &[
            ("icon-gif", "icon.gif", "image/gif"),
            ("icon-jpeg", "icon.jpg", "image/jpeg"),
            ("icon-png", "icon.png", "image/png"),
            ("icon-svg", "logo.svg", "image/svg+xml"),
            ("icon-svg-with-xml-header", "logo.svg", "image/svg+xml"),
            ("icon-type-from-content", "icon.txt", "image/png"),
            ("all-flags", "icon.png", "image/png"),
            ("icon-not-image-pdf", "doc.pdf", "application/pdf"),
            ("icon-not-image-text", "notes.txt", ""),
            ("icon-svg-self-closing-not-detected", "logo.svg", ""),
        ];
        for (case, file, want) in cases {
            let dir = cases_dir.join(case);
            let path = dir.join("in").join(file);
            let bytes = std::fs::read(&path).expect("icon file");
            let got = detect_mime(&bytes);
            assert_eq!(got, *want, "{case}");
            // Cross-check against what the case recorded.
            if got.starts_with("image/") {
                let stdout = std::fs::read_to_string(dir.join("stdout")).expect("stdout");
                assert!(
                    stdout.contains(&format!("mediatype: {got}"))
                        || stdout.contains(&format!("\"mediatype\": \"{got}\"")),
                    "{case}"
                );
            } else {
                let stderr = std::fs::read_to_string(dir.join("stderr-contains")).expect("stderr");
                assert!(
                    stderr.contains(&format!("detected invalid type \"{got}\": not an image")),
                    "{case}"
                );
            }
        }
    }

    #[test]
    fn magic_numbers() {
        let mut heic = vec![0, 0, 0, 24];
        heic.extend_from_slice(b"ftypmif1\0\0\0\0mif1heic");
        let mut mp4_file = vec![0, 0, 0, 0x18];
        mp4_file.extend_from_slice(b"ftypisom\0\0\0\0");
        let mut mov_file = vec![0, 0, 0, 0x14];
        mov_file.extend_from_slice(b"ftypqt  \0\0\0\0");
        let mut tar = vec![0u8; 262];
        tar[257..262].copy_from_slice(b"ustar");
        let mut doc = vec![0u8; 600];
        doc[..4].copy_from_slice(&[0xD0, 0xCF, 0x11, 0xE0]);
        doc[512] = 0x09;
        doc[513] = 0x08;
        let mut docx = b"PK\x03\x04".to_vec();
        docx.resize(0x1E, 0);
        docx.extend_from_slice(b"word/document.xml");
        let mut zst_skip = vec![0x50, 0x2A, 0x4D, 0x18, 2, 0, 0, 0, 9, 9];
        zst_skip.extend_from_slice(&[0x28, 0xB5, 0x2F, 0xFD]);
        let mut webm = EBML.to_vec();
        webm.extend_from_slice(&[0x9F, 0x42, 0x82, 0x84]);
        webm.extend_from_slice(b"webm");
        let mut dey_file = b"dey\n".to_vec();
        dey_file.resize(101, 0);
        dey_file[40..44].copy_from_slice(b"dex\n");
        dey_file[76] = 0x70;

        let cases: &[(&[u8], &str)] = &[
            (b"", ""),
            (b"\xFF\xD8\xFF\xE0", "image/jpeg"),
            (b"\x89PNG", "image/png"),
            (b"GIF8", "image/gif"),
            (b"RIFF\0\0\0\0WEBP", "image/webp"),
            (b"RIFF\0\0\0\0WAVE", "audio/x-wav"),
            (b"RIFF\0\0\0\0AVI ", "video/x-msvideo"),
            (b"II*\0\0\0\0\0CR\x02", "image/x-canon-cr2"),
            (b"II*\0\0\0\0\0\0\0\0", "image/tiff"),
            (b"II*\0", ""),
            (b"BM", "image/bmp"),
            (b"\0\0\x01\0", "image/vnd.microsoft.icon"),
            (&heic, "image/heif"),
            (&mp4_file, "video/mp4"),
            (&mov_file, "video/quicktime"),
            (&webm, "video/webm"),
            (b"ID3\x03", "audio/mpeg"),
            (b"OggS", "audio/ogg"),
            (b"wOFF\0\x01\0\0", "application/font-woff"),
            (b"\0\x01\0\0\0", "application/font-sfnt"),
            (b"\0asm\x01\0\0\0", "application/wasm"),
            (&dey_file, "application/vnd.android.dey"),
            (&doc, "application/vnd.ms-excel"),
            (&[0xD0, 0xCF, 0x11, 0xE0], "application/msword"),
            (
                &docx,
                "application/vnd.openxmlformats-officedocument.wordprocessingml.document",
            ),
            (b"PK\x03\x04", "application/zip"),
            (&tar, "application/x-tar"),
            (b"%PDF-1.4", "application/pdf"),
            (b"%!PS", "application/postscript"),
            (b"MZ", "application/vnd.microsoft.portable-executable"),
            (&zst_skip, "application/zstd"),
            (b"!<arch>\nfoo", "application/x-unix-archive"),
            (b"\xCF\xFA\xED\xFE", "application/x-mach-binary"),
            (b"just text\n", ""),
        ];
        for (bytes, want) in cases {
            assert_eq!(detect_mime(bytes), *want, "{bytes:?}");
        }
    }

    #[test]
    fn svg_matcher() {
        let cases: &[(&str, bool)] = &[
            ("<svg></svg>", true),
            ("  <SVG width=\"1\"></Svg>\n\t", true),
            (
                "<?xml version=\"1.0\"?>\n<!DOCTYPE svg PUBLIC \"x\">\n<svg>x</svg>",
                true,
            ),
            ("<!-- a --><svg></svg>", true),
            ("<svg><!-- * --></svg>", true),
            ("<svg>*</svg>", false),
            ("<svg/>", false),
            ("<svg></svg>x", false),
            ("x<svg></svg>", false),
            ("<svg>", false),
            ("<svg</svg>", false),
            ("<!-- <svg></svg>", false),
            ("<\u{17f}vg></\u{17f}vg>", true),
            ("<html><svg></svg></html>", false),
        ];
        for (text, want) in cases {
            assert_eq!(is_svg(text.as_bytes()), *want, "{text:?}");
        }
    }
}
