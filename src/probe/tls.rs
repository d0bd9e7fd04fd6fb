//! The probe's TLS client settings (`-tls-ca-cert`, `-tls-client-cert`/`-tls-client-key`,
//! `-tls-no-verify`) as a rustls configuration, refused with the messages Go's `crypto/tls`
//! and the original give (`tls.LoadX509KeyPair`, `CertPool.AppendCertsFromPEM`). Without a CA
//! file the system's roots are trusted, as Go does; with none to be found every server
//! certificate is refused at connection time, as Go refuses it.

use crate::fsutil::io_message;
use rustls::client::danger::{HandshakeSignatureValid, ServerCertVerified, ServerCertVerifier};
use rustls::crypto::CryptoProvider;
use rustls::pki_types::{CertificateDer, PrivateKeyDer, ServerName, UnixTime};
use rustls::{DigitallySignedStruct, RootCertStore, SignatureScheme};
use std::io::Read as _;
use std::sync::Arc;

/// The TLS flags the configuration is built from.
#[derive(Debug, Clone, Copy)]
pub struct TlsFlags<'a> {
    pub no_verify: bool,
    pub ca_cert: &'a str,
    pub client_cert: &'a str,
    pub client_key: &'a str,
}

/// Why the TLS settings cannot be used; the text follows `failed to initialize tls
/// credentials. error=` in the original's message.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub enum CredentialsError {
    #[error("failed to load tls client cert/key pair. error={0}")]
    KeyPair(String),
    #[error("failed to load root CA certificates from file ({path}) error={reason}")]
    ReadCa { path: String, reason: String },
    #[error("no root CA certs parsed from file {0}")]
    NoCa(String),
}

/// One PEM block: its type, whether it had headers, its decoded bytes.
#[derive(Debug, Clone, PartialEq, Eq)]
struct PemBlock {
    label: String,
    has_headers: bool,
    bytes: Vec<u8>,
}

/// The PEM blocks of `data` in order, as repeated calls of Go's `pem.Decode` find them: a
/// block whose end line or base64 is broken is passed over.
fn pem_blocks(data: &[u8]) -> Vec<PemBlock> {
    const BEGIN: &[u8] = b"-----BEGIN ";
    const DASHES: &[u8] = b"-----";
    let find = |haystack: &[u8], needle: &[u8]| {
        haystack
            .windows(needle.len())
            .position(|window| window == needle)
    };
    let mut blocks = Vec::new();
    let mut rest = data;
    loop {
        let start = if rest.starts_with(BEGIN) {
            Some(0)
        } else {
            find(rest, b"\n-----BEGIN ").map(|at| at + 1)
        };
        let Some(start) = start else { break };
        let after_begin = &rest[start + BEGIN.len()..];
        // Whatever happens to this block, the search goes on after its BEGIN.
        rest = after_begin;
        let line_end = after_begin
            .iter()
            .position(|&b| b == b'\n')
            .unwrap_or(after_begin.len());
        let type_line = after_begin[..line_end]
            .strip_suffix(b"\r")
            .unwrap_or(&after_begin[..line_end]);
        let type_line = trim_end(type_line);
        let Some(label) = type_line.strip_suffix(DASHES) else {
            continue;
        };
        let body = &after_begin[(line_end + 1).min(after_begin.len())..];
        let end_marker = [b"-----END ".as_slice(), label, DASHES].concat();
        let Some(end) = find(body, &end_marker) else {
            continue;
        };
        if end != 0 && body[end - 1] != b'\n' {
            continue;
        }
        let mut has_headers = false;
        let mut base64 = Vec::new();
        let mut in_headers = true;
        for line in body[..end].split(|&b| b == b'\n') {
            if in_headers && line.contains(&b':') {
                has_headers = true;
                continue;
            }
            in_headers = false;
            base64.extend(line.iter().filter(|b| !b.is_ascii_whitespace()));
        }
        let Ok(bytes) = crate::encoding::base64::decode_go(&base64) else {
            continue;
        };
        blocks.push(PemBlock {
            label: String::from_utf8_lossy(label).into_owned(),
            has_headers,
            bytes,
        });
        rest = &body[end + end_marker.len()..];
    }
    blocks
}

fn trim_end(bytes: &[u8]) -> &[u8] {
    let keep = bytes
        .iter()
        .rposition(|b| !matches!(b, b' ' | b'\t'))
        .map_or(0, |at| at + 1);
    &bytes[..keep]
}

/// Go's `os.ReadFile` with its `*PathError` text (`open F: no such file or directory`).
fn read_file(path: &str) -> Result<Vec<u8>, String> {
    let mut file =
        std::fs::File::open(path).map_err(|e| format!("open {path}: {}", io_message(&e)))?;
    let mut bytes = Vec::new();
    file.read_to_end(&mut bytes)
        .map_err(|e| format!("read {path}: {}", io_message(&e)))?;
    Ok(bytes)
}

/// Go's `%v` of a list of strings.
fn go_list(items: &[String]) -> String {
    format!("[{}]", items.join(" "))
}

/// `tls.LoadX509KeyPair`: the certificate chain and the private key, refused with Go's
/// messages.
fn load_key_pair(
    cert_path: &str,
    key_path: &str,
    provider: &CryptoProvider,
) -> Result<(Vec<CertificateDer<'static>>, PrivateKeyDer<'static>), String> {
    let cert_pem = read_file(cert_path)?;
    let key_pem = read_file(key_path)?;
    let mut chain = Vec::new();
    let mut skipped = Vec::new();
    for block in pem_blocks(&cert_pem) {
        if block.label == "CERTIFICATE" {
            chain.push(CertificateDer::from(block.bytes));
        } else {
            skipped.push(block.label);
        }
    }
    if chain.is_empty() {
        return Err(match skipped.as_slice() {
            [] => "tls: failed to find any PEM data in certificate input".into(),
            [only] if only.ends_with("PRIVATE KEY") => "tls: failed to find certificate PEM data in certificate input, but did find a private key; PEM inputs may have been switched".into(),
            _ => format!("tls: failed to find \"CERTIFICATE\" PEM block in certificate input after skipping PEM blocks of the following types: {}", go_list(&skipped)),
        });
    }
    let mut skipped = Vec::new();
    let key_block = pem_blocks(&key_pem).into_iter().find(|block| {
        let is_key = block.label == "PRIVATE KEY" || block.label.ends_with(" PRIVATE KEY");
        if !is_key {
            skipped.push(block.label.clone());
        }
        is_key
    });
    let Some(key_block) = key_block else {
        return Err(match skipped.as_slice() {
            [] => "tls: failed to find any PEM data in key input".into(),
            [only] if only == "CERTIFICATE" => {
                "tls: found a certificate rather than a key in the PEM for the private key".into()
            }
            _ => format!("tls: failed to find PEM block with type ending in \"PRIVATE KEY\" in key input after skipping PEM blocks of the following types: {}", go_list(&skipped)),
        });
    };
    // Go tries PKCS #1, then PKCS #8, then SEC 1, whatever the block's label says.
    let bytes = key_block.bytes;
    let candidates = [
        PrivateKeyDer::Pkcs1(bytes.clone().into()),
        PrivateKeyDer::Pkcs8(bytes.clone().into()),
        PrivateKeyDer::Sec1(bytes.into()),
    ];
    for key in candidates {
        let Ok(signing_key) = provider.key_provider.load_private_key(key.clone_key()) else {
            continue;
        };
        let certified = rustls::sign::CertifiedKey::new(chain.clone(), signing_key);
        return match certified.keys_match() {
            Ok(()) | Err(rustls::Error::InconsistentKeys(rustls::InconsistentKeys::Unknown)) => {
                Ok((chain, key))
            }
            Err(rustls::Error::InconsistentKeys(_)) => {
                Err("tls: private key does not match public key".into())
            }
            Err(_) => Err("x509: malformed certificate".into()),
        };
    }
    Err("tls: failed to parse private key".into())
}

/// The trust roots of `-tls-ca-cert`: Go's `AppendCertsFromPEM` keeps every `CERTIFICATE`
/// block without headers that parses, and the original refuses a file that gives none. Also
/// returns the certificates themselves (see [`TrustedFile`]).
fn load_roots(
    path: &str,
) -> Result<(RootCertStore, Vec<CertificateDer<'static>>), CredentialsError> {
    let pem = read_file(path).map_err(|reason| CredentialsError::ReadCa {
        path: path.to_string(),
        reason,
    })?;
    let mut roots = RootCertStore::empty();
    let mut kept = Vec::new();
    for block in pem_blocks(&pem) {
        if block.label != "CERTIFICATE" || block.has_headers {
            continue;
        }
        let certificate = CertificateDer::from(block.bytes);
        if roots.add(certificate.clone()).is_ok() {
            kept.push(certificate);
        }
    }
    if kept.is_empty() {
        return Err(CredentialsError::NoCa(path.to_string()));
    }
    Ok((roots, kept))
}

/// The system's trust roots, where Go looks for them (`SSL_CERT_FILE`, `SSL_CERT_DIR`, the
/// usual bundle files); unreadable ones are passed over. A system without any (an empty image)
/// gets the roots built into opm, as registry pulls do.
fn system_roots() -> RootCertStore {
    let mut roots = RootCertStore::empty();
    let system = rustls_native_certs::load_native_certs().certs;
    if system.is_empty() {
        roots
            .add_parsable_certificates(crate::image::remote::roots::built_in_der().iter().cloned());
    } else {
        roots.add_parsable_certificates(system);
    }
    roots
}

/// The rustls configuration for the TLS flags: HTTP/2 by ALPN (grpc-go insists on it), TLS 1.2
/// or 1.3, the key pair when given.
pub fn client_config(flags: TlsFlags<'_>) -> Result<Arc<rustls::ClientConfig>, CredentialsError> {
    let provider = Arc::new(rustls::crypto::aws_lc_rs::default_provider());
    let key_pair = if !flags.client_cert.is_empty() && !flags.client_key.is_empty() {
        Some(
            load_key_pair(flags.client_cert, flags.client_key, &provider)
                .map_err(CredentialsError::KeyPair)?,
        )
    } else {
        None
    };
    let verifier: Arc<dyn ServerCertVerifier> = if flags.no_verify {
        Arc::new(NoVerify(provider.clone()))
    } else {
        let (roots, anchors) = if flags.ca_cert.is_empty() {
            (system_roots(), Vec::new())
        } else {
            load_roots(flags.ca_cert)?
        };
        match rustls::client::WebPkiServerVerifier::builder_with_provider(
            Arc::new(roots),
            provider.clone(),
        )
        .build()
        {
            Ok(chains) => Arc::new(TrustedFile { chains, anchors }),
            // No roots at all (an image without CA certificates): nothing can be trusted.
            Err(_) => Arc::new(TrustNothing(provider.clone())),
        }
    };
    let builder = rustls::ClientConfig::builder_with_provider(provider)
        .with_safe_default_protocol_versions()
        .map_err(|e| CredentialsError::KeyPair(format!("tls: {e}")))?
        .dangerous()
        .with_custom_certificate_verifier(verifier);
    let mut config = match key_pair {
        Some((chain, key)) => builder
            .with_client_auth_cert(chain, key)
            .map_err(|e| CredentialsError::KeyPair(format!("tls: {e}")))?,
        None => builder.with_no_client_auth(),
    };
    config.alpn_protocols = vec![b"h2".to_vec()];
    Ok(Arc::new(config))
}

/// The name the server's certificate is checked against. Go sends no SNI for an address and
/// needs no valid name when it does not verify; rustls needs some name, so an unusable one
/// becomes an address there (which sends no SNI either).
pub fn server_name(host: &str, no_verify: bool) -> Option<ServerName<'static>> {
    let host = host
        .strip_prefix('[')
        .and_then(|h| h.strip_suffix(']'))
        .unwrap_or(host);
    match ServerName::try_from(host.to_string()) {
        Ok(name) => Some(name),
        Err(_) if no_verify => Some(ServerName::IpAddress(
            std::net::Ipv4Addr::UNSPECIFIED.into(),
        )),
        Err(_) => None,
    }
}

/// `-tls-no-verify` (Go's `InsecureSkipVerify`): any certificate is accepted, but the handshake
/// must still be signed by its key.
#[derive(Debug)]
struct NoVerify(Arc<CryptoProvider>);

impl ServerCertVerifier for NoVerify {
    fn verify_server_cert(
        &self,
        _end_entity: &CertificateDer<'_>,
        _intermediates: &[CertificateDer<'_>],
        _server_name: &ServerName<'_>,
        _ocsp_response: &[u8],
        _now: UnixTime,
    ) -> Result<ServerCertVerified, rustls::Error> {
        Ok(ServerCertVerified::assertion())
    }

    fn verify_tls12_signature(
        &self,
        message: &[u8],
        cert: &CertificateDer<'_>,
        dss: &DigitallySignedStruct,
    ) -> Result<HandshakeSignatureValid, rustls::Error> {
        rustls::crypto::verify_tls12_signature(
            message,
            cert,
            dss,
            &self.0.signature_verification_algorithms,
        )
    }

    fn verify_tls13_signature(
        &self,
        message: &[u8],
        cert: &CertificateDer<'_>,
        dss: &DigitallySignedStruct,
    ) -> Result<HandshakeSignatureValid, rustls::Error> {
        rustls::crypto::verify_tls13_signature(
            message,
            cert,
            dss,
            &self.0.signature_verification_algorithms,
        )
    }

    fn supported_verify_schemes(&self) -> Vec<SignatureScheme> {
        self.0.signature_verification_algorithms.supported_schemes()
    }
}

/// Verification against trust roots as Go's `x509.Certificate.Verify` does it: a chain to a
/// root, or else (Go's shortcut, which quick self-signed certificates rely on) a server
/// certificate that is itself one of the `-tls-ca-cert` certificates, within its validity,
/// naming the server and allowed for server authentication. webpki alone refuses such a
/// certificate when it says it is a CA, as `openssl req -x509` makes it say.
#[derive(Debug)]
struct TrustedFile {
    chains: Arc<rustls::client::WebPkiServerVerifier>,
    anchors: Vec<CertificateDer<'static>>,
}

impl ServerCertVerifier for TrustedFile {
    fn verify_server_cert(
        &self,
        end_entity: &CertificateDer<'_>,
        intermediates: &[CertificateDer<'_>],
        server_name: &ServerName<'_>,
        ocsp_response: &[u8],
        now: UnixTime,
    ) -> Result<ServerCertVerified, rustls::Error> {
        let refused = match self.chains.verify_server_cert(
            end_entity,
            intermediates,
            server_name,
            ocsp_response,
            now,
        ) {
            Ok(verified) => return Ok(verified),
            Err(refused) => refused,
        };
        let is_anchor = self
            .anchors
            .iter()
            .any(|anchor| anchor.as_ref() == end_entity.as_ref());
        let names_server = || {
            webpki::EndEntityCert::try_from(end_entity)
                .is_ok_and(|cert| cert.verify_is_valid_for_subject_name(server_name).is_ok())
        };
        if is_anchor
            && der::usable_for_server_now(end_entity.as_ref(), now.as_secs())
            && names_server()
        {
            return Ok(ServerCertVerified::assertion());
        }
        Err(refused)
    }

    fn verify_tls12_signature(
        &self,
        message: &[u8],
        cert: &CertificateDer<'_>,
        dss: &DigitallySignedStruct,
    ) -> Result<HandshakeSignatureValid, rustls::Error> {
        self.chains.verify_tls12_signature(message, cert, dss)
    }

    fn verify_tls13_signature(
        &self,
        message: &[u8],
        cert: &CertificateDer<'_>,
        dss: &DigitallySignedStruct,
    ) -> Result<HandshakeSignatureValid, rustls::Error> {
        self.chains.verify_tls13_signature(message, cert, dss)
    }

    fn supported_verify_schemes(&self) -> Vec<SignatureScheme> {
        self.chains.supported_verify_schemes()
    }
}

/// Just enough DER to read a certificate's validity and extended key usage.
mod der {
    /// The next element of `data`: its tag, its contents and what follows it.
    fn next(data: &[u8]) -> Option<(u8, &[u8], &[u8])> {
        let (&tag, rest) = data.split_first()?;
        let (&first, rest) = rest.split_first()?;
        let (length, rest) = if first < 0x80 {
            (usize::from(first), rest)
        } else {
            let count = usize::from(first & 0x7f);
            if count == 0 || count > 4 || rest.len() < count {
                return None;
            }
            let length = rest[..count]
                .iter()
                .fold(0usize, |length, &byte| (length << 8) | usize::from(byte));
            (length, &rest[count..])
        };
        (rest.len() >= length).then(|| (tag, &rest[..length], &rest[length..]))
    }

    /// Seconds since 1970 of a UTCTime (tag 0x17) or GeneralizedTime (0x18) in `…Z` form.
    fn time(tag: u8, text: &[u8]) -> Option<i64> {
        let text = std::str::from_utf8(text).ok()?.strip_suffix('Z')?;
        let (year, rest) = match tag {
            0x17 => {
                let short: i64 = text.get(..2)?.parse().ok()?;
                (
                    if short < 50 {
                        2000 + short
                    } else {
                        1900 + short
                    },
                    &text[2..],
                )
            }
            0x18 => (text.get(..4)?.parse().ok()?, &text[4..]),
            _ => return None,
        };
        if rest.len() != 10 || !rest.bytes().all(|b| b.is_ascii_digit()) {
            return None;
        }
        let field = |at: usize| rest[at..at + 2].parse::<i64>().ok();
        let (month, day) = (field(0)?, field(2)?);
        let (hour, minute, second) = (field(4)?, field(6)?, field(8)?);
        // Days from the civil date (Howard Hinnant's algorithm).
        let y = if month <= 2 { year - 1 } else { year };
        let era = y.div_euclid(400);
        let year_of_era = y - era * 400;
        let day_of_year = (153 * (month + if month > 2 { -3 } else { 9 }) + 2) / 5 + day - 1;
        let day_of_era = year_of_era * 365 + year_of_era / 4 - year_of_era / 100 + day_of_year;
        let days = era * 146_097 + day_of_era - 719_468;
        Some(days * 86_400 + hour * 3_600 + minute * 60 + second)
    }

    /// Whether a certificate is valid at `now` (seconds since 1970) and, if it lists extended
    /// key usages, allows server authentication (or any usage), as Go checks a chain.
    pub(super) fn usable_for_server_now(certificate: &[u8], now: u64) -> bool {
        check(certificate, i64::try_from(now).unwrap_or(i64::MAX)).unwrap_or(false)
    }

    fn check(certificate: &[u8], now: i64) -> Option<bool> {
        const EXTENDED_KEY_USAGE: &[u8] = &[0x55, 0x1d, 0x25];
        const SERVER_AUTH: &[u8] = &[0x2b, 0x06, 0x01, 0x05, 0x05, 0x07, 0x03, 0x01];
        const ANY_USAGE: &[u8] = &[0x55, 0x1d, 0x25, 0x00];
        let (_, certificate, _) = next(certificate)?;
        let (_, tbs, _) = next(certificate)?;
        let (tag, _, after_version) = next(tbs)?;
        let mut rest = if tag == 0xa0 { after_version } else { tbs };
        // Serial number, signature algorithm, issuer.
        for _ in 0..3 {
            rest = next(rest)?.2;
        }
        let (_, validity, after_validity) = next(rest)?;
        let (tag, not_before, after) = next(validity)?;
        let not_before = time(tag, not_before)?;
        let (tag, not_after, _) = next(after)?;
        let not_after = time(tag, not_after)?;
        if now < not_before || now > not_after {
            return Some(false);
        }
        // Subject, public key, then the optional unique ids and extensions.
        let mut rest = next(next(after_validity)?.2)?.2;
        while let Some((tag, contents, after)) = next(rest) {
            rest = after;
            if tag != 0xa3 {
                continue;
            }
            let (_, mut extensions, _) = next(contents)?;
            while let Some((_, extension, after)) = next(extensions) {
                extensions = after;
                let (_, id, after_id) = next(extension)?;
                if id != EXTENDED_KEY_USAGE {
                    continue;
                }
                // An optional `critical` BOOLEAN, then the OCTET STRING holding the usages.
                let (mut tag, mut octets, after) = next(after_id)?;
                if tag == 0x01 {
                    (tag, octets, _) = next(after)?;
                }
                if tag != 0x04 {
                    return None;
                }
                let (_, mut usages, _) = next(octets)?;
                while let Some((_, usage, after)) = next(usages) {
                    usages = after;
                    if usage == SERVER_AUTH || usage == ANY_USAGE {
                        return Some(true);
                    }
                }
                return Some(false);
            }
        }
        Some(true)
    }
}

/// Verification without any trust root: every certificate is unknown.
#[derive(Debug)]
struct TrustNothing(Arc<CryptoProvider>);

impl ServerCertVerifier for TrustNothing {
    fn verify_server_cert(
        &self,
        _end_entity: &CertificateDer<'_>,
        _intermediates: &[CertificateDer<'_>],
        _server_name: &ServerName<'_>,
        _ocsp_response: &[u8],
        _now: UnixTime,
    ) -> Result<ServerCertVerified, rustls::Error> {
        Err(rustls::Error::InvalidCertificate(
            rustls::CertificateError::UnknownIssuer,
        ))
    }

    fn verify_tls12_signature(
        &self,
        message: &[u8],
        cert: &CertificateDer<'_>,
        dss: &DigitallySignedStruct,
    ) -> Result<HandshakeSignatureValid, rustls::Error> {
        NoVerify(self.0.clone()).verify_tls12_signature(message, cert, dss)
    }

    fn verify_tls13_signature(
        &self,
        message: &[u8],
        cert: &CertificateDer<'_>,
        dss: &DigitallySignedStruct,
    ) -> Result<HandshakeSignatureValid, rustls::Error> {
        NoVerify(self.0.clone()).verify_tls13_signature(message, cert, dss)
    }

    fn supported_verify_schemes(&self) -> Vec<SignatureScheme> {
        self.0.signature_verification_algorithms.supported_schemes()
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn pem_blocks_are_found_as_go_finds_them() {
        let data = b"junk\n-----BEGIN CERTIFICATE-----\nAQID\n-----END CERTIFICATE-----\n\
            -----BEGIN BROKEN-----\n!!!\n-----END BROKEN-----\n\
            -----BEGIN EC PRIVATE KEY-----\nProc-Type: 4,ENCRYPTED\n\nBAUG\n-----END EC PRIVATE KEY-----\n";
        let blocks = pem_blocks(data);
        assert_eq!(
            blocks,
            vec![
                PemBlock {
                    label: "CERTIFICATE".into(),
                    has_headers: false,
                    bytes: vec![1, 2, 3]
                },
                PemBlock {
                    label: "EC PRIVATE KEY".into(),
                    has_headers: true,
                    bytes: vec![4, 5, 6]
                },
            ]
        );
    }

    /// `openssl req -x509 … -addext extendedKeyUsage=serverAuth`: valid from 1795828781
    /// (2026-11-28 01:19:41Z) to 2111188781, a CA, for server authentication.
    const SERVER: &str = "-----BEGIN CERTIFICATE-----
MIIBqDCCAU6gAwIBAgIUaaDNnzp928Wc9cXK8myUqO2g9pYwCgYIKoZIzj0EAwIw
FDESMBAGA1UEAwwJbG9jYWxob3N0MB4XDTI2MTEyODAxMTk0MVoXDTM2MTEyNTAx
MTk0MVowFDESMBAGA1UEAwwJbG9jYWxob3N0MFkwEwYHKoZIzj0CAQYIKoZIzj0D
AQcDQgAE5XV0JWAtpWNT7q+it6NQDkBC3rZz91fuCEdHZFEypz93CnWFJcXAHiAs
gozHK/qzrd1yvVva5Xbhc42oRORxyKN+MHwwHQYDVR0OBBYEFD+MpQX/+4C5UTRU
wZoco5cLKBCTMB8GA1UdIwQYMBaAFD+MpQX/+4C5UTRUwZoco5cLKBCTMA8GA1Ud
EwEB/wQFMAMBAf8wFAYDVR0RBA0wC4IJbG9jYWxob3N0MBMGA1UdJQQMMAoGCCsG
AQUFBwMBMAoGCCqGSM49BAMCA0gAMEUCIQCNrdF8AiHUar5QrOt8xBij7yzh6f8h
J2u8NNDu8DRHQQIgUrbXnGnBkKK+cvy06e94MKuwioEp76rfW9ykMS2rjgQ=
-----END CERTIFICATE-----
";

    /// The same, valid for client authentication only (a critical extension).
    const CLIENT: &str = "-----BEGIN CERTIFICATE-----
MIIBkDCCATWgAwIBAgIUMX7F/eoJqVxiiM7+MKtM9AkQniIwCgYIKoZIzj0EAwIw
ETEPMA0GA1UEAwwGY2xpZW50MB4XDTI2MTEyODAxMTk0MVoXDTM2MTEyNTAxMTk0
MVowETEPMA0GA1UEAwwGY2xpZW50MFkwEwYHKoZIzj0CAQYIKoZIzj0DAQcDQgAE
z0GNqjES84T0Aiok32A/dqxwi65hyx3jrAL0NbC4s5BxkXU14YvC+M7IJ1d3RCHk
lwKBiGw1xCdyguLL1NfXZKNrMGkwHQYDVR0OBBYEFO68lHzQ35a97nwP62mlq5cj
yx17MB8GA1UdIwQYMBaAFO68lHzQ35a97nwP62mlq5cjyx17MA8GA1UdEwEB/wQF
MAMBAf8wFgYDVR0lAQH/BAwwCgYIKwYBBQUHAwIwCgYIKoZIzj0EAwIDSQAwRgIh
APtC3OK1Pyq7XoRz6cJcOGIFEaDd1pSXHQ8IvlOmAbBpAiEAsdvOuIcj+RxtHJ5s
QwBR8yyJvfxbfUGSO5G5xK60r7Y=
-----END CERTIFICATE-----
";

    #[test]
    fn a_certificate_s_validity_and_usage_are_read_from_its_der() {
        let der = |pem: &str| pem_blocks(pem.as_bytes()).remove(0).bytes;
        let (server, client) = (der(SERVER), der(CLIENT));
        assert!(der::usable_for_server_now(&server, 1_795_828_781));
        assert!(der::usable_for_server_now(&server, 2_111_188_781));
        assert!(!der::usable_for_server_now(&server, 1_795_828_780));
        assert!(!der::usable_for_server_now(&server, 2_111_188_782));
        assert!(!der::usable_for_server_now(&client, 1_900_000_000));
        assert!(!der::usable_for_server_now(&server[..40], 1_900_000_000));
    }

    fn write(dir: &std::path::Path, name: &str, text: &str) -> String {
        let path = dir.join(name);
        std::fs::write(&path, text).unwrap();
        path.display().to_string()
    }

    #[test]
    fn key_pair_refusals_carry_go_messages() {
        let dir = tempfile::tempdir().unwrap();
        let provider = rustls::crypto::aws_lc_rs::default_provider();
        let empty = write(dir.path(), "empty", "");
        let key_only = write(
            dir.path(),
            "key",
            "-----BEGIN RSA PRIVATE KEY-----\nAQID\n-----END RSA PRIVATE KEY-----\n",
        );
        let cert = write(
            dir.path(),
            "cert",
            "-----BEGIN CERTIFICATE-----\nAQID\n-----END CERTIFICATE-----\n",
        );
        let other = write(
            dir.path(),
            "other",
            "-----BEGIN A-----\nAQID\n-----END A-----\n-----BEGIN B-----\nAQID\n-----END B-----\n",
        );
        let missing = dir.path().join("missing").display().to_string();
        let cases = [
            (&missing, &key_only, format!("open {missing}: no such file or directory")),
            (&empty, &key_only, "tls: failed to find any PEM data in certificate input".to_string()),
            (&key_only, &key_only, "tls: failed to find certificate PEM data in certificate input, but did find a private key; PEM inputs may have been switched".to_string()),
            (&other, &key_only, "tls: failed to find \"CERTIFICATE\" PEM block in certificate input after skipping PEM blocks of the following types: [A B]".to_string()),
            (&cert, &empty, "tls: failed to find any PEM data in key input".to_string()),
            (&cert, &cert, "tls: found a certificate rather than a key in the PEM for the private key".to_string()),
            (&cert, &other, "tls: failed to find PEM block with type ending in \"PRIVATE KEY\" in key input after skipping PEM blocks of the following types: [A B]".to_string()),
            (&cert, &key_only, "tls: failed to parse private key".to_string()),
        ];
        for (cert, key, want) in cases {
            assert_eq!(load_key_pair(cert, key, &provider).unwrap_err(), want);
        }
        let dir_path = dir.path().display().to_string();
        assert_eq!(
            load_roots(&dir_path).unwrap_err().to_string(),
            format!("failed to load root CA certificates from file ({dir_path}) error=read {dir_path}: is a directory")
        );
        assert_eq!(
            load_roots(&cert).unwrap_err(),
            CredentialsError::NoCa(cert.clone())
        );
    }
}
