package io.rpcc.core.internal.chain;

import io.netty.channel.Channel;
import io.rpcc.core.ChainErrorCode;
import io.rpcc.core.ChainFailure;
import io.rpcc.core.HopPath;
import io.rpcc.core.Refusal;
import io.rpcc.core.internal.transport.NodeTransport;
import io.rpcc.core.internal.transport.RateLimitedWarnings;
import io.rpcc.core.internal.wire.ChainErrorFrame;
import io.rpcc.core.internal.wire.ChainHeader;
import io.rpcc.core.internal.wire.ChainRequest;
import io.rpcc.core.internal.wire.HopFailure;
import io.rpcc.core.internal.wire.NodeAddress;
import java.util.List;
import java.util.concurrent.Executor;
import java.util.concurrent.TimeUnit;
import java.util.function.BooleanSupplier;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Whether a node takes a hop REQUEST that arrived: refused while the node does not run (it drains or
 * closed: {@link ChainErrorCode#NODE_SHUTTING_DOWN}), and refused if it names an address this node
 * would have to connect to that nothing vouches for ({@link OutboundVouching}): then, before its hop
 * runs, a {@link ChainErrorCode#HOP_REJECTED} error goes back on the connection the REQUEST arrived
 * on (never to the address it names), counted as {@link Refusal#UNVOUCHED_ADDRESS} and warned about
 * at most once per remote address every 10 s, and held against the connection's allowance of bad
 * frames (a peer that keeps naming such addresses is cut off). An admitted REQUEST then has its caller checked
 * ({@link ChainCallers}: at a TLS node, the originator's credential), refused with
 * {@link ChainErrorCode#PERMISSION_DENIED} if it cannot prove its originator, and its budget cut back
 * to what the deadline its originator signed leaves. A REQUEST whose
 * vouching needs the resolver is checked on the node's executor (a resolver may block), a bounded
 * number of a connection at once and in turn ({@link ConnectionVouching}, which also remembers what a
 * connection's checks vouched for); the others on the event loop.
 */
final class RequestAdmission {
    private static final Logger log = LoggerFactory.getLogger(RequestAdmission.class);

    private final String nodeName;
    private final BooleanSupplier running;
    private final Executor executor;
    private final OutboundVouching vouching;
    private final NodeTransport transport;
    private final ChainCallers callers;
    private final RateLimitedWarnings warnings = new RateLimitedWarnings(log, TimeUnit.SECONDS.toNanos(10));

    /**
     * The admission of node {@code nodeName}, which takes hops while {@code running} says so, checks
     * and refuses on {@code executor}, vouches with {@code vouching} and answers on {@code transport}.
     */
    RequestAdmission(String nodeName, BooleanSupplier running, Executor executor, OutboundVouching vouching,
                     NodeTransport transport) {
        this.nodeName = nodeName;
        this.running = running;
        this.executor = executor;
        this.vouching = vouching;
        this.transport = transport;
        this.callers = new ChainCallers(nodeName, transport, transport.credentials());
    }

    /** Hands {@code request}, which arrived on {@code from} ({@code null}: made here), to {@code requests}, or refuses it. */
    void admit(ChainRequest request, Channel from, RequestHandler requests) {
        // counted from its first bytes: reading the rest and decoding it took some of its budget
        long arrivedNanos = request.arrivedNanos() != 0 ? request.arrivedNanos() : System.nanoTime();
        ChainHeader h = request.header();
        if (vouching.vouchedAtOnce(h, from)) {
            take(request, arrivedNanos, from, requests);
            return;
        }
        ConnectionVouching connection = ConnectionVouching.of(from);
        if (connection.vouchedBefore(h)) {
            take(request, arrivedNanos, from, requests);
            return;
        }
        Runnable check = () -> {
            try {
                if (!from.isActive() || transport.refusals().cutOff(from)) {
                    dropStream(request, "its connection was closed or cut off before the hop was admitted");
                    return; // closed or cut off while it waited: no one to take it from or tell
                }
                if (connection.vouchedBefore(h)) { // vouched for while it waited
                    take(request, arrivedNanos, from, requests);
                    return;
                }
                NodeAddress unvouched = vouching.unvouched(h, from);
                if (unvouched == null) {
                    connection.vouchedFor(h);
                    take(request, arrivedNanos, from, requests);
                } else {
                    dropStream(request, "the hop was refused: it names an address nothing vouches for");
                    refuse(h, from, unvouched);
                }
            } finally {
                connection.finished(executor::execute);
            }
        };
        if (!connection.submit(check, executor::execute)) {
            // more than a connection may have waiting for look-ups: unvouched at once
            dropStream(request, "the hop was refused: it names an address nothing vouches for");
            refuse(h, from, vouching.firstUnvouchedAtOnce(h, from));
        }
    }

    private void take(ChainRequest request, long arrivedNanos, Channel from, RequestHandler requests) {
        if (!running.getAsBoolean()) {
            dropStream(request, "the hop was refused: the node is shutting down");
            ChainHeader h = request.header();
            executor.execute(() -> requests.refuse(h, new HopFailure(ChainErrorCode.NODE_SHUTTING_DOWN, "node '" + nodeName
                    + "' is shutting down and starts no new hops; '" + h.serviceFunction() + "' did not run: retry"
                    + " at another server or once it is back")));
            return;
        }
        ChainRequest checked;
        try {
            checked = callers.checked(request, from, arrivedNanos);
        } catch (HopFailure denied) {
            dropStream(request, "the hop was refused: " + denied.getMessage());
            executor.execute(() -> requests.refuse(request.header(), denied));
            return;
        }
        requests.onRequest(checked, arrivedNanos, transport.peerOf(from));
    }

    /**
     * Drops the data stream of {@code request}, refused before its hop ran, at once: what it buffered
     * is freed, its sender is told to stop, and what it still sends is dropped unbuffered.
     */
    static void dropStream(ChainRequest request, String why) {
        if (request.stream() != null) {
            request.stream().discard(why);
        }
    }

    private void refuse(ChainHeader h, Channel from, NodeAddress unvouched) {
        transport.refusals().countFrame(Refusal.UNVOUCHED_ADDRESS, from);
        if (!from.isActive()) {
            return; // cut off (by this refusal or before it, with requests of its last read still coming): no one to tell
        }
        String message = "node '" + nodeName + "' refused hop " + h.hop() + " ('" + h.serviceFunction() + "') before it"
                + " ran: the request names node '" + unvouched.node() + "' at " + unvouched.host() + ":" + unvouched.port()
                + " to send to, which nothing vouches for (not known to this node's name resolver, not the address the"
                + " request came from " + from.remoteAddress() + ", not sent by a known or authenticated node);"
                + " register that node in the name resolver, advertise the address you connect from, use mutual TLS,"
                + " or set outboundPolicy ANY on a trusted network";
        warnings.warn(from.remoteAddress(), "{} (refused: {})", message, Refusal.UNVOUCHED_ADDRESS);
        HopFailure why = new HopFailure(ChainErrorCode.HOP_REJECTED, message);
        List<String> path = HopPath.through(h.path(), nodeName);
        ChainFailure failure = new ChainFailure(why.exceptionName(), message, nodeName, h.hop(), path, List.of(),
                List.of(), List.of());
        transport.send(from, new ChainErrorFrame(h.chainId(), h.attemptSecret(), ChainErrorCode.HOP_REJECTED, failure,
                h.credit()));
    }
}
