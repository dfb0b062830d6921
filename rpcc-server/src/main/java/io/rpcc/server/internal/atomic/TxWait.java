package io.rpcc.server.internal.atomic;

/**
 * Thrown out of a service function by a lock request of an atomic hop that must wait: it unwinds the
 * function (an {@link Error}, so that ordinary {@code catch (Exception e)} blocks let it pass), the
 * engine drops the attempt's writes and parks the hop. A function that catches and swallows it is
 * parked all the same: the engine knows the attempt waits, and every later lock request of the attempt
 * throws it again. Carries no stack trace.
 */
public final class TxWait extends Error {
    private static final long serialVersionUID = 1L;

    TxWait(String lock) {
        super("an atomic hop waits for the lock of " + lock + " and will run again when it is granted", null,
                false, false);
    }
}
