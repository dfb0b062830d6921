package io.rpcc.legacy.internal;

import com.google.common.util.concurrent.ListenableFuture;
import io.grpc.CallOptions;
import io.grpc.Channel;
import io.grpc.ClientInterceptors;
import io.grpc.Deadline;
import io.grpc.Metadata;
import io.grpc.MethodDescriptor;
import io.grpc.Status;
import io.grpc.stub.ClientCalls;
import io.grpc.stub.MetadataUtils;
import io.rpcc.core.ChainContext;
import io.rpcc.core.ServiceFunction;
import io.rpcc.legacy.LegacyCallException;
import java.time.Duration;
import java.util.Map;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.TimeUnit;
import java.util.function.Function;
import org.jspecify.annotations.Nullable;

/**
 * One unary gRPC method as a service function: the chain's params become the request (as they
 * are, or through an adapter), the response the result. The call is started with
 * {@link ClientCalls#futureUnaryCall}; the hop's thread (a virtual thread by default) waits for its
 * future, because a service function returns its result, it cannot complete the hop later. The call
 * carries the {@link io.rpcc.legacy.LegacyIdentity} headers and the chain's deadline (capped by a timeout, if one
 * is set); a cancelled chain interrupts the wait, which cancels the call.
 *
 * @param <Q> the request message
 * @param <R> the response message
 */
public final class GrpcMethodFunction<Q, R> implements ServiceFunction {
    private final String name;
    private final MethodDescriptor<Q, R> method;
    private final Channel channel;
    private final CallPolicy policy;
    private final Function<@Nullable Object, Q> toRequest;
    private final Function<R, @Nullable Object> fromResponse;

    /**
     * The service function {@code name} calling {@code method} over {@code channel}.
     *
     * @param policy the identity headers and the time a call may take
     * @param toRequest the request for the chain's params, or {@code null}: the params must be the
     *     method's request message
     * @param fromResponse the result for a response, or {@code null}: the response itself
     */
    public GrpcMethodFunction(String name, MethodDescriptor<Q, R> method, Channel channel, CallPolicy policy,
                              @Nullable Function<@Nullable Object, Q> toRequest,
                              @Nullable Function<R, @Nullable Object> fromResponse) {
        this.name = name;
        this.method = method;
        this.channel = channel;
        this.policy = policy;
        this.toRequest = toRequest != null ? toRequest : this::asRequest;
        this.fromResponse = fromResponse != null ? fromResponse : r -> r;
    }

    @SuppressWarnings("unchecked")
    private Q asRequest(@Nullable Object params) {
        Class<?> type = method.getRequestMarshaller() instanceof MethodDescriptor.ReflectableMarshaller<?> r
                ? r.getMessageClass() : null;
        if (params == null || (type != null && !type.isInstance(params))) {
            throw new IllegalArgumentException("service function '" + name + "' (legacy gRPC method "
                    + method.getFullMethodName() + ") takes a " + (type == null ? "request message" : type.getName())
                    + " as params, got " + (params == null ? "null" : "a " + params.getClass().getName())
                    + ": send the method's request message, or adapt the params where the method is wrapped"
                    + " (LegacyGrpc.Builder.adapt)");
        }
        return (Q) params;
    }

    @Override
    public @Nullable Object apply(@Nullable Object params) throws LegacyCallException {
        ChainContext ctx = ChainContext.current();
        Q request = toRequest.apply(params);
        Metadata headers = new Metadata();
        for (Map.Entry<String, String> h : policy.headers(ctx).entrySet()) {
            headers.put(Metadata.Key.of(h.getKey(), Metadata.ASCII_STRING_MARSHALLER), h.getValue());
        }
        CallOptions options = CallOptions.DEFAULT;
        Duration budget = policy.budget(ctx);
        if (budget != null) {
            options = options.withDeadline(Deadline.after(Math.max(0, budget.toNanos()), TimeUnit.NANOSECONDS));
        }
        Channel withHeaders = ClientInterceptors.intercept(channel, MetadataUtils.newAttachHeadersInterceptor(headers));
        ListenableFuture<R> call = ClientCalls.futureUnaryCall(withHeaders.newCall(method, options), request);
        R response;
        try {
            response = call.get();
        } catch (InterruptedException e) {
            call.cancel(true);
            Thread.currentThread().interrupt();
            throw failure(ctx, "CANCELLED", "the chain was cancelled while the call was in flight; the call was cancelled", e);
        } catch (ExecutionException e) {
            Status s = Status.fromThrowable(e.getCause());
            throw failure(ctx, s.getCode().name(), describe(s), e.getCause());
        }
        return fromResponse.apply(response);
    }

    private String describe(Status s) {
        String said = s.getDescription() == null ? "" : s.getDescription();
        return switch (s.getCode()) {
            case UNAVAILABLE -> said + (said.isEmpty() ? "" : "; ") + "the legacy server (" + channel.authority()
                    + ") is down or unreachable from this node: check that it runs and that the channel names it";
            case DEADLINE_EXCEEDED -> said + (said.isEmpty() ? "" : "; ") + policy.whatRanOut()
                    + " passed during the call";
            case RESOURCE_EXHAUSTED -> said.contains("exceeds maximum size") ? said + "; the response is larger"
                    + " than the channel lets in, and gRPC refused it as it arrived: if the service's responses are"
                    + " that large, build the channel with a larger maxInboundMessageSize (grpc-java's default is"
                    + " 4 MiB); else ask the service for less" : said;
            default -> said;
        };
    }

    private LegacyCallException failure(ChainContext ctx, String status, String detail, @Nullable Throwable cause) {
        return new LegacyCallException("gRPC", method.getFullMethodName(), status, detail, name, ctx.node(), ctx.hop(),
                cause);
    }
}
