package io.rpcc.core;

/**
 * A chain's {@link Metadata} would hold more than {@value Metadata#MAX_ENTRIES} entries or
 * {@value Metadata#MAX_BYTES} bytes. Thrown where the entry is added: by {@code ChainCall.metadata}
 * at the originator, or in the interceptor that adds it at a server (which ends the chain there, with
 * this exception's name and message, naming the hop and host).
 */
public class MetadataTooLargeException extends IllegalArgumentException {
    private static final long serialVersionUID = 1L;

    /** An exception with {@code message}, which says what was added and what the limits are. */
    public MetadataTooLargeException(String message) {
        super(message);
    }
}
