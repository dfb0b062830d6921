package io.rpcc.legacy;

import io.rpcc.core.ServiceFunction;
import io.rpcc.legacy.internal.CallPolicy;
import io.rpcc.legacy.internal.HttpEndpointFunction;
import io.rpcc.server.RpccServer;
import java.net.URI;
import java.net.http.HttpClient;
import java.time.Duration;
import java.util.Locale;
import java.util.Objects;
import org.jspecify.annotations.Nullable;

/**
 * An HTTP/JSON endpoint as a service function (paper section 3.5), registered on an rpcc server
 * that runs next to the HTTP service, without changing it.
 *
 * <pre>{@code
 * LegacyHttp.endpoint("POST", "http://localhost:8080/quotes/{sku}")
 *         .result(Quote.class)                          // default: maps, lists, text and numbers
 *         .identity(LegacyIdentity.fromChain().orToken(pricingToken))
 *         .registerOn(RpccServer.builder("pricing").types(types), "quote");
 * }</pre>
 *
 * <p><b>Request.</b> The chain's params fill the URL template's {@code {name}} placeholders (from a
 * map's entries, a record's or bean's properties; a text or number params fills them all),
 * URL-encoded; {@code POST}, {@code PUT} and {@code PATCH} send the params as the JSON body (Jackson
 * 3), other methods send no body. The {@link LegacyIdentity} headers go with it, and the chain's
 * deadline (capped by {@link Builder#timeout}) as the request's timeout.
 *
 * <p><b>Response.</b> Its JSON, read as the {@linkplain Builder#result result type}, is the hop's
 * result ({@code null} for an empty body). A result type of your own must be registered in the
 * {@code TypeRegistry} of the nodes it travels to; the default ({@code Object}) gives maps, lists,
 * text, numbers and booleans, which rpcc registers itself. A status of 400 or more, a service that
 * cannot be reached, a response that is not the expected JSON, or one larger than
 * {@link Builder#maxResponseBytes} (16 MiB by default) throws a {@link LegacyCallException} naming
 * the method and URL, the status, a body excerpt or the limit, and the hop.
 *
 * <p>The request is sent with {@code HttpClient.sendAsync}; the hop's thread (a virtual thread by
 * default) waits for the response, since a service function returns its result.
 */
public final class LegacyHttp {
    /** The default {@linkplain Builder#maxResponseBytes limit on a response's size}: 16 MiB. */
    public static final long DEFAULT_MAX_RESPONSE_BYTES = 16L << 20;

    private LegacyHttp() {
    }

    /**
     * A wrapper for {@code method} (e.g. {@code "POST"}) on {@code urlTemplate} (an absolute
     * {@code http} or {@code https} URL, with {@code {name}} placeholders for the params' properties).
     *
     * @throws IllegalArgumentException if the method is blank or the URL template not an absolute HTTP URL
     */
    public static Builder endpoint(String method, String urlTemplate) {
        return new Builder(method, urlTemplate);
    }

    /** Configures how an endpoint is called. */
    public static final class Builder extends LegacyWrapperBuilder<Builder> {
        private final String method;
        private final String urlTemplate;
        private @Nullable HttpClient client;
        private Class<?> resultType = Object.class;
        private long maxResponseBytes = DEFAULT_MAX_RESPONSE_BYTES;

        private Builder(String method, String urlTemplate) {
            if (Objects.requireNonNull(method, "method").isBlank() || !method.chars().allMatch(Character::isLetter)) {
                throw new IllegalArgumentException("an HTTP method is a word such as GET or POST, got '" + method + "'");
            }
            URI sample = URI.create(Objects.requireNonNull(urlTemplate, "urlTemplate").replaceAll("\\{[^}]*}", "x"));
            if (!sample.isAbsolute() || !(sample.getScheme().equals("http") || sample.getScheme().equals("https"))) {
                throw new IllegalArgumentException("the URL template must be an absolute http or https URL, got '"
                        + urlTemplate + "'");
            }
            this.method = method.toUpperCase(Locale.ROOT);
            this.urlTemplate = urlTemplate;
        }

        /** The HTTP client to send with (default: one client per wrapper, HTTP/1.1, a 10 s connect timeout). */
        public Builder client(HttpClient client) {
            this.client = Objects.requireNonNull(client, "client");
            return this;
        }

        /** What the response's JSON is read as (default {@code Object}: maps, lists, text, numbers). */
        public Builder result(Class<?> type) {
            this.resultType = Objects.requireNonNull(type, "type");
            return this;
        }

        /**
         * The largest response body the wrapper reads (default {@link #DEFAULT_MAX_RESPONSE_BYTES},
         * 16 MiB), since it holds the whole body in memory to read its JSON. A response that
         * announces more in its {@code Content-Length} is refused at once; one that sends more
         * without announcing it (chunked, or until the connection closes) is refused as soon as the
         * limit is passed. The rest is not read, the connection is closed, and the hop fails with a
         * {@link LegacyCallException} of status {@link LegacyCallException#RESPONSE_TOO_LARGE}.
         *
         * @throws IllegalArgumentException if {@code bytes} is not positive or is more than a Java array holds
         */
        public Builder maxResponseBytes(long bytes) {
            if (bytes <= 0 || bytes > Integer.MAX_VALUE - 8) {
                throw new IllegalArgumentException("maxResponseBytes must be between 1 and " + (Integer.MAX_VALUE - 8)
                        + ", got " + bytes);
            }
            this.maxResponseBytes = bytes;
            return this;
        }

        /** The service function, for registering it yourself; {@code name} is used in its errors. */
        public ServiceFunction function(String name) {
            HttpClient c = client;
            if (c == null) {
                c = HttpClient.newBuilder().version(HttpClient.Version.HTTP_1_1).connectTimeout(Duration.ofSeconds(10)).build();
                client = c;
            }
            return new HttpEndpointFunction(Objects.requireNonNull(name, "name"), method, urlTemplate, c,
                    new CallPolicy(identity(), timeout()), resultType, maxResponseBytes);
        }

        /**
         * Registers the endpoint on {@code server} as service function {@code name}: idempotent for
         * {@code GET}, {@code HEAD}, {@code PUT} and {@code DELETE} (a retried chain calls them again),
         * not for {@code POST} and {@code PATCH}.
         *
         * @return {@code server}
         * @throws IllegalArgumentException if the server has a service function of that name
         */
        public RpccServer.Builder registerOn(RpccServer.Builder server, String name) {
            ServiceFunction f = function(name);
            return switch (method) {
                case "GET", "HEAD", "PUT", "DELETE" -> server.idempotentService(name, f);
                default -> server.service(name, f);
            };
        }
    }
}
