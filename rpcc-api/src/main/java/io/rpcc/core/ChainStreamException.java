package io.rpcc.core;

import java.io.IOException;
import java.util.Objects;

/**
 * A hop's data stream ended before its last byte: what a {@link StreamingServiceFunction}'s reads
 * throw when the stream's sender gave up, went away or broke the stream rules, or the stream was
 * refused or idle too long. {@link #reason()} says which.
 */
public final class ChainStreamException extends IOException {
    private static final long serialVersionUID = 1L;

    /** Why a stream ended early. */
    public enum Reason {
        /** Its sender ended it (its source failed, or its chain was cancelled): the message says why. */
        SENDER_ABORTED,
        /** The connection it came on closed (the sender's node stopped, or the network failed). */
        CONNECTION_CLOSED,
        /** Neither its sender nor its reader moved for the receiver's stream idle timeout. */
        IDLE_TIMEOUT,
        /** Its sender broke the stream rules (sent more than the room it was given). */
        PROTOCOL_VIOLATION,
        /** The receiver refused it: too many streams open on the connection. */
        REFUSED,
        /** The hop it fed ended, or its node is closing. */
        CLOSED
    }

    private final Reason reason;

    /** A stream that ended early for {@code reason}, described by {@code message}. */
    public ChainStreamException(Reason reason, String message) {
        super(message);
        this.reason = Objects.requireNonNull(reason, "reason");
    }

    /** Why the stream ended early. */
    public Reason reason() {
        return reason;
    }
}
