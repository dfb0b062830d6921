package io.rpcc.legacy;

import java.time.Duration;
import java.util.Objects;
import org.jspecify.annotations.Nullable;

/**
 * What every legacy wrapper's builder sets alike: what the legacy service is told about the chain's
 * originator, and the longest a call may take.
 *
 * @param <B> the builder: {@link LegacyGrpc.Builder} or {@link LegacyHttp.Builder}
 */
public abstract sealed class LegacyWrapperBuilder<B extends LegacyWrapperBuilder<B>>
        permits LegacyGrpc.Builder, LegacyHttp.Builder {
    private LegacyIdentity identity = LegacyIdentity.fromChain();
    private @Nullable Duration timeout;

    LegacyWrapperBuilder() {
    }

    /**
     * What the legacy service is told about the chain's originator (default:
     * {@link LegacyIdentity#fromChain()}).
     */
    public B identity(LegacyIdentity identity) {
        this.identity = Objects.requireNonNull(identity, "identity");
        return self();
    }

    /**
     * The longest a call may take, whatever the chain's deadline (default: only the chain's
     * deadline limits it; a chain without one waits for the legacy service as long as it takes).
     *
     * @throws IllegalArgumentException if {@code timeout} is not positive
     */
    public B timeout(Duration timeout) {
        if (timeout.isNegative() || timeout.isZero()) {
            throw new IllegalArgumentException("timeout must be positive, got " + timeout);
        }
        this.timeout = timeout;
        return self();
    }

    /** The identity set. */
    LegacyIdentity identity() {
        return identity;
    }

    /** The timeout set, or {@code null}. */
    @Nullable Duration timeout() {
        return timeout;
    }

    @SuppressWarnings("unchecked")
    private B self() {
        return (B) this;
    }
}
