import Hummingbird
import Tracing

/// Hummingbird's `TracingMiddleware` for the requests that arrive while the process has an
/// instrument (a tracer, or a propagator alone); the others go straight on. Without one its
/// spans are no-ops and no context is carried on, yet it builds a span's attributes and wraps
/// each response body: a few per cent of a payment's CPU for nothing (docs/decisions.md). Decided
/// per request, so an instrument bootstrapped after the routes were built is still used.
struct TracingWhenInstrumented<Context: RequestContext>: RouterMiddleware {
    let tracing = TracingMiddleware<Context>()

    func handle(
        _ request: Request,
        context: Context,
        next: (Request, Context) async throws -> Response
    ) async throws -> Response {
        if InstrumentationSystem.instrument is NoOpInstrument { return try await next(request, context) }
        return try await tracing.handle(request, context: context, next: next)
    }
}
