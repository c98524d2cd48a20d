//! The two gRPC services behind one listener, routed by path (`/cuzk.v1.ProvingEngine/…`,
//! `/cuzk.console.v1.Watch/…`): tonic's own router needs axum, which nothing else here does.

use std::convert::Infallible;
use std::task::{Context, Poll};

use tonic::body::Body;
use tonic::codegen::http::{Request, Response};
use tonic::codegen::{BoxFuture, Service};
use tonic::server::NamedService;

/// Routes each request to the service its path names; any other path is gRPC `UNIMPLEMENTED`.
#[derive(Clone)]
pub struct Routes<A, B> {
    /// Curio's service.
    pub a: A,
    /// cuzk's watch service.
    pub b: B,
}

fn prefix<S: NamedService>() -> String {
    format!("/{}/", S::NAME)
}

impl<A, B> Service<Request<Body>> for Routes<A, B>
where
    A: Service<Request<Body>, Response = Response<Body>, Error = Infallible>
        + NamedService
        + Clone
        + Send
        + 'static,
    A::Future: Send + 'static,
    B: Service<Request<Body>, Response = Response<Body>, Error = Infallible>
        + NamedService
        + Clone
        + Send
        + 'static,
    B::Future: Send + 'static,
{
    type Response = Response<Body>;
    type Error = Infallible;
    type Future = BoxFuture<Response<Body>, Infallible>;

    fn poll_ready(&mut self, _cx: &mut Context<'_>) -> Poll<Result<(), Infallible>> {
        // Both generated servers are always ready.
        Poll::Ready(Ok(()))
    }

    fn call(&mut self, req: Request<Body>) -> Self::Future {
        let path = req.uri().path();
        if path.starts_with(&prefix::<A>()) {
            let mut a = self.a.clone();
            return Box::pin(async move { a.call(req).await });
        }
        if path.starts_with(&prefix::<B>()) {
            let mut b = self.b.clone();
            return Box::pin(async move { b.call(req).await });
        }
        Box::pin(async move { Ok(tonic::Status::unimplemented("no such gRPC service here").into_http()) })
    }
}
