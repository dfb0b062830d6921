package com.acme.svc;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertInstanceOf;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;


import com.acme.checkout.SequentialCheckout;
import io.rpcc.client.ChainCall;
import io.rpcc.client.ReplySet;
import io.rpcc.client.RpccClient;
import io.rpcc.core.ChainException;
import io.rpcc.core.ChainResult;
import io.rpcc.core.ChainStreamException;
import io.rpcc.core.ChainState;
import io.rpcc.core.ChainingFunctionSource;
import io.rpcc.core.ConsoleLine;
import io.rpcc.core.HopTiming;
import io.rpcc.core.ServiceFunctionException;
import io.rpcc.core.StaticRoute;
import io.rpcc.core.TypeRegistry;
import java.io.ByteArrayInputStream;
import java.io.IOException;
import java.io.InputStream;
import java.io.InterruptedIOException;
import java.io.UncheckedIOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.Comparator;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;
import java.util.function.Supplier;
import java.util.stream.Stream;
import java.util.zip.CRC32;

/**
 * The chain both integration tests run: {@code order} at the first node, {@code price} at the second,
 * {@code reserve} at the third, steered by the Java chaining function {@code functions/Checkout.java},
 * which imports {@code com.acme.svc.Order}, {@code Quote}, {@code Receipt} and {@code Progress} and sends a
 * {@code Progress} partial reply after each hop; {@code price} sends one per order line.
 */
final class Checkouts {
    /** The chaining function's source, sent with the chain and compiled by each node. */
    static final ChainingFunctionSource CHECKOUT = ChainingFunctionSource.javaResource(Checkouts.class, "/functions/Checkout.java");

    /**
     * The sequential checkout's source, shipped with the chain as a client's build ships it (the
     * rpcc-maven-plugin packages it next to the class; here it is read from the test sources).
     */
    static final ChainingFunctionSource SEQUENTIAL_CHECKOUT = sequentialSource();

    private Checkouts() {
    }

    /** The client's types: the same registrations as the nodes' (OrderModule). */
    static TypeRegistry types() {
        return OrderModule.registerTypesOn(TypeRegistry.builder()).build();
    }

    /** Runs the checkout of order {@code A-17} through {@code first}, {@code pricing} and {@code stock}, and checks the result and every reply. */
    static void runAndCheck(RpccClient client, String first, String pricing, String stock) {
        ReplySet<Progress> replies = client.startChainWithReplies(ChainCall.to(first, "order").params("A-17")
                .chainingFunction(CHECKOUT).state(ChainState.of("pricing", pricing, "stock", stock)), Progress.class);

        List<Progress> received = replies.stream().toList();
        ChainResult result = replies.result().join();

        assertEquals(new Receipt("A-17", "ada", 3 * 150 + 2 * 900, pricing, stock), result.value());
        assertEquals(List.of(first, pricing, stock), result.path());
        assertFalse(replies.isPartial(), "the reply set ended complete");
        // replies from different nodes may arrive in any order: compare them sorted
        Comparator<Progress> order = Comparator.comparing(Progress::toString);
        assertEquals(Stream.of(
                        new Progress("A-17", "loaded 2 lines for ada", first),
                        new Progress("A-17", "priced pen", pricing),
                        new Progress("A-17", "priced ink", pricing),
                        new Progress("A-17", "quoted 2250 cents", pricing),
                        new Progress("A-17", "reserved", stock)).sorted(order).toList(),
                received.stream().sorted(order).toList());
    }

    /**
     * Runs the static route {@code order} at {@code first} then {@code price} at {@code pricing} (no
     * chaining function of the application's: the route's own steers it), and checks the quote, the
     * path and the two partial replies {@code price} sends with the application's {@code Progress}.
     */
    static void runStaticRouteAndCheck(RpccClient client, String first, String pricing) {
        StaticRoute route = StaticRoute.of(StaticRoute.hop(first, "order"), StaticRoute.hop(pricing, "price"));
        ReplySet<Progress> replies = client.startChainWithReplies(ChainCall.along(route, "B-9"), Progress.class);

        List<Progress> received = replies.stream().toList();
        ChainResult result = replies.result().join();

        assertEquals(new Quote("B-9", 3 * 150 + 2 * 900, pricing), result.value());
        assertEquals(List.of(first, pricing), result.path());
        assertFalse(replies.isPartial(), "the reply set ended complete");
        assertEquals(List.of(new Progress("B-9", "priced pen", pricing), new Progress("B-9", "priced ink", pricing)),
                received, "one hop's replies arrive in the order it sent them");
    }

    /**
     * Runs the sequential checkout of order {@code S-3}: {@code order} at {@code desk}, {@code quote} at
     * {@code pricing}, {@code hold} at {@code stock}, typed calls through the service jar's interfaces
     * implemented by the classes the nodes loaded by name. Checks the result, the path, that each hop's
     * chaining code (the replay) ran at that hop's server, not at the client, and the console line the
     * code after the second call printed at {@code pricing}.
     */
    static void runSequentialAndCheck(RpccClient client, String desk, String pricing, String stock) {
        ChainResult result = client.runChain(ChainCall.sequential(SEQUENTIAL_CHECKOUT, new SequentialCheckout(),
                new CheckoutPlan("S-3", desk, pricing, stock)));

        assertEquals(new Receipt("S-3", "ada", 3 * 150 + 2 * 900, pricing, stock), result.value());
        assertEquals(List.of(desk, pricing, stock), result.path());
        assertEquals(List.of(desk, pricing, stock), result.timings().stream().map(HopTiming::host).toList());
        assertEquals(List.of("order", "quote", "hold"), result.timings().stream().map(HopTiming::serviceFunction).toList());
        for (HopTiming t : result.timings()) {
            assertEquals(t.host(), t.chainingHost(), "hop " + t.hop() + "'s replay ran at its server: " + result.timings());
        }
        assertFalse(result.interactive(), "server to server, not through the client");
        assertEquals(List.of(new ConsoleLine(2, pricing, "chaining", "quoted 2250 cents for ada")), result.console());
    }

    private static ChainingFunctionSource sequentialSource() {
        Path source = Path.of("src/test/java/com/acme/checkout/SequentialCheckout.java");
        try {
            return ChainingFunctionSource.java(Files.readString(source));
        } catch (IOException e) {
            throw new UncheckedIOException("cannot read " + source.toAbsolutePath() + " (the tests run in the module's directory)", e);
        }
    }

    /**
     * Streams {@code megabytes} MiB of text lines into the streaming service function {@code checksum} at
     * {@code node}, which reads them as they arrive, and checks its {@link Upload} (length, lines, CRC-32,
     * node) against the same figures computed here.
     */
    static Upload uploadAndCheck(RpccClient client, String node, int megabytes) {
        byte[] data = text(megabytes << 20);
        CRC32 crc = new CRC32();
        crc.update(data);
        long lines = lines(data);
        ChainResult result = client.runChain(ChainCall.to(node, "checksum").params("upload-" + megabytes + "MiB.txt")
                .stream(new ByteArrayInputStream(data)));
        Upload expected = new Upload("upload-" + megabytes + "MiB.txt", data.length, lines, crc.getValue(), node);
        assertEquals(expected, result.value());
        return expected;
    }

    /**
     * For a {@code node} whose streams may hold 256 KiB in all ({@code rpcc.streams.buffer-bytes}), the room
     * one stream starts with: while a first upload holds it (its source waits), a second is refused
     * ({@code STREAM_MEMORY}): its function reads a {@code ChainStreamException} that says so, the client
     * gets it as the service function's failure, and the node's {@code /metrics} count it. Once the first
     * ends, the node takes streams again.
     */
    static void aStreamOverTheNodesBudgetIsRefusedAndTheNodeGoesOnServing(RpccClient client, String node,
                                                                          Supplier<String> metrics) throws Exception {
        CountDownLatch sent = new CountDownLatch(1);
        CountDownLatch release = new CountDownLatch(1);
        byte[] first = text(1000);
        InputStream held = new InputStream() { // 1000 bytes, then waits for release before its end
            private int at;

            @Override
            public int read() throws IOException {
                byte[] one = new byte[1];
                return read(one, 0, 1) < 0 ? -1 : one[0] & 0xff;
            }

            @Override
            public int read(byte[] buffer, int offset, int length) throws IOException {
                if (at < first.length) {
                    int n = Math.min(length, first.length - at);
                    System.arraycopy(first, at, buffer, offset, n);
                    at += n;
                    sent.countDown();
                    return n;
                }
                try {
                    release.await();
                } catch (InterruptedException e) {
                    throw new InterruptedIOException("the test's source was interrupted");
                }
                return -1;
            }
        };
        CompletableFuture<ChainResult> holding = client.startChain(ChainCall.to(node, "checksum").params("held").stream(held));
        try {
            if (!sent.await(60, TimeUnit.SECONDS)) {
                throw new AssertionError("the first upload's data was not sent within 60 s; its chain: "
                        + (holding.isDone() ? holding.handle((r, e) -> e != null ? e.toString() : "ended with " + r).join() : "still running"));
            }
            // the same connection: b took the first stream in before this REQUEST
            ChainException refused = assertThrows(ChainException.class, () -> client.runChain(ChainCall.to(node, "checksum")
                    .params("refused").stream(new ByteArrayInputStream(text(4096)))));
            ServiceFunctionException failed = assertInstanceOf(ServiceFunctionException.class, refused, refused.toString());
            assertEquals(ChainStreamException.class.getName(), failed.exceptionName(), failed.toString());
            assertTrue(failed.getMessage().contains("streamBufferBytes") && failed.getMessage().contains("rpcc.streams.buffer-bytes"),
                    "the refusal says which budget was full: " + failed.getMessage());
            String text = metrics.get();
            assertTrue(text.lines().anyMatch(l -> l.startsWith("rpcc_refusals_total{") && l.contains("STREAM_MEMORY")
                    && !l.endsWith(" 0.0")), node + " counts the refusal in /metrics:\n" + text);
        } finally {
            release.countDown();
        }
        CRC32 crc = new CRC32();
        crc.update(first);
        assertEquals(new Upload("held", first.length, lines(first), crc.getValue(), node),
                holding.get(60, TimeUnit.SECONDS).value());
        uploadAndCheck(client, node, 2); // the node goes on serving streams, within its budget
    }

    /** The newline characters in {@code data}. */
    static long lines(byte[] data) {
        long lines = 0;
        for (byte b : data) {
            lines += b == '\n' ? 1 : 0;
        }
        return lines;
    }

    /** {@code bytes} bytes of numbered text lines. */
    static byte[] text(int bytes) {
        byte[] data = new byte[bytes];
        StringBuilder line = new StringBuilder();
        for (int at = 0, n = 0; at < bytes; n++) {
            line.setLength(0);
            line.append("line ").append(n).append(": the quick brown fox jumps over the lazy dog\n");
            for (int i = 0; i < line.length() && at < bytes; i++) {
                data[at++] = (byte) line.charAt(i);
            }
        }
        return data;
    }

    /** The service jar the build packaged (target/acme-orders.jar). */
    static Path serviceJar() {
        Path jar = Path.of(System.getProperty("acme.service.jar", "target/acme-orders.jar")).toAbsolutePath();
        if (!Files.isRegularFile(jar)) {
            throw new IllegalStateException(jar + " is missing: the integration tests run after package (Failsafe)");
        }
        return jar;
    }
}
