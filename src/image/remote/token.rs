//! The authentication handshake of the distribution spec: ask `/v2/` what
//! the registry wants (`WWW-Authenticate`), then send the user's credentials
//! as HTTP basic authentication, or trade them (or nothing, for anonymous
//! pulls) for a bearer token at the realm the registry names. The token
//! answer is bounded like every other body.

use super::error::PullErrorKind;
use super::transport::Call;
use super::{Session, Subject};
use crate::encoding::base64;
use reqwest::{Method, StatusCode};
use std::collections::BTreeMap;

/// The largest token answer accepted.
const MAX_TOKEN_SIZE: u64 = 1 << 20;

/// What the token is for.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) enum Operation {
    Pull,
    Push,
}

/// One challenge of a `WWW-Authenticate` header: a scheme (lower-cased)
/// and its parameters (names lower-cased).
#[derive(Debug, Clone, PartialEq, Eq)]
struct Challenge {
    scheme: String,
    params: BTreeMap<String, String>,
}

impl Session {
    /// Asks the registry how to authenticate and sets the `Authorization`
    /// every later request of this session carries (none when the registry
    /// wants none, or wants credentials and none were found).
    pub(crate) async fn authenticate(&mut self, operation: Operation) -> Result<(), PullErrorKind> {
        let url = self.http.url(&self.api_host, "");
        let what = format!(
            "registry {}",
            crate::encoding::json::go_quote(&self.registry)
        );
        let call = Call {
            registry: &self.registry,
            what: &what,
        };
        let (this, url) = (&*self, &url);
        let challenges = this
            .http
            .retrying(|deadline| async move {
                let request = this.http.request(Method::GET, url);
                let response = this.http.send(request, deadline, true, call).await?;
                let status = response.status();
                if status == StatusCode::UNAUTHORIZED {
                    Ok(parse_challenges(response.headers()))
                } else if status.is_success() || status == StatusCode::NOT_FOUND {
                    Ok(Vec::new())
                } else {
                    Err(this
                        .failure(response, deadline, call, &Subject::Registry)
                        .await)
                }
            })
            .await?;
        let bearer = challenges.iter().find(|c| c.scheme == "bearer");
        let basic = challenges.iter().any(|c| c.scheme == "basic");
        self.authorization = match (bearer, &self.credentials) {
            (Some(challenge), _) => Some(format!(
                "Bearer {}",
                self.token(challenge, operation).await?
            )),
            (None, Some(_)) if basic => self.basic(),
            _ => None,
        };
        Ok(())
    }

    /// `Basic <base64(user:password)>`, when there are credentials.
    fn basic(&self) -> Option<String> {
        let credentials = self.credentials.as_ref()?;
        Some(format!(
            "Basic {}",
            base64::encode(format!("{}:{}", credentials.username, credentials.password).as_bytes())
        ))
    }

    /// Gets a bearer token from the challenge's realm for this repository.
    async fn token(
        &mut self,
        challenge: &Challenge,
        operation: Operation,
    ) -> Result<String, PullErrorKind> {
        let protocol = |message: &str| PullErrorKind::Protocol {
            registry: self.registry.clone(),
            message: message.to_string(),
        };
        let realm = challenge
            .params
            .get("realm")
            .ok_or_else(|| protocol("its bearer challenge names no realm"))?;
        let mut url = reqwest::Url::parse(realm)
            .ok()
            .filter(|u| matches!(u.scheme(), "http" | "https"))
            .ok_or_else(|| protocol("its bearer challenge names an invalid realm"))?;
        let actions = match operation {
            Operation::Pull => "pull",
            Operation::Push => "pull,push",
        };
        {
            let mut query = url.query_pairs_mut();
            if let Some(service) = challenge.params.get("service") {
                query.append_pair("service", service);
            }
            query.append_pair(
                "scope",
                &format!("repository:{}:{actions}", self.repository),
            );
        }
        let what = format!(
            "token from {}",
            crate::encoding::json::go_quote(url.host_str().unwrap_or_default())
        );
        let call = Call {
            registry: &self.registry,
            what: &what,
        };
        let basic = self.basic();
        let (this, url, basic) = (&*self, &url, &basic);
        let body = this
            .http
            .retrying(|deadline| async move {
                let mut request = this.http.request(Method::GET, url.as_str());
                if let Some(basic) = basic {
                    let mut value = reqwest::header::HeaderValue::from_str(basic)
                        .map_err(|_| this.unauthorized())?;
                    value.set_sensitive(true);
                    request = request.header(reqwest::header::AUTHORIZATION, value);
                }
                let response = this.http.send(request, deadline, true, call).await?;
                match response.status() {
                    status if status.is_success() => {
                        this.http
                            .body(response, deadline, call)
                            .read_to_end(MAX_TOKEN_SIZE)
                            .await
                    }
                    StatusCode::UNAUTHORIZED | StatusCode::FORBIDDEN => Err(this.unauthorized()),
                    _ => Err(this
                        .failure(response, deadline, call, &Subject::Registry)
                        .await),
                }
            })
            .await?;
        #[derive(serde::Deserialize)]
        struct Answer {
            #[serde(default)]
            token: Option<String>,
            #[serde(default)]
            access_token: Option<String>,
        }
        let answer: Answer = serde_json::from_slice(&body)
            .map_err(|_| protocol("its token service answered something other than a token"))?;
        let token = answer
            .token
            .or(answer.access_token)
            .filter(|t| !t.is_empty())
            .ok_or_else(|| protocol("its token service answered without a token"))?;
        if token.bytes().any(|b| b.is_ascii_control() || b == b' ') {
            return Err(protocol("its token service answered a malformed token"));
        }
        self.secrets.push(token.clone());
        Ok(token)
    }
}

/// The challenges of every `WWW-Authenticate` header of a response.
fn parse_challenges(headers: &reqwest::header::HeaderMap) -> Vec<Challenge> {
    headers
        .get_all(reqwest::header::WWW_AUTHENTICATE)
        .iter()
        .filter_map(|value| value.to_str().ok())
        .flat_map(parse_challenge_list)
        .collect()
}

/// `Bearer realm="https://auth.io/token",service="registry.io", Basic
/// realm="x"` (RFC 9110 §11.6.1, without token68 forms, which registries do
/// not use).
fn parse_challenge_list(text: &str) -> Vec<Challenge> {
    let bytes = text.as_bytes();
    let mut pos = 0;
    let mut challenges: Vec<Challenge> = Vec::new();
    let skip = |pos: &mut usize, also_commas: bool| {
        while *pos < bytes.len() && (bytes[*pos] == b' ' || (also_commas && bytes[*pos] == b',')) {
            *pos += 1;
        }
    };
    let token = |pos: &mut usize| -> String {
        let start = *pos;
        while *pos < bytes.len() && !matches!(bytes[*pos], b' ' | b',' | b'=' | b'"') {
            *pos += 1;
        }
        text[start..*pos].to_string()
    };
    loop {
        skip(&mut pos, true);
        if pos >= bytes.len() {
            return challenges;
        }
        let name = token(&mut pos);
        if name.is_empty() {
            // Something unparsable: keep what was understood.
            return challenges;
        }
        skip(&mut pos, false);
        if pos < bytes.len() && bytes[pos] == b'=' {
            pos += 1;
            skip(&mut pos, false);
            let value = if pos < bytes.len() && bytes[pos] == b'"' {
                pos += 1;
                let mut value = String::new();
                let mut chars = text[pos..].char_indices();
                let mut end = text.len();
                while let Some((offset, c)) = chars.next() {
                    match c {
                        '"' => {
                            end = pos + offset + 1;
                            break;
                        }
                        '\\' => {
                            if let Some((_, escaped)) = chars.next() {
                                value.push(escaped);
                            }
                        }
                        c => value.push(c),
                    }
                }
                pos = end;
                value
            } else {
                token(&mut pos)
            };
            match challenges.last_mut() {
                Some(challenge) => {
                    challenge.params.insert(name.to_ascii_lowercase(), value);
                }
                None => return challenges,
            }
        } else {
            challenges.push(Challenge {
                scheme: name.to_ascii_lowercase(),
                params: BTreeMap::new(),
            });
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn challenge(scheme: &str, params: &[(&str, &str)]) -> Challenge {
        Challenge {
            scheme: scheme.to_string(),
            params: params
                .iter()
                .map(|(k, v)| (k.to_string(), v.to_string()))
                .collect(),
        }
    }

    #[test]
    fn challenges_parse() {
        assert_eq!(
            parse_challenge_list(
                r#"Bearer realm="https://auth.docker.io/token",service="registry.docker.io",scope="repository:library/x:pull""#
            ),
            [challenge(
                "bearer",
                &[
                    ("realm", "https://auth.docker.io/token"),
                    ("service", "registry.docker.io"),
                    ("scope", "repository:library/x:pull")
                ]
            )]
        );
        assert_eq!(
            parse_challenge_list(r#"Basic realm="opm \"test\"", Bearer Realm=x , service = "a,b""#),
            [
                challenge("basic", &[("realm", "opm \"test\"")]),
                challenge("bearer", &[("realm", "x"), ("service", "a,b")])
            ]
        );
        assert_eq!(parse_challenge_list("Basic"), [challenge("basic", &[])]);
        assert_eq!(parse_challenge_list(""), []);
        assert_eq!(parse_challenge_list("=x"), []);
        assert_eq!(
            parse_challenge_list(r#"Bearer realm="unterminated"#),
            [challenge("bearer", &[("realm", "unterminated")])]
        );
    }
}
