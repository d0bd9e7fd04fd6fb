//! The layer stream: decompression chosen by magic bytes (gzip, zstd, none), and the meter that counts every decompressed byte against the limits.

use super::MAX_ENTRY_METADATA;
use ruzstd::decoding::errors::{FrameDecoderError, ReadFrameHeaderError};
use ruzstd::decoding::{BlockDecodingStrategy, FrameDecoder};
use std::cell::Cell;
use std::io::{self, BufRead, BufReader, Read};
use std::rc::Rc;

// Decompression

/// The decompressed layer stream, its compression chosen by magic bytes.
pub(super) enum Decoder<R: Read> {
    Plain(Sniffed<R>),
    Gzip(Box<flate2::read::MultiGzDecoder<Sniffed<R>>>),
    Zstd(Box<ZstdDecoder<BufReader<Sniffed<R>>>>),
}

/// The stream with the bytes read to recognise it put back in front.
pub(super) type Sniffed<R> = io::Chain<io::Take<io::Cursor<[u8; 4]>>, R>;

impl<R: Read> Decoder<R> {
    pub(super) fn new(mut reader: R) -> io::Result<Decoder<R>> {
        let mut magic = [0u8; 4];
        let mut len = 0;
        while len < magic.len() {
            match reader.read(&mut magic[len..]) {
                Ok(0) => break,
                Ok(n) => len += n,
                Err(e) if e.kind() == io::ErrorKind::Interrupted => {}
                Err(e) => return Err(e),
            }
        }
        let kind = &magic[..len];
        let gzip = kind.starts_with(&[0x1f, 0x8b]);
        // A zstd stream may also start with a skippable frame (magic
        // 0x184d2a50 to 0x184d2a5f, little-endian).
        let zstd = kind == [0x28, 0xb5, 0x2f, 0xfd]
            || (len == 4 && magic[0] & 0xf0 == 0x50 && magic[1..] == [0x2a, 0x4d, 0x18]);
        let stream = io::Cursor::new(magic).take(len as u64).chain(reader);
        Ok(if gzip {
            // Several gzip members in a row are one stream, as in Go.
            Decoder::Gzip(Box::new(flate2::read::MultiGzDecoder::new(stream)))
        } else if zstd {
            Decoder::Zstd(Box::new(ZstdDecoder::new(BufReader::new(stream))))
        } else {
            Decoder::Plain(stream)
        })
    }
}

impl<R: Read> Read for Decoder<R> {
    fn read(&mut self, buf: &mut [u8]) -> io::Result<usize> {
        match self {
            Decoder::Plain(r) => r.read(buf),
            Decoder::Gzip(r) => r.read(buf),
            Decoder::Zstd(r) => r.read(buf),
        }
    }
}

/// A zstd stream of any number of frames (ruzstd's streaming decoder reads
/// one), skippable frames skipped. The decoder's window cap (128 MiB, as
/// libzstd) bounds its memory.
pub(super) struct ZstdDecoder<R> {
    pub(super) source: R,
    pub(super) frame: FrameDecoder,
    pub(super) in_frame: bool,
}

impl<R: BufRead> ZstdDecoder<R> {
    pub(super) fn new(source: R) -> ZstdDecoder<R> {
        ZstdDecoder {
            source,
            frame: FrameDecoder::new(),
            in_frame: false,
        }
    }
}

impl<R: BufRead> Read for ZstdDecoder<R> {
    fn read(&mut self, buf: &mut [u8]) -> io::Result<usize> {
        if buf.is_empty() {
            return Ok(0);
        }
        loop {
            if self.in_frame {
                while self.frame.can_collect() == 0 && !self.frame.is_finished() {
                    self.frame
                        .decode_blocks(&mut self.source, BlockDecodingStrategy::UptoBlocks(1))
                        .map_err(io::Error::other)?;
                }
                let n = self.frame.read(buf)?;
                if n > 0 {
                    return Ok(n);
                }
                self.in_frame = false;
            }
            if self.source.fill_buf()?.is_empty() {
                return Ok(0);
            }
            match self.frame.reset(&mut self.source) {
                Ok(()) => self.in_frame = true,
                Err(FrameDecoderError::ReadFrameHeaderError(ReadFrameHeaderError::SkipFrame {
                    length,
                    ..
                })) => {
                    let length = u64::from(length);
                    let skipped = io::copy(&mut (&mut self.source).take(length), &mut io::sink())?;
                    if skipped != length {
                        return Err(io::ErrorKind::UnexpectedEof.into());
                    }
                }
                Err(e) => return Err(io::Error::other(e)),
            }
        }
    }
}

// ---------------------------------------------------------------------------
// Metering

#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(super) enum Trip {
    Total,
    Metadata,
}

/// Counts the decompressed bytes the tar reader consumes. It sits under the
/// tar reader so that no byte escapes it: the tar crate reads GNU long names
/// and PAX records into memory before handing out an entry, and those reads
/// are capped here (by [`MAX_ENTRY_METADATA`]) while `metadata` is set.
#[derive(Debug)]
pub(super) struct Meter {
    pub(super) limit: u64,
    pub(super) used: Cell<u64>,
    pub(super) metadata: Cell<Option<u64>>,
    pub(super) tripped: Cell<Option<Trip>>,
}

impl Meter {
    pub(super) fn count(&self, n: u64) -> io::Result<()> {
        let used = self.used.get().saturating_add(n);
        if used > self.limit {
            self.tripped.set(Some(Trip::Total));
            return Err(io::Error::other("uncompressed size limit reached"));
        }
        self.used.set(used);
        if let Some(metadata) = self.metadata.get() {
            let metadata = metadata.saturating_add(n);
            if metadata > MAX_ENTRY_METADATA {
                self.tripped.set(Some(Trip::Metadata));
                return Err(io::Error::other("extended header limit reached"));
            }
            self.metadata.set(Some(metadata));
        }
        Ok(())
    }

    pub(super) fn remaining(&self) -> u64 {
        self.limit.saturating_sub(self.used.get())
    }
}

pub(super) struct Metered<R> {
    pub(super) inner: R,
    pub(super) meter: Rc<Meter>,
}

impl<R: Read> Read for Metered<R> {
    fn read(&mut self, buf: &mut [u8]) -> io::Result<usize> {
        let n = self.inner.read(buf)?;
        self.meter.count(n as u64)?;
        Ok(n)
    }
}
