//! The gRPC services over the index: `api.Registry`, `api.ExperimentalRegistry`,
//! `grpc.health.v1.Health` (SERVING for every service name, as upstream) and
//! server reflection (v1 and v1alpha); listening, and a prompt stop on SIGINT
//! or SIGTERM: calls in flight get a short grace period to finish, then
//! streams still running end with UNAVAILABLE and the process exits.
//!
//! Answers are made off the async threads, by at most one blocking task per
//! core at a time whatever the number of calls, and a stream prepares only a
//! couple of messages ahead of its client: memory does not grow with the
//! number of clients beyond those few messages each.

use super::api::experimental_registry_server::{ExperimentalRegistry, ExperimentalRegistryServer};
use super::api::registry_server::{Registry, RegistryServer};
use super::api::{self};
use super::index::Index;
use super::query::{Listed, QueryError};
use std::future::Future;
use std::pin::Pin;
use std::sync::Arc;
use std::task::{Context, Poll};
use std::time::Duration;
use tokio::sync::{watch, Semaphore};
use tokio_stream::wrappers::ReceiverStream;
use tokio_stream::Stream;
use tonic::{Request, Response, Status};
use tonic_health::pb::health_check_response::ServingStatus;
use tonic_health::pb::health_server::{Health, HealthServer};
use tonic_health::pb::{HealthCheckRequest, HealthCheckResponse};

/// The metadata key a caller sets to `true` to get answers from the
/// experimental service (upstream: `x-acknowledge-experimental`).
pub const ACKNOWLEDGE_EXPERIMENTAL: &str = "x-acknowledge-experimental";

/// How many streamed messages are prepared ahead of a slow client.
const STREAM_AHEAD: usize = 2;

/// How long calls in flight may run on after SIGINT or SIGTERM.
const GRACE: Duration = Duration::from_millis(300);

/// How long streams cut short at the end of [`GRACE`] get to send their
/// UNAVAILABLE status; connections still busy after it are dropped.
const CANCEL: Duration = Duration::from_millis(200);

/// What a stream still running when the grace period ends is told.
const STOPPING: &str = "the server is shutting down";

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
    /// One permit per core: held while an answer is made.
    makers: Arc<Semaphore>,
    /// Turns true when calls in flight are to be cut short.
    stopping: watch::Receiver<bool>,
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

    /// Runs a question off the async threads (it reads files), once a core
    /// is free for it.
    async fn ask<T: Send + 'static>(
        &self,
        question: impl FnOnce(&Index) -> Result<T, QueryError> + Send + 'static,
    ) -> Result<T, Status> {
        let permit = Arc::clone(&self.makers)
            .acquire_owned()
            .await
            .map_err(|e| Status::internal(e.to_string()))?;
        let index = Arc::clone(&self.index);
        tokio::task::spawn_blocking(move || {
            let answer = question(&index);
            drop(permit);
            answer
        })
        .await
        .map_err(|e| Status::internal(e.to_string()))?
        .map_err(status)
    }

    /// Streams what `next` makes from `state` (which it advances) until it
    /// returns `None` or an error; stops when the client goes away. Messages
    /// are made on a blocking thread once a core is free, at most
    /// [`STREAM_AHEAD`] ahead of the client (and one more waiting for room):
    /// a thread keeps making them while the stream has room, up to [`BATCH`].
    fn stream<T, S>(
        &self,
        state: S,
        next: fn(&Index, &mut S) -> Option<Result<T, QueryError>>,
    ) -> Stoppable<ReceiverStream<Result<T, Status>>>
    where
        T: Send + 'static,
        S: Send + 'static,
    {
        let (sender, receiver) = tokio::sync::mpsc::channel(STREAM_AHEAD);
        let (index, makers) = (Arc::clone(&self.index), Arc::clone(&self.makers));
        tokio::spawn(async move {
            let mut state = Some(state);
            let mut waiting = None;
            loop {
                if let Some(item) = waiting.take() {
                    if sender.send(item).await.is_err() {
                        return;
                    }
                }
                let Some(mut current) = state.take() else {
                    return;
                };
                let Ok(permit) = Arc::clone(&makers).acquire_owned().await else {
                    return;
                };
                let (index, room) = (Arc::clone(&index), sender.clone());
                let made = tokio::task::spawn_blocking(move || {
                    let made = make(&index, &mut current, next, &room);
                    drop(permit);
                    (made, current)
                })
                .await;
                (waiting, state) = match made {
                    Ok((Made::Room, current)) => (None, Some(current)),
                    Ok((Made::Waiting(item), current)) => (Some(item), Some(current)),
                    Ok((Made::Last(item), _)) => (item, None),
                    Err(error) => (Some(Err(Status::internal(error.to_string()))), None),
                };
            }
        });
        self.stoppable(ReceiverStream::new(receiver))
    }

    /// A finished list as a stream.
    fn list<T: Send + 'static>(&self, items: Vec<T>) -> Stoppable<ListStream<T>> {
        self.stoppable(tokio_stream::iter(
            items.into_iter().map(Ok).collect::<Vec<_>>(),
        ))
    }

    fn stoppable<S>(&self, inner: S) -> Stoppable<S> {
        let mut stopping = self.stopping.clone();
        Stoppable {
            inner,
            stopped: Box::pin(async move {
                // The sender goes when the server does: then too.
                let _ = stopping.wait_for(|stop| *stop).await;
            }),
            done: false,
        }
    }
}

/// How many messages one turn of a stream's blocking thread makes at most,
/// while its stream has room for them (other streams wait for the core).
const BATCH: usize = 16;

/// Where a turn of [`make`] stopped.
enum Made<T> {
    /// After [`BATCH`] messages, all sent: more to make.
    Room,
    /// A message made with no room for it: to send, then more to make.
    Waiting(Result<T, Status>),
    /// The end (or an error, or a client gone): what is left to send.
    Last(Option<Result<T, Status>>),
}

/// Makes messages from `state` and sends them while `room` has room for
/// them, up to [`BATCH`].
fn make<T, S>(
    index: &Index,
    state: &mut S,
    next: fn(&Index, &mut S) -> Option<Result<T, QueryError>>,
    room: &tokio::sync::mpsc::Sender<Result<T, Status>>,
) -> Made<T> {
    use tokio::sync::mpsc::error::TrySendError;
    for _ in 0..BATCH {
        let Some(item) = next(index, state) else {
            return Made::Last(None);
        };
        let failed = item.is_err();
        match room.try_send(item.map_err(status)) {
            Ok(()) if failed => return Made::Last(None),
            Ok(()) => {}
            Err(TrySendError::Full(item)) if failed => return Made::Last(Some(item)),
            Err(TrySendError::Full(item)) => return Made::Waiting(item),
            Err(TrySendError::Closed(_)) => return Made::Last(None),
        }
    }
    Made::Room
}

/// A response stream that ends with UNAVAILABLE, whatever it has left to
/// send, once calls in flight are cut short.
struct Stoppable<S> {
    inner: S,
    stopped: Pin<Box<dyn Future<Output = ()> + Send>>,
    done: bool,
}

impl<S, T> Stream for Stoppable<S>
where
    S: Stream<Item = Result<T, Status>> + Unpin,
{
    type Item = Result<T, Status>;

    fn poll_next(self: Pin<&mut Self>, cx: &mut Context<'_>) -> Poll<Option<Self::Item>> {
        let this = self.get_mut();
        if this.done {
            return Poll::Ready(None);
        }
        if this.stopped.as_mut().poll(cx).is_ready() {
            this.done = true;
            return Poll::Ready(Some(Err(Status::unavailable(STOPPING))));
        }
        let next = Pin::new(&mut this.inner).poll_next(cx);
        if let Poll::Ready(None) = next {
            this.done = true;
        }
        next
    }
}

type ListStream<T> = tokio_stream::Iter<std::vec::IntoIter<Result<T, Status>>>;

#[tonic::async_trait]
impl Registry for Service {
    type ListPackagesStream = Stoppable<ListStream<api::PackageName>>;
    type GetChannelEntriesThatReplaceStream = Stoppable<ListStream<api::ChannelEntry>>;
    type GetChannelEntriesThatProvideStream = Stoppable<ListStream<api::ChannelEntry>>;
    type GetLatestChannelEntriesThatProvideStream = Stoppable<ListStream<api::ChannelEntry>>;
    type ListBundlesStream = Stoppable<ReceiverStream<Result<api::Bundle, Status>>>;

    async fn list_packages(
        &self,
        _: Request<api::ListPackageRequest>,
    ) -> Result<Response<Self::ListPackagesStream>, Status> {
        self.trace("ListPackages");
        let names = self.index.list_packages();
        Ok(Response::new(
            self.list(
                names
                    .into_iter()
                    .map(|name| api::PackageName { name })
                    .collect(),
            ),
        ))
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
        Ok(Response::new(self.list(entries)))
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
        Ok(Response::new(self.list(entries)))
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
        Ok(Response::new(self.list(entries)))
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
        Ok(Response::new(self.stream(
            None::<Listed>,
            |index, after| {
                let listed = index.next_listed(after.as_ref())?;
                let bundle = index.listed_bundle(&listed);
                *after = Some(listed);
                Some(bundle)
            },
        )))
    }
}

#[tonic::async_trait]
impl ExperimentalRegistry for Service {
    type ExperimentalListPackageCustomSchemasStream =
        Stoppable<ReceiverStream<Result<prost_types::Struct, Status>>>;

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
            Index::check_custom_schema_query(&schema, &package_name).map_err(status)?;
        }
        Ok(Response::new(self.stream(
            (
                schema,
                package_name,
                if acknowledged { 0 } else { usize::MAX },
            ),
            |index, (schema, package, position)| {
                index.next_custom_schema(schema, package, position)
            },
        )))
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

/// Serves `index` on `listener` until SIGINT or SIGTERM; then stops
/// accepting calls, lets calls in flight run for [`GRACE`], ends streams
/// still running with UNAVAILABLE, and returns within about half a second
/// (connections whose clients do not read are dropped). `log` takes the stop
/// line, and a line per call when `debug`.
pub fn serve(
    index: Index,
    listener: std::net::TcpListener,
    log: fn(&str),
    debug: bool,
) -> Result<(), ServerError> {
    let cores = std::thread::available_parallelism().map_or(1, std::num::NonZeroUsize::get);
    // Every blocking task holds one of `cores` permits: no more threads are needed (and
    // each thread that allocates has memory of its own to grow).
    let runtime = tokio::runtime::Builder::new_multi_thread()
        .max_blocking_threads(cores)
        .enable_all()
        .build()
        .map_err(ServerError::Runtime)?;
    let served = runtime.block_on(async move {
        listener
            .set_nonblocking(true)
            .map_err(ServerError::Runtime)?;
        let listener = tokio::net::TcpListener::from_std(listener).map_err(ServerError::Runtime)?;
        let (stop_streams, stopping) = watch::channel(false);
        let service = Service {
            index: Arc::new(index),
            log: debug.then_some(log),
            makers: Arc::new(Semaphore::new(cores)),
            stopping,
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
        let (stop_accepting, stopped) = tokio::sync::oneshot::channel::<()>();
        let server = tonic::transport::Server::builder()
            .add_service(RegistryServer::new(service.clone()))
            .add_service(ExperimentalRegistryServer::new(service))
            .add_service(HealthServer::new(Healthy))
            .add_service(reflection().build_v1()?)
            .add_service(reflection().build_v1alpha()?)
            .serve_with_incoming_shutdown(
                tokio_stream::wrappers::TcpListenerStream::new(listener),
                async {
                    let _ = stopped.await;
                },
            );
        tokio::pin!(server);
        tokio::select! {
            served = &mut server => return served.map_err(ServerError::from),
            _ = terminate.recv() => {}
            _ = interrupt.recv() => {}
        }
        log("shutting down server");
        // No new connection or call; the server ends once the calls in flight have.
        let _ = stop_accepting.send(());
        if let Ok(served) = tokio::time::timeout(GRACE, &mut server).await {
            return served.map_err(ServerError::from);
        }
        let _ = stop_streams.send(true);
        match tokio::time::timeout(CANCEL, &mut server).await {
            Ok(served) => served.map_err(ServerError::from),
            // Clients that do not read: their connections go with the runtime.
            Err(_) => Ok(()),
        }
    });
    // Connection tasks still running are dropped here (a blocking task making
    // a message finishes it, then finds its stream gone).
    runtime.shutdown_timeout(Duration::from_millis(100));
    served
}
