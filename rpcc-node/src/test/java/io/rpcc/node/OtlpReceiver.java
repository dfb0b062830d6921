package io.rpcc.node;

import com.sun.net.httpserver.HttpExchange;
import com.sun.net.httpserver.HttpServer;
import java.io.IOException;
import java.io.InputStream;
import java.net.InetSocketAddress;
import java.nio.ByteBuffer;
import java.nio.ByteOrder;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.ArrayList;
import java.util.HexFormat;
import java.util.List;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.function.Predicate;

/**
 * A tiny OTLP/HTTP traces endpoint for tests: it accepts {@code POST /v1/traces} with a protobuf body
 * ({@code ExportTraceServiceRequest}), answers 200, and decodes the spans' service name, trace and span
 * ids, parent and name (the few fields of opentelemetry-proto's messages a test needs, read off the
 * protobuf wire format).
 */
final class OtlpReceiver implements AutoCloseable {
    /** A received span. */
    record Span(String service, String traceId, String spanId, String parentSpanId, String name) {
    }

    private final HttpServer http;
    private final List<Span> spans = new CopyOnWriteArrayList<>();
    private final List<String> contentTypes = new CopyOnWriteArrayList<>();
    private final List<String> failures = new CopyOnWriteArrayList<>();

    private OtlpReceiver(HttpServer http) {
        this.http = http;
    }

    /** Listens on {@code host}, any free port. */
    static OtlpReceiver start(String host) throws IOException {
        HttpServer http = HttpServer.create(new InetSocketAddress(host, 0), 16);
        OtlpReceiver receiver = new OtlpReceiver(http);
        http.createContext("/v1/traces", receiver::handle);
        http.start();
        return receiver;
    }

    /** {@code http://host:port/v1/traces} as reached at {@code host}. */
    String endpoint(String host) {
        return "http://" + host + ":" + http.getAddress().getPort() + "/v1/traces";
    }

    /** The port it listens on. */
    int port() {
        return http.getAddress().getPort();
    }

    private void handle(HttpExchange exchange) throws IOException {
        try (exchange; InputStream in = exchange.getRequestBody()) {
            byte[] body = in.readAllBytes();
            contentTypes.add(String.valueOf(exchange.getRequestHeaders().getFirst("Content-Type")));
            if (!exchange.getRequestMethod().equals("POST")) {
                exchange.sendResponseHeaders(405, -1);
                return;
            }
            try {
                spans.addAll(decode(body));
            } catch (RuntimeException e) {
                failures.add(e.toString());
            }
            exchange.getResponseHeaders().set("Content-Type", "application/x-protobuf");
            exchange.sendResponseHeaders(200, -1); // an empty ExportTraceServiceResponse
        }
    }

    /** The spans received so far. */
    List<Span> spans() {
        return List.copyOf(spans);
    }

    /** The content types of the requests received so far. */
    List<String> contentTypes() {
        return List.copyOf(contentTypes);
    }

    /** Waits up to {@code timeout} until the spans received satisfy {@code condition}; returns them either way. */
    List<Span> await(Predicate<List<Span>> condition, Duration timeout) throws InterruptedException {
        long end = System.nanoTime() + timeout.toNanos();
        while (!condition.test(spans()) && System.nanoTime() < end) {
            Thread.sleep(50);
        }
        if (!failures.isEmpty()) {
            throw new AssertionError("undecodable OTLP requests: " + failures);
        }
        return spans();
    }

    @Override
    public void close() {
        http.stop(0);
    }

    // ExportTraceServiceRequest { repeated ResourceSpans resource_spans = 1; }
    // ResourceSpans { Resource resource = 1; repeated ScopeSpans scope_spans = 2; }
    // Resource { repeated KeyValue attributes = 1; }  KeyValue { string key = 1; AnyValue value = 2; }
    // AnyValue { string string_value = 1; ... }       ScopeSpans { InstrumentationScope scope = 1; repeated Span spans = 2; }
    // Span { bytes trace_id = 1; bytes span_id = 2; string trace_state = 3; bytes parent_span_id = 4; string name = 5; ... }
    static List<Span> decode(byte[] request) {
        List<Span> result = new ArrayList<>();
        for (ByteBuffer resourceSpans : fields(ByteBuffer.wrap(request), 1)) {
            String service = "";
            for (ByteBuffer resource : fields(resourceSpans.duplicate(), 1)) {
                for (ByteBuffer attribute : fields(resource, 1)) {
                    String key = text(first(attribute.duplicate(), 1));
                    ByteBuffer value = first(attribute.duplicate(), 2);
                    if (key.equals("service.name") && value != null) {
                        service = text(first(value, 1));
                    }
                }
            }
            for (ByteBuffer scopeSpans : fields(resourceSpans.duplicate(), 2)) {
                for (ByteBuffer span : fields(scopeSpans, 2)) {
                    result.add(new Span(service, hex(first(span.duplicate(), 1)), hex(first(span.duplicate(), 2)),
                            hex(first(span.duplicate(), 4)), text(first(span.duplicate(), 5))));
                }
            }
        }
        return result;
    }

    /** The length-delimited fields numbered {@code number} of a message, in order. */
    private static List<ByteBuffer> fields(ByteBuffer message, int number) {
        List<ByteBuffer> found = new ArrayList<>();
        message.order(ByteOrder.LITTLE_ENDIAN);
        while (message.hasRemaining()) {
            long tag = varint(message);
            int wireType = (int) (tag & 7);
            switch (wireType) {
                case 0 -> varint(message);
                case 1 -> message.position(message.position() + 8);
                case 5 -> message.position(message.position() + 4);
                case 2 -> {
                    int length = (int) varint(message);
                    ByteBuffer field = message.slice(message.position(), length);
                    message.position(message.position() + length);
                    if (tag >>> 3 == number) {
                        found.add(field);
                    }
                }
                default -> throw new IllegalArgumentException("protobuf wire type " + wireType + " is not expected here");
            }
        }
        return found;
    }

    private static ByteBuffer first(ByteBuffer message, int number) {
        List<ByteBuffer> all = fields(message, number);
        return all.isEmpty() ? null : all.get(0);
    }

    private static long varint(ByteBuffer in) {
        long value = 0;
        for (int shift = 0; shift < 64; shift += 7) {
            byte b = in.get();
            value |= (long) (b & 0x7f) << shift;
            if (b >= 0) {
                return value;
            }
        }
        throw new IllegalArgumentException("malformed varint");
    }

    private static String text(ByteBuffer field) {
        if (field == null) {
            return "";
        }
        byte[] bytes = new byte[field.remaining()];
        field.duplicate().get(bytes);
        return new String(bytes, StandardCharsets.UTF_8);
    }

    private static String hex(ByteBuffer field) {
        if (field == null) {
            return "";
        }
        byte[] bytes = new byte[field.remaining()];
        field.duplicate().get(bytes);
        return HexFormat.of().formatHex(bytes);
    }
}
