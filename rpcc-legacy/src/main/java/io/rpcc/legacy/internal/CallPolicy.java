package io.rpcc.legacy.internal;

import io.rpcc.core.ChainContext;
import io.rpcc.legacy.LegacyIdentity;
import java.net.URLEncoder;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.time.Instant;
import java.util.LinkedHashMap;
import java.util.Map;
import org.jspecify.annotations.Nullable;

/**
 * What the gRPC and HTTP wrappers share: the identity headers a call carries, and the time it may
 * take.
 *
 * @param identity what the legacy service is told about the chain's originator
 * @param timeout the longest a call may take beyond the chain's deadline, or {@code null}: only the
 *     deadline limits it
 */
public record CallPolicy(LegacyIdentity identity, @Nullable Duration timeout) {

    /** The identity headers of a call for the chain of {@code ctx}, their values in ASCII. */
    Map<String, String> headers(ChainContext ctx) {
        Map<String, String> headers = new LinkedHashMap<>();
        identity.headers(ctx).forEach((k, v) -> headers.put(k, ascii(v)));
        return headers;
    }

    /**
     * How long a call for the chain of {@code ctx} may take: until its deadline, capped by the
     * timeout; {@code null} if neither limits it.
     */
    @Nullable Duration budget(ChainContext ctx) {
        Instant deadline = ctx.deadline();
        Duration left = null;
        if (!deadline.equals(Instant.MAX)) {
            try {
                left = Duration.between(Instant.now(), deadline);
                left.toNanos(); // throws if too large to use as a timeout
            } catch (ArithmeticException e) {
                left = null;
            }
        }
        if (timeout != null && (left == null || timeout.compareTo(left) < 0)) {
            return timeout;
        }
        return left;
    }

    /** What ran out when a call took too long, for its error: the deadline, or also the timeout. */
    String whatRanOut() {
        return "the chain's deadline" + (timeout == null ? "" : " or the wrapper's timeout (" + timeout + ")");
    }

    /** {@code value} if it is printable ASCII, else its URL encoding (headers carry ASCII only). */
    static String ascii(String value) {
        for (int i = 0; i < value.length(); i++) {
            char c = value.charAt(i);
            if (c < 0x20 || c > 0x7e) {
                return URLEncoder.encode(value, StandardCharsets.UTF_8);
            }
        }
        return value;
    }
}
