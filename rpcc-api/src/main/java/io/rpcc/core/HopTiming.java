package io.rpcc.core;

/**
 * Where one hop of a chain spent its time (paper section 3.7, profiling). Recorded by the node
 * that ran the hop and carried with the chain to the originator.
 *
 * @param hop the hop's index, starting at 1
 * @param host the node that ran the service function
 * @param serviceFunction the service function's name
 * @param queueNanos from the request's arrival at the node until the service function started
 * @param serviceNanos running the service function
 * @param compileNanos loading (compiling, on a cache miss) the chaining function; 0 on a hit
 * @param chainingNanos running the chaining function (0 if the hop had none)
 * @param chainingHost where the chaining function ran: {@code host}, or the client in interactive
 *     mode
 */
public record HopTiming(int hop, String host, String serviceFunction, long queueNanos, long serviceNanos,
                        long compileNanos, long chainingNanos, String chainingHost) {

    /** Time spent at the node, from arrival to the end of the chaining function. */
    public long totalNanos() {
        return queueNanos + serviceNanos + compileNanos + chainingNanos;
    }

    /** This timing with the chaining function's figures replaced. */
    public HopTiming withChaining(long compileNanos, long chainingNanos, String chainingHost) {
        return new HopTiming(hop, host, serviceFunction, queueNanos, serviceNanos, compileNanos, chainingNanos, chainingHost);
    }
}
