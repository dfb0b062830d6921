package io.rpcc.legacy;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import com.sun.net.httpserver.HttpExchange;
import com.sun.net.httpserver.HttpServer;
import io.rpcc.client.ChainCall;
import io.rpcc.client.RpccClient;
import io.rpcc.core.ServiceFunctionException;
import io.rpcc.core.StaticNameResolver;
import io.rpcc.server.RpccServer;
import java.io.IOException;
import java.io.OutputStream;
import java.net.InetSocketAddress;
import java.time.Duration;
import java.util.Arrays;
import java.util.concurrent.BlockingQueue;
import java.util.concurrent.Executors;
import java.util.concurrent.LinkedBlockingQueue;
import java.util.concurrent.TimeUnit;
import java.util.function.LongFunction;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;

/**
 * An HTTP wrapper with a response limit of 64 KiB, against a real JDK {@code HttpServer} that sends
 * 10 and 1000 times as much: chunked (no {@code Content-Length}), with an honest
 * {@code Content-Length}, and with a lying one. Each is refused with a typed error naming the
 * endpoint, the limit and what to do, the wrapper reads no more than it must, and the node goes on
 * serving.
 */
class LegacyHttpResponseLimitTest {
    static final int LIMIT = 64 << 10;

    /** How many bytes each response's handler wrote before it finished or its connection was closed. */
    final BlockingQueue<Long> written = new LinkedBlockingQueue<>();
    final StaticNameResolver names = new StaticNameResolver();
    HttpServer http;
    String base;
    RpccServer web;
    RpccClient client;

    @BeforeEach
    void start() throws IOException {
        http = HttpServer.create(new InetSocketAddress("127.0.0.1", 0), 0);
        http.createContext("/chunked/", exchange -> send(exchange, 0, null));
        http.createContext("/announced/", exchange -> send(exchange, size(exchange), null));
        http.createContext("/lying/", exchange -> send(exchange, 0, "2"));
        http.setExecutor(Executors.newVirtualThreadPerTaskExecutor());
        http.start();
        base = "http://127.0.0.1:" + http.getAddress().getPort();

        RpccServer.Builder builder = RpccServer.builder("web").resolver(names);
        for (String kind : new String[] {"chunked", "announced", "lying"}) {
            LegacyHttp.endpoint("GET", base + "/" + kind + "/{size}").maxResponseBytes(LIMIT).registerOn(builder, kind);
        }
        web = builder.build().start();
        names.register("web", web.address());
        client = RpccClient.builder().name("alice").resolver(names).build().start();
    }

    @AfterEach
    void stop() {
        client.close();
        web.close();
        http.stop(0);
    }

    private static long size(HttpExchange exchange) {
        String path = exchange.getRequestURI().getPath();
        return Long.parseLong(path.substring(path.lastIndexOf('/') + 1));
    }

    /**
     * Sends a JSON text of {@code size} bytes ({@code "xxx..."}), with {@code length} given to
     * {@code sendResponseHeaders} (0: chunked) and, if not null, a {@code Content-Length} header of
     * its own; records how many bytes went out before the client stopped reading.
     */
    private void send(HttpExchange exchange, long length, String lyingLength) throws IOException {
        long size = size(exchange);
        if (lyingLength != null) {
            exchange.getResponseHeaders().set("Content-length", lyingLength);
        }
        exchange.getResponseHeaders().set("content-type", "application/json");
        long sent = 0;
        try (OutputStream out = exchange.getResponseBody()) {
            exchange.sendResponseHeaders(200, length);
            byte[] block = new byte[8 << 10];
            Arrays.fill(block, (byte) 'x');
            out.write('"');
            sent = 1;
            while (sent < size - 1) {
                int n = (int) Math.min(block.length, size - 1 - sent);
                out.write(block, 0, n);
                sent += n;
            }
            out.write('"');
            sent++;
        } catch (IOException closedByTheClient) {
            // the wrapper stopped reading and closed the connection
        } finally {
            written.add(sent);
        }
    }

    private String call(String kind, long size) {
        Object value = client.runChain(ChainCall.to("web", kind).params(size).deadline(Duration.ofSeconds(30)))
                .value();
        return (String) value;
    }

    /** The handler's count of bytes written, once it has finished. */
    private long written() throws InterruptedException {
        Long n = written.poll(20, TimeUnit.SECONDS);
        assertTrue(n != null, "the legacy server's handler finished");
        return n;
    }

    /** The node still serves a response at the limit, and the limit is exact. */
    private void stillServes() throws InterruptedException {
        assertEquals(LIMIT - 2, call("chunked", LIMIT).length(), "a response of exactly the limit is read");
        assertEquals(LIMIT, written());
    }

    /**
     * Calls endpoint {@code kind} for 10 and 1000 times the limit: each call is refused with
     * {@code status} (its message: what the status is followed by, for a size), the legacy server could
     * write little of the larger one, and the node goes on serving.
     */
    private void refusedAtTenAndAThousandTimesTheLimit(String kind, LongFunction<String> status)
            throws InterruptedException {
        for (long size : new long[] {10L * LIMIT, 1000L * LIMIT}) {
            ServiceFunctionException e = assertThrows(ServiceFunctionException.class, () -> call(kind, size));
            assertEquals(LegacyCallException.class.getName(), e.exceptionName());
            assertEquals("web", e.host());
            assertTrue(e.remoteMessage().contains("legacy HTTP endpoint GET " + base + "/" + kind + "/" + size
                    + " failed with status " + status.apply(size) + " (service function '" + kind + "', hop 1, node 'web')"),
                    e.remoteMessage());
            long sent = written();
            if (size == 1000L * LIMIT) {
                assertTrue(sent < size / 4, () -> "the wrapper stopped reading early: the server wrote " + sent
                        + " of " + size + " bytes");
            }
            stillServes();
        }
    }

    @Test
    void aChunkedResponseOverTheLimitIsRefusedAsItArrivesAndTheNodeGoesOnServing() throws InterruptedException {
        refusedAtTenAndAThousandTimesTheLimit("chunked", size -> "RESPONSE_TOO_LARGE: the response is larger than"
                + " this wrapper's limit of 64 KiB: more than 64 KiB arrived, and the rest was not read. If the"
                + " service's responses are that large, raise the limit (LegacyHttp.Builder.maxResponseBytes); else"
                + " ask the service for less (a page, a filter)");
    }

    @Test
    void aResponseAnnouncingMoreThanTheLimitIsRefusedFromItsContentLength() throws InterruptedException {
        refusedAtTenAndAThousandTimesTheLimit("announced", size -> "RESPONSE_TOO_LARGE: the response is larger than"
                + " this wrapper's limit of 64 KiB: it announced " + (size / 1024) + " KiB (Content-Length) and was"
                + " not read. If the service's responses are that large, raise the limit"
                + " (LegacyHttp.Builder.maxResponseBytes); else ask the service for less (a page, a filter)");
    }

    @Test
    void aResponseWithALyingContentLengthIsRefusedAndLeavesNoBytesOnAReusedConnection() throws InterruptedException {
        refusedAtTenAndAThousandTimesTheLimit("lying", size -> "INVALID_RESPONSE: the response has both"
                + " Content-Length (2) and Transfer-Encoding (chunked), so its length is ambiguous; it was not read."
                + " The legacy service must send one or the other");
    }
}
