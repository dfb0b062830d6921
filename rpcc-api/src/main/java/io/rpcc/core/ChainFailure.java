package io.rpcc.core;

import java.util.List;
import org.jspecify.annotations.Nullable;

/**
 * Everything known about why a chain failed: the data behind every {@link ChainException}.
 *
 * @param exceptionName the name of the exception that ended the chain, e.g.
 *     {@code java.lang.IllegalStateException} when a service function threw one, or the rpcc
 *     exception's class name for errors that rpcc itself detected
 * @param message that exception's message
 * @param host the node where the failure happened
 * @param hop the index of the hop that failed (1 is the first server; 0 means the originator
 *     failed before the first hop left)
 * @param path the servers the chain traversed, in order, up to and including {@code host}; bounded
 *     for a long chain ({@link HopPath})
 * @param details extra lines, such as the remote stack trace
 * @param console the virtual console up to the failure
 * @param timings the hop timings up to the failure
 * @param fields the structured facts of the failure (sandbox rule, type id, compile diagnostics...)
 */
public record ChainFailure(String exceptionName, @Nullable String message, String host, int hop, List<String> path,
                           List<String> details, List<ConsoleLine> console, List<HopTiming> timings,
                           FailureFields fields) {
    public ChainFailure {
        path = List.copyOf(path);
        details = List.copyOf(details);
        console = List.copyOf(console);
        timings = List.copyOf(timings);
        fields = fields == null ? FailureFields.NONE : fields;
    }

    /** A failure without structured facts ({@link FailureFields#NONE}). */
    public ChainFailure(String exceptionName, @Nullable String message, String host, int hop, List<String> path,
                        List<String> details, List<ConsoleLine> console, List<HopTiming> timings) {
        this(exceptionName, message, host, hop, path, details, console, timings, FailureFields.NONE);
    }
}
