package io.rpcc.core.internal.chain;

import io.rpcc.core.ChainContext;
import io.rpcc.core.ChainErrorCode;
import io.rpcc.core.ChainMdc;
import io.rpcc.core.internal.transport.RateLimitedWarnings;
import io.rpcc.core.internal.wire.ChainHeader;
import io.rpcc.core.internal.wire.HopFailure;
import io.rpcc.core.spi.EngineSpi;
import java.net.InetSocketAddress;
import java.util.concurrent.TimeUnit;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The one place where a node logs what went wrong with the chains it runs, to the SLF4J logger
 * {@value #LOGGER}: each hop failure once, at WARN, by the node where it happened (the originator
 * logs nothing: it hands the exception to the caller); a hop's lost partial replies once per hop;
 * reply-to nodes that cannot be reached at most once per address per 10 s. Malformed frames and
 * other refused input are logged, rate-limited, by the transport that refuses them. A hop's lines
 * carry its chain in the MDC ({@link ChainMdc}), on whatever thread they are written.
 */
@EngineSpi
public final class FailureLog {
    /** The logger's name, stable across rpcc's packages, for log configurations. */
    public static final String LOGGER = "io.rpcc.failures";

    private static final Logger log = LoggerFactory.getLogger(LOGGER);

    private final String node;
    private final RateLimitedWarnings unreachable = new RateLimitedWarnings(log, TimeUnit.SECONDS.toNanos(10));

    /** The failure log of node {@code node}. */
    public FailureLog(String node) {
        this.node = node;
    }

    /**
     * Logs that hop {@code h.hop()} of chain {@code h} failed here with {@code f} (with the stack
     * trace of its cause when rpcc, an interceptor or a service function threw).
     */
    public void hopFailed(ChainHeader h, HopFailure f) {
        if (!log.isWarnEnabled()) {
            return;
        }
        Throwable cause = f.code() == ChainErrorCode.INTERNAL || f.code() == ChainErrorCode.SERVICE_FUNCTION_FAILED ? f.getCause() : null;
        try (var mdc = logContext(h)) {
            log.warn("chain {}#{} failed at hop {} on '{}' (service function '{}'): {}: {}", h.origin(), h.chainId(),
                    h.hop(), node, h.serviceFunction(), f.exceptionName(), f.getMessage(), cause);
        }
    }

    /** Logs, rate-limited, that the reply-to node of chain {@code h}, at {@code address}, cannot be reached. */
    public void replyToUnreachable(ChainHeader h, InetSocketAddress address, HopFailure f) {
        unreachable.warn(address, "node '{}' cannot reach '{}', where chain {}#{} replies: {}", node, h.replyTo().node(),
                h.origin(), h.chainId(), f.getMessage());
    }

    /** Logs that a partial reply of hop {@code h.hop()} could not be sent (called once per hop). */
    public void replyLost(ChainHeader h, Throwable why) {
        try (var mdc = logContext(h)) {
            log.warn("chain {}#{}: a partial reply of hop {} on '{}' was not sent (the originator will time out): {}",
                    h.origin(), h.chainId(), h.hop(), node, why.getMessage());
        }
    }

    /** Logs that the connection carrying hop {@code h.hop()}'s replies closed before its credit could follow them. */
    public void repliesUnconfirmed(ChainHeader h) {
        try (var mdc = logContext(h)) {
            log.warn("chain {}#{}: the connection carrying the replies of hop {} on '{}' closed before they were "
                    + "confirmed; the originator will time out", h.origin(), h.chainId(), h.hop(), node);
        }
    }

    /**
     * Puts hop {@code h.hop()} of chain {@code h} into the MDC ({@link ChainMdc}) for a line logged
     * off the hop's thread (a no-op on it, where the hop's runner has put it already).
     */
    public static ChainContext.Scope logContext(ChainHeader h) {
        return ChainMdc.put(h.origin() + "#" + h.chainId(), h.hop(), h.origin());
    }
}
