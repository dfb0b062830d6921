package io.rpcc.server.internal;

import io.rpcc.core.ChainErrorCode;
import io.rpcc.core.ChainState;
import io.rpcc.core.ChainingFunction;
import io.rpcc.core.HopRejectedException;
import io.rpcc.core.Metadata;
import io.rpcc.core.NextHop;
import io.rpcc.core.ServiceFunction;
import io.rpcc.core.internal.chain.HopContext;
import io.rpcc.core.internal.function.FunctionRuntime;
import io.rpcc.core.internal.wire.HopFailure;
import io.rpcc.core.spi.InvocationAbandoned;
import io.rpcc.server.ServerInterceptor;
import java.util.List;
import java.util.Objects;

/**
 * A server's {@link ServerInterceptor}s around the parts of a hop: its service function, its
 * chaining function, and the metadata of the hop after it (or of the chain it hands back). The first interceptor is outermost; an
 * interceptor's {@link HopRejectedException} rejects the hop, any other exception of it fails the
 * hop with a failure naming it.
 */
final class HopInterceptors {
    private final String nodeName;
    private final List<ServerInterceptor> interceptors;

    /** {@code interceptors} at node {@code nodeName}. */
    HopInterceptors(String nodeName, List<ServerInterceptor> interceptors) {
        this.nodeName = nodeName;
        this.interceptors = List.copyOf(interceptors);
    }

    /** {@code sf} inside the interceptors. */
    ServiceFunction aroundService(HopContext context, String name, ServiceFunction sf) {
        ServiceFunction call = sf;
        for (ServerInterceptor interceptor : interceptors.reversed()) {
            ServiceFunction inner = call;
            call = params -> interceptor.interceptService(context, name, params, inner);
        }
        return call;
    }

    /**
     * Runs {@code cf} inside the interceptors. Failures of the chaining function itself pass as they
     * are; an interceptor's own exception becomes a failure naming it. If the sandbox abandoned the
     * function (the hop has failed already), the hop stops here even if an interceptor swallowed that.
     */
    NextHop aroundChaining(HopContext context, ChainState state, Object result, ChainingFunction cf) {
        if (interceptors.isEmpty()) {
            return call(cf, state, result);
        }
        InvocationAbandoned[] abandoned = new InvocationAbandoned[1];
        ChainingFunction call = (s, r) -> {
            try {
                return call(cf, s, r);
            } catch (InvocationAbandoned a) {
                abandoned[0] = a;
                throw a;
            }
        };
        for (ServerInterceptor interceptor : interceptors.reversed()) {
            ChainingFunction inner = call;
            call = (s, r) -> interceptor.interceptChaining(context, s, r, inner);
        }
        NextHop next;
        try {
            next = call.apply(state, result);
        } catch (HopFailure | InvocationAbandoned passed) {
            throw passed;
        } catch (HopRejectedException r) {
            throw rejected(r);
        } catch (Exception e) {
            throw failed("around the chaining function", e);
        }
        if (abandoned[0] != null) {
            throw abandoned[0];
        }
        if (next == null) {
            throw new HopFailure(ChainErrorCode.INTERNAL, "a server interceptor at '" + nodeName
                    + "' returned no next hop from interceptChaining");
        }
        return next;
    }

    /** The runtime's invocation of a chaining function throws only unchecked exceptions. */
    private static NextHop call(ChainingFunction cf, ChainState state, Object result) {
        try {
            return cf.apply(state, result);
        } catch (RuntimeException e) {
            throw e;
        } catch (Exception e) {
            throw new IllegalStateException(e); // unreachable: FunctionRuntime.invoke throws no checked exception
        }
    }

    /** The metadata for the hop after this one, as the interceptors make it. */
    Metadata forward(HopContext context, NextHop.Call call) {
        Metadata metadata = context.metadata();
        try (var scope = context.push()) {
            for (ServerInterceptor interceptor : interceptors) {
                metadata = Objects.requireNonNull(interceptor.interceptForward(context, call, metadata),
                        "interceptForward returned null metadata");
            }
        } catch (HopRejectedException r) {
            throw rejected(r);
        } catch (RuntimeException e) {
            throw failed("before forwarding to '" + call.server() + "'", e);
        }
        return metadata;
    }

    /** The metadata the chain resumed after {@code handBack} goes on with, as the interceptors make it. */
    Metadata handBack(HopContext context, ServerInterceptor.HandBack handBack) {
        Metadata metadata = context.metadata();
        if (interceptors.isEmpty()) {
            return metadata;
        }
        try (var scope = context.push()) {
            for (ServerInterceptor interceptor : interceptors) {
                metadata = Objects.requireNonNull(interceptor.interceptHandBack(context, handBack, metadata),
                        "interceptHandBack returned null metadata");
            }
        } catch (HopRejectedException r) {
            throw rejected(r);
        } catch (RuntimeException e) {
            throw failed("before handing the chain back (" + handBack + ")", e);
        }
        return metadata;
    }

    /** The failure of a hop that {@code r} rejected. */
    static HopFailure rejected(HopRejectedException r) {
        return new HopFailure(ChainErrorCode.HOP_REJECTED, r.remoteMessage(), r);
    }

    private HopFailure failed(String where, Exception e) {
        return new HopFailure(ChainErrorCode.INTERNAL, e.getClass().getName(), "a server interceptor at '" + nodeName
                + "' failed " + where + ": " + e, FunctionRuntime.stackTrace(e), e);
    }
}
