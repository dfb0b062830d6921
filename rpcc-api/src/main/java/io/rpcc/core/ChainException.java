package io.rpcc.core;

import java.util.List;
import org.jspecify.annotations.Nullable;

/**
 * A chain failed. Thrown at (or completes the future of) the chain's originator, wherever the
 * failure happened (paper section 3.8). Subclasses say what went wrong; every one carries the name
 * and message of the underlying exception, the hop and host where it happened, and the path of
 * hosts traversed so far.
 *
 * <pre>{@code
 * try {
 *     client.startChain("gateway", "route", order, cf, state).join();
 * } catch (CompletionException e) {
 *     if (e.getCause() instanceof ChainException ce) {
 *         log.warn("chain failed at {} (hop {}), path {}", ce.host(), ce.hop(), ce.path());
 *     }
 * }
 * }</pre>
 */
public class ChainException extends RuntimeException {
    private static final long serialVersionUID = 1L;

    private final transient ChainFailure failure;

    /** An exception for {@code failure}. */
    public ChainException(ChainFailure failure) {
        this(failure, null);
    }

    /** An exception for {@code failure}, caused locally by {@code cause}. */
    public ChainException(ChainFailure failure, @Nullable Throwable cause) {
        super(describe(failure), cause);
        this.failure = failure;
    }

    private static String describe(ChainFailure f) {
        StringBuilder sb = new StringBuilder(f.message() == null ? f.exceptionName() : f.message());
        sb.append(" (hop ").append(f.hop()).append(" at '").append(f.host()).append("'; path: ");
        sb.append(f.path().isEmpty() ? "none" : pathString(f.path())).append(')');
        List<?> lines = f.details().isEmpty() ? f.fields().diagnostics() : f.details();
        if (!lines.isEmpty() && lines.size() <= 20) {
            for (Object line : lines) {
                sb.append(System.lineSeparator()).append("  ").append(line);
            }
        }
        return sb.toString();
    }

    private static String pathString(List<String> path) {
        if (path.size() <= 12) {
            return String.join(" → ", path);
        }
        return String.join(" → ", path.subList(0, 5)) + " → … (" + HopPath.visited(path.subList(5, path.size() - 5))
                + " more) → "
                + String.join(" → ", path.subList(path.size() - 5, path.size()));
    }

    /**
     * The kind of failure, for code that switches on it. Each rpcc exception type has its own code;
     * this base type stands for {@link ChainErrorCode#INTERNAL}, which is also what a code from a
     * newer node that this build does not know becomes.
     */
    public ChainErrorCode code() {
        return ChainErrorCode.INTERNAL;
    }

    /**
     * Whether running the same chain again may succeed and rpcc has nothing against it: the failure
     * was a condition of the moment, and nothing of the chain ran at the place that failed. True for
     * <ul>
     *   <li>{@link ChainErrorCode#HOP_UNREACHABLE} (not its subtypes for TLS authentication or
     *       protocol versions, which are configuration): the next hop's server could not be reached,
     *       so it did not receive the chain; the hops before it did run;</li>
     *   <li>{@link ChainErrorCode#REPOSITORY_UNAVAILABLE}: the chaining function could not be
     *       fetched, so it did not run; the hop's service function did;</li>
     *   <li>{@link ChainErrorCode#NODE_SHUTTING_DOWN}: a draining server refused the hop before its
     *       service function ran (or a draining client started nothing);</li>
     *   <li>{@link ChainErrorCode#NODE_CLOSED}: a server was closed while a hop of the chain ran
     *       there; the hop may have run in part, and runs again if the chain is sent again (the hops
     *       before it, whose outcomes the servers cached, do not: see
     *       docs/guides/errors-and-retry.md);</li>
     *   <li>any failure its node marked as of the moment ({@link FailureFields#transientCondition()}):
     *       a chaining function refused because the node had too many compilations waiting or too
     *       many abandoned sandbox threads still running, or stopped at a sandbox limit while the
     *       node was compiling or loading it under load.</li>
     * </ul>
     * False for everything else: failures of the chain itself (its functions, values, names or
     * configuration), which fail again, and failures after which rpcc cannot know how far the chain
     * got ({@link ChainErrorCode#TIMEOUT}, {@link ChainErrorCode#INTERNAL}). Whether the service
     * functions of the hops before {@link #hop()} may run again is the application's call: rpcc
     * does not know whether they are idempotent.
     */
    public boolean isRetryable() {
        ChainErrorCode c = code();
        return c == ChainErrorCode.HOP_UNREACHABLE || c == ChainErrorCode.REPOSITORY_UNAVAILABLE
                || c == ChainErrorCode.NODE_SHUTTING_DOWN || c == ChainErrorCode.NODE_CLOSED
                || failure.fields().transientCondition();
    }

    /** All that is known about the failure. */
    public ChainFailure failure() {
        return failure;
    }

    /** The name of the exception that ended the chain (a remote class name or an rpcc one). */
    public String exceptionName() {
        return failure.exceptionName();
    }

    /** The message of the exception that ended the chain, without the hop and path. */
    public @Nullable String remoteMessage() {
        return failure.message();
    }

    /** The node where the failure happened. */
    public String host() {
        return failure.host();
    }

    /** The index of the hop that failed (0: at the originator, before the first hop). */
    public int hop() {
        return failure.hop();
    }

    /**
     * The servers traversed so far, in order, up to and including the one that failed; a long chain's
     * path is bounded, one entry standing for the servers left out between its first and last ones
     * ({@link HopPath}).
     */
    public List<String> path() {
        return failure.path();
    }

    /** The virtual console up to the failure. */
    public List<ConsoleLine> console() {
        return failure.console();
    }

    /** The hop timings up to the failure. */
    public List<HopTiming> timings() {
        return failure.timings();
    }
}
