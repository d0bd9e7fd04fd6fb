//! The gRPC services over the index: `api.Registry`, `api.ExperimentalRegistry`,
//! `grpc.health.v1.Health` (SERVING for every service name, as upstream) and
//! server reflection (v1 and v1alpha); listening, and a graceful stop on
//! SIGINT or SIGTERM (in-flight calls finish).

use super::api::experimental_registry_server::{ExperimentalRegistry, ExperimentalRegistryServer};
use super::api::registry_server::{Registry, RegistryServer};
use super::api::{self};
use super::index::Index;
use super::query::QueryError;
use std::sync::Arc;
use tokio_stream::wrappers::ReceiverStream;
use tonic::{Request, Response, Status};
use tonic_health::pb::health_check_response::ServingStatus;
use tonic_health::pb::health_server::{Health, HealthServer};
use tonic_health::pb::{HealthCheckRequest, HealthCheckResponse};

/// The metadata key a caller sets to `true` to get answers from the
/// experimental service (upstream: `x-acknowledge-experimental`).
pub const ACKNOWLEDGE_EXPERIMENTAL: &str = "x-acknowledge-experimental";

/// How many streamed messages are prepared ahead of a slow client.
const STREAM_AHEAD: usize = 8;

/// Why the server could not run.
#[derive(Debug, thiserror::Error)]
pub enum ServerError {
    #[error("build reflection service: {0}")]
    Reflection(#[from] tonic_reflection::server::Error),
    #[error("{0}")]
    Transport(#[from] tonic::transport::Error),
    #[error("start the server: {0}")]
    Runtime(#[source] std::io::Error),
    #[error("listen for signals: {0}")]
    Signal(#[source] std::io::Error),
}

/// The services, sharing one index.
#[derive(Clone)]
struct Service {
    index: Arc<Index>,
    log: Option<fn(&str)>,
}

/// The longest status message sent: messages repeat the names a caller sent,
/// and a status travels in an HTTP/2 header, which clients limit (8 KiB
/// and more).
const MAX_STATUS_MESSAGE: usize = 4096;

fn status(error: QueryError) -> Status {
    let code = match error {
        // Upstream returns these as plain errors, which gRPC reports as Unknown.
        QueryError::NoAnswer(_) => tonic::Code::Unknown,
        QueryError::InvalidQuery(_) => tonic::Code::InvalidArgument,
        QueryError::Convert(_) => tonic::Code::Internal,
    };
    let mut message = error.to_string();
    if message.len() > MAX_STATUS_MESSAGE {
        let mut end = MAX_STATUS_MESSAGE;
        while !message.is_char_boundary(end) {
            end -= 1;
        }
        message.truncate(end);
        message.push_str("...");
    }
    Status::new(code, message)
}

impl Service {
    fn trace(&self, method: &str) {
        if let Some(log) = self.log {
            log(&format!("call {method}"));
        }
    }

    /// Runs a question off the async threads (it reads files).
    async fn ask<T: Send + 'static>(
        &self,
        question: impl FnOnce(&Index) -> Result<T, QueryError> + Send + 'static,
    ) -> Result<T, Status> {
        let index = Arc::clone(&self.index);
        tokio::task::spawn_blocking(move || question(&index))
            .await
            .map_err(|e| Status::internal(e.to_string()))?
            .map_err(status)
    }

    /// Streams what `produce` sends, prepared on a blocking thread with a
    /// small look-ahead; stops when the client goes away.
    fn stream<T: Send + 'static>(
        &self,
        produce: impl FnOnce(&Index, &dyn Fn(Result<T, Status>) -> bool) + Send + 'static,
    ) -> ReceiverStream<Result<T, Status>> {
        let (sender, receiver) = tokio::sync::mpsc::channel(STREAM_AHEAD);
        let index = Arc::clone(&self.index);
        tokio::task::spawn_blocking(move || {
            produce(&index, &|item| sender.blocking_send(item).is_ok());
        });
        ReceiverStream::new(receiver)
    }

    /// A finished list as a stream.
    fn list<T: Send + 'static>(items: Vec<T>) -> ListStream<T> {
        tokio_stream::iter(items.into_iter().map(Ok).collect::<Vec<_>>())
    }
}

type ListStream<T> = tokio_stream::Iter<std::vec::IntoIter<Result<T, Status>>>;

#[tonic::async_trait]
impl Registry for Service {
    type ListPackagesStream = ListStream<api::PackageName>;
    type GetChannelEntriesThatReplaceStream = ListStream<api::ChannelEntry>;
    type GetChannelEntriesThatProvideStream = ListStream<api::ChannelEntry>;
    type GetLatestChannelEntriesThatProvideStream = ListStream<api::ChannelEntry>;
    type ListBundlesStream = ReceiverStream<Result<api::Bundle, Status>>;

    async fn list_packages(
        &self,
        _: Request<api::ListPackageRequest>,
    ) -> Result<Response<Self::ListPackagesStream>, Status> {
        self.trace("ListPackages");
        let names = self.index.list_packages();
        Ok(Response::new(Self::list(
            names
                .into_iter()
                .map(|name| api::PackageName { name })
                .collect(),
        )))
    }

    async fn get_package(
        &self,
        request: Request<api::GetPackageRequest>,
    ) -> Result<Response<api::Package>, Status> {
        self.trace("GetPackage");
        let api::GetPackageRequest { name } = request.into_inner();
        self.index
            .get_package(&name)
            .map(Response::new)
            .map_err(status)
    }

    async fn get_bundle(
        &self,
        request: Request<api::GetBundleRequest>,
    ) -> Result<Response<api::Bundle>, Status> {
        self.trace("GetBundle");
        let api::GetBundleRequest {
            pkg_name,
            channel_name,
            csv_name,
        } = request.into_inner();
        self.ask(move |index| index.get_bundle(&pkg_name, &channel_name, &csv_name))
            .await
            .map(Response::new)
    }

    async fn get_bundle_for_channel(
        &self,
        request: Request<api::GetBundleInChannelRequest>,
    ) -> Result<Response<api::Bundle>, Status> {
        self.trace("GetBundleForChannel");
        let api::GetBundleInChannelRequest {
            pkg_name,
            channel_name,
        } = request.into_inner();
        self.ask(move |index| index.get_bundle_for_channel(&pkg_name, &channel_name))
            .await
            .map(Response::new)
    }

    async fn get_channel_entries_that_replace(
        &self,
        request: Request<api::GetAllReplacementsRequest>,
    ) -> Result<Response<Self::GetChannelEntriesThatReplaceStream>, Status> {
        self.trace("GetChannelEntriesThatReplace");
        let api::GetAllReplacementsRequest { csv_name } = request.into_inner();
        let entries = self
            .index
            .channel_entries_that_replace(&csv_name)
            .map_err(status)?;
        Ok(Response::new(Self::list(entries)))
    }

    async fn get_bundle_that_replaces(
        &self,
        request: Request<api::GetReplacementRequest>,
    ) -> Result<Response<api::Bundle>, Status> {
        self.trace("GetBundleThatReplaces");
        let api::GetReplacementRequest {
            csv_name,
            pkg_name,
            channel_name,
        } = request.into_inner();
        self.ask(move |index| index.bundle_that_replaces(&csv_name, &pkg_name, &channel_name))
            .await
            .map(Response::new)
    }

    async fn get_channel_entries_that_provide(
        &self,
        request: Request<api::GetAllProvidersRequest>,
    ) -> Result<Response<Self::GetChannelEntriesThatProvideStream>, Status> {
        self.trace("GetChannelEntriesThatProvide");
        // The plural is not compared, as upstream.
        let r = request.into_inner();
        let entries = self
            .index
            .channel_entries_that_provide(&r.group, &r.version, &r.kind)
            .map_err(status)?;
        Ok(Response::new(Self::list(entries)))
    }

    async fn get_latest_channel_entries_that_provide(
        &self,
        request: Request<api::GetLatestProvidersRequest>,
    ) -> Result<Response<Self::GetLatestChannelEntriesThatProvideStream>, Status> {
        self.trace("GetLatestChannelEntriesThatProvide");
        // The plural is not compared, as upstream.
        let r = request.into_inner();
        let entries = self
            .index
            .latest_channel_entries_that_provide(&r.group, &r.version, &r.kind)
            .map_err(status)?;
        Ok(Response::new(Self::list(entries)))
    }

    async fn get_default_bundle_that_provides(
        &self,
        request: Request<api::GetDefaultProviderRequest>,
    ) -> Result<Response<api::Bundle>, Status> {
        self.trace("GetDefaultBundleThatProvides");
        // The plural is not compared, as upstream.
        let r = request.into_inner();
        self.ask(move |index| index.default_bundle_that_provides(&r.group, &r.version, &r.kind))
            .await
            .map(Response::new)
    }

    async fn list_bundles(
        &self,
        _: Request<api::ListBundlesRequest>,
    ) -> Result<Response<Self::ListBundlesStream>, Status> {
        self.trace("ListBundles");
        Ok(Response::new(self.stream(|index, send| {
            for bundle in index.list_bundles() {
                let failed = bundle.is_err();
                if !send(bundle.map_err(status)) || failed {
                    break;
                }
            }
        })))
    }
}

#[tonic::async_trait]
impl ExperimentalRegistry for Service {
    type ExperimentalListPackageCustomSchemasStream =
        ReceiverStream<Result<prost_types::Struct, Status>>;

    async fn experimental_list_package_custom_schemas(
        &self,
        request: Request<api::ExperimentalListPackageCustomSchemasRequest>,
    ) -> Result<Response<Self::ExperimentalListPackageCustomSchemasStream>, Status> {
        self.trace("ExperimentalListPackageCustomSchemas");
        // Callers that did not acknowledge the experiment get an empty stream.
        let acknowledged = request
            .metadata()
            .get(ACKNOWLEDGE_EXPERIMENTAL)
            .and_then(|value| value.to_str().ok())
            == Some("true");
        let api::ExperimentalListPackageCustomSchemasRequest {
            schema,
            package_name,
        } = request.into_inner();
        if acknowledged && schema.is_empty() {
            return Err(Status::invalid_argument("schema is required"));
        }
        if acknowledged {
            // Check the names before the stream starts, to fail the call itself.
            if let Err(error) = self.index.custom_schemas(&schema, &package_name) {
                return Err(status(error));
            }
        }
        Ok(Response::new(self.stream(move |index, send| {
            if !acknowledged {
                return;
            }
            let Ok(blobs) = index.custom_schemas(&schema, &package_name) else {
                return;
            };
            for blob in blobs {
                let failed = blob.is_err();
                if !send(blob.map_err(status)) || failed {
                    break;
                }
            }
        })))
    }
}

/// Upstream's health service: SERVING, whatever the service name.
struct Healthy;

#[tonic::async_trait]
impl Health for Healthy {
    type WatchStream = ListStream<HealthCheckResponse>;

    async fn check(
        &self,
        _: Request<HealthCheckRequest>,
    ) -> Result<Response<HealthCheckResponse>, Status> {
        Ok(Response::new(HealthCheckResponse {
            status: ServingStatus::Serving.into(),
        }))
    }

    async fn watch(
        &self,
        _: Request<HealthCheckRequest>,
    ) -> Result<Response<Self::WatchStream>, Status> {
        Err(Status::unimplemented("method Watch not implemented"))
    }
}

/// Serves `index` on `listener` until SIGINT or SIGTERM, then lets calls in
/// flight finish. `log` takes the stop line, and a line per call when `debug`.
pub fn serve(
    index: Index,
    listener: std::net::TcpListener,
    log: fn(&str),
    debug: bool,
) -> Result<(), ServerError> {
    let runtime = tokio::runtime::Builder::new_multi_thread()
        .enable_all()
        .build()
        .map_err(ServerError::Runtime)?;
    runtime.block_on(async move {
        listener
            .set_nonblocking(true)
            .map_err(ServerError::Runtime)?;
        let listener = tokio::net::TcpListener::from_std(listener).map_err(ServerError::Runtime)?;
        let service = Service {
            index: Arc::new(index),
            log: debug.then_some(log),
        };
        let reflection = || {
            tonic_reflection::server::Builder::configure()
                .register_encoded_file_descriptor_set(api::FILE_DESCRIPTOR_SET)
                .register_encoded_file_descriptor_set(tonic_health::pb::FILE_DESCRIPTOR_SET)
        };
        let mut terminate =
            tokio::signal::unix::signal(tokio::signal::unix::SignalKind::terminate())
                .map_err(ServerError::Signal)?;
        let mut interrupt =
            tokio::signal::unix::signal(tokio::signal::unix::SignalKind::interrupt())
                .map_err(ServerError::Signal)?;
        let stop = async move {
            tokio::select! {
                _ = terminate.recv() => {}
                _ = interrupt.recv() => {}
            }
            log("shutting down server");
        };
        tonic::transport::Server::builder()
            .add_service(RegistryServer::new(service.clone()))
            .add_service(ExperimentalRegistryServer::new(service))
            .add_service(HealthServer::new(Healthy))
            .add_service(reflection().build_v1()?)
            .add_service(reflection().build_v1alpha()?)
            .serve_with_incoming_shutdown(
                tokio_stream::wrappers::TcpListenerStream::new(listener),
                stop,
            )
            .await?;
        Ok(())
    })
}
