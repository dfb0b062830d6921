package io.rpcc.legacy.internal;

import java.net.URLEncoder;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.time.Instant;
import org.jspecify.annotations.Nullable;

/** What the gRPC and HTTP wrappers share: header values and the time a call may take. */
final class Headers {
    private Headers() {
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

    /**
     * How long a call may take: until the chain's {@code deadline} ({@link Instant#MAX}: none),
     * capped by {@code timeout}; {@code null} if neither limits it.
     */
    static @Nullable Duration budget(Instant deadline, @Nullable Duration timeout) {
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
}
