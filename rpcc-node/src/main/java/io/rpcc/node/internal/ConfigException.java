package io.rpcc.node.internal;

/**
 * A configuration the node cannot run with; the message names the key, the value, where the value
 * came from and what was expected. The node prints it on one line and exits with code 2.
 */
public final class ConfigException extends RuntimeException {
    private static final long serialVersionUID = 1L;

    private final String key;

    /** A problem with {@code key}, described in full by {@code message}. */
    public ConfigException(String key, String message) {
        super(message);
        this.key = key;
    }

    /** The key (or command-line argument) at fault. */
    public String key() {
        return key;
    }
}
