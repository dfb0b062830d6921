package io.rpcc.legacy.internal;

import io.rpcc.core.ChainContext;
import io.rpcc.core.ServiceFunction;
import io.rpcc.legacy.LegacyCallException;
import java.net.ConnectException;
import java.net.URI;
import java.net.URLEncoder;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.net.http.HttpTimeoutException;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.Locale;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ExecutionException;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import org.jspecify.annotations.Nullable;
import tools.jackson.core.JacksonException;
import tools.jackson.databind.DeserializationFeature;
import tools.jackson.databind.json.JsonMapper;

/**
 * One HTTP/JSON endpoint as a service function. The URL template's {@code {name}} placeholders are
 * filled from the params' properties (a map's entries, a record's or bean's properties as JSON
 * sees them; a text or number params fills every placeholder), URL-encoded; a {@code POST},
 * {@code PUT} or {@code PATCH} sends the params as a JSON body. The response's JSON becomes the
 * result, read as the configured type ({@code Object}: maps, lists, text, numbers). The request is
 * sent with {@link HttpClient#sendAsync}; the hop's thread (a virtual thread by default) waits for
 * the response, since a service function returns its result. The response body is read up to a
 * limit ({@link BoundedBody}). A status of 400 or more, a service that cannot be reached, or a body
 * over the limit throws a {@link LegacyCallException}.
 */
public final class HttpEndpointFunction implements ServiceFunction {
    /** The JSON mapper of every HTTP wrapper: unknown properties in responses are ignored. */
    static final JsonMapper JSON = JsonMapper.builder().disable(DeserializationFeature.FAIL_ON_UNKNOWN_PROPERTIES).build();
    private static final Pattern PLACEHOLDER = Pattern.compile("\\{([A-Za-z0-9_.-]+)}");
    private static final Set<String> WITH_BODY = Set.of("POST", "PUT", "PATCH");
    private static final int BODY_EXCERPT = 300;

    private final String name;
    private final String method;
    private final String urlTemplate;
    private final HttpClient client;
    private final CallPolicy policy;
    private final Class<?> resultType;
    private final long maxResponseBytes;

    /**
     * The service function {@code name} calling {@code method urlTemplate} with {@code client}.
     *
     * @param policy the identity headers and the time a call may take
     * @param resultType what the response's JSON is read as
     * @param maxResponseBytes the largest response body read; a larger one fails the call as it arrives
     */
    public HttpEndpointFunction(String name, String method, String urlTemplate, HttpClient client,
                                CallPolicy policy, Class<?> resultType, long maxResponseBytes) {
        this.name = name;
        this.method = method.toUpperCase(Locale.ROOT);
        this.urlTemplate = urlTemplate;
        this.client = client;
        this.policy = policy;
        this.resultType = resultType;
        this.maxResponseBytes = maxResponseBytes;
    }

    /** Whether {@code method} sends the params as a JSON body. */
    public static boolean sendsBody(String method) {
        return WITH_BODY.contains(method.toUpperCase(Locale.ROOT));
    }

    @Override
    public @Nullable Object apply(@Nullable Object params) throws LegacyCallException {
        ChainContext ctx = ChainContext.current();
        URI uri = URI.create(expand(params));
        String legacy = method + " " + uri;
        HttpRequest.Builder request = HttpRequest.newBuilder(uri).header("accept", "application/json");
        policy.headers(ctx).forEach(request::header);
        if (sendsBody(method)) {
            request.header("content-type", "application/json")
                    .method(method, HttpRequest.BodyPublishers.ofByteArray(JSON.writeValueAsBytes(params)));
        } else {
            request.method(method, HttpRequest.BodyPublishers.noBody());
        }
        Duration budget = policy.budget(ctx);
        if (budget != null) {
            request.timeout(budget.compareTo(Duration.ofMillis(1)) < 0 ? Duration.ofMillis(1) : budget);
        }
        CompletableFuture<HttpResponse<byte[]>> call = client.sendAsync(request.build(), new BoundedBody(maxResponseBytes));
        HttpResponse<byte[]> response;
        try {
            response = call.get();
        } catch (InterruptedException e) {
            call.cancel(true);
            Thread.currentThread().interrupt();
            throw failure(ctx, legacy, "CANCELLED", "the chain was cancelled while the call was in flight", e);
        } catch (ExecutionException e) {
            Throwable cause = e.getCause();
            for (Throwable c = cause; c != null; c = c.getCause()) {
                if (c instanceof BoundedBody.Refusal refused) {
                    throw failure(ctx, legacy, refused.status, refused.status.equals(LegacyCallException.RESPONSE_TOO_LARGE)
                            ? "the response is larger than this wrapper's limit of " + BoundedBody.size(maxResponseBytes)
                            + ": " + refused.getMessage() + ". If the service's responses are that large, raise the limit"
                            + " (LegacyHttp.Builder.maxResponseBytes); else ask the service for less (a page, a filter)"
                            : refused.getMessage() + ". The legacy service must send one or the other", refused);
                }
            }
            if (cause instanceof HttpTimeoutException) {
                throw failure(ctx, legacy, "TIMEOUT", "no response before " + policy.whatRanOut(), cause);
            }
            throw failure(ctx, legacy, LegacyCallException.UNREACHABLE, (cause instanceof ConnectException
                    ? "connection refused" : String.valueOf(cause)) + ": the legacy server (" + uri.getAuthority()
                    + ") is down or unreachable from this node; check that it runs and that the URL names it", cause);
        }
        byte[] body = response.body();
        if (response.statusCode() >= 400) {
            throw failure(ctx, legacy, Integer.toString(response.statusCode()),
                    "response body: " + excerpt(body), null);
        }
        if (body == null || body.length == 0) {
            return null;
        }
        try {
            return JSON.readValue(body, resultType);
        } catch (JacksonException e) {
            throw failure(ctx, legacy, Integer.toString(response.statusCode()), "the response is not JSON for a "
                    + resultType.getName() + " (" + e.getOriginalMessage() + "); body: " + excerpt(body), e);
        }
    }

    private String expand(@Nullable Object params) {
        Matcher m = PLACEHOLDER.matcher(urlTemplate);
        if (!m.find()) {
            return urlTemplate;
        }
        m.reset();
        Map<?, ?> fields = params instanceof Map<?, ?> map ? map
                : params == null || params instanceof CharSequence || params instanceof Number || params instanceof Boolean
                ? null : JSON.convertValue(params, Map.class);
        StringBuilder url = new StringBuilder();
        while (m.find()) {
            Object value = fields == null ? params : fields.get(m.group(1));
            if (value == null) {
                throw new IllegalArgumentException("service function '" + name + "': the URL template " + urlTemplate
                        + " needs '" + m.group(1) + "', which the params (" + (params == null ? "null"
                        : params.getClass().getName()) + ") do not have");
            }
            m.appendReplacement(url, Matcher.quoteReplacement(
                    URLEncoder.encode(String.valueOf(value), StandardCharsets.UTF_8).replace("+", "%20")));
        }
        m.appendTail(url);
        return url.toString();
    }

    private static String excerpt(byte @Nullable [] body) {
        if (body == null || body.length == 0) {
            return "(empty)";
        }
        String text = new String(body, 0, Math.min(body.length, BODY_EXCERPT * 4), StandardCharsets.UTF_8).strip();
        return text.length() > BODY_EXCERPT ? text.substring(0, BODY_EXCERPT) + "..." : text;
    }

    private LegacyCallException failure(ChainContext ctx, String legacy, String status, String detail,
                                        @Nullable Throwable cause) {
        return new LegacyCallException("HTTP", legacy, status, detail, name, ctx.node(), ctx.hop(), cause);
    }
}
