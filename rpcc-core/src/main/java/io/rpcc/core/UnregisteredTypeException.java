package io.rpcc.core;

/**
 * A value in the chain (parameters, state or result) is of a class that is not registered with
 * {@link TypeRegistry}. The message names the class. rpcc never falls back to deserializing
 * arbitrary classes from the wire.
 */
public class UnregisteredTypeException extends ChainException {
    private static final long serialVersionUID = 1L;

    /** An exception for {@code failure}. */
    public UnregisteredTypeException(ChainFailure failure) {
        super(failure);
    }

    /** An exception for {@code failure}, caused locally by {@code cause}. */
    public UnregisteredTypeException(ChainFailure failure, Throwable cause) {
        super(failure, cause);
    }
}
