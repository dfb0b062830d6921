package io.rpcc.server;

import io.rpcc.core.ChainContext;
import io.rpcc.core.ChainState;
import io.rpcc.core.ChainingFunction;
import io.rpcc.core.HopRejectedException;
import io.rpcc.core.Metadata;
import io.rpcc.core.NextHop;
import io.rpcc.core.ServiceFunction;
import io.rpcc.core.UnstableApi;
import org.jspecify.annotations.Nullable;

/**
 * Code that a server runs around every hop, for what concerns all service functions alike:
 * authentication, auditing, metrics, trace context. Registered with
 * {@code RpccServer.builder(name).interceptor(...)}; modelled on gRPC's {@code ServerInterceptor}
 * and Armeria's decorators. Each method has a default that does nothing but go on, so an
 * interceptor overrides only what it needs.
 *
 * <pre>{@code
 * RpccServer.builder("inventory")
 *     .interceptor(new ServerInterceptor() {
 *         public Object interceptService(ChainContext ctx, String serviceFunction, Object params,
 *                                        ServiceFunction next) throws Exception {
 *             if (!tokens.isValid(ctx.metadata().get("authorization"))) {
 *                 throw new HopRejectedException("no valid credential");
 *             }
 *             return next.apply(params);
 *         }
 *     })
 * }</pre>
 *
 * <p>For each hop a server runs {@link #interceptService} around the service function, then
 * {@link #interceptChaining} around the chaining function, then, if the chain goes on to another
 * hop, {@link #interceptForward} just before it leaves (or {@link #interceptHandBack} before a
 * sub-chain's result goes back to its creator, or a split's opening to its merge host). Interceptors run in the order they were
 * registered, the first one outermost; {@link ChainContext#current()} is the hop's context in all
 * three. A hop that is not forwarded (its chain ends here, or a chaining proxy runs its chaining
 * function) has no forward step; at a chaining proxy, the proxy's interceptors run around the
 * chaining function and the forward.
 *
 * <p>Throwing {@link HopRejectedException} from any method ends the chain with that exception at the
 * originator, naming this hop and host. Any other exception from {@link #interceptService} ends it
 * like a failing service function ({@code ServiceFunctionException}); from the other two methods,
 * with a {@code ChainException} naming the exception. Interceptors run on the hop's thread (never an
 * event loop) and must be thread-safe.
 *
 * <p>An interceptor is not told how the hop ended (the chain may fail after its stages, or go on
 * asynchronously); a {@link HopDecorator} is, once, with the hop's {@link HopOutcome}: use one for
 * metrics, tracing and audit of whole hops.
 */
@UnstableApi
public interface ServerInterceptor {

    /**
     * Runs around the service function: call {@code next.apply(params)} to go on (to the next
     * interceptor, then the function), or return a result without calling it, or throw.
     *
     * @param context the hop's context, with the chain's metadata
     * @param serviceFunction the name of the service function the hop calls
     * @param params its parameters
     * @param next the rest of the interceptors and the service function
     * @return the service function's result, as the chaining function will see it
     * @throws Exception ends the chain (see the class description)
     */
    default @Nullable Object interceptService(ChainContext context, String serviceFunction, @Nullable Object params,
                                              ServiceFunction next)
            throws Exception {
        return next.apply(params);
    }

    /**
     * Runs around the chaining function: call {@code next.apply(state, result)} to go on, or return
     * a {@link NextHop} without calling it, or throw.
     *
     * @param context the hop's context, with the chain's metadata
     * @param state the chain state the chaining function receives
     * @param result the service function's result
     * @param next the rest of the interceptors and the chaining function
     * @return where the chain goes next
     * @throws Exception ends the chain (see the class description)
     */
    default NextHop interceptChaining(ChainContext context, ChainState state, @Nullable Object result,
                                      ChainingFunction next)
            throws Exception {
        return next.apply(state, result);
    }

    /**
     * Runs just before the chain leaves for its next hop, and gives the metadata that hop receives:
     * the place to add, replace or remove entries for the rest of the chain (e.g. a trace span, or
     * dropping a credential before a hop outside the trust domain). Return {@code metadata}
     * unchanged to go on as is; throw {@link HopRejectedException} to stop the chain here.
     *
     * @param context the hop's context, whose {@link ChainContext#metadata()} is what this hop received
     * @param next the next hop the chaining function chose
     * @param metadata the metadata so far (as the previous interceptor returned it)
     * @return the metadata for the next hop
     */
    default Metadata interceptForward(ChainContext context, NextHop.Call next, Metadata metadata) {
        return metadata;
    }

    /**
     * Runs just before this hop hands its chain back to be resumed rather than on to a next hop, and
     * gives the metadata the resumed chain goes on with: the place to say where it was resumed from
     * (e.g. a trace span, so that what runs next is that span's child). Return {@code metadata}
     * unchanged to go on as is; throw {@link HopRejectedException} to stop the chain here (as from
     * {@link #interceptForward}).
     *
     * <ul>
     * <li>{@link HandBack#SUB_CHAIN_RESULT}: this hop ended a sub-chain; its result goes back to the
     *     hop that started the sub-chain, whose chaining function goes on from it (there, or here for
     *     a composed sub-chain) with this metadata, as do the hops after it.</li>
     * <li>{@link HandBack#SPLIT_OPENING}: this hop split the chain; the split's merge, once every
     *     branch has ended, runs at the merge host with this metadata, as do the hops after it (each
     *     branch's first hop gets its metadata from {@link #interceptForward}).</li>
     * </ul>
     *
     * <p>A sub-chain's failure going back to its creator, and a branch's outcome going to its merge
     * host, carry the metadata this hop received, without this step.
     *
     * @param context the hop's context, whose {@link ChainContext#metadata()} is what this hop received
     * @param handBack what the chain is handed back as
     * @param metadata the metadata so far (as the previous interceptor returned it)
     * @return the metadata the resumed chain goes on with
     */
    default Metadata interceptHandBack(ChainContext context, HandBack handBack, Metadata metadata) {
        return metadata;
    }

    /** How a hop hands its chain back to be resumed ({@link #interceptHandBack}). */
    enum HandBack {
        /** A sub-chain ended at this hop: its result goes back to the hop that started it. */
        SUB_CHAIN_RESULT,
        /** This hop split the chain: the split's opening goes to its merge host, where the merge runs. */
        SPLIT_OPENING
    }
}
