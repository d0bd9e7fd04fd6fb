//! Standard padded base64 with Go's decoding rules: `\r` and `\n` are skipped
//! anywhere, and errors report Go's `illegal base64 data at input byte N`.

const ALPHABET: &[u8; 64] = b"ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789+/";

#[derive(Debug, Clone, Copy, PartialEq, Eq, thiserror::Error)]
#[error("illegal base64 data at input byte {0}")]
pub struct CorruptInput(pub usize);

/// Symbol values; 0xFF for bytes outside the alphabet.
const DECODE: [u8; 256] = {
    let mut table = [0xFFu8; 256];
    let mut i = 0;
    while i < 64 {
        table[ALPHABET[i] as usize] = i as u8;
        i += 1;
    }
    table
};

fn decode_symbol(byte: u8) -> Option<u8> {
    match DECODE[byte as usize] {
        0xFF => None,
        symbol => Some(symbol),
    }
}

fn is_newline(byte: u8) -> bool {
    byte == b'\n' || byte == b'\r'
}

/// Decodes like Go's `base64.StdEncoding.DecodeString` (non-strict: trailing
/// bits are ignored), reporting the same error offsets.
pub fn decode_go(src: &[u8]) -> Result<Vec<u8>, CorruptInput> {
    let mut out = Vec::with_capacity(src.len() / 4 * 3);
    let mut si = 0;
    while si < src.len() {
        let mut quantum = [0u8; 4];
        let mut filled = 0;
        let mut done = false;
        while filled < 4 {
            if si == src.len() {
                match filled {
                    0 => return Ok(out),
                    // Go: a lone trailing symbol, or missing padding.
                    _ => return Err(CorruptInput(si - filled)),
                }
            }
            let byte = src[si];
            si += 1;
            if let Some(symbol) = decode_symbol(byte) {
                quantum[filled] = symbol;
                filled += 1;
                continue;
            }
            if is_newline(byte) {
                continue;
            }
            if byte != b'=' {
                return Err(CorruptInput(si - 1));
            }
            // Padding: only after two or three symbols.
            match filled {
                0 | 1 => return Err(CorruptInput(si - 1)),
                2 => {
                    while si < src.len() && is_newline(src[si]) {
                        si += 1;
                    }
                    if si == src.len() {
                        return Err(CorruptInput(src.len()));
                    }
                    if src[si] != b'=' {
                        return Err(CorruptInput(si - 1));
                    }
                    si += 1;
                }
                _ => {}
            }
            while si < src.len() && is_newline(src[si]) {
                si += 1;
            }
            if si < src.len() {
                return Err(CorruptInput(si));
            }
            done = true;
            break;
        }
        let bits = (u32::from(quantum[0]) << 18)
            | (u32::from(quantum[1]) << 12)
            | (u32::from(quantum[2]) << 6)
            | u32::from(quantum[3]);
        let bytes = [(bits >> 16) as u8, (bits >> 8) as u8, bits as u8];
        let produced = if done { filled - 1 } else { 3 };
        out.extend_from_slice(&bytes[..produced]);
        if done {
            break;
        }
    }
    Ok(out)
}

/// Whether every byte is in the alphabet. Written as plain comparisons over
/// fixed-size blocks so the compiler can vectorise it: this runs over every
/// bundle object of a catalog.
fn all_symbols(bytes: &[u8]) -> bool {
    fn symbol(b: u8) -> bool {
        (b | 0x20).wrapping_sub(b'a') < 26 || b.wrapping_sub(b'0') < 10 || b == b'+' || b == b'/'
    }
    let mut blocks = bytes.chunks_exact(64);
    for block in &mut blocks {
        if !block.iter().fold(true, |ok, &b| ok & symbol(b)) {
            return false;
        }
    }
    blocks.remainder().iter().all(|&b| symbol(b))
}

/// Checks `src` decodes, without keeping the bytes; returns the decoded length.
pub fn validate_go(src: &[u8]) -> Result<usize, CorruptInput> {
    // Fast path: a plain, newline-free, well-padded string is checked in place.
    let body = src.iter().rposition(|&b| b != b'=').map_or(0, |i| i + 1);
    let padding = src.len() - body;
    if src.len().is_multiple_of(4) && padding <= 2 && all_symbols(&src[..body]) {
        return Ok(src.len() / 4 * 3 - padding);
    }
    decode_go(src).map(|bytes| bytes.len())
}

/// The canonical encoding of what `text` decodes to (Go's decode then
/// re-encode), without the round trip when `text` is already canonical.
pub fn canonical_go(text: String) -> Result<String, CorruptInput> {
    let bytes = text.as_bytes();
    if validate_go(bytes).is_ok() && !bytes.contains(&b'\n') && !bytes.contains(&b'\r') {
        // Canonical unless the last symbol carries non-zero unused bits.
        let body = bytes.iter().rposition(|&b| b != b'=').map_or(0, |i| i + 1);
        let unused_mask = match bytes.len() - body {
            1 => 0b11,
            2 => 0b1111,
            _ => 0,
        };
        if body == 0 || DECODE[bytes[body - 1] as usize] & unused_mask == 0 {
            return Ok(text);
        }
    }
    decode_go(bytes).map(|data| encode(&data))
}

/// Standard padded base64 (Go's `StdEncoding.EncodeToString`).
pub fn encode(data: &[u8]) -> String {
    let mut out = String::with_capacity(data.len().div_ceil(3) * 4);
    for chunk in data.chunks(3) {
        let b = [
            chunk[0],
            chunk.get(1).copied().unwrap_or(0),
            chunk.get(2).copied().unwrap_or(0),
        ];
        let bits = (u32::from(b[0]) << 16) | (u32::from(b[1]) << 8) | u32::from(b[2]);
        for i in 0..4 {
            if i <= chunk.len() {
                out.push(char::from(ALPHABET[(bits >> (18 - 6 * i)) as usize & 63]));
            } else {
                out.push('=');
            }
        }
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn round_trip() {
        for text in ["", "f", "fo", "foo", "foob", "fooba", "foobar"] {
            let encoded = encode(text.as_bytes());
            assert_eq!(decode_go(encoded.as_bytes()).unwrap(), text.as_bytes());
            assert_eq!(validate_go(encoded.as_bytes()).unwrap(), text.len());
        }
        assert_eq!(encode(b"hello world"), "aGVsbG8gd29ybGQ=");
    }

    #[test]
    fn go_error_offsets() {
        let cases: &[(&str, usize)] = &[
            ("!!", 0),
            ("abc!", 3),
            ("a", 0),
            ("abc", 0),
            ("ab=", 3),
            ("a===", 1),
            ("ab==x", 4),
            ("=", 0),
        ];
        for (input, offset) in cases {
            assert_eq!(
                decode_go(input.as_bytes()),
                Err(CorruptInput(*offset)),
                "{input}"
            );
            assert!(validate_go(input.as_bytes()).is_err(), "{input}");
        }
    }

    #[test]
    fn canonical_form() {
        assert_eq!(canonical_go("aGVsbG8=".into()).unwrap(), "aGVsbG8=");
        assert_eq!(canonical_go("aGVs\nbG8=".into()).unwrap(), "aGVsbG8=");
        // Non-zero unused bits decode the same but re-encode differently.
        assert_eq!(canonical_go("aGVsbG9=".into()).unwrap(), "aGVsbG8=");
        assert!(canonical_go("no!".into()).is_err());
    }

    #[test]
    fn newlines_are_skipped() {
        assert_eq!(decode_go(b"aGVs\nbG8=\r\n").unwrap(), b"hello");
    }
}
