package io.rpcc.core;

import java.util.Optional;
import java.util.OptionalInt;
import org.jspecify.annotations.Nullable;

/**
 * A value in the chain (parameters, state, result or partial reply) is of a class that is not
 * registered with {@link TypeRegistry}: at the node that sent it ({@link #typeName()} names the
 * class), or at the node that received it ({@link #typeId()} gives the id it did not know, and
 * {@link #typeName()} the class the originator registered under that id, if it did). rpcc never
 * falls back to deserializing arbitrary classes from the wire.
 */
public class UnregisteredTypeException extends ChainException {
    private static final long serialVersionUID = 1L;

    /** An exception for {@code failure}. */
    public UnregisteredTypeException(ChainFailure failure) {
        super(failure);
    }

    /** An exception for {@code failure}, caused locally by {@code cause}. */
    public UnregisteredTypeException(ChainFailure failure, @Nullable Throwable cause) {
        super(failure, cause);
    }

    /** The class name of the value, where known: at the sender, or the originator's class for {@link #typeId()}. */
    public Optional<String> typeName() {
        return Optional.ofNullable(failure().fields().typeName());
    }

    /** The type id that the receiving node had not registered, when the receiver detected the failure. */
    public OptionalInt typeId() {
        Integer id = failure().fields().typeId();
        return id == null ? OptionalInt.empty() : OptionalInt.of(id);
    }

    /** {@link ChainErrorCode#UNREGISTERED_TYPE}. */
    @Override
    public ChainErrorCode code() {
        return ChainErrorCode.UNREGISTERED_TYPE;
    }
}
