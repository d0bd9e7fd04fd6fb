//! `opm serve`: the real server on a free loopback port, asked by real gRPC
//! clients (the crate's generated tonic client, tonic's health and reflection
//! clients, and Python's grpcio in `serve_client.py`).

use crate::util::{copy_tree, Test};
use opm::serve::api;
use opm::serve::api::experimental_registry_client::ExperimentalRegistryClient;
use opm::serve::api::registry_client::RegistryClient;
use std::path::{Path, PathBuf};
use std::process::{Child, Command, Stdio};
use std::time::{Duration, Instant};
use tonic::transport::Channel;
use tonic::Code;

const CUSTOM: &str = "testdata/serve/custom";

fn repo(relative: &str) -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join(relative)
}

fn free_port() -> u16 {
    let listener = std::net::TcpListener::bind("127.0.0.1:0").expect("bind a free port");
    listener.local_addr().expect("local address").port()
}

pub(crate) fn runtime() -> tokio::runtime::Runtime {
    tokio::runtime::Builder::new_current_thread()
        .enable_all()
        .build()
        .expect("tokio runtime")
}

/// A running `opm serve`, stopped (SIGTERM) when dropped.
pub struct Server {
    child: Option<Child>,
    pub port: u16,
    log: PathBuf,
    _dir: tempfile::TempDir,
}

impl Server {
    /// Starts `opm serve CATALOG -p PORT -t LOG ARGS...` and waits until the
    /// health service answers SERVING.
    pub fn start(catalog: &Path, args: &[&str]) -> Server {
        let dir = tempfile::tempdir().expect("temporary directory");
        let port = free_port();
        let log = dir.path().join("stderr");
        let child = Command::new(env!("CARGO_BIN_EXE_opm"))
            .arg("serve")
            .arg(catalog)
            .args(["-p", &port.to_string(), "-t"])
            .arg(dir.path().join("termination-log"))
            .args(args)
            .stdin(Stdio::null())
            .stdout(Stdio::null())
            .stderr(std::fs::File::create(&log).expect("log file"))
            .spawn()
            .expect("start opm serve");
        let mut server = Server {
            child: Some(child),
            port,
            log,
            _dir: dir,
        };
        server.wait_until_serving();
        server
    }

    fn wait_until_serving(&mut self) {
        let started = Instant::now();
        let rt = runtime();
        loop {
            if let Some(status) = self
                .child
                .as_mut()
                .and_then(|c| c.try_wait().ok().flatten())
            {
                panic!("opm serve exited ({status}): {}", self.stderr());
            }
            assert!(
                started.elapsed() < Duration::from_secs(120),
                "not serving after 120 s: {}",
                self.stderr()
            );
            let answer = rt.block_on(async {
                let channel = connect_once(self.port).await?;
                let mut health = tonic_health::pb::health_client::HealthClient::new(channel);
                let response = health
                    .check(tonic_health::pb::HealthCheckRequest::default())
                    .await
                    .ok()?;
                Some(response.into_inner().status)
            });
            if answer
                == Some(tonic_health::pb::health_check_response::ServingStatus::Serving as i32)
            {
                return;
            }
            std::thread::sleep(Duration::from_millis(20));
        }
    }

    pub fn stderr(&self) -> String {
        std::fs::read_to_string(&self.log).unwrap_or_default()
    }

    /// Sends `signal` and returns the exit code and what was logged.
    pub fn stop_with(mut self, signal: &str) -> (Option<i32>, String) {
        let mut child = self.child.take().expect("running");
        let sent = Command::new("kill")
            .args(["-s", signal, &child.id().to_string()])
            .status()
            .expect("run kill");
        assert!(sent.success());
        let started = Instant::now();
        loop {
            if let Some(status) = child.try_wait().expect("wait") {
                return (status.code(), self.stderr());
            }
            if started.elapsed() > Duration::from_secs(30) {
                let _ = child.kill();
                panic!("opm serve did not stop on SIG{signal}");
            }
            std::thread::sleep(Duration::from_millis(20));
        }
    }
}

impl Drop for Server {
    fn drop(&mut self) {
        if let Some(mut child) = self.child.take() {
            let _ = Command::new("kill")
                .args(["-s", "TERM", &child.id().to_string()])
                .status();
            let started = Instant::now();
            while child.try_wait().ok().flatten().is_none() {
                if started.elapsed() > Duration::from_secs(10) {
                    let _ = child.kill();
                    let _ = child.wait();
                    break;
                }
                std::thread::sleep(Duration::from_millis(20));
            }
        }
    }
}

async fn connect_once(port: u16) -> Option<Channel> {
    tonic::transport::Endpoint::from_shared(format!("http://127.0.0.1:{port}"))
        .ok()?
        .connect_timeout(Duration::from_secs(2))
        .connect()
        .await
        .ok()
}

async fn connect(port: u16) -> Channel {
    connect_once(port).await.expect("connect to opm serve")
}

pub(crate) async fn registry(port: u16) -> RegistryClient<Channel> {
    RegistryClient::new(connect(port).await).max_decoding_message_size(usize::MAX)
}

fn fail<T: std::fmt::Debug>(result: Result<T, tonic::Status>) -> (Code, String) {
    let status = result.expect_err("the call should fail");
    (status.code(), status.message().to_string())
}

async fn collect<T>(
    stream: Result<tonic::Response<tonic::Streaming<T>>, tonic::Status>,
) -> Result<Vec<T>, tonic::Status> {
    let mut stream = stream?.into_inner();
    let mut items = Vec::new();
    while let Some(item) = stream.message().await? {
        items.push(item);
    }
    Ok(items)
}

fn entry(package: &str, channel: &str, bundle: &str, replaces: &str) -> api::ChannelEntry {
    api::ChannelEntry {
        package_name: package.into(),
        channel_name: channel.into(),
        bundle_name: bundle.into(),
        replaces: replaces.into(),
    }
}

fn gvk(version: &str, kind: &str) -> (String, String, String) {
    ("example.com".into(), version.into(), kind.into())
}

#[test]
#[expect(
    deprecated,
    reason = "GetBundleForChannel is deprecated in the API, and still answered"
)]
fn serve_answers_packages_and_bundles() {
    let server = Server::start(&repo(CUSTOM), &[]);
    runtime().block_on(async {
        let mut client = registry(server.port).await;
        let names: Vec<String> = collect(client.list_packages(api::ListPackageRequest {}).await)
            .await
            .unwrap()
            .into_iter()
            .map(|p| p.name)
            .collect();
        assert_eq!(names, ["app", "other"]);

        let package = client
            .get_package(api::GetPackageRequest { name: "app".into() })
            .await
            .unwrap()
            .into_inner();
        let deprecation = |message: &str| {
            Some(api::Deprecation {
                message: message.into(),
            })
        };
        assert_eq!(
            package,
            api::Package {
                name: "app".into(),
                channels: vec![
                    api::Channel {
                        name: "fast".into(),
                        csv_name: "app.v2.0.0".into(),
                        deprecation: deprecation("the fast channel is deprecated."),
                    },
                    api::Channel {
                        name: "stable".into(),
                        csv_name: "app.v1.1.0".into(),
                        deprecation: None,
                    },
                ],
                default_channel_name: "stable".into(),
                deprecation: deprecation("app is deprecated; use other."),
            }
        );
        assert_eq!(
            fail(client.get_package(api::GetPackageRequest { name: "nope".into() }).await),
            (Code::Unknown, r#"package "nope" not found"#.into())
        );

        // A bundle with its CSV among its objects, and dependencies.
        let bundle = client
            .get_bundle(api::GetBundleRequest {
                pkg_name: "app".into(),
                channel_name: "stable".into(),
                csv_name: "app.v1.0.0".into(),
            })
            .await
            .unwrap()
            .into_inner();
        assert_eq!(
            bundle.csv_json,
            r#"{"apiVersion":"operators.coreos.com/v1alpha1","kind":"ClusterServiceVersion","metadata":{"annotations":{"description":"Runs \u003capps\u003e \u0026 more"},"name":"app.v1.0.0"},"spec":{"displayName":"App","replicas":15,"version":"1.0.0"}}"#
        );
        assert_eq!(bundle.object.len(), 2);
        assert_eq!(bundle.object[0], bundle.csv_json);
        assert!(bundle.object[1].starts_with(r#"{"apiVersion":"apiextensions.k8s.io/v1","kind":"CustomResourceDefinition""#));
        assert_eq!(bundle.bundle_path, "quay.io/example/app-bundle:v1.0.0");
        assert_eq!(bundle.version, "1.0.0");
        assert_eq!((bundle.replaces.as_str(), bundle.skips.len()), ("", 0));
        assert_eq!(bundle.deprecation, deprecation("app.v1.0.0 is deprecated."));
        let properties: Vec<(&str, &str)> = bundle
            .properties
            .iter()
            .map(|p| (p.r#type.as_str(), p.value.as_str()))
            .collect();
        assert_eq!(
            properties,
            [
                ("olm.package", r#"{"packageName":"app","version":"1.0.0"}"#),
                ("olm.gvk", r#"{"group":"example.com","kind":"App","version":"v1"}"#),
                ("olm.gvk.required", r#"{"group":"example.com","kind":"Db","version":"v1"}"#),
                ("olm.package.required", r#"{"packageName":"other","versionRange":">=0.1.0"}"#),
                ("olm.maxOpenShiftVersion", r#""4.20""#),
            ]
        );
        let dependencies: Vec<(&str, &str)> = bundle
            .dependencies
            .iter()
            .map(|d| (d.r#type.as_str(), d.value.as_str()))
            .collect();
        assert_eq!(
            dependencies,
            [
                ("olm.gvk", r#"{"group":"example.com","kind":"Db","version":"v1"}"#),
                ("olm.package", r#"{"packageName":"other","version":">=0.1.0"}"#),
            ]
        );
        let apis = |list: &[api::GroupVersionKind]| -> Vec<(String, String, String)> {
            list.iter()
                .map(|g| (g.group.clone(), g.version.clone(), g.kind.clone()))
                .collect()
        };
        assert_eq!(apis(&bundle.provided_apis), [gvk("v1", "App")]);
        assert_eq!(apis(&bundle.required_apis), [gvk("v1", "Db")]);

        // A bundle whose CSV is written from olm.csv.metadata.
        let bundle = client
            .get_bundle(api::GetBundleRequest {
                pkg_name: "app".into(),
                channel_name: "stable".into(),
                csv_name: "app.v1.1.0".into(),
            })
            .await
            .unwrap()
            .into_inner();
        assert_eq!(
            bundle.csv_json,
            concat!(
                r#"{"kind":"ClusterServiceVersion","apiVersion":"operators.coreos.com/v1alpha1","#,
                r#""metadata":{"name":"app.v1.1.0","annotations":{"capabilities":"Basic Install"}},"#,
                r#""spec":{"install":{"strategy":"deployment","spec":{"deployments":null}},"version":"1.1.0","#,
                r#""customresourcedefinitions":{"owned":[{"name":"apps.example.com","version":"v1","kind":"App"}]},"#,
                r#""apiservicedefinitions":{},"displayName":"App","description":"The example app operator.","#,
                r#""keywords":["apps"],"provider":{"name":"Example"},"#,
                r#""icon":[{"base64data":"PHN2ZyB4bWxucz0iaHR0cDovL3d3dy53My5vcmcvMjAwMC9zdmciLz4=","mediatype":"image/svg+xml"}],"#,
                r#""installModes":[{"type":"AllNamespaces","supported":true}],"cleanup":{"enabled":false},"#,
                r#""relatedImages":[{"name":"app","image":"quay.io/example/app:v1.1.0"}]},"status":{"cleanup":{}}}"#
            )
        );
        assert_eq!(bundle.object, std::slice::from_ref(&bundle.csv_json));
        assert_eq!(bundle.skip_range, ">=1.0.0 <1.1.0");
        assert!(bundle.properties.iter().all(|p| p.r#type != "olm.csv.metadata"));

        for (request, message) in [
            (("nope", "stable", "x"), r#"package "nope" not found"#),
            (("app", "nope", "x"), r#"package "app", channel "nope" not found"#),
            (
                ("app", "stable", "app.v2.0.0"),
                r#"package "app", channel "stable", bundle "app.v2.0.0" not found"#,
            ),
        ] {
            let answer = client
                .get_bundle(api::GetBundleRequest {
                    pkg_name: request.0.into(),
                    channel_name: request.1.into(),
                    csv_name: request.2.into(),
                })
                .await;
            assert_eq!(fail(answer), (Code::Unknown, message.to_string()));
        }

        // The channel head, whose CSV object is YAML in the catalog.
        let head = client
            .get_bundle_for_channel(api::GetBundleInChannelRequest {
                pkg_name: "app".into(),
                channel_name: "fast".into(),
            })
            .await
            .unwrap()
            .into_inner();
        assert_eq!(head.csv_name, "app.v2.0.0");
        assert_eq!(
            head.csv_json,
            r#"{"apiVersion":"operators.coreos.com/v1alpha1","kind":"ClusterServiceVersion","metadata":{"name":"app.v2.0.0"},"spec":{"displayName":"App two","maturity":"stable","version":"2.0.0"}}"#
        );
        assert_eq!((head.replaces.as_str(), head.skips.len()), ("", 0));
        assert_eq!(
            fail(
                client
                    .get_bundle_for_channel(api::GetBundleInChannelRequest {
                        pkg_name: "app".into(),
                        channel_name: "beta".into(),
                    })
                    .await
            ),
            (Code::Unknown, r#"package "app", channel "beta" not found"#.into())
        );

        // ListBundles: every channel entry, in name order; no CSV or objects
        // for bundles that have an image; replaces and skips kept.
        let bundles = collect(client.list_bundles(api::ListBundlesRequest {}).await)
            .await
            .unwrap();
        let listed: Vec<(&str, &str, &str, usize, &str, usize)> = bundles
            .iter()
            .map(|b| {
                (
                    b.package_name.as_str(),
                    b.channel_name.as_str(),
                    b.csv_name.as_str(),
                    b.object.len(),
                    b.replaces.as_str(),
                    b.skips.len(),
                )
            })
            .collect();
        assert_eq!(
            listed,
            [
                ("app", "fast", "app.v1.1.0", 0, "", 0),
                ("app", "fast", "app.v2.0.0", 1, "app.v1.1.0", 1),
                ("app", "stable", "app.v1.0.0", 0, "", 0),
                ("app", "stable", "app.v1.1.0", 0, "app.v1.0.0", 0),
                ("other", "stable", "other.v0.1.0", 0, "", 0),
            ]
        );
        assert!(bundles[0].csv_json.is_empty());
        assert_eq!(bundles[1].csv_json, head.csv_json);
    });
}

#[test]
fn serve_answers_graph_and_provider_questions() {
    let server = Server::start(&repo(CUSTOM), &[]);
    runtime().block_on(async {
        let mut client = registry(server.port).await;
        let replacing = collect(
            client
                .get_channel_entries_that_replace(api::GetAllReplacementsRequest {
                    csv_name: "app.v1.0.0".into(),
                })
                .await,
        )
        .await
        .unwrap();
        assert_eq!(
            replacing,
            [
                entry("app", "fast", "app.v2.0.0", "app.v1.1.0"),
                entry("app", "stable", "app.v1.1.0", "app.v1.0.0"),
            ]
        );
        let none = client
            .get_channel_entries_that_replace(api::GetAllReplacementsRequest {
                csv_name: "app.v2.0.0".into(),
            })
            .await;
        assert_eq!(
            fail(collect(none).await),
            (
                Code::Unknown,
                "no channel entries found that replace app.v2.0.0".into()
            )
        );

        let replacement = |csv: &str, package: &str, channel: &str| api::GetReplacementRequest {
            csv_name: csv.into(),
            pkg_name: package.into(),
            channel_name: channel.into(),
        };
        let bundle = client
            .get_bundle_that_replaces(replacement("app.v1.0.0", "app", "fast"))
            .await
            .unwrap()
            .into_inner();
        assert_eq!(bundle.csv_name, "app.v2.0.0");
        assert!(bundle.skips.is_empty() && bundle.replaces.is_empty());
        for (request, message) in [
            (replacement("x", "nope", "fast"), "package nope not found"),
            (
                replacement("x", "app", "nope"),
                r#"package "app", channel "nope" not found"#,
            ),
            (
                replacement("app.v1.1.0", "app", "stable"),
                r#"no entry found for package "app", channel "stable""#,
            ),
        ] {
            let answer = client.get_bundle_that_replaces(request).await;
            assert_eq!(fail(answer), (Code::Unknown, message.to_string()));
        }

        let (group, kind) = ("example.com".to_string(), "App".to_string());
        let all = |version: &str| api::GetAllProvidersRequest {
            group: group.clone(),
            version: version.into(),
            kind: kind.clone(),
            plural: String::new(),
        };
        let latest = |version: &str| api::GetLatestProvidersRequest {
            group: group.clone(),
            version: version.into(),
            kind: kind.clone(),
            plural: "ignored".into(),
        };
        let default = |version: &str| api::GetDefaultProviderRequest {
            group: group.clone(),
            version: version.into(),
            kind: kind.clone(),
            plural: String::new(),
        };
        let found = collect(client.get_channel_entries_that_provide(all("v1")).await)
            .await
            .unwrap();
        assert_eq!(
            found,
            [
                entry("app", "fast", "app.v1.1.0", ""),
                entry("app", "stable", "app.v1.0.0", ""),
                entry("app", "stable", "app.v1.1.0", "app.v1.0.0"),
                entry("other", "stable", "other.v0.1.0", ""),
            ]
        );
        // A skip outside the channel counts for all providers, not for the latest.
        let found = collect(client.get_channel_entries_that_provide(all("v2")).await)
            .await
            .unwrap();
        assert_eq!(
            found,
            [
                entry("app", "fast", "app.v2.0.0", "app.v1.1.0"),
                entry("app", "fast", "app.v2.0.0", "app.v1.0.0"),
            ]
        );
        let found = collect(
            client
                .get_latest_channel_entries_that_provide(latest("v2"))
                .await,
        )
        .await
        .unwrap();
        assert_eq!(found, [entry("app", "fast", "app.v2.0.0", "app.v1.1.0")]);
        let found = collect(
            client
                .get_latest_channel_entries_that_provide(latest("v1"))
                .await,
        )
        .await
        .unwrap();
        assert_eq!(
            found,
            [
                entry("app", "stable", "app.v1.1.0", "app.v1.0.0"),
                entry("other", "stable", "other.v0.1.0", ""),
            ]
        );
        let none = client.get_channel_entries_that_provide(all("v9")).await;
        let message =
            r#"no channel entries found that provide group:"example.com" version:"v9" kind:"App""#;
        assert_eq!(fail(collect(none).await), (Code::Unknown, message.into()));

        let bundle = client
            .get_default_bundle_that_provides(default("v1"))
            .await
            .unwrap()
            .into_inner();
        assert_eq!(
            (
                bundle.package_name.as_str(),
                bundle.channel_name.as_str(),
                bundle.csv_name.as_str()
            ),
            ("app", "stable", "app.v1.1.0")
        );
        assert!(bundle.replaces.is_empty());
        // Provided only outside the default channel.
        assert_eq!(
            fail(client.get_default_bundle_that_provides(default("v2")).await),
            (
                Code::Unknown,
                r#"no entry found that provides group:"example.com" version:"v2" kind:"App""#
                    .into()
            )
        );
        assert_eq!(
            fail(client.get_default_bundle_that_provides(default("v9")).await),
            (Code::Unknown, message.into())
        );
    });
}

#[test]
fn serve_lists_custom_schemas_only_to_callers_that_acknowledge_the_experiment() {
    let server = Server::start(&repo(CUSTOM), &[]);
    runtime().block_on(async {
        let mut client = ExperimentalRegistryClient::new(connect(server.port).await);
        let request = |schema: &str, package: &str, acknowledge: Option<&str>| {
            let mut request =
                tonic::Request::new(api::ExperimentalListPackageCustomSchemasRequest {
                    schema: schema.into(),
                    package_name: package.into(),
                });
            if let Some(value) = acknowledge {
                request
                    .metadata_mut()
                    .insert("x-acknowledge-experimental", value.parse().unwrap());
            }
            request
        };
        let names = |blobs: &[prost_types::Struct]| -> Vec<String> {
            blobs
                .iter()
                .map(|blob| match blob.fields.get("name").and_then(|v| v.kind.clone()) {
                    Some(prost_types::value::Kind::StringValue(name)) => name,
                    other => panic!("no name: {other:?}"),
                })
                .collect()
        };
        for acknowledge in [None, Some("false")] {
            let blobs = collect(
                client
                    .experimental_list_package_custom_schemas(request("example.note", "app", acknowledge))
                    .await,
            )
            .await
            .unwrap();
            assert!(blobs.is_empty(), "{acknowledge:?}");
        }
        let blobs = collect(
            client
                .experimental_list_package_custom_schemas(request("example.note", "app", Some("true")))
                .await,
        )
        .await
        .unwrap();
        assert_eq!(names(&blobs), ["first", "second", "third"]);
        assert_eq!(
            blobs[1].fields.get("count").and_then(|v| v.kind.clone()),
            Some(prost_types::value::Kind::NumberValue(2.0))
        );
        let blobs = collect(
            client
                .experimental_list_package_custom_schemas(request("example.note", "", Some("true")))
                .await,
        )
        .await
        .unwrap();
        assert_eq!(names(&blobs), ["catalog-wide"]);
        let blobs = collect(
            client
                .experimental_list_package_custom_schemas(request("olm.other", "app", Some("true")))
                .await,
        )
        .await
        .unwrap();
        assert!(blobs.is_empty());

        for (schema, package, message) in [
            ("", "app", "schema is required".to_string()),
            (
                "../x",
                "app",
                r#"invalid custom schema query: invalid schema "../x": must match ^[a-zA-Z0-9][a-zA-Z0-9._-]*$"#.into(),
            ),
            (
                "example.note",
                "a/b",
                r#"invalid custom schema query: invalid packageName "a/b": must match ^[a-zA-Z0-9][a-zA-Z0-9._-]*$"#.into(),
            ),
        ] {
            let answer = client
                .experimental_list_package_custom_schemas(request(schema, package, Some("true")))
                .await;
            assert_eq!(fail(collect(answer).await), (Code::InvalidArgument, message));
        }
    });
}

#[test]
fn serve_reports_health_and_registers_reflection() {
    use tonic_reflection::pb::v1::server_reflection_client::ServerReflectionClient;
    use tonic_reflection::pb::v1::server_reflection_request::MessageRequest;
    use tonic_reflection::pb::v1::server_reflection_response::MessageResponse;
    use tonic_reflection::pb::v1::ServerReflectionRequest;

    let server = Server::start(&repo(CUSTOM), &[]);
    runtime().block_on(async {
        let channel = connect(server.port).await;
        let mut health = tonic_health::pb::health_client::HealthClient::new(channel.clone());
        for service in ["", "api.Registry", "anything"] {
            let answer = health
                .check(tonic_health::pb::HealthCheckRequest {
                    service: service.into(),
                })
                .await
                .unwrap()
                .into_inner();
            assert_eq!(
                answer.status,
                tonic_health::pb::health_check_response::ServingStatus::Serving as i32
            );
        }

        let mut reflection = ServerReflectionClient::new(channel);
        let ask = |request: MessageRequest| {
            tokio_stream::iter([ServerReflectionRequest {
                host: String::new(),
                message_request: Some(request),
            }])
        };
        let mut answers = reflection
            .server_reflection_info(ask(MessageRequest::ListServices(String::new())))
            .await
            .unwrap()
            .into_inner();
        let Some(MessageResponse::ListServicesResponse(list)) = answers
            .message()
            .await
            .unwrap()
            .and_then(|a| a.message_response)
        else {
            panic!("no service list");
        };
        let mut services: Vec<String> = list.service.into_iter().map(|s| s.name).collect();
        services.sort();
        for wanted in [
            "api.ExperimentalRegistry",
            "api.Registry",
            "grpc.health.v1.Health",
            "grpc.reflection.v1.ServerReflection",
        ] {
            assert!(
                services.iter().any(|s| s == wanted),
                "{wanted} in {services:?}"
            );
        }
        let mut answers = reflection
            .server_reflection_info(ask(MessageRequest::FileContainingSymbol(
                "api.Registry".into(),
            )))
            .await
            .unwrap()
            .into_inner();
        let Some(MessageResponse::FileDescriptorResponse(files)) = answers
            .message()
            .await
            .unwrap()
            .and_then(|a| a.message_response)
        else {
            panic!("no file descriptor");
        };
        assert!(!files.file_descriptor_proto.is_empty());
    });
}

#[test]
fn serve_with_python_grpcio_client() {
    let Some(catalog) = crate::util::shared("corpus/fbc/kube-descheduler-operator-v4.17") else {
        return;
    };
    let has_grpcio = Command::new("/usr/bin/python3")
        .args(["-c", "import grpc, grpc_tools.protoc"])
        .output()
        .is_ok_and(|out| out.status.success());
    if !has_grpcio {
        crate::util::skip(
            "needs Python's grpcio (apt-get install python3-grpcio python3-grpc-tools)",
        );
        return;
    }
    let server = Server::start(&repo(CUSTOM), &[]);
    let corpus = Server::start(&catalog, &[]);
    let output = Command::new("/usr/bin/python3")
        .arg(repo("tests/serve_client.py"))
        .arg(repo("proto"))
        .arg(format!("127.0.0.1:{}", server.port))
        .arg(format!("127.0.0.1:{}", corpus.port))
        .output()
        .expect("run python3");
    let stdout = String::from_utf8_lossy(&output.stdout);
    assert!(
        output.status.success(),
        "serve_client.py failed:\n{stdout}\n{}",
        String::from_utf8_lossy(&output.stderr)
    );
    assert!(stdout.contains(" checks passed"), "{stdout}");
}

#[test]
fn serve_stops_gracefully_on_sigterm_and_sigint() {
    for signal in ["TERM", "INT"] {
        let server = Server::start(&repo(CUSTOM), &[]);
        let (code, stderr) = server.stop_with(signal);
        assert_eq!(code, Some(0), "SIG{signal}: {stderr}");
        assert!(stderr.contains("serving registry"), "{stderr}");
        assert!(stderr.contains("shutting down server"), "{stderr}");
    }
}

#[test]
fn serve_refuses_a_catalog_that_fails_validate_with_its_message() {
    let broken = "schema: olm.package\nname: example-operator\n";
    let run = |command: &[&str]| {
        Test::new()
            .copy("testdata/fbc/example", "catalog")
            .file("catalog/extra.yaml", broken)
            .args(command.iter().copied())
            .run()
    };
    let validate = run(&["validate", "catalog"]).failure(&[]);
    let port = free_port().to_string();
    let serve = run(&["serve", "catalog", "-p", &port, "-t", "termination-log"]).failure(&[]);
    assert!(
        validate.stderr.contains("duplicate package"),
        "{}",
        validate.stderr
    );
    assert_eq!(serve.stderr, validate.stderr);
    // The termination log holds the same text, without the `Error: ` framing.
    let message = validate.stderr.replace("Error: ", "");
    assert_eq!(serve.read("termination-log").trim_end(), message.trim_end());
}

#[test]
fn serve_flag_errors() {
    let port = free_port().to_string();
    let cases: Vec<(Vec<&str>, &str)> = vec![
        (
            vec!["serve", "catalog", "--cache-enforce-integrity", "-p", &port],
            "Error: --cache-dir must be specified with --cache-enforce-integrity\n",
        ),
        (
            vec!["serve", "catalog", "-p", "abc"],
            "Error: failed to listen: listen tcp: lookup tcp/abc: unknown port\n",
        ),
        (
            vec!["serve", "catalog", "-p", "99999"],
            "Error: failed to listen: listen tcp: address 99999: invalid port\n",
        ),
        (
            vec!["serve", "catalog", "other"],
            "Error: accepts 1 arg(s), received 2\nUsage:\n  opm serve <source_path> [flags]\n",
        ),
        (
            vec!["serve", "missing", "-p", &port],
            "Error: stat missing: no such file or directory\n",
        ),
    ];
    for (args, stderr) in cases {
        let output = Test::new()
            .copy(CUSTOM, "catalog")
            .args(args.iter().copied().chain(["-t", "termination-log"]))
            .run()
            .failure(&[]);
        if stderr.contains("Usage:") {
            // The flags follow the usage line.
            assert!(
                output.stderr.starts_with(stderr),
                "{args:?}: {}",
                output.stderr
            );
        } else {
            assert_eq!(output.stderr, stderr, "{args:?}");
        }
    }
    // A port already taken.
    let taken = std::net::TcpListener::bind("0.0.0.0:0").unwrap();
    let port = taken.local_addr().unwrap().port().to_string();
    Test::new()
        .copy(CUSTOM, "catalog")
        .args(["serve", "catalog", "-t", "log", "-p", &port])
        .run()
        .failure(&[&format!(
            "Error: failed to listen: listen tcp :{port}: bind: address already in use"
        )]);
}

/// The files under `dir`, relative, with their modes.
fn tree(dir: &Path) -> Vec<(String, u32)> {
    use std::os::unix::fs::PermissionsExt as _;
    let mut files: Vec<(String, u32)> = walkdir::WalkDir::new(dir)
        .min_depth(1)
        .into_iter()
        .map(|e| e.unwrap())
        .map(|e| {
            let relative = e.path().strip_prefix(dir).unwrap().display().to_string();
            (
                relative,
                e.metadata().unwrap().permissions().mode() & 0o7777,
            )
        })
        .collect();
    files.sort();
    files
}

fn copy_catalog(from: &str, to: &Path) -> PathBuf {
    let catalog = to.join("catalog");
    copy_tree(&repo(from), &catalog);
    catalog
}

#[test]
fn serve_cache_only_writes_upstreams_json_layout_and_serving_checks_it() {
    let temp = tempfile::tempdir().unwrap();
    let catalog = copy_catalog(CUSTOM, temp.path());
    let cache = temp.path().join("cache-dir");
    let opm = |args: &[&str]| {
        Command::new(env!("CARGO_BIN_EXE_opm"))
            .arg("serve")
            .arg(&catalog)
            .args(["-t", "/dev/null"])
            .arg(format!("--cache-dir={}", cache.display()))
            .args(args)
            .output()
            .expect("run opm")
    };
    let output = opm(&["--cache-only"]);
    assert!(
        output.status.success(),
        "{}",
        String::from_utf8_lossy(&output.stderr)
    );
    let files = tree(&cache);
    let names: Vec<&str> = files.iter().map(|(n, _)| n.as_str()).collect();
    let metas: Vec<&&str> = names.iter().filter(|n| n.contains("metas/")).collect();
    assert_eq!(metas.len(), 6, "{names:?}"); // 2 directories, 4 blobs
    for name in [
        "cache",
        "cache/packages.json",
        "cache/app_fast_app.v1.1.0.json",
        "cache/app_fast_app.v2.0.0.json",
        "cache/app_stable_app.v1.0.0.json",
        "cache/app_stable_app.v1.1.0.json",
        "cache/other_stable_other.v0.1.0.json",
        "cache/metas/example.note/app",
        "digest",
    ] {
        assert!(names.contains(&name), "{name} in {names:?}");
    }
    for (name, mode) in &files {
        let dir = cache.join(name).is_dir();
        assert_eq!(*mode, if dir { 0o750 } else { 0o640 }, "{name}");
    }
    let digest = std::fs::read_to_string(cache.join("digest")).unwrap();
    assert_eq!(digest.len(), 16);
    let bundle = std::fs::read_to_string(cache.join("cache/app_fast_app.v2.0.0.json")).unwrap();
    assert!(
        bundle.starts_with(
            r#"{"csvName":"app.v2.0.0","packageName":"app","channelName":"fast","csvJson":"#
        ),
        "{bundle}"
    );
    assert!(
        bundle.ends_with(r#""replaces":"app.v1.1.0","skips":["app.v1.0.0"]}"#),
        "{bundle}"
    );

    // Serving from it checks it and writes nothing.
    let before = tree(&cache);
    let server = Server::start(&catalog, &[&format!("--cache-dir={}", cache.display())]);
    drop(server);
    assert_eq!(tree(&cache), before);
    assert_eq!(
        std::fs::read_to_string(cache.join("digest")).unwrap(),
        digest
    );

    // A changed catalog fails the check, unless integrity is not enforced.
    let file = catalog.join("other/catalog.yaml");
    let text = std::fs::read_to_string(&file).unwrap();
    std::fs::write(&file, format!("{text}\n")).unwrap();
    let output = opm(&["-p", "1"]);
    let stderr = String::from_utf8_lossy(&output.stderr);
    assert_eq!(output.status.code(), Some(1));
    assert!(
        stderr.starts_with(&format!(
            "Error: integrity check failed: cache requires rebuild: cache reports digest as \"{digest}\", but computed digest is \""
        )),
        "{stderr}"
    );
    let output = opm(&["--cache-only", "--cache-enforce-integrity=true"]);
    assert_eq!(output.status.code(), Some(1));
    let output = opm(&["--cache-only"]);
    assert!(output.status.success());
    assert_ne!(
        std::fs::read_to_string(cache.join("digest")).unwrap(),
        digest
    );
    let server = Server::start(&catalog, &[&format!("--cache-dir={}", cache.display())]);
    drop(server);
}

#[test]
fn serve_cache_directory_contents() {
    let temp = tempfile::tempdir().unwrap();
    let catalog = copy_catalog(CUSTOM, temp.path());
    let run = |cache: &Path, args: &[&str]| {
        let output = Command::new(env!("CARGO_BIN_EXE_opm"))
            .arg("serve")
            .arg(&catalog)
            .args(["-t", "/dev/null", "-p", "1"])
            .arg(format!("--cache-dir={}", cache.display()))
            .args(args)
            .output()
            .expect("run opm");
        (
            output.status.code(),
            String::from_utf8_lossy(&output.stderr).into_owned(),
        )
    };

    let unexpected = temp.path().join("unexpected");
    std::fs::create_dir_all(unexpected.join("more")).unwrap();
    std::fs::write(unexpected.join("junk"), "x").unwrap();
    assert_eq!(
        run(&unexpected, &["--cache-only"]),
        (
            Some(1),
            "Error: cache directory has unexpected contents: junk,more\n".into()
        )
    );

    // No cache yet: integrity enforced fails, cache-only writes one.
    let empty = temp.path().join("empty");
    std::fs::create_dir(&empty).unwrap();
    assert_eq!(
        run(&empty, &[]),
        (
            Some(1),
            format!(
                "Error: integrity check failed: read existing cache digest: open {}/digest: no such file or directory\n",
                empty.display()
            )
        )
    );
    assert_eq!(run(&empty, &["--cache-only"]), (Some(0), String::new()));

    // Upstream's pogreb.v1 format: refused with integrity, replaced without.
    let pogreb = temp.path().join("pogreb");
    std::fs::create_dir_all(pogreb.join("pogreb.v1/db")).unwrap();
    std::fs::write(pogreb.join("pogreb.v1/digest"), "0123456789abcdef").unwrap();
    let (code, stderr) = run(&pogreb, &[]);
    assert_eq!(code, Some(1));
    assert!(
        stderr.contains("pogreb.v1 format, which this opm does not read"),
        "{stderr}"
    );
    assert_eq!(run(&pogreb, &["--cache-only"]), (Some(0), String::new()));
    assert!(!pogreb.join("pogreb.v1").exists());
    assert!(pogreb.join("digest").is_file() && pogreb.join("cache/packages.json").is_file());

    // An interrupted write's temporary directory is cleaned up.
    std::fs::create_dir(pogreb.join(".opm-cache-leftover")).unwrap();
    std::fs::write(catalog.join("other/catalog.yaml.bak"), "").unwrap();
    assert_eq!(run(&pogreb, &["--cache-only"]), (Some(0), String::new()));
    assert!(!pogreb.join(".opm-cache-leftover").exists());
}

/// A cache we did not write: `json` layout files as an upstream release from
/// before deprecations wrote them (no `deprecation` fields, so not what we
/// would write for this catalog), with the digest computed by Go's
/// `archive/tar` and `hash/fnv` (upstream's `ComputeDigest`) for these file
/// modes. It is accepted with integrity enforced and left untouched.
#[test]
fn serve_accepts_an_upstream_written_json_cache() {
    use std::os::unix::fs::PermissionsExt as _;
    let temp = tempfile::tempdir().unwrap();
    let fixture = repo("testdata/serve/upstream-cache");
    copy_tree(&fixture, temp.path());
    let set = |path: &Path, mode: u32| {
        std::fs::set_permissions(path, std::fs::Permissions::from_mode(mode)).unwrap();
    };
    for entry in walkdir::WalkDir::new(temp.path()).min_depth(1) {
        let entry = entry.unwrap();
        let in_cache = entry.path().starts_with(temp.path().join("cache-dir"));
        let mode = match (entry.file_type().is_dir(), in_cache) {
            (true, true) => 0o750,
            (false, true) => 0o640,
            (true, false) => 0o755,
            (false, false) => 0o644,
        };
        set(entry.path(), mode);
    }
    let catalog = temp.path().join("catalog");
    let cache = temp.path().join("cache-dir");
    let before = tree(&cache);
    let server = Server::start(&catalog, &[&format!("--cache-dir={}", cache.display())]);
    runtime().block_on(async {
        let mut client = registry(server.port).await;
        let package = client
            .get_package(api::GetPackageRequest {
                name: "example-operator".into(),
            })
            .await
            .unwrap()
            .into_inner();
        assert_eq!(package.default_channel_name, "stable");
    });
    drop(server);
    assert_eq!(tree(&cache), before);
}

#[test]
fn serve_runs_the_command_lines_of_generated_dockerfiles() {
    let temp = tempfile::tempdir().unwrap();
    let catalog = copy_catalog(CUSTOM, temp.path());
    let status = Command::new(env!("CARGO_BIN_EXE_opm"))
        .args(["generate", "dockerfile"])
        .arg(&catalog)
        .status()
        .unwrap();
    assert!(status.success());
    let dockerfile = std::fs::read_to_string(temp.path().join("catalog.Dockerfile")).unwrap();
    let json_array = |prefix: &str| -> Vec<String> {
        let line = dockerfile
            .lines()
            .find_map(|line| line.strip_prefix(prefix))
            .unwrap_or_else(|| panic!("no {prefix} line in:\n{dockerfile}"));
        serde_json::from_str(line).unwrap()
    };
    let opm = env!("CARGO_BIN_EXE_opm").to_string();
    let cache = temp.path().join("tmp/cache");
    let substitute = |words: Vec<String>| -> Vec<String> {
        words
            .into_iter()
            .map(|word| {
                word.replace("/bin/opm", &opm)
                    .replace("/configs", &catalog.display().to_string())
                    .replace("/tmp/cache", &cache.display().to_string())
            })
            .collect()
    };
    let build = substitute(json_array("RUN "));
    assert_eq!(build[0], opm);
    let output = Command::new(&build[0]).args(&build[1..]).output().unwrap();
    assert!(
        output.status.success(),
        "{}",
        String::from_utf8_lossy(&output.stderr)
    );
    assert!(cache.join("digest").is_file());

    let mut command = substitute(json_array("ENTRYPOINT "));
    command.extend(substitute(json_array("CMD ")));
    assert_eq!(command[1], "serve");
    assert_eq!(command[2], catalog.display().to_string());
    let server = Server::start(
        &catalog,
        &command[3..].iter().map(String::as_str).collect::<Vec<_>>(),
    );
    runtime().block_on(async {
        let mut client = registry(server.port).await;
        let bundles = collect(client.list_bundles(api::ListBundlesRequest {}).await)
            .await
            .unwrap();
        assert_eq!(bundles.len(), 5);
    });
}

/// A catalog of one package whose `bundles` bundles each carry `description_kb` KiB of CSV
/// metadata: more than a client's HTTP/2 window, so that a stream of it is still in flight
/// when the server is stopped.
fn large_catalog(dir: &Path, bundles: usize, description_kb: usize) -> PathBuf {
    let catalog = dir.join("catalog");
    std::fs::create_dir_all(catalog.join("big")).expect("create the catalog");
    let mut text = String::from(
        "schema: olm.package\nname: big\ndefaultChannel: stable\n---\nschema: olm.channel\npackage: big\nname: stable\nentries:\n",
    );
    for n in 0..bundles {
        text.push_str(&format!("- name: big.v1.0.{n}\n"));
        if n > 0 {
            text.push_str(&format!("  replaces: big.v1.0.{}\n", n - 1));
        }
    }
    let description = "x".repeat(description_kb * 1024);
    for n in 0..bundles {
        text.push_str(&format!(
            "---\nschema: olm.bundle\nname: big.v1.0.{n}\npackage: big\nimage: example.com/big:v1.0.{n}\nproperties:\n- type: olm.package\n  value: {{packageName: big, version: 1.0.{n}}}\n- type: olm.csv.metadata\n  value:\n    description: {description}\n"
        ));
    }
    std::fs::write(catalog.join("big/catalog.yaml"), text).expect("write the catalog");
    catalog
}

/// SIGTERM with streams in flight, one client reading and one not: the server stops
/// promptly (exit 0), and each stream ends, complete or with UNAVAILABLE; none hangs.
#[test]
fn serve_stops_promptly_with_streams_in_flight() {
    let dir = tempfile::tempdir().expect("temporary directory");
    let catalog = large_catalog(dir.path(), 400, 16);
    let mut server = Server::start(&catalog, &[]);
    let mut child = server.child.take().expect("running");
    let pid = child.id().to_string();
    let (exited, exit) = std::sync::mpsc::channel();
    std::thread::spawn(move || {
        let status = child.wait().expect("wait for opm serve");
        let _ = exited.send((status, Instant::now()));
    });
    let rt = tokio::runtime::Builder::new_multi_thread()
        .worker_threads(2)
        .enable_all()
        .build()
        .expect("tokio runtime");
    let port = server.port;
    let target = pid.clone();
    let (reading, stalled, stopped_after) =
        rt.block_on(async move {
            let mut reader = registry(port).await;
            let mut staller = registry(port).await;
            // The whole listing first, in name order.
            let all = collect(reader.list_bundles(api::ListBundlesRequest {}).await)
                .await
                .expect("ListBundles");
            let names: Vec<&str> = all.iter().map(|b| b.csv_name.as_str()).collect();
            let mut sorted = names.clone();
            sorted.sort_unstable();
            assert_eq!((names.len(), &names), (400, &sorted));
            let mut reading = reader
                .list_bundles(api::ListBundlesRequest {})
                .await
                .expect("ListBundles")
                .into_inner();
            let mut stalled = staller
                .list_bundles(api::ListBundlesRequest {})
                .await
                .expect("ListBundles")
                .into_inner();
            for stream in [&mut reading, &mut stalled] {
                assert!(stream.message().await.expect("a first bundle").is_some());
            }
            let sent = Command::new("kill")
                .args(["-s", "TERM", &target])
                .status()
                .expect("run kill");
            assert!(sent.success());
            let stopped = Instant::now();
            // One client reads on slowly; the other stops reading for a while.
            let drain = |mut stream: tonic::Streaming<api::Bundle>,
                         pause: Duration,
                         each: Duration| async move {
                tokio::time::sleep(pause).await;
                let mut count = 1;
                loop {
                    match stream.message().await {
                        Ok(Some(_)) => count += 1,
                        Ok(None) => return Ok(count),
                        Err(status) => return Err(status),
                    }
                    tokio::time::sleep(each).await;
                }
            };
            let reading = tokio::spawn(drain(reading, Duration::ZERO, Duration::from_millis(5)));
            let stalled = tokio::spawn(drain(stalled, Duration::from_secs(2), Duration::ZERO));
            let within = Duration::from_secs(10);
            let reading = tokio::time::timeout(within, reading)
                .await
                .expect("no hang")
                .unwrap();
            let stalled = tokio::time::timeout(within, stalled)
                .await
                .expect("no hang")
                .unwrap();
            (reading, stalled, stopped)
        });
    let Ok((status, exited_at)) = exit.recv_timeout(Duration::from_secs(5)) else {
        let _ = Command::new("kill").args(["-s", "KILL", &pid]).status();
        panic!("opm serve still running 5 s after SIGTERM");
    };
    let took = exited_at.duration_since(stopped_after);
    assert!(took < Duration::from_secs(5), "stopped after {took:?}");
    assert_eq!(status.code(), Some(0), "{}", server.stderr());
    assert!(server.stderr().contains("shutting down server"));
    for (what, outcome) in [("reading", reading), ("stalled", stalled)] {
        match outcome {
            Ok(count) => assert_eq!(
                count, 400,
                "{what}: a stream that ended without error is complete"
            ),
            Err(status) => assert_eq!(status.code(), Code::Unavailable, "{what}: {status:?}"),
        }
    }
}

/// SIGTERM while the catalog still loads (a pod deleted as it starts): the server stops at
/// once, exit 0, and leaves no cache half-written.
#[test]
fn serve_asked_to_stop_while_it_loads_exits_0_at_once() {
    const SIGTERM_BIT: u64 = 1 << (15 - 1);
    let dir = tempfile::tempdir().expect("temporary directory");
    // Several seconds of loading for an unoptimised build.
    let catalog = large_catalog(dir.path(), 5_000, 1);
    let cache = dir.path().join("cache");
    let mut child = Command::new(env!("CARGO_BIN_EXE_opm"))
        .arg("serve")
        .arg(&catalog)
        .args(["-p", "0", "-t"])
        .arg(dir.path().join("termination-log"))
        .arg(format!("--cache-dir={}", cache.display()))
        .stdin(Stdio::null())
        .stdout(Stdio::null())
        .stderr(Stdio::piped())
        .spawn()
        .expect("start opm serve");
    let started = Instant::now();
    // Once it handles SIGTERM itself.
    loop {
        let status =
            std::fs::read_to_string(format!("/proc/{}/status", child.id())).unwrap_or_default();
        let caught = status
            .lines()
            .find_map(|line| line.strip_prefix("SigCgt:"))
            .and_then(|mask| u64::from_str_radix(mask.trim(), 16).ok())
            .unwrap_or(0);
        if caught & SIGTERM_BIT != 0 {
            break;
        }
        assert!(
            started.elapsed() < Duration::from_secs(30),
            "SIGTERM never caught"
        );
        std::thread::sleep(Duration::from_millis(5));
    }
    let sent = Command::new("kill")
        .args(["-s", "TERM", &child.id().to_string()])
        .status()
        .expect("run kill");
    assert!(sent.success());
    let signalled = Instant::now();
    let status = loop {
        if let Some(status) = child.try_wait().expect("wait") {
            break status;
        }
        if signalled.elapsed() > Duration::from_secs(10) {
            let _ = child.kill();
            panic!("opm serve did not stop on SIGTERM while loading");
        }
        std::thread::sleep(Duration::from_millis(5));
    };
    let mut stderr = String::new();
    use std::io::Read as _;
    child
        .stderr
        .take()
        .expect("stderr")
        .read_to_string(&mut stderr)
        .expect("read stderr");
    assert_eq!(status.code(), Some(0), "{stderr}");
    assert!(signalled.elapsed() < Duration::from_secs(5), "{stderr}");
    // Nothing half-written is left in the cache directory.
    let left: Vec<_> = std::fs::read_dir(&cache)
        .map(|entries| entries.map(|e| e.expect("entry").file_name()).collect())
        .unwrap_or_default();
    assert!(
        left.iter()
            .all(|name| !name.to_string_lossy().starts_with(".opm-cache-")),
        "{left:?}"
    );
}
