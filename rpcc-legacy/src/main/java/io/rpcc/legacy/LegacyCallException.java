package io.rpcc.legacy;

import java.util.Objects;
import org.jspecify.annotations.Nullable;

/**
 * A wrapped legacy service failed a call: it answered with an error status (a gRPC status other
 * than {@code OK}, an HTTP status of 400 or more), or could not be reached. Thrown by the service
 * functions of {@link LegacyGrpc} and {@link LegacyHttp}; like any exception a service function
 * throws, it ends the chain, and the originator gets a
 * {@link io.rpcc.core.ServiceFunctionException} ({@code SERVICE_FUNCTION_FAILED}) whose
 * {@code exceptionName()} is this class's name, whose {@code host()} and {@code hop()} are the
 * wrapper's node and hop, and whose message is this one's: the legacy method, its status and the
 * service function, hop and node that called it, e.g.
 *
 * <pre>
 * legacy gRPC method shop.Inventory/Reserve failed with status FAILED_PRECONDITION: out of stock
 * (service function 'reserve', hop 2, node 'inventory')
 * </pre>
 */
public class LegacyCallException extends Exception {
    private static final long serialVersionUID = 1L;

    /** The status of a legacy service that could not be reached (connection refused, reset, timed out). */
    public static final String UNREACHABLE = "UNREACHABLE";

    /**
     * The status of an HTTP response larger than the wrapper's limit
     * ({@link LegacyHttp.Builder#maxResponseBytes}): it was refused as it arrived, or from its
     * {@code Content-Length}, without reading the rest.
     */
    public static final String RESPONSE_TOO_LARGE = "RESPONSE_TOO_LARGE";

    /**
     * The status of an HTTP response whose length is ambiguous (both {@code Content-Length} and
     * {@code Transfer-Encoding}); it was not read.
     */
    public static final String INVALID_RESPONSE = "INVALID_RESPONSE";

    private final String protocol;
    private final String legacyMethod;
    private final String status;
    private final String node;
    private final int hop;

    /**
     * A failed legacy call.
     *
     * @param protocol {@code "gRPC"} or {@code "HTTP"}
     * @param legacyMethod the legacy method: a gRPC method's full name, or an HTTP method and URL
     * @param status the gRPC status code's name, the HTTP status code, {@link #UNREACHABLE},
     *     {@link #RESPONSE_TOO_LARGE} or {@link #INVALID_RESPONSE}
     * @param detail what the legacy service said (status description, response body excerpt), or why
     *     it could not be reached, and what to do
     * @param serviceFunction the service function that called it
     * @param node the node that called it
     * @param hop the hop of the chain that called it
     * @param cause the underlying exception, if any
     */
    public LegacyCallException(String protocol, String legacyMethod, String status, String detail,
                               String serviceFunction, String node, int hop, @Nullable Throwable cause) {
        super("legacy " + protocol + " " + (protocol.equals("gRPC") ? "method " : "endpoint ") + legacyMethod
                + " failed with status " + status + (detail.isEmpty() ? "" : ": " + detail) + " (service function '"
                + serviceFunction + "', hop " + hop + ", node '" + node + "')", cause);
        this.protocol = Objects.requireNonNull(protocol, "protocol");
        this.legacyMethod = Objects.requireNonNull(legacyMethod, "legacyMethod");
        this.status = Objects.requireNonNull(status, "status");
        this.node = Objects.requireNonNull(node, "node");
        this.hop = hop;
    }

    /** {@code "gRPC"} or {@code "HTTP"}. */
    public String protocol() {
        return protocol;
    }

    /** The legacy method: a gRPC method's full name ({@code shop.Inventory/Reserve}), or an HTTP method and URL. */
    public String legacyMethod() {
        return legacyMethod;
    }

    /**
     * The gRPC status code's name ({@code UNAVAILABLE}), the HTTP status ({@code 500}),
     * {@link #UNREACHABLE}, {@link #RESPONSE_TOO_LARGE} or {@link #INVALID_RESPONSE}.
     */
    public String status() {
        return status;
    }

    /** The node whose wrapper made the call. */
    public String node() {
        return node;
    }

    /** The hop of the chain that made the call. */
    public int hop() {
        return hop;
    }
}
