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
/// block without headers that parses, and the original refuses a file that gives none.
fn load_roots(path: &str) -> Result<RootCertStore, CredentialsError> {
    let pem = read_file(path).map_err(|reason| CredentialsError::ReadCa {
        path: path.to_string(),
        reason,
    })?;
    let mut roots = RootCertStore::empty();
    let (added, _) = roots.add_parsable_certificates(
        pem_blocks(&pem)
            .into_iter()
            .filter(|block| block.label == "CERTIFICATE" && !block.has_headers)
            .map(|block| CertificateDer::from(block.bytes)),
    );
    if added == 0 {
        return Err(CredentialsError::NoCa(path.to_string()));
    }
    Ok(roots)
}

/// The system's trust roots, where Go looks for them (`SSL_CERT_FILE`, `SSL_CERT_DIR`, the
/// usual bundle files); unreadable ones are passed over.
fn system_roots() -> RootCertStore {
    let mut roots = RootCertStore::empty();
    roots.add_parsable_certificates(rustls_native_certs::load_native_certs().certs);
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
        let roots = if flags.ca_cert.is_empty() {
            system_roots()
        } else {
            load_roots(flags.ca_cert)?
        };
        match rustls::client::WebPkiServerVerifier::builder_with_provider(
            Arc::new(roots),
            provider.clone(),
        )
        .build()
        {
            Ok(verifier) => verifier,
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
